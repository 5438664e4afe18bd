"""Pydantic AI's tool spans before it set ``gen_ai.operation.name`` (its instrumentation
versions 1 and 2, the default until 2026): a span named ``running tool`` with
``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``tool_arguments`` and ``tool_response``.

The attributes are Pydantic AI's own test snapshot of such a span
(fixtures/pydantic_ai_running_tool_attributes.json, see fixtures/SOURCES.md): a tool that
raised ``ModelRetry``, and the same tool returning 84. The snapshot holds attributes only, so
each test gives one span the envelope an OTLP exporter writes (the span name is the one
Pydantic AI's tool manager starts the span with).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolscore_core.traces import parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
START = 1_750_000_000_000_000_000


def _attributes() -> list[dict[str, Any]]:
    records = json.loads((FIXTURES / "pydantic_ai_running_tool_attributes.json").read_text())
    assert isinstance(records, list)
    return records


def _export(attributes: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    span = {"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7",
            "name": "running tool", "startTimeUnixNano": str(START),
            "endTimeUnixNano": str(START + 1_500_000), "status": status,
            "attributes": [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int)
                            else {"stringValue": v}} for k, v in attributes.items()]}
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "pydantic-ai"},
                                               "spans": [span]}]}]}


def test_a_running_tool_span_is_the_call_with_its_arguments_and_result() -> None:
    trace, choice = parse_trace(_export(_attributes()[1], {}))
    assert choice.format == "otel"
    [call] = trace.calls
    assert (call.tool, call.args, call.result, call.is_error, call.error) == (
        "add_numbers", {"x": 42, "y": 42}, "84", False, None)
    assert call.duration == 0.0015
    assert call.timestamp == "2025-06-15T15:06:40.000000000Z"
    # The snapshot leaves the call id out (a generated one): unknown, not invented.
    assert call.id is None
    assert "calls from 1 execute_tool span" in choice.reason


def test_a_tool_that_asked_for_a_retry_is_a_failed_call() -> None:
    # ModelRetry leaves the span as an exception: the OpenTelemetry SDK sets the ERROR
    # status (Logfire's level 17 in the snapshot); tool_response is the retry prompt.
    trace, _ = parse_trace(_export(_attributes()[0], {"code": 2}))
    [call] = trace.calls
    assert (call.tool, call.args, call.is_error) == ("add_numbers", {"x": 42, "y": 42}, True)
    assert call.result == "Tool error\n\nFix the errors and try again."


def test_a_span_named_running_tool_without_a_tool_name_is_not_a_call() -> None:
    attributes = {k: v for k, v in _attributes()[1].items() if k != "gen_ai.tool.name"}
    trace, _ = parse_trace(_export(attributes, {}))
    assert trace.calls == ()
    assert any(note.startswith("no tool call in this export") for note in trace.notes)
