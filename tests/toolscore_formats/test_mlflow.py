"""MLflow Tracing traces: TOOL spans joined to the chat spans' requested calls, one call each,
MLflow 2's and 3's JSON alike; the root span's output as the answer; the chat spans' model,
usage and cost."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.models import FormatChoice, Trace
from toolscore_core.traces import parse_trace
from toolscore_formats.mlflow import near

FIXTURES = Path(__file__).parent / "fixtures"
Read = Callable[[str], tuple[Trace, FormatChoice]]
ANSWER = ("Paris is sunny at 21 C and Berlin is cloudy at 14 C. I could not book the flight: "
          "2026-02-30 is not a valid date.")
FLIGHT = {"origin": "Paris", "destination": "Berlin", "date": "2026-02-30"}
LAYOUTS = {
    "agent_trace": 'an MLflow trace ("info", "data": Trace.to_json())',
    "agent_spans": 'MLflow trace data ("spans": the trace artifact\'s traces.json, '
                   "TraceData.to_dict())",
    "search_traces": "rows of mlflow.search_traces()",
}


def _load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _rows(trace: Any) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.result, c.is_error, c.error, c.duration, c.timestamp)
            for c in trace.calls]


def _spans(document: dict[str, Any]) -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = document["data"]["spans"]
    return spans


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    attributes: dict[str, Any] = span["attributes"]
    return attributes


def _kind(span: dict[str, Any]) -> str:
    return str(json.loads(_attributes(span)["mlflow.spanType"]))


def test_mlflow_3_tool_spans_take_the_ids_the_model_sent_and_count_once(read: Read) -> None:
    trace, choice = read("mlflow_3_agent_trace.json")
    assert (choice.format, choice.reason) == ("mlflow", LAYOUTS["agent_trace"])
    # Three TOOL spans under the agent (fetch_forecast runs inside each get_weather: part of
    # that call); the chat spans' tool_calls give each its call id, in the order asked.
    assert _rows(trace) == [
        ("get_weather", "call_weather_paris", {"city": "Paris"}, "Paris: sunny, 21 C", False,
         None, 0.000769285, "2026-12-06T22:55:06.771754540Z"),
        ("get_weather", "call_weather_berlin", {"city": "Berlin"}, "Berlin: cloudy, 14 C",
         False, None, 0.000501571, "2026-12-06T22:55:06.772636994Z"),
        # The tool raised: the span's ERROR status and its message.
        ("book_flight", "call_book_flight", FLIGHT, None, True,
         "ValueError: no such date: 2026-02-30", 0.010022333,
         "2026-12-06T22:55:06.786390272Z"),
    ]
    assert trace.notes == ("2 TOOL spans inside another tool's span: part of that call, not "
                           "read as calls",)
    assert trace.final_answer == ANSWER
    assert trace.model == "gpt-4o-mini-2024-07-18"
    # The three chat spans' mlflow.chat.tokenUsage and mlflow.llm.cost, summed.
    assert trace.usage == {"input_tokens": 575, "output_tokens": 112, "total_tokens": 687}
    assert trace.run_cost == pytest.approx(0.00015345)
    assert trace.run_duration == pytest.approx(0.164566886)


def test_mlflow_2_numbered_span_names_and_the_response_usage(read: Read) -> None:
    trace, choice = read("mlflow_2_agent_trace.json")
    assert (choice.format, choice.reason) == ("mlflow", LAYOUTS["agent_trace"])
    names = [span["name"] for span in _spans(_load("mlflow_2_agent_trace.json"))]
    assert names[:3] == ["run_agent", "Completions_1", "get_weather_1"]
    # MLflow 2 numbers spans that share a name: the calls keep the tool's own name.
    assert _rows(trace) == [
        ("get_weather", "call_weather_paris", {"city": "Paris"}, "Paris: sunny, 21 C", False,
         None, 0.000639069, "2026-12-06T22:55:30.935496973Z"),
        ("get_weather", "call_weather_berlin", {"city": "Berlin"}, "Berlin: cloudy, 14 C",
         False, None, 0.000487238, "2026-12-06T22:55:30.936245417Z"),
        ("book_flight", "call_book_flight", FLIGHT, None, True,
         "ValueError: no such date: 2026-02-30", 0.002054286, "2026-12-06T22:55:30.950571096Z"),
    ]
    assert trace.final_answer == ANSWER
    # MLflow 2 writes no mlflow.chat.tokenUsage: the responses' usage gives the same sums,
    # and it prices nothing, so the run's cost is unknown.
    assert trace.usage == {"input_tokens": 575, "output_tokens": 112, "total_tokens": 687}
    assert trace.run_cost is None
    # The root span's 66 ms, not the info's execution_time_ms of 447, which counts the
    # store call MLflow 2 moved the root span's start past.
    assert _load("mlflow_2_agent_trace.json")["info"]["execution_time_ms"] == 447
    assert trace.run_duration == pytest.approx(0.065542862)


@pytest.mark.parametrize("major", [2, 3])
def test_every_layout_of_one_trace_reads_the_same(read: Read, major: int) -> None:
    expected, _ = read(f"mlflow_{major}_agent_trace.json")
    for layout in ("agent_spans", "search_traces"):
        trace, choice = read(f"mlflow_{major}_{layout}.json")
        assert (choice.format, choice.reason) == ("mlflow", LAYOUTS[layout])
        assert (trace.calls, trace.final_answer, trace.usage, trace.run_cost, trace.model,
                trace.notes, trace.run_duration) == (
            expected.calls, expected.final_answer, expected.usage, expected.run_cost,
            expected.model, expected.notes, expected.run_duration)


def test_a_list_of_mlflow_spans_is_mlflow_not_otel() -> None:
    # The otel reader read such a list as OpenTelemetry spans, with no call in it.
    spans = _spans(_load("mlflow_3_agent_trace.json"))
    trace, choice = parse_trace(spans)
    assert (choice.format, choice.reason) == ("mlflow", "a list of MLflow spans (Span.to_dict())")
    assert [c.id for c in trace.calls] == [
        "call_weather_paris", "call_weather_berlin", "call_book_flight"]
    otel, _ = parse_trace(spans, trace_format="otel")
    assert otel.calls == ()


def test_tool_spans_without_chat_spans_have_no_ids_but_their_outcomes() -> None:
    document = _load("mlflow_3_agent_trace.json")
    document["data"]["spans"] = [s for s in _spans(document) if _kind(s) != "CHAT_MODEL"]
    trace = parse_trace(document)[0]
    assert [(c.tool, c.id, c.args, c.is_error) for c in trace.calls] == [
        ("get_weather", None, {"city": "Paris"}, False),
        ("get_weather", None, {"city": "Berlin"}, False),
        ("book_flight", None, FLIGHT, True)]
    # The root span's output is the answer; no chat span, no model or usage.
    assert (trace.final_answer, trace.model, trace.usage, trace.run_cost) == (
        ANSWER, None, None, None)


def test_requests_no_tool_span_ran_are_calls_with_the_results_the_model_was_given() -> None:
    document = _load("mlflow_3_agent_trace.json")
    # An agent whose tools are not traced: only the chat spans hold the calls.
    document["data"]["spans"] = [s for s in _spans(document) if _kind(s) != "TOOL"]
    trace = parse_trace(document)[0]
    # The later chats' input messages hold what each tool returned; the error text the
    # agent gave the model is a result (nothing in the chat marks it as an error).
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.duration) for c in trace.calls] == [
        ("get_weather", "call_weather_paris", {"city": "Paris"}, '"Paris: sunny, 21 C"',
         False, None),
        ("get_weather", "call_weather_berlin", {"city": "Berlin"}, '"Berlin: cloudy, 14 C"',
         False, None),
        ("book_flight", "call_book_flight", FLIGHT, "Error: no such date: 2026-02-30", False,
         None)]
    assert trace.notes == (
        "Completions asked for get_weather (call_weather_paris), but no TOOL span ran it",
        "Completions asked for get_weather (call_weather_berlin), but no TOOL span ran it",
        "Completions asked for book_flight (call_book_flight), but no TOOL span ran it")


def test_a_tool_span_without_outputs_has_an_unknown_outcome() -> None:
    document = _load("mlflow_3_agent_trace.json")
    berlin = next(s for s in _spans(document) if s["name"] == "get_weather" and
                  "Berlin" in _attributes(s)["mlflow.spanInputs"])
    del _attributes(berlin)["mlflow.spanOutputs"]
    call = parse_trace(document)[0].calls[1]
    assert (call.id, call.result, call.is_error, call.error, call.duration) == (
        "call_weather_berlin", None, None, None, 0.000501571)


def test_a_chat_span_without_counts_makes_the_usage_unknown() -> None:
    document = _load("mlflow_3_agent_trace.json")
    chat = next(s for s in _spans(document) if _kind(s) == "CHAT_MODEL")
    del _attributes(chat)["mlflow.chat.tokenUsage"]
    del _attributes(chat)["mlflow.llm.cost"]
    output = json.loads(_attributes(chat)["mlflow.spanOutputs"])
    output["usage"] = None
    _attributes(chat)["mlflow.spanOutputs"] = json.dumps(output)
    trace = parse_trace(document)[0]
    assert (trace.usage, trace.run_cost) == (None, None)
    assert trace.notes[-1] == ("token counts (mlflow.chat.tokenUsage or the response's usage) "
                               "on 2 of 3 chat spans: the run's token usage is unknown")


def test_a_failed_run_has_no_final_answer() -> None:
    document = _load("mlflow_3_agent_trace.json")
    root = next(s for s in _spans(document) if s["parent_span_id"] is None)
    root["status"] = {"code": "STATUS_CODE_ERROR", "message": "RuntimeError: out of budget"}
    del _attributes(root)["mlflow.spanOutputs"]
    trace = parse_trace(document)[0]
    assert trace.final_answer is None
    assert trace.notes[-1] == ("the run failed (run_agent: RuntimeError: out of budget): no "
                               "final answer")


def test_langgraph_tool_spans_read_their_tool_messages_and_count_once(read: Read) -> None:
    trace, choice = read("mlflow_3_langgraph_trace.json")
    assert (choice.format, choice.reason) == ("mlflow", LAYOUTS["agent_trace"])
    # LangChain's TOOL spans (inside LangGraph's "tools" CHAIN spans, not calls) carry the
    # call id and return a ToolMessage: its content is the result, its status the outcome.
    # book_flight's ToolException was handled by LangChain: the span is OK, the message's
    # status is "error".
    assert _rows(trace) == [
        ("get_weather", "call_weather_paris", {"city": "Paris"}, "Paris: sunny, 21 C", False,
         None, 0.001213665, "2026-12-06T22:55:10.535778354Z"),
        ("get_weather", "call_weather_berlin", {"city": "Berlin"}, "Berlin: cloudy, 14 C",
         False, None, 0.0016441, "2026-12-06T22:55:10.541982364Z"),
        ("book_flight", "call_book_flight", FLIGHT, None, True, "no such date: 2026-02-30",
         0.001187633, "2026-12-06T22:55:10.566867712Z"),
    ]
    assert trace.notes == ()
    # The root LangGraph span's output is the graph's state: its last message is the answer.
    assert trace.final_answer == ANSWER
    # Each model call is a ChatOpenAI span with the OpenAI client's Completions span inside,
    # both with the same counts and cost: counted once.
    spans = _spans(_load("mlflow_3_langgraph_trace.json"))
    assert sum(1 for s in spans if _kind(s) == "CHAT_MODEL") == 6
    assert trace.usage == {"input_tokens": 575, "output_tokens": 112, "total_tokens": 687}
    assert trace.run_cost == pytest.approx(0.00015345)
    assert trace.model == "gpt-4o-mini-2024-07-18"


def test_langgraph_tool_spans_keep_their_ids_without_the_chat_spans() -> None:
    document = _load("mlflow_3_langgraph_trace.json")
    document["data"]["spans"] = [s for s in _spans(document) if _kind(s) != "CHAT_MODEL"]
    trace = parse_trace(document)[0]
    assert [(c.tool, c.id, c.is_error) for c in trace.calls] == [
        ("get_weather", "call_weather_paris", False),
        ("get_weather", "call_weather_berlin", False),
        ("book_flight", "call_book_flight", True)]
    assert (trace.final_answer, trace.usage) == (ANSWER, None)


def test_a_document_with_a_span_that_is_not_mlflows_is_left_unclaimed_and_told_why() -> None:
    document = _load("mlflow_2_agent_trace.json")
    broken = copy.deepcopy(document)
    del _spans(broken)[2]["attributes"]
    with pytest.raises(InputError, match="no trace format recognises"):
        parse_trace(broken)
    assert near(broken) == (
        'an MLflow trace ("info", "data": Trace.to_json()), but $.data.spans[2] is not an '
        'MLflow span (a name, and "attributes" with mlflow.spanType)')


def test_a_broken_span_read_as_mlflow_is_one_line_naming_it(tmp_path: Path) -> None:
    document = _load("mlflow_3_agent_trace.json")
    del _spans(document)[2]["attributes"]
    trace = write_json(tmp_path / "trace.json", document)
    gold = write_json(tmp_path / "gold.json", [{"tool": "get_weather"}])
    result = run_cli("eval", str(gold), str(trace), "--format", "mlflow")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {trace}: $.data.spans[2]: an MLflow span has a name and attributes with "
        "mlflow.spanType; export the trace again (mlflow.get_trace(trace_id).to_json()); a "
        "span keeps its name and its attributes with mlflow.spanType"]


def test_several_search_rows_or_traces_are_refused_with_the_fix() -> None:
    rows = _load("mlflow_3_search_traces.json")
    with pytest.raises(InputError, match=r"2 rows of mlflow.search_traces\(\); toolscore reads "
                                         r"one agent run at a time.*one row per file"):
        parse_trace(rows + rows)
    spans = _spans(_load("mlflow_3_agent_trace.json")) + \
        _spans(_load("mlflow_2_agent_trace.json"))
    with pytest.raises(InputError, match=r"the spans belong to 2 traces.*one trace per file"):
        parse_trace(spans)


def test_parallel_calls_of_one_tool_join_by_arguments_in_the_models_order() -> None:
    # Constructed from mlflow_3_agent_trace.json: Berlin's get_weather span (and the
    # fetch_forecast inside it) started before Paris's, as concurrent calls may. Each span
    # still takes the id of the request with its arguments, and the calls are in the order
    # the model asked for them.
    document = copy.deepcopy(_load("mlflow_3_agent_trace.json"))
    weather = [span for span in _spans(document) if span["name"] == "get_weather"]
    paris, berlin = weather
    shift = int(berlin["start_time_unix_nano"]) - int(paris["start_time_unix_nano"]) + 1000
    for span in _spans(document):
        if span is berlin or span.get("parent_span_id") == berlin["span_id"]:
            for key in ("start_time_unix_nano", "end_time_unix_nano"):
                span[key] = str(int(span[key]) - shift)
    trace, _ = parse_trace(document)
    assert [(c.id, c.args) for c in trace.calls[:2]] == [
        ("call_weather_paris", {"city": "Paris"}), ("call_weather_berlin", {"city": "Berlin"})]
    assert trace.calls[1].timestamp < trace.calls[0].timestamp  # Berlin's span started first


def _tool_span(document: dict[str, Any], city: str) -> dict[str, Any]:
    return next(span for span in _spans(document) if span["name"] == "get_weather" and
                json.loads(_attributes(span)["mlflow.spanInputs"]) == {"city": city})


def test_a_tool_span_that_started_before_the_chat_span_did_not_run_its_request() -> None:
    # Constructed from mlflow_3_agent_trace.json: Berlin's get_weather span (and the
    # fetch_forecast inside it) moved before the first chat span. The chat's request for
    # Berlin is not joined to it: it ran no tool, with a note; the span keeps no id. The
    # request stays where the model asked for it, after Paris's.
    document = copy.deepcopy(_load("mlflow_3_agent_trace.json"))
    berlin = _tool_span(document, "Berlin")
    chat = next(span for span in _spans(document) if span["name"] == "Completions")
    shift = int(berlin["start_time_unix_nano"]) - int(chat["start_time_unix_nano"]) + 1000
    for span in _spans(document):
        if span is berlin or span.get("parent_span_id") == berlin["span_id"]:
            for key in ("start_time_unix_nano", "end_time_unix_nano"):
                span[key] = int(span[key]) - shift
    trace, _ = parse_trace(document)
    assert [(c.id, c.args, c.result) for c in trace.calls[:3]] == [
        (None, {"city": "Berlin"}, "Berlin: cloudy, 14 C"),
        ("call_weather_paris", {"city": "Paris"}, "Paris: sunny, 21 C"),
        ("call_weather_berlin", {"city": "Berlin"}, '"Berlin: cloudy, 14 C"')]
    assert "Completions asked for get_weather (call_weather_berlin), but no TOOL span ran " \
        "it" in trace.notes


def test_without_a_tool_span_of_its_arguments_a_request_takes_the_first_that_started() -> None:
    # Constructed from mlflow_3_agent_trace.json: the get_weather spans' inputs are the city's
    # text (not an object), so neither has a request's arguments. Each request takes the
    # first span left (Paris's started first), and the model's arguments stand in.
    document = copy.deepcopy(_load("mlflow_3_agent_trace.json"))
    for city in ("Paris", "Berlin"):
        _attributes(_tool_span(document, city))["mlflow.spanInputs"] = json.dumps(city)
    trace, _ = parse_trace(document)
    assert [(c.id, c.args, c.result) for c in trace.calls[:2]] == [
        ("call_weather_paris", {"city": "Paris"}, "Paris: sunny, 21 C"),
        ("call_weather_berlin", {"city": "Berlin"}, "Berlin: cloudy, 14 C")]
