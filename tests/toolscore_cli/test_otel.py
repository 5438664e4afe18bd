"""``toolscore otel record`` as a user runs it: a real recorder process, a real agent
instrumented with the official OpenAI instrumentation exporting to it, then ``toolscore
eval`` of the file it wrote, with the verdicts sent back to the same recorder, which files
them beside the trace."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from tests.helpers import AGENTS, ROOT, run_cli, write_json
from tests.toolscore_judge.chat_server import ChatServer, Reply
from toolscore_otel.otlp import from_json

AGENT = AGENTS / "otel_openai_agent.py"
CONTENT = {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
           "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_AND_EVENT"}


@contextmanager
def recording(folder: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``toolscore otel record -o folder`` on any free port: the process and its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "toolscore_cli", "otel", "record", "-o", str(folder),
         "--listen", "127.0.0.1:0", *args], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        assert match, line
        yield process, match.group(1)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def _stop(process: subprocess.Popen[str], signum: int = signal.SIGINT) -> str:
    process.send_signal(signum)
    assert process.wait(10) == 0
    assert process.stderr is not None
    return process.stderr.read()


def _wait_for_file(folder: Path, timeout: float = 10) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = sorted(folder.glob("????????????????????????????????.json"))
        if files:
            return files[0]
        time.sleep(0.05)
    raise AssertionError(f"nothing written in {folder}")


def _spans(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [span for resource in document["resourceSpans"] for scope in resource["scopeSpans"]
            for span in scope["spans"]]


def _value(value: dict[str, Any]) -> Any:
    """An OTLP JSON ``AnyValue`` as plain JSON."""
    [(kind, item)] = value.items()
    if kind == "arrayValue":
        return [_value(v) for v in item.get("values", [])]
    if kind == "kvlistValue":
        return {kv["key"]: _value(kv["value"]) for kv in item.get("values", [])}
    return item


def _attributes(item: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in item.get("attributes", [])}


@pytest.mark.process  # a real recorder process and a real instrumented agent
@pytest.mark.slow
def test_a_real_instrumented_agent_is_recorded_and_its_file_evaluates(tmp_path: Path) -> None:
    folder = tmp_path / "traces"
    chat = ChatServer([Reply(tool_calls=[{"id": "call_1", "type": "function", "function": {
        "name": "get_weather", "arguments": '{"city": "Paris"}'}}]),
                       Reply(content="It is 18C and sunny in Paris.")])
    with recording(folder, "--idle", "0.3") as (recorder, url), chat.running():
        agent = subprocess.run(
            [sys.executable, str(AGENT), chat.url, "What is the weather in Paris?"],
            env={**os.environ, **CONTENT, "OTEL_EXPORTER_OTLP_ENDPOINT": url},
            capture_output=True, text=True, timeout=60)
        assert agent.returncode == 0, agent.stderr
        assert agent.stdout.strip() == "It is 18C and sunny in Paris."
        path = _wait_for_file(folder)
        recorded = json.loads(path.read_text())
        trace_id = path.stem
        spans = _spans(recorded)
        assert {s["traceId"] for s in spans} == {trace_id}
        by_name = {s["name"]: s for s in spans}
        assert sorted(by_name) == ["chat gpt-4.1-mini", "execute_tool get_weather",
                                   "invoke_agent weather"]
        tool = _attributes(by_name["execute_tool get_weather"])
        assert (tool["gen_ai.tool.call.id"], tool["gen_ai.tool.call.arguments"]) == (
            "call_1", '{"city":"Paris"}')
        # the model's messages also went out as log records (content in events), same trace
        logs = [r for resource in recorded["resourceLogs"] for scope in resource["scopeLogs"]
                for r in scope["logRecords"]]
        assert [r["eventName"] for r in logs] == ["gen_ai.client.inference.operation.details"] * 2
        assert {r["traceId"] for r in logs} == {trace_id}
        # structured values come through whole: the call as a message part, as the model gave it
        first = {a["key"]: _value(a["value"]) for a in logs[0]["attributes"]}
        assert first["gen_ai.output.messages"] == [{
            "role": "assistant", "finish_reason": "tool_calls",
            "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather",
                       "arguments": {"city": "Paris"}}]}]

        gold = write_json(tmp_path / "gold.json", [{"tool": "get_weather",
                                                    "args": {"city": "Paris"}}])
        receipt = tmp_path / "run.receipt.json"
        evaluated = run_cli("eval", str(gold), str(path), "--otel", "--receipt", str(receipt),
                            env={"OTEL_EXPORTER_OTLP_ENDPOINT": url})
        assert evaluated.returncode == 0, evaluated.stderr
        assert "Score 100.0% A  (1 call vs 1 expected, format otel)" in evaluated.stdout
        assert "Evidence: 6 pass, 0 fail, 0 unknown" in evaluated.stdout
        assert f"otel: 15 evaluation events sent to {url}/v1/logs" in evaluated.stderr
        recorded_bytes = path.read_bytes()
        verdicts_path = folder / f"{trace_id}.evaluations.json"
        deadline = time.monotonic() + 10
        while not verdicts_path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        stderr = _stop(recorder)
    assert f"wrote {path}" in stderr and f"wrote {verdicts_path}" in stderr
    # the verdicts are filed beside their trace, whose evidence stays as the receipt bound it
    assert path.read_bytes() == recorded_bytes
    assert run_cli("verify", str(receipt)).returncode == 0
    document = json.loads(verdicts_path.read_text())
    assert document["resourceSpans"] == []
    request = from_json({"resourceLogs": document["resourceLogs"]}, ExportLogsServiceRequest())
    verdicts = [r for resource in request.resource_logs for scope in resource.scope_logs
                for r in scope.log_records if r.event_name == "gen_ai.evaluation.result"]
    assert len(verdicts) == 15
    agent_span = by_name["invoke_agent weather"]["spanId"]
    assert {(r.trace_id.hex(), r.span_id.hex()) for r in verdicts} == {(trace_id, agent_span)}
    names = {a.key: a.value.string_value for a in verdicts[0].attributes}
    assert names["gen_ai.evaluation.name"] == "score"
    assert names["gen_ai.evaluation.score.label"] == "A"
    assert names["gen_ai.response.id"] == "chatcmpl-test"


@pytest.mark.process  # a real recorder process, stopped by a signal
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_stopping_the_recorder_writes_every_trace_it_holds(tmp_path: Path, signum: int) -> None:
    folder = tmp_path / "traces"
    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "00f067aa0ba902b7",
            "parentSpanId": "eee19b7ec3c1b174", "name": "execute_tool f",
            "attributes": [{"key": "gen_ai.operation.name",
                            "value": {"stringValue": "execute_tool"}},
                           {"key": "gen_ai.tool.name", "value": {"stringValue": "f"}}]}
    body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()
    with recording(folder, "--idle", "600") as (recorder, url):
        import urllib.request

        request = urllib.request.Request(f"{url}/v1/traces", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200
        time.sleep(0.3)
        assert not folder.exists() or not list(folder.glob("*.json"))  # no root, not idle
        _stop(recorder, signum)
    [path] = folder.glob("*.json")
    assert path.name == "5b8efff798038103d269b633813fc60c.json"
    assert [s["spanId"] for s in _spans(json.loads(path.read_text()))] == ["00f067aa0ba902b7"]
    assert not list(folder.glob(".*.tmp"))


def test_listening_beyond_loopback_needs_allow_remote(tmp_path: Path) -> None:
    result = run_cli("otel", "record", "-o", str(tmp_path), "--listen", "0.0.0.0:0")
    assert result.returncode == 2
    assert result.stderr.strip() == ("error: --listen: 0.0.0.0 is not a loopback address; "
                                     "listen on 127.0.0.1, or pass --allow-remote to accept "
                                     "other hosts")


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("otel", "record", "-o", str(tmp_path / "traces"), "--listen",
                         f"127.0.0.1:{port}")
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: --listen: cannot listen on 127.0.0.1:{port} (")
    assert not (tmp_path / "traces").exists()
