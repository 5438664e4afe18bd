"""Jaeger JSON exports: GenAI spans read as otel reads them, OpenInference ones as openinference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from click.testing import CliRunner

from toolscore_cli.app import cli
from toolscore_core.errors import InputError
from toolscore_core.traces import parse_trace

FIXTURES = Path(__file__).parent / "fixtures"


def test_adk_spans_named_execute_tool_are_calls_timed_from_microseconds(read) -> None:
    trace, choice = read("jaeger_adk_spans.json")
    assert choice.format == "jaeger"
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.duration) for c in trace.calls] == [
        ("helm_get_release", None, None, None, False, 0.2),
        ("helm_list_releases", None, None, None, False, 0.2),
    ]
    assert trace.calls[0].timestamp == "2026-02-24T02:26:41.200000000Z"
    # ADK keeps its answer in its own llm_response tag (a Gemini response), not in
    # gen_ai.output.messages; the span named "invoke_agent helm_agent" is the one turn.
    assert trace.final_answer == "I found the releases and their details."
    assert [c.turn for c in trace.calls] == [1, 1]


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
    with pytest.raises(InputError, match="without OpenTelemetry GenAI or OpenInference "
                                         "spans"):
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


def test_an_openinference_tool_span_exported_through_jaeger_is_evaluated(tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "execute_command", "args": {"command": "ls"}}]', encoding="utf-8")
    report = tmp_path / "report.json"
    result = CliRunner().invoke(cli, ["eval", str(gold), str(
        FIXTURES / "jaeger_openinference_tool.json"), "--explain-format", "--json", str(report)])
    assert result.exit_code == 0, result.output
    assert "format: jaeger (" in result.output and "of OpenInference spans" in result.output
    record = json.loads(report.read_text(encoding="utf-8"))
    (call,) = record["calls"]["actual"]
    assert (call["tool"], call["args"], call["is_error"], call["duration"], call["timestamp"]) == (
        "execute_command", {"command": "ls"}, False, 1.0, "2024-06-18T08:40:00.000000000Z")
    assert record["grade"] == "A"


# The same OpenInference spans, rendered as the OpenTelemetry Collector's Jaeger translator
# writes them (tags, microseconds, otel.status_* and error tags, events as logs) and as OTLP
# JSON: (span id, name, start µs, duration µs, attributes, parent, status message or None for
# OK, exception message).
Spec = tuple[str, str, int, int, dict[str, Any], str | None, str | None, str | None]
FAILED = ""  # an ERROR status without a message


def _jaeger_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    return "int64" if isinstance(value, int) else "float64" if isinstance(value, float) \
        else "string"


def _as_jaeger(*specs: Spec) -> dict[str, Any]:
    spans = []
    for span_id, name, start, duration, attributes, parent, error, exception in specs:
        tags = [{"key": k, "type": _jaeger_type(v), "value": v} for k, v in attributes.items()]
        if error is None:
            tags.append({"key": "otel.status_code", "type": "string", "value": "OK"})
        else:
            tags += [{"key": "otel.status_code", "type": "string", "value": "ERROR"},
                     {"key": "error", "type": "bool", "value": True}]
            if error:
                tags.append({"key": "otel.status_description", "type": "string", "value": error})
        logs = [{"timestamp": start + duration, "fields": [
            {"key": "event", "type": "string", "value": "exception"},
            {"key": "exception.type", "type": "string", "value": "ToolError"},
            {"key": "exception.message", "type": "string", "value": exception}]}] \
            if exception else []
        spans.append({"traceID": "7b1e", "spanID": span_id, "operationName": name,
                      "references": [{"refType": "CHILD_OF", "traceID": "7b1e",
                                      "spanID": parent}] if parent else [],
                      "startTime": start, "duration": duration, "tags": tags, "logs": logs,
                      "processID": "p1", "warnings": None, "flags": 1})
    return {"data": [{"traceID": "7b1e", "spans": spans, "processes": {
        "p1": {"serviceName": "support-agent", "tags": []}}, "warnings": None}],
        "total": 0, "limit": 0, "offset": 0, "errors": None}


def _otlp_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"doubleValue": value} if isinstance(value, float) else {"stringValue": value}


def _as_otlp(*specs: Spec) -> dict[str, Any]:
    spans = []
    for span_id, name, start, duration, attributes, parent, error, exception in specs:
        status: dict[str, Any] = {"code": 1} if error is None else {"code": 2}
        if error:
            status["message"] = error
        events = [{"name": "exception", "timeUnixNano": str((start + duration) * 1000),
                   "attributes": [
                       {"key": "exception.type", "value": {"stringValue": "ToolError"}},
                       {"key": "exception.message", "value": {"stringValue": exception}}]}] \
            if exception else []
        span = {"traceId": "7b1e", "spanId": span_id, "name": name, "kind": 1,
                "startTimeUnixNano": str(start * 1000),
                "endTimeUnixNano": str((start + duration) * 1000),
                "attributes": [{"key": k, "value": _otlp_value(v)} for k, v in attributes.items()],
                "status": status, "events": events}
        if parent:
            span["parentSpanId"] = parent
        spans.append(span)
    return {"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "support-agent"}}]},
        "scopeSpans": [{"scope": {"name": "openinference.instrumentation.openai"},
                        "spans": spans}]}]}


def _asks(index: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    prefix = f"llm.output_messages.0.message.tool_calls.{index}.tool_call."
    return {f"{prefix}id": call_id, f"{prefix}function.name": name,
            f"{prefix}function.arguments": arguments}


ANSWER = "Order 123 has already shipped, so I could not cancel it."
SUPPORT_RUN: tuple[Spec, ...] = (
    ("c1", "support_agent", 1_767_225_600_000_000, 4_000_000,
     {"openinference.span.kind": "CHAIN", "input.value": "Cancel my order 123",
      "output.value": ANSWER}, None, None, None),
    ("l1", "ChatCompletion", 1_767_225_600_100_000, 900_000,
     {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
      "llm.input_messages.0.message.role": "user",
      "llm.input_messages.0.message.content": "Cancel my order 123",
      "llm.output_messages.0.message.role": "assistant",
      **_asks(0, "call_1", "get_order", '{"order_id": 123}'),
      **_asks(1, "call_2", "cancel_order", '{"order_id": 123}')}, "c1", None, None),
    # The first TOOL span carries no id: the LLM span's call gives it one.
    ("t1", "get_order", 1_767_225_601_100_000, 250_000,
     {"openinference.span.kind": "TOOL", "tool.name": "get_order",
      "tool.parameters": '{"type": "object", "properties": {"order_id": {"type": "integer"}}}',
      "input.value": '{"order_id": 123}', "output.value": '{"status": "SHIPPED"}'},
     "c1", None, None),
    ("t2", "cancel_order", 1_767_225_601_400_000, 125_500,
     {"openinference.span.kind": "TOOL", "tool.name": "cancel_order", "tool_call.id": "call_2",
      "input.value": '{"order_id": 123}'}, "c1", "order 123 has already shipped",
     "order 123 has already shipped"),
    ("l2", "ChatCompletion", 1_767_225_602_000_000, 1_500_000,
     {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini",
      "llm.output_messages.0.message.role": "assistant",
      "llm.output_messages.0.message.content": ANSWER}, "c1", None, None),
)


def test_openinference_spans_read_the_same_from_jaeger_as_from_otlp_json() -> None:
    trace, choice = parse_trace(_as_jaeger(*SUPPORT_RUN))
    otlp, otlp_choice = parse_trace(_as_otlp(*SUPPORT_RUN))
    assert (choice.format, otlp_choice.format) == ("jaeger", "openinference")
    assert "of OpenInference spans" in choice.reason
    assert trace == evolve(otlp, format="jaeger")
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("get_order", "call_1", {"order_id": 123}, {"status": "SHIPPED"}, False, None),
        ("cancel_order", "call_2", {"order_id": 123}, None, True,
         "order 123 has already shipped"),
    ]
    assert [c.duration for c in trace.calls] == [pytest.approx(0.25), pytest.approx(0.1255)]
    assert [c.timestamp for c in trace.calls] == [
        "2026-01-01T00:00:01.100000000Z", "2026-01-01T00:00:01.400000000Z"]
    assert (trace.final_answer, trace.model) == (ANSWER, "gpt-4o-mini")


def test_an_error_tag_with_only_an_exception_log_fails_the_call_with_its_message() -> None:
    spans: tuple[Spec, ...] = (
        ("t1", "lookup", 1_000_000, 2_000, {"openinference.span.kind": "TOOL",
                                            "tool.name": "lookup", "input.value": "orders"},
         None, FAILED, "connection reset by peer"),
        ("t2", "lookup", 1_500_000, 2_000, {"openinference.span.kind": "TOOL",
                                            "tool.name": "lookup", "input.value": "refunds",
                                            "output.value": "[]"}, None, None, None),
    )
    trace, _ = parse_trace(_as_jaeger(*spans))
    assert trace == evolve(parse_trace(_as_otlp(*spans))[0], format="jaeger")
    assert [(c.raw_args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("orders", None, True, "connection reset by peer"), ("refunds", [], False, None)]


def test_an_export_mixing_both_conventions_reads_the_genai_tool_spans_and_says_so(
        tmp_path: Path) -> None:
    spans: tuple[Spec, ...] = (
        ("g1", "execute_tool search", 1_000_000, 300_000,
         {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search",
          "gen_ai.tool.call.id": "call_9", "gen_ai.tool.call.arguments": '{"q": "refunds"}'},
         None, None, None),
        ("o1", "send_email", 1_400_000, 100_000,
         {"openinference.span.kind": "TOOL", "tool.name": "send_email",
          "input.value": '{"to": "a@example.com"}'}, None, None, None),
    )
    export = tmp_path / "mixed.json"
    export.write_text(json.dumps(_as_jaeger(*spans)), encoding="utf-8")
    trace, choice = parse_trace(_as_jaeger(*spans))
    # The rule of an OTLP export: with a GenAI tool span, the otel reading, not openinference.
    otlp, otlp_choice = parse_trace(_as_otlp(*spans))
    assert otlp_choice.format == "otel" and trace.calls == otlp.calls
    assert [(c.tool, c.id, c.args) for c in trace.calls] == [("search", "call_9", {"q": "refunds"})]
    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "search"}]', encoding="utf-8")
    result = CliRunner().invoke(cli, ["eval", str(gold), str(export), "--explain-format"])
    assert result.exit_code == 0, result.output
    assert f"format: jaeger ({choice.reason})" in " ".join(result.output.split())
    unread = ("(1 OpenInference TOOL span without GenAI attributes not read: an export with "
              "GenAI tool spans is read by its gen_ai attributes)")
    assert choice.reason.endswith(
        f"of OpenTelemetry GenAI spans: calls from 1 execute_tool span {unread}")
    # The OTLP export of the same spans says so too.
    assert otlp_choice.reason == ('an OTLP JSON export ("resourceSpans"): calls from 1 '
                                  f"execute_tool span {unread}")


def test_a_genai_export_is_explained_as_genai_spans(read) -> None:
    _, choice = read("jaeger_adk_spans.json")
    assert choice.reason == ('a Jaeger JSON trace export ("data": [{"traceID", "spans"}]) of '
                             "OpenTelemetry GenAI spans: calls from 2 execute_tool spans")


def test_the_jaeger_trace_id_is_where_verdicts_belong(read) -> None:
    trace, _ = read("jaeger_adk_spans.json")
    assert trace.span is not None and trace.span.trace_id == "aabbccdd11223344aabbccdd11223344"
