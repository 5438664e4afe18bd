"""Conformance: every reference trace in ../shared/corpus reads to its hand-made expectation.

The corpus README's comparison rules apply: null means absent; ids compare as strings; a
timestamp as epoch seconds equals its ISO rendering; a JSON-in-string result may be decoded;
a failed call's result may be null or its error text; a missing ``arguments`` may be null or
``{}``. ``core`` examples must match; ``edge`` examples must match or be refused with a clear
"unsupported" InputError.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.errors import InputError
from toolscore_core.models import ToolCall, Trace
from toolscore_core.traces import load_trace

CORPUS = Path(__file__).parents[2].parent / "shared" / "corpus"
MANIFEST = CORPUS / "manifest.json"

# Where the hand-made expectation contradicts its own raw file, the raw file wins; each
# entry says what the raw file holds instead.
ERRATA: dict[str, dict[str, Any]] = {
    # The expected ids (call_6Yvur..., call_QSiqE...) appear nowhere in the raw file, whose
    # tool_calls and tool messages use call_JpNb8... and call_vaFQc3...
    "openai_chat/otel-contrib-cassette-parallel-tool-messages.json": {
        "ids": ["call_JpNb8OiAkbIbHzDggfpdDHpi", "call_vaFQc3zK6hHTRZKXRI5Eo2cJ"],
    },
    # The expectation reads the execute_tool span only; the last openai.chat span's
    # gen_ai.completion.0.content (OpenLLMetry's attributes) holds the agent's answer.
    "otel/agentevals-kagent-adk-tempo-export.json": {
        "final_answer_starts": "There are two Helm releases currently deployed:\n\n1. Release",
    },
}


def _examples() -> list[Any]:
    if not MANIFEST.is_file():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"no corpus at {CORPUS}"))]
    entries = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return [pytest.param(entry, id=entry["file"]) for entry in entries]


def _decoded(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return _decoded(json.loads(value))
        except (json.JSONDecodeError, RecursionError):
            return value
    return value


def _same_result(expected: dict[str, Any], call: ToolCall) -> bool:
    want, got = expected["result"], call.result
    if expected["is_error"] and (got is None or got == expected["error"]):
        return True
    if want == got or _decoded(want) == _decoded(got):
        return True
    # An MCP text block holding JSON, or a wrapped value, read either way.
    if isinstance(want, dict) and set(want) == {"content"}:
        return _decoded(want["content"]) == _decoded(got)
    return False


def _epoch(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def _check_call(expected: dict[str, Any], call: ToolCall, where: str) -> None:
    assert call.tool == expected["tool"], where
    assert call.id == expected["id"], where
    want_args = expected["args"]
    if want_args is None:
        assert call.args in (None, {}), where
    elif isinstance(want_args, dict) and set(want_args) == {"input"} and call.args is None:
        assert call.raw_args == want_args["input"], where
    else:
        assert call.args == want_args, where
    assert call.is_error == expected["is_error"], where
    if expected["error"] is not None:
        assert call.error == expected["error"], where
    else:
        assert call.error is None, where
    assert _same_result(expected, call), f"{where}: result {call.result!r}"
    if expected["duration_s"] is None:
        assert call.duration is None, where
    else:
        assert call.duration is not None
        assert math.isclose(call.duration, expected["duration_s"], rel_tol=1e-6), where
    assert call.cost is None, where
    want_time, got_time = _epoch(expected["timestamp"]), _epoch(call.timestamp)
    if want_time is None:
        assert got_time is None, where
    else:
        assert got_time is not None and abs(got_time - want_time) < 1e-5, where


def _check_trace(entry: dict[str, Any], expected: dict[str, Any], trace: Trace) -> None:
    errata = ERRATA.get(entry["file"], {})
    assert len(trace.calls) == len(expected["calls"]), [c.tool for c in trace.calls]
    for index, (want, call) in enumerate(zip(expected["calls"], trace.calls, strict=True)):
        if "ids" in errata:
            want = {**want, "id": errata["ids"][index]}
        _check_call(want, call, f"{entry['file']} call {index}")
    if "final_answer_starts" in errata:
        assert (trace.final_answer or "").startswith(errata["final_answer_starts"])
    else:
        assert trace.final_answer == expected["final_answer"]
    run = expected.get("run_level") or {}
    if "total_cost_usd" in run:
        assert trace.run_cost == run["total_cost_usd"]
        assert trace.run_duration == run["duration_s"]
    # A run total never becomes a per-call value.
    assert all(call.cost is None for call in trace.calls)


@pytest.mark.parametrize("entry", _examples())
def test_corpus_example(entry: dict[str, Any]) -> None:
    expected = json.loads((CORPUS / entry["expected"]).read_text(encoding="utf-8"))
    try:
        trace, _ = load_trace(CORPUS / entry["file"])
    except InputError as exc:
        assert entry["tier"] == "edge", f"a core example was refused: {exc}"
        assert "unsupported" in str(exc)
        return
    if entry["tier"] == "edge" and len(trace.calls) != len(expected["calls"]):
        # An edge example may leave out what it does not support, if it says so.
        assert trace.notes, "calls left out without a note"
        kept = {c.id for c in trace.calls}
        expected = {**expected, "calls": [c for c in expected["calls"] if c["id"] in kept]}
    if entry["file"] == "mcp/go-sdk-conformance-tools.json":
        # The nameless tools/call (id 5) is reported in the notes, not made a call.
        assert any("id 5 names no tool" in note for note in trace.notes)
        expected = {**expected, "calls": [c for c in expected["calls"] if c["tool"]]}
    _check_trace(entry, expected, trace)


def test_every_corpus_file_is_claimed_by_exactly_one_format() -> None:
    if not MANIFEST.is_file():
        pytest.skip(f"no corpus at {CORPUS}")
    from toolscore_core.plugins import default_registry
    from toolscore_core.traces import choose_format, decode_trace_bytes

    formats = default_registry().trace_formats
    for entry in json.loads(MANIFEST.read_text(encoding="utf-8")):
        path = CORPUS / entry["file"]
        document = decode_trace_bytes(path.read_bytes(), file=str(path))
        choice = choose_format(document, formats, file=str(path))
        if entry["format"] != "toolscore":
            assert choice.format == entry["format"], entry["file"]
