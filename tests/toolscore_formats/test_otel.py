"""OpenTelemetry GenAI: execute_tool and MCP tools/call spans in OTLP JSON and span lists."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.models import FormatChoice, Trace
from toolscore_core.traces import parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
Read = Callable[[str], tuple[Trace, FormatChoice]]


def test_otlp_export_exact_nanoseconds_errors_and_nested_mcp_spans(read: Read) -> None:
    trace, choice = read("otel_export.json")
    assert choice.format == "otel"
    # Each execute_tool span holds the MCP SDK's client and server spans of the same call:
    # one call each, joined to the model's request by call id.
    add, fail = trace.calls
    assert (add.id, add.tool, add.args, add.result, add.is_error) == (
        "call_add", "add", {"a": 2, "b": 3}, "5", False)
    # Integers beyond 2**53 are exact: a float would lose the last nanosecond digits.
    assert add.timestamp == "2026-12-06T21:21:19.956587777Z"
    assert add.duration == pytest.approx(0.06006783, abs=1e-12)
    assert (fail.id, fail.args, fail.is_error, fail.error) == (
        "call_fail", {"reason": "disk full"}, True, "Error executing tool fail: disk full")
    assert trace.final_answer == "2 + 3 = 5. The other tool failed: disk full."
    assert trace.model == "gpt-4o-mini"
    # The agent span's duration is a run total, never spread over the calls.
    assert trace.run_duration == pytest.approx(0.099769383, abs=1e-12)
    assert all(c.cost is None for c in trace.calls)
    # The MCP SDK's client spans (MCP send tools/call add, ... fail) are those calls again.
    assert trace.notes == ()


def test_sdk_span_list_with_iso_times(read: Read) -> None:
    # The same run as the SDK's ConsoleSpanExporter writes it: ISO times in microseconds.
    trace, choice = read("otel_sdk_spans.json")
    assert "list of OpenTelemetry spans" in choice.reason
    add, fail = trace.calls
    assert (add.id, add.result, add.is_error) == ("call_add", "5", False)
    assert add.duration == pytest.approx(0.060068)
    assert add.timestamp == "2026-12-06T21:21:19.956588000Z"
    assert (fail.is_error, fail.error) == (True, "Error executing tool fail: disk full")
    assert trace.notes == ()
    assert trace.final_answer == "2 + 3 = 5. The other tool failed: disk full."


def test_malformed_arguments_stay_raw_and_flagged() -> None:
    # Constructed: an execute_tool span whose argument string is cut short.
    spans = [{"name": "execute_tool refund", "spanId": "1", "startTimeUnixNano": "10",
              "endTimeUnixNano": "20", "status": {"code": 2, "message": "window closed"},
              "attributes": [
                  {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                  {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": '{"order": '}}]}]
    trace, _ = parse_trace(spans)
    (refund,) = trace.calls
    assert refund.args is None and refund.raw_args == '{"order": '
    assert (refund.is_error, refund.error) == (True, "window closed")


def test_an_mcp_server_span_below_the_sdk_client_span_is_the_same_call() -> None:
    # Constructed after the MCP Python SDK's spans: execute_tool add, the SDK's client span
    # (its tool only in the span name), then the server's tools/call span.
    def span(span_id: str, name: str, parent: str | None, **attributes: str) -> dict[str, Any]:
        return {"name": name, "spanId": span_id, "parentSpanId": parent,
                "startTimeUnixNano": "10", "endTimeUnixNano": "20",
                "attributes": [{"key": k.replace("_", "."), "value": {"stringValue": v}}
                               for k, v in attributes.items()]}

    spans = [span("1", "execute_tool add", None, gen_ai_operation_name="execute_tool",
                  gen_ai_tool_name="add"),
             span("2", "MCP send tools/call add", "1", mcp_method_name="tools/call"),
             span("3", "tools/call add", "2", mcp_method_name="tools/call",
                  gen_ai_operation_name="execute_tool", gen_ai_tool_name="add")]
    trace, _ = parse_trace(spans)
    assert [c.tool for c in trace.calls] == ["add"]
    # Without the execute_tool span, the server span is the call.
    trace, _ = parse_trace(spans[1:])
    assert [c.tool for c in trace.calls] == ["add"]


def _mcp_run_without(*dropped: str) -> dict[str, Any]:
    """otel_export.json without the spans whose names start with one of ``dropped``."""
    export: dict[str, Any] = json.loads((FIXTURES / "otel_export.json").read_text(
        encoding="utf-8"))
    for group in export["resourceSpans"]:
        for scope in group["scopeSpans"]:
            scope["spans"] = [s for s in scope["spans"] if not s["name"].startswith(dropped)]
    return export


def test_the_mcp_sdk_client_span_alone_is_the_call_with_unknown_outcome() -> None:
    # Constructed from otel_export.json: only the MCP SDK's client spans are left, as a client
    # whose server and agent export elsewhere writes them.
    export = _mcp_run_without("execute_tool", "tools/call", "chat", "invoke_agent")
    trace, choice = parse_trace(export)
    add, fail = trace.calls
    # The span names its tool only in its name; its id is the JSON-RPC request's.
    assert (add.tool, add.id, add.args, add.result) == ("add", "2", None, None)
    assert add.duration == pytest.approx(0.002444208, abs=1e-12)
    # The server answered both; fail's answer was a tool error (isError), which the client
    # span does not record: the outcome is unknown, not a success.
    assert (fail.tool, fail.id, add.is_error, fail.is_error) == ("fail", "4", None, None)
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 2 MCP client spans")


def test_the_mcp_sdk_client_span_takes_the_models_request_of_its_tool() -> None:
    # Constructed from otel_export.json: the chats hold the model's requests and the tool
    # messages, the SDK's client spans time the calls (no execute_tool or server span).
    export = _mcp_run_without("execute_tool", "tools/call")
    trace, _ = parse_trace(export)
    assert [(c.id, c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("call_add", "add", {"a": 2, "b": 3}, "5", False),
        ("call_fail", "fail", {"reason": "disk full"}, "Error executing tool fail: disk full",
         False)]
    assert [c.duration for c in trace.calls] == [pytest.approx(0.002444208, abs=1e-12),
                                                  pytest.approx(0.001733589, abs=1e-12)]
    assert trace.notes == ("2 MCP client spans joined to the model's request by tool name and "
                           "order (no call id in common)",)


def test_the_mcp_server_span_below_the_client_span_is_the_call() -> None:
    # Constructed from otel_export.json: the MCP SDK's client and server spans, no agent's.
    export = _mcp_run_without("execute_tool", "chat", "invoke_agent")
    trace, _ = parse_trace(export)
    add = trace.calls[0]
    # The server span records the tool's error (isError) that the client span does not.
    assert [(c.tool, c.id, c.is_error, c.error) for c in trace.calls] == [
        ("add", "2", False, None), ("fail", "4", True, "tool_error")]
    assert add.duration == pytest.approx(0.001275272, abs=1e-12)
    assert trace.notes == ()


def test_the_mcp_server_span_takes_the_models_request_of_its_tool() -> None:
    # Constructed from otel_export.json: the chats and the MCP server spans (an MCP server
    # instrumented, the agent's tools not). The server span's JSON-RPC id ("2") numbers the
    # session's requests: the model's request of the tool is the same call, counted once.
    export = _mcp_run_without("execute_tool", "MCP send")
    trace, _ = parse_trace(export)
    assert [(c.id, c.tool, c.args, c.is_error) for c in trace.calls] == [
        ("call_add", "add", {"a": 2, "b": 3}, False),
        ("call_fail", "fail", {"reason": "disk full"}, True)]
    assert trace.calls[0].duration == pytest.approx(0.001275272, abs=1e-12)


def test_mcp_spans_of_two_sessions_with_the_same_json_rpc_id_are_two_calls() -> None:
    # Constructed from otel_export.json: its server span of add, and the same span again as
    # a second session's (its own trace and span ids, the same JSON-RPC id "2").
    export = _mcp_run_without("execute_tool", "chat", "invoke_agent", "MCP send",
                              "tools/call fail")
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    (add,) = [span for span in spans if span["name"] == "tools/call add"]
    again = json.loads(json.dumps(add))
    again.update(traceId="0" * 31 + "1", spanId="0" * 15 + "1")
    again.pop("parentSpanId", None)
    spans.append(again)
    trace, _ = parse_trace(export)
    assert [(c.tool, c.id) for c in trace.calls] == [("add", "2"), ("add", "2")]


def test_a_tool_span_without_a_tool_name_anywhere_is_noted() -> None:
    # Constructed from otel_export.json's client span of add: the span name without a tool,
    # as the MCP SDK names a tools/call request whose params hold no name.
    export = _mcp_run_without("execute_tool", "tools/call", "chat", "invoke_agent",
                              "MCP send tools/call fail")
    (client,) = [span for group in export["resourceSpans"] for scope in group["scopeSpans"]
                 for span in scope["spans"] if span["name"] == "MCP send tools/call add"]
    client["name"] = "MCP send tools/call"
    trace, _ = parse_trace(export)
    assert trace.calls == ()
    assert trace.notes[0] == "span 3: a tool span without a tool name (not read)"


def test_a_span_without_end_has_unknown_outcome_and_no_duration() -> None:
    spans = [{"name": "execute_tool f", "spanId": "1", "startTimeUnixNano": "10",
              "attributes": [{"key": "gen_ai.operation.name",
                              "value": {"stringValue": "execute_tool"}}]}]
    trace, _ = parse_trace(spans)
    call = trace.calls[0]
    assert (call.tool, call.is_error, call.duration) == ("f", None, None)


def test_zipkin_spans_and_a_list_with_a_stray_item_are_near_misses() -> None:
    from toolscore_formats.otel import near
    zipkin = [{"traceId": "a", "id": "b", "name": "get", "timestamp": 1, "duration": 2,
               "localEndpoint": {"serviceName": "x"}}]
    assert near(zipkin) == ("Zipkin v2 spans (id, localEndpoint), which it does not read: "
                            "export OTLP JSON (resourceSpans) instead")
    spans = [{"name": "execute_tool f", "spanId": "1"}, {"name": "x", "spanId": "2"}, {"x": 1}]
    assert near(spans) == ("a list of OpenTelemetry spans (2 of 3 items are), but $[2] is not "
                           "a span (a name and a spanId)")
    assert near([{"x": 1}, {"y": 2}]) is None and near({"resourceSpans": 1}) is None


def _span(span_id: str, name: str, parent: str = "", trace_id: str = "ab" * 16,
          start: int = 1, **attributes: str) -> dict[str, object]:
    return {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": name,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 10),
            "attributes": [{"key": k.replace("__", "."), "value": {"stringValue": v}}
                           for k, v in attributes.items()]}


def _export(*spans: dict[str, object]) -> dict[str, object]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def test_the_span_verdicts_belong_to_is_the_outer_agent_and_not_in_the_record() -> None:
    from toolscore import evaluate

    tool = _span("0000000000000003", "execute_tool f", "0000000000000002", start=5,
                 gen_ai__operation__name="execute_tool", gen_ai__tool__name="f")
    chat = _span("0000000000000004", "chat", "0000000000000002", start=6,
                 gen_ai__response__id="resp-2")
    earlier_chat = _span("0000000000000005", "chat", "0000000000000002", start=3,
                         gen_ai__response__id="resp-1")
    inner = _span("0000000000000002", "invoke_agent inner", "0000000000000001", start=2,
                  gen_ai__operation__name="invoke_agent")
    outer = _span("0000000000000001", "invoke_agent outer", start=1,
                  gen_ai__operation__name="invoke_agent")
    trace, _ = parse_trace(_export(tool, chat, earlier_chat, inner, outer))
    assert trace.span is not None
    assert (trace.span.trace_id, trace.span.span_id) == ("ab" * 16, "0000000000000001")
    assert trace.response_id == "resp-2"
    # where the verdicts go is not what they are: the record is the same without it
    from attrs import evolve

    bare = evolve(trace, span=None, response_id=None)
    record = evaluate([{"tool": "f"}], trace).record_sha256
    assert evaluate([{"tool": "f"}], bare).record_sha256 == record


def test_no_span_for_several_traces_or_ids_that_are_not_hex() -> None:
    tool = _span("0000000000000003", "execute_tool f", gen_ai__operation__name="execute_tool",
                 gen_ai__tool__name="f")
    other = _span("0000000000000009", "invoke_agent", trace_id="cd" * 16)
    span = parse_trace(_export(tool))[0].span
    assert span is not None and span.span_id == "0000000000000003"
    assert parse_trace(_export(tool, other))[0].span is None
    odd = _span("s-1", "execute_tool f", trace_id="t1", gen_ai__operation__name="execute_tool",
                gen_ai__tool__name="f")
    assert parse_trace(_export(odd))[0].span is None


def test_parallel_spans_of_one_tool_join_by_arguments_in_the_models_order() -> None:
    # Constructed: a chat asks for get_weather(Paris) then get_weather(Berlin); the framework
    # runs both (its spans name no call id) and Berlin's starts first, as concurrent calls
    # may. Each span takes the id of the request with its arguments, in the model's order.
    asked = [{"role": "assistant", "parts": [
        {"type": "tool_call", "id": f"call_{city.lower()}", "name": "get_weather",
         "arguments": {"city": city}} for city in ("Paris", "Berlin")]}]
    spans = [_span("c1", "chat m", start=1, gen_ai__operation__name="chat",
                   gen_ai__output__messages=json.dumps(asked)),
             _span("t2", "execute_tool get_weather", start=30,
                   gen_ai__tool__call__arguments='{"city": "Paris"}'),
             _span("t1", "execute_tool get_weather", start=20,
                   gen_ai__tool__call__arguments='{"city": "Berlin"}')]
    trace, _ = parse_trace(spans)
    assert [(c.id, c.args) for c in trace.calls] == [
        ("call_paris", {"city": "Paris"}), ("call_berlin", {"city": "Berlin"})]
