"""The official OpenAI instrumentation, run now: the exports it writes read as the calls the
agent made, in each content mode.

The instrumentation and the OpenTelemetry SDK come with the ``[test]`` extra. Each mode runs
in its own process, as fixtures/make_openai_v2_otel.py runs it: the instrumentation reads
its settings from the environment once per process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.toolscore_formats.test_genai import OPENAI_CALLS
from toolscore_core.traces import load_trace

ROOT = Path(__file__).parents[2]
SCRIPT = Path(__file__).parent / "fixtures" / "make_openai_v2_otel.py"
LATEST = {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}


@pytest.mark.parametrize("mode", ["span_only", "event_only"])
def test_the_instrumentation_writes_what_is_read(tmp_path, mode: str) -> None:
    target = tmp_path / f"{mode}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(LATEST, PYTHONPATH=str(ROOT))
    env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = mode
    done = subprocess.run([sys.executable, str(SCRIPT), mode, str(target)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    trace, choice = load_trace(target)
    assert choice.format == "otel"
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.turn) for c in trace.calls] == \
        OPENAI_CALLS
    assert trace.final_answer == "I could not get the weather in Atlantis."


def test_an_agent_on_an_mcp_server_reads_one_call_per_tool_run(tmp_path) -> None:
    # Run now: util-genai execute_tool spans with the mcp SDK's client and server spans of
    # the same call below them; each run is one call, whatever the SDK nests there.
    script = SCRIPT.parent / "make_mcp_agent_otel.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    for name in ("otel_export.json", "otel_sdk_spans.json"):
        trace, choice = load_trace(tmp_path / name)
        assert choice.format == "otel"
        assert [(c.id, c.tool, c.args, c.is_error) for c in trace.calls] == [
            ("call_add", "add", {"a": 2, "b": 3}, False),
            ("call_fail", "fail", {"reason": "disk full"}, True)]
        assert trace.final_answer == "2 + 3 = 5. The other tool failed: disk full."
