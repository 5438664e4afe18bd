"""The Vercel AI SDK's own spans (``ai.*``, its default telemetry before the GenAI conventions
and ``LegacyOpenTelemetry`` since): a tool's ``ai.toolCall`` span is the call, the model-call
spans' messages say what was asked and answered.

The spans are the SDK's own test snapshot of a two-step ``streamText`` run
(fixtures/vercel_ai_legacy_otel_steps.json, see fixtures/SOURCES.md): the SDK's mock tracer
records each span's name, attributes and events, not its ids or times, so each test gives
them the envelope an exporter would (OTLP JSON, a Jaeger export).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolscore_core.traces import parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
TRACE_ID = "5b8efff798038103d269b633813fc60c"
START = 1_760_000_000_000_000_000  # the envelope's times: the snapshot records none


def _records() -> list[dict[str, Any]]:
    records = json.loads((FIXTURES / "vercel_ai_legacy_otel_steps.json").read_text())
    assert isinstance(records, list)
    return records


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"arrayValue": {"values": [_value(item) for item in value]}}


def _otlp(records: list[dict[str, Any]], *, timed: bool = False) -> dict[str, Any]:
    """The records as one OTLP JSON export, spans in the snapshot's order (a span's number is
    its id; timed: each span lasts 0.25 s from the previous one's start)."""
    spans = []
    for number, record in enumerate(records, 1):
        span: dict[str, Any] = {
            "traceId": TRACE_ID, "spanId": f"{number:016x}", "name": record["name"],
            "attributes": [{"key": k, "value": _value(v)}
                           for k, v in record["attributes"].items()],
            "events": [{"name": event["name"],
                        "attributes": [{"key": k, "value": _value(v)}
                                       for k, v in event.get("attributes", {}).items()]}
                       for event in record["events"]],
        }
        if "status" in record:
            span["status"] = record["status"]
        if timed:
            span["startTimeUnixNano"] = str(START + number * 250_000_000)
            span["endTimeUnixNano"] = str(START + (number + 1) * 250_000_000)
        spans.append(span)
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "ai"}, "spans": spans}]}]}


def _jaeger(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The records as a Jaeger export: attributes as tags, an event as a log."""
    def tag(key: str, value: Any) -> dict[str, Any]:
        return {"key": key, "type": "int64" if isinstance(value, int) else "string",
                "value": value if isinstance(value, int | str) else json.dumps(value)}

    spans = [{"traceID": TRACE_ID, "spanID": f"{number:016x}", "operationName": record["name"],
              "references": [], "startTime": 1_760_000_000_000_000 + number * 250_000,
              "duration": 250_000,
              "tags": [tag(k, v) for k, v in record["attributes"].items()],
              "logs": [{"timestamp": 1_760_000_000_000_000, "fields": [
                  {"key": "event", "type": "string", "value": event["name"]}]}
                  for event in record["events"]]}
             for number, record in enumerate(records, 1)]
    return {"data": [{"traceID": TRACE_ID, "spans": spans, "processes": {}}]}


def test_the_tool_call_span_is_the_call_with_its_arguments_and_result() -> None:
    trace, choice = parse_trace(_otlp(_records(), timed=True))
    assert choice.format == "otel"
    [call] = trace.calls
    assert (call.tool, call.id, call.args, call.result, call.is_error, call.error) == (
        "tool1", "call-1", {"value": "value"}, "result1", False, None)
    # ai.toolCall.result is JSON.stringify("result1"): the string, not its quoted text.
    assert call.duration == 0.25
    assert call.timestamp == "2025-10-09T08:53:20.750000000Z"
    assert call.turn == 1  # the one user message of the model calls' input
    assert trace.final_answer == "Hello, world!"
    assert trace.model == "mock-model-id"
    assert "no tool call" not in " ".join(trace.notes)
    assert "1 Vercel AI SDK ai.toolCall span" in choice.reason
    assert "joined 1 by call id" in choice.reason


def test_the_same_spans_in_a_jaeger_export_give_the_same_call() -> None:
    trace, choice = parse_trace(_jaeger(_records()))
    assert choice.format == "jaeger"
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.duration) for c in trace.calls] == [
        ("tool1", "call-1", {"value": "value"}, "result1", False, 0.25)]
    assert trace.final_answer == "Hello, world!"


def test_a_tool_that_threw_is_a_failed_call_with_the_error_message() -> None:
    # What the SDK's own test asserts of a tool whose execute throws: status code 2 with the
    # message, an exception event, and no ai.toolCall.result.
    records = _records()
    tool = records[2]
    tool["attributes"] = {k: v for k, v in tool["attributes"].items()
                          if k != "ai.toolCall.result"}
    tool["status"] = {"code": 2, "message": "Tool execution failed"}
    tool["events"] = [{"name": "exception", "attributes": {
        "exception.message": "Tool execution failed", "exception.name": "Error"}}]
    # The failure is not in the next model call's history either: only the span tells.
    del records[3]
    trace, _ = parse_trace(_otlp(records, timed=True))
    [call] = trace.calls
    assert (call.tool, call.args, call.result, call.is_error, call.error) == (
        "tool1", {"value": "value"}, None, True, "Tool execution failed")


def test_a_call_no_tool_span_ran_is_read_from_the_model_calls_messages() -> None:
    # A tool without execute (run by the client): the model asked for it, the next model
    # call's input holds its result, and no ai.toolCall span exists.
    records = [r for r in _records() if r["name"] != "ai.toolCall"]
    trace, choice = parse_trace(_otlp(records))
    [call] = trace.calls
    assert (call.tool, call.id, call.args, call.result, call.is_error) == (
        "tool1", "call-1", {"value": "value"}, "result1", False)
    assert (call.duration, call.timestamp) == (None, None)  # nothing timed the tool
    assert "1 call in message parts of span attributes" in choice.reason


def test_a_call_only_a_later_model_calls_history_holds_is_not_counted() -> None:
    # The second step alone (an export that starts after the tool ran): its input history
    # repeats call-1, which this export did not see made.
    trace, _ = parse_trace(_otlp([_records()[3]]))
    assert trace.calls == ()
    assert trace.final_answer == "Hello, world!"
    assert trace.notes == (
        "1 call only in the chats' input history (asked for before this export's first chat):"
        " not counted",
        "no tool call in this export (1 span: no execute_tool span and no tool_call message "
        "part)")
