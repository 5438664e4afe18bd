"""OpenLLMetry's (Traceloop's) tool spans are not read as calls, and the trace says so rather
than "no tool call in this export".

A function decorated with traceloop-sdk's ``@tool`` gets a span named ``{name}.tool`` with
``traceloop.span.kind`` ``tool``, ``traceloop.entity.name``, ``gen_ai.tool.name`` and, with
content on, ``traceloop.entity.input`` (``{"args": [...], "kwargs": {...}}``) and
``traceloop.entity.output`` (traceloop-sdk's decorators/base.py, github.com/traceloop/openllmetry
at 93429cfb9767e6b51db6cb35f6b70f758117669a). No public export of such spans was found, so the
spans here are written from those attribute names.
"""

from __future__ import annotations

from typing import Any

from toolscore_core.traces import parse_trace

TRACE_ID = "5f90e0fae91e2682e8f9c444b888ab2b"


def _span(span_id: str, name: str, attributes: dict[str, str]) -> dict[str, Any]:
    return {"traceId": TRACE_ID, "spanId": span_id, "name": name,
            "startTimeUnixNano": "1788795791003811000",
            "endTimeUnixNano": "1788795791027364000",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]}


TOOL = _span("e0d3487f0a1b761d", "lookup_order.tool", {
    "traceloop.span.kind": "tool", "traceloop.entity.name": "lookup_order",
    "gen_ai.tool.name": "lookup_order",
    "traceloop.entity.input": '{"args": [], "kwargs": {"order_id": "A-1187"}}',
    "traceloop.entity.output": '{"status": "in transit"}'})


def _export(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "traceloop.tracer"},
                                               "spans": list(spans)}]}]}


def test_an_export_of_tool_spans_alone_says_the_calls_are_unknown() -> None:
    trace, choice = parse_trace(_export(TOOL))
    assert choice.format == "otel"
    assert trace.calls == ()
    assert trace.notes == (
        "no tool call read: OpenLLMetry tool spans (traceloop.span.kind tool) are not read as "
        "calls (1 in this export) and no GenAI attribute holds one: which calls were made is "
        "unknown",)


def test_calls_the_chat_attributes_hold_are_read_and_the_tool_spans_noted() -> None:
    chat = _span("8ed2ac9258fd12cf", "openai.chat", {
        "gen_ai.operation.name": "chat",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.tool_calls.0.id": "call_9RtYbK2mXqLp",
        "gen_ai.completion.0.tool_calls.0.name": "lookup_order",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"order_id": "A-1187"}'})
    trace, _ = parse_trace(_export(chat, TOOL))
    assert [(c.id, c.tool, c.args) for c in trace.calls] == [
        ("call_9RtYbK2mXqLp", "lookup_order", {"order_id": "A-1187"})]
    assert "1 OpenLLMetry tool span (traceloop.span.kind tool) not read as calls: the calls " \
        "read are the ones the GenAI attributes hold" in trace.notes
