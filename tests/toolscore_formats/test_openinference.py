"""OpenInference spans: TOOL spans are the calls; without them, the LLM spans' messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.errors import InputError
from toolscore_core.traces import load_trace, parse_trace
from toolscore_formats.openinference import near

FIXTURES = Path(__file__).parent / "fixtures"


def test_an_otlp_export_reads_tool_spans_with_their_arguments_results_and_times(read) -> None:
    trace, choice = read("openinference_otlp_export.json")
    assert choice.format == "openinference"
    assert "OTLP JSON export" in choice.reason
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("get_orders", None, {"customer_id": 42},
         [{"id": 122, "status": "DELIVERED"}, {"id": 123, "status": "PROCESSING"}], False, None),
        ("cancel_order", None, {"order_id": 123}, {"ok": True}, False, None),
    ]
    assert [c.duration for c in trace.calls] == [pytest.approx(0.01), pytest.approx(0.01)]
    assert [c.timestamp for c in trace.calls] == [
        "2026-01-01T00:00:00.000000000Z", "2026-01-01T00:00:00.015000000Z"]
    # The root AGENT span's output is what the agent answered.
    assert trace.final_answer == "Order 123 cancelled successfully."
    assert trace.run_duration == pytest.approx(0.03)


def test_a_phoenix_span_export_reads_tool_spans_and_leaves_earlier_history_out(read) -> None:
    trace, choice = read("openinference_phoenix_turn.json")
    assert choice.format == "openinference"
    (call,) = trace.calls
    assert (call.tool, call.id, call.args, call.is_error, call.duration) == (
        "list_datasets", "call-04", {}, False, 1.0)
    assert call.result["hasNextPage"] is True
    assert call.timestamp == "2026-07-09T00:00:03.000000000Z"
    # call-01..03 are in the LLM span's input history only: an earlier turn's calls.
    assert trace.notes == ("3 calls in the LLM spans' input history (call-01, call-02, call-03) "
                           "ran before this trace (no TOOL span): not counted",)
    assert trace.final_answer.startswith("Done! I created the dataset")
    assert (trace.model, trace.run_duration) == ("claude-fable-5", 35.0)


def test_a_tool_span_with_a_flattened_schema_takes_its_arguments_from_input_value(read) -> None:
    trace, _ = read("openinference_phoenix_subagent.json")
    (call,) = trace.calls
    # tool.parameters.* is the tool's JSON schema, not the arguments.
    assert (call.tool, call.id, call.args, call.result, call.is_error) == (
        "call_subagent", "call-02", {}, {}, False)
    assert trace.final_answer == "The delegated analysis is complete."


def test_phoenix_json_lines_and_the_rest_api_data_wrapper_read_the_same(tmp_path) -> None:
    spans = json.loads((FIXTURES / "openinference_phoenix_turn.json").read_text("utf-8"))
    lines = tmp_path / "spans.jsonl"
    lines.write_text("".join(json.dumps(s) + "\n" for s in spans), encoding="utf-8")
    whole, _ = load_trace(FIXTURES / "openinference_phoenix_turn.json")
    assert load_trace(lines)[0] == whole
    assert parse_trace({"data": spans, "next_cursor": None})[0].calls == whole.calls


def _otlp(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def _span(span_id: str, start: int, end: int, parent: str | None = None,
          status: dict[str, Any] | None = None, events: list[Any] | None = None,
          **attributes: Any) -> dict[str, Any]:
    def value(v: Any) -> dict[str, Any]:
        return {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}

    return {"spanId": span_id, "parentSpanId": parent, "name": f"span {span_id}",
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
            "status": status or {"code": 1}, "events": events or [],
            "attributes": [{"key": k.replace("__", "."), "value": value(v)}
                           for k, v in attributes.items()]}


def _kind(kind: str) -> dict[str, str]:
    return {"openinference.span.kind": kind}


def test_an_error_status_fails_the_call_with_its_message_or_the_exception() -> None:
    export = _otlp(
        _span("a", 10, 20, status={"code": "STATUS_CODE_ERROR", "message": "window closed"},
              **_kind("TOOL"), tool__name="refund", input__value='{"order": 7}'),
        _span("b", 30, 40, status={"code": 2},
              events=[{"name": "exception", "attributes": [
                  {"key": "exception.message", "value": {"stringValue": "timeout"}}]}],
              **_kind("TOOL"), tool__name="notify", tool_call__id="c2"),
    )
    refund, notify = parse_trace(export)[0].calls
    assert (refund.args, refund.is_error, refund.error, refund.result) == (
        {"order": 7}, True, "window closed", None)
    assert (notify.id, notify.is_error, notify.error) == ("c2", True, "timeout")


def _llm(span_id: str, start: int, end: int, inputs: list[dict[str, Any]],
         outputs: list[dict[str, Any]]) -> dict[str, Any]:
    attributes: dict[str, Any] = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o"}
    for prefix, messages in (("llm.input_messages", inputs), ("llm.output_messages", outputs)):
        for index, message in enumerate(messages):
            for key, value in message.items():
                if key == "tool_calls":
                    for n, (call_id, name, arguments) in enumerate(value):
                        base = f"{prefix}.{index}.message.tool_calls.{n}.tool_call"
                        attributes.update({f"{base}.function.name": name,
                                           f"{base}.function.arguments": arguments})
                        if call_id:
                            attributes[f"{base}.id"] = call_id
                else:
                    attributes[f"{prefix}.{index}.message.{key}"] = value
    return {"name": "ChatCompletion", "context": {"trace_id": "t", "span_id": span_id},
            "span_kind": "LLM", "parent_id": None, "start_time": start, "end_time": end,
            "status_code": "OK", "attributes": attributes}


ASK = {"role": "assistant", "tool_calls": [("call_1", "get_weather", '{"city": "Paris"}')]}
ANSWER = {"role": "tool", "tool_call_id": "call_1", "content": "rainy, 57°F"}
USER = {"role": "user", "content": "Weather in Paris?"}


def test_without_tool_spans_the_llm_messages_give_each_call_once_with_its_result() -> None:
    spans = [
        _llm("l1", 1_000, 2_000, [USER], [ASK]),
        _llm("l2", 3_000, 4_000, [USER, ASK, ANSWER],
             [{"role": "assistant", "contents.0.message_content.type": "text",
               "contents.0.message_content.text": "It is rainy."}]),
    ]
    trace, choice = parse_trace(spans)
    assert choice.format == "openinference"
    (call,) = trace.calls
    assert (call.tool, call.id, call.args, call.result, call.is_error, call.duration) == (
        "get_weather", "call_1", {"city": "Paris"}, "rainy, 57°F", False, None)
    assert (trace.final_answer, trace.model) == ("It is rainy.", "gpt-4o")
    assert trace.notes == ("no TOOL spans: 1 call read from the LLM spans' messages (the "
                           "messages time no call)",)
    # An asked call no later span answers stays unknown.
    (pending,) = parse_trace(spans[:1])[0].calls
    assert (pending.id, pending.is_error, pending.result) == ("call_1", None, None)


def test_tool_spans_win_over_llm_messages_and_an_unrun_call_is_kept_with_a_note() -> None:
    ask_two = {"role": "assistant", "tool_calls": [("call_1", "get_weather", '{"city": "Paris"}'),
                                                   ("call_2", "get_time", "{}")]}
    spans = [
        _llm("l1", 1_000, 2_000, [USER], [ask_two]),
        # An id-less TOOL span takes the id of the call the LLM asked for.
        {"name": "get_weather", "context": {"span_id": "t1"}, "span_kind": "TOOL",
         "start_time": "2026-01-01T00:00:01+00:00", "end_time": "2026-01-01T00:00:02+00:00",
         "status_code": "OK", "attributes": {"tool": {"name": "get_weather"},
                                             "input": {"value": '{"city": "Paris"}'},
                                             "output": {"value": "sunny"}}},
    ]
    weather, time = parse_trace(spans)[0].calls
    assert (weather.id, weather.result, weather.is_error, weather.duration) == (
        "call_1", "sunny", False, 1.0)
    assert (time.tool, time.id, time.is_error) == ("get_time", "call_2", None)
    assert parse_trace(spans)[0].notes == (
        "the LLM asked for get_time (call_2), but no TOOL span ran it",)


def test_a_dataframe_written_as_records_is_read_by_its_dotted_columns() -> None:
    record = {"name": "search", "span_kind": "TOOL", "parent_id": None,
              "start_time": 1_700_000_000_000, "end_time": 1_700_000_000_250,
              "status_code": "ERROR", "status_message": "quota", "context.span_id": "a",
              "context.trace_id": "t", "attributes.tool.name": "search",
              "attributes.input.value": '{"q": "x"}'}
    (call,) = parse_trace([record])[0].calls
    assert (call.tool, call.args, call.is_error, call.error, call.duration) == (
        "search", {"q": "x"}, True, "quota", 0.25)
    assert call.timestamp == "2023-11-14T22:13:20.000000000Z"


def test_a_document_with_a_genai_tool_span_stays_otel_and_plain_otlp_too() -> None:
    genai = _span("g", 1, 2, gen_ai__operation__name="execute_tool", gen_ai__tool__name="f")
    oi = _span("o", 3, 4, **_kind("TOOL"), tool__name="g")
    trace, choice = parse_trace(_otlp(genai, oi))
    assert choice.format == "otel" and [c.tool for c in trace.calls] == ["f"]
    assert parse_trace(_otlp(oi))[1].format == "openinference"
    assert parse_trace(_otlp(_span("p", 1, 2, gen_ai__operation__name="execute_tool",
                                   gen_ai__tool__name="f")))[1].format == "otel"


def test_the_reader_refuses_what_it_cannot_read() -> None:
    with pytest.raises(InputError, match="not OpenInference spans"):
        parse_trace({"hello": 1}, trace_format="openinference")


def test_near_misses_name_what_an_openinference_document_misses() -> None:
    attributes = json.loads('{"openinference.span.kind": "LLM", "llm.model_name": "gpt-4-0613"}')
    assert near(attributes) == (
        "the attributes of one OpenInference span without the span: export the spans (OTLP "
        "JSON, or Phoenix's span export) instead")
    columns = {"name": {"0": "search"}, "span_kind": {"0": "TOOL"}}
    assert near(columns) == ('a Phoenix spans dataframe written column by column: write it '
                             'with to_json(orient="records")')
    span = {"name": "s", "context": {"span_id": "1"}, "span_kind": "TOOL"}
    assert near([span, span, {"span_kind": "LLM"}]) == (
        "a list of Phoenix spans (2 of 3 items are), but item 2 is not a span (a name and "
        "context.span_id)")
    assert near({"hello": 1}) is None and near([1, 2]) is None
    with pytest.raises(InputError, match="closest: openinference"):
        parse_trace(attributes)


def _tool(span_id: str, start: int, city: str) -> dict[str, Any]:
    return {"name": "get_weather", "context": {"trace_id": "t", "span_id": span_id},
            "span_kind": "TOOL", "parent_id": None, "start_time": start,
            "end_time": start + 100, "status_code": "OK",
            "attributes": {"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                           "input.value": json.dumps({"city": city}),
                           "output.value": f"sunny in {city}"}}


def test_parallel_tool_spans_of_one_tool_join_by_arguments_in_the_models_order() -> None:
    # Constructed: the LLM asks for get_weather(Paris) then get_weather(Berlin); the TOOL spans
    # (no call id) ran concurrently, Berlin's starting first. Each takes the id of the request
    # with its arguments, and the calls are in the order the model asked for them.
    ask = {"role": "assistant", "tool_calls": [("call_p", "get_weather", '{"city": "Paris"}'),
                                               ("call_b", "get_weather", '{"city": "Berlin"}')]}
    spans = [_llm("l1", 1_000, 2_000, [USER], [ask]), _tool("tb", 2_100, "Berlin"),
             _tool("tp", 2_200, "Paris")]
    trace, _ = parse_trace(spans)
    assert [(c.id, c.args, c.result) for c in trace.calls] == [
        ("call_p", {"city": "Paris"}, "sunny in Paris"),
        ("call_b", {"city": "Berlin"}, "sunny in Berlin")]


def test_a_tool_span_that_started_before_the_llm_span_did_not_run_its_request() -> None:
    # Constructed: a get_weather(Paris) span ran before the LLM span asked for Paris (an
    # earlier turn's call, its request not recorded). The request goes to the span that
    # started after the LLM span, though its arguments differ; the earlier span keeps none.
    ask = {"role": "assistant", "tool_calls": [("call_p", "get_weather", '{"city": "Paris"}')]}
    spans = [_tool("early", 500, "Paris"), _llm("l1", 1_000, 2_000, [USER], [ask]),
             _tool("late", 2_100, "Berlin")]
    trace, _ = parse_trace(spans)
    assert [(c.id, c.args, c.result) for c in trace.calls] == [
        (None, {"city": "Paris"}, "sunny in Paris"),
        ("call_p", {"city": "Berlin"}, "sunny in Berlin")]


def test_a_request_takes_the_first_started_of_the_tool_spans_it_could_be() -> None:
    # Constructed: the two Rome requests go to the two TOOL spans with their arguments (the
    # first to start takes the first request; 2 and 2.0 are one number), though Berlin's
    # started before them; Oslo's, which no span has, takes the first span left.
    ask = {"role": "assistant", "tool_calls": [
        ("call_1", "get_weather", '{"city": "Rome", "days": 2}'),
        ("call_2", "get_weather", '{"city": "Rome", "days": 2}'),
        ("call_3", "get_weather", '{"city": "Oslo"}')]}
    rome_late, rome_early = _tool("r2", 2_300, "Rome"), _tool("r1", 2_200, "Rome")
    for span in (rome_late, rome_early):
        span["attributes"]["input.value"] = '{"city": "Rome", "days": 2.0}'
    spans = [_llm("l1", 1_000, 2_000, [USER], [ask]), _tool("p", 2_400, "Paris"), rome_late,
             _tool("b", 2_100, "Berlin"), rome_early]
    trace, _ = parse_trace(spans)
    assert [(c.id, c.args, c.result) for c in trace.calls] == [
        ("call_1", {"city": "Rome", "days": 2.0}, "sunny in Rome"),
        ("call_2", {"city": "Rome", "days": 2.0}, "sunny in Rome"),
        ("call_3", {"city": "Berlin"}, "sunny in Berlin"),
        (None, {"city": "Paris"}, "sunny in Paris")]
    assert trace.calls[0].timestamp < trace.calls[1].timestamp


def test_two_unrun_requests_of_one_tool_without_ids_are_two_calls() -> None:
    # Constructed: the LLM asks for get_weather twice and get_time once, without call ids;
    # a TOOL span ran get_time, none ran get_weather: each weather request is a call of its
    # own, with its own arguments.
    ask = {"role": "assistant", "tool_calls": [(None, "get_weather", '{"city": "Paris"}'),
                                               (None, "get_weather", '{"city": "Rome"}'),
                                               (None, "get_time", "{}")]}
    clock = _tool("t", 2_100, "Paris")
    clock["name"] = clock["attributes"]["tool.name"] = "get_time"
    clock["attributes"]["input.value"] = "{}"
    trace, _ = parse_trace([_llm("l1", 1_000, 2_000, [USER], [ask]), clock])
    assert [(c.tool, c.args, c.is_error) for c in trace.calls] == [
        ("get_weather", {"city": "Paris"}, None), ("get_weather", {"city": "Rome"}, None),
        ("get_time", {}, False)]
    assert trace.notes == ("the LLM asked for get_weather, but no TOOL span ran it",) * 2
