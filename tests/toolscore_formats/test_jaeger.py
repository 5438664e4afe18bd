"""Jaeger JSON exports: execute_tool spans read as the otel reader reads them, times in µs."""

from __future__ import annotations

from typing import Any

import pytest

from toolscore_core.errors import InputError
from toolscore_core.traces import parse_trace


def test_adk_spans_named_execute_tool_are_calls_timed_from_microseconds(read) -> None:
    trace, choice = read("jaeger_adk_spans.json")
    assert choice.format == "jaeger"
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.duration) for c in trace.calls] == [
        ("helm_get_release", None, None, None, False, 0.2),
        ("helm_list_releases", None, None, None, False, 0.2),
    ]
    assert trace.calls[0].timestamp == "2026-02-24T02:26:41.200000000Z"
    # ADK keeps its answer in its own llm_response tag, not gen_ai.output.messages.
    assert trace.final_answer is None


def _span(span_id: str, name: str, start: int, duration: int, *tags: tuple[str, str, Any],
          parent: str | None = None) -> dict[str, Any]:
    return {"traceID": "t", "spanID": span_id, "operationName": name, "startTime": start,
            "duration": duration, "processID": "p1",
            "references": [{"refType": "CHILD_OF", "traceID": "t", "spanID": parent}]
            if parent else [],
            "tags": [{"key": k, "type": t, "value": v} for k, t, v in tags]}


def _export(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"data": [{"traceID": "t", "spans": list(spans),
                      "processes": {"p1": {"serviceName": "agent", "tags": []}}}]}


def test_genai_tags_ids_arguments_results_errors_and_the_final_answer() -> None:
    export = _export(
        _span("a", "invoke_agent", 1_000_000, 3_000_000,
              ("gen_ai.operation.name", "string", "invoke_agent")),
        _span("b", "execute_tool search", 1_100_000, 250_000,
              ("gen_ai.operation.name", "string", "execute_tool"),
              ("gen_ai.tool.name", "string", "search"),
              ("gen_ai.tool.call.id", "string", "call_1"),
              ("gen_ai.tool.call.arguments", "string", '{"q": "orders"}'),
              ("gen_ai.tool.call.result", "string", '{"count": 0}'), parent="a"),
        _span("c", "execute_tool refund", 1_400_000, 1,
              ("gen_ai.operation.name", "string", "execute_tool"),
              ("gen_ai.tool.name", "string", "refund"),
              ("gen_ai.tool.call.id", "string", "call_2"),
              ("otel.status_code", "string", "ERROR"),
              ("otel.status_description", "string", "window closed"), parent="a"),
        _span("d", "chat gpt-4.1", 2_000_000, 500_000,
              ("gen_ai.operation.name", "string", "chat"),
              ("gen_ai.response.model", "string", "gpt-4.1"),
              ("gen_ai.output.messages", "string",
               '[{"role": "assistant", "parts": [{"type": "text", "content": "None open."}]}]'),
              parent="a"),
    )
    trace, choice = parse_trace(export)
    assert choice.format == "jaeger"
    search, refund = trace.calls
    assert (search.id, search.args, search.result, search.is_error) == (
        "call_1", {"q": "orders"}, {"count": 0}, False)
    assert search.duration == pytest.approx(0.25)
    assert (refund.id, refund.is_error, refund.error, refund.duration) == (
        "call_2", True, "window closed", pytest.approx(1e-6))
    assert (trace.final_answer, trace.model) == ("None open.", "gpt-4.1")
    assert trace.run_duration == pytest.approx(3.0)


def test_an_export_without_genai_spans_is_refused_with_a_reason() -> None:
    export = _export(_span("a", "/api/services/{service}/operations", 1729181197748657, 1503,
                           ("http.method", "string", "GET"), ("http.status_code", "int64", 200)))
    with pytest.raises(InputError, match="without OpenTelemetry GenAI tool spans"):
        parse_trace(export)


def test_an_error_tag_without_a_description_fails_the_call_and_otlp_is_not_claimed() -> None:
    export = _export(_span("a", "execute_tool f", 10, 5, ("error", "bool", True)))
    (call,) = parse_trace(export)[0].calls
    assert (call.tool, call.is_error, call.error) == ("f", True, None)
    assert parse_trace({"resourceSpans": []}, trace_format="auto")[1].format == "otel"


def test_near_misses_name_what_a_jaeger_export_misses() -> None:
    from toolscore_formats.jaeger import near
    span = {"traceID": "t", "spanID": "1", "operationName": "execute_tool f", "tags": []}
    trace = {"traceID": "t", "spans": [span]}
    assert near([trace, trace]) == 'Jaeger traces as a bare list: wrap them as {"data": [...]}'
    assert near({"data": [{"traceID": "t", "spans": [span, {"name": "x"}]}]}) == (
        "a Jaeger export, but $.data[0].spans[1] is not a Jaeger span (operationName and "
        "spanID)")
    assert near({"data": [trace, {"spans": "none"}]}) == (
        'a Jaeger export, but $.data[1] is not a trace ("traceID" and a "spans" list)')
    assert near({"data": [1, 2]}) is None and near({"data": []}) is None
    assert near({"hello": 1}) is None and near([1]) is None
