"""OpenInference exports of LangGraph, LlamaIndex and DSPy agents, as their instrumentations
write them (make_openinference_frameworks_otel.py): each call once, with its arguments,
result or error, id and times; the answer, model, token usage and run time."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import toolscore
from toolscore_core.traces import parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
PARIS = {"city": "Paris", "sky": "sunny", "celsius": 21}
FORECAST_SENT = "Error: ValueError('no forecast for Atlantis')\n Please fix your mistakes."
LANGGRAPH_CALLS = {
    ("get_weather", "call_w1", (("city", "Paris"),), json.dumps(PARIS), False, None),
    ("get_time", "call_t1", (("city", "Tokyo"),), "18:00", False, None),
    # a failed call's result is the text the framework sent the model (its next request)
    ("get_forecast", "call_f1", (("city", "Atlantis"),), FORECAST_SENT, True,
     "ValueError: no forecast for Atlantis"),
    ("book_hotel", "call_b1", (("city", "Atlantis"),), "no hotel in Atlantis", True,
     "no hotel in Atlantis"),
}


def _calls(trace: toolscore.Trace) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, tuple(sorted(c.args.items())) if c.args is not None else None,
             json.dumps(c.result) if isinstance(c.result, dict) else c.result, c.is_error,
             c.error) for c in trace.calls]


def _read(name: str) -> toolscore.Trace:
    trace, choice = toolscore.load_trace(FIXTURES / name)
    assert choice.format == "openinference"
    return trace


def test_a_langgraph_react_agent_reads_each_call_with_its_arguments_and_outcome() -> None:
    trace = _read("openinference_langgraph_otel.json")
    assert _calls(trace) == [
        ("get_weather", "call_w1", (("city", "Paris"),), json.dumps(PARIS), False, None),
        ("get_time", "call_t1", (("city", "Tokyo"),), "18:00", False, None),
        # The tool raised: the TOOL span's status holds a traceback, its exception event
        # the error.
        # (its result: the text LangGraph sent the model, from the next LLM span's input)
        ("get_forecast", "call_f1", (("city", "Atlantis"),), FORECAST_SENT, True,
         "ValueError: no forecast for Atlantis"),
        # The tool handled its error: the span is OK, its ToolMessage's status "error".
        ("book_hotel", "call_b1", (("city", "Atlantis"),), "no hotel in Atlantis", True,
         "no hotel in Atlantis"),
    ]
    # The instrumentation writes a one-argument tool's input as the bare value ("Paris"):
    # the arguments are those the model asked for, by the ToolMessage's tool_call_id.
    assert all(c.raw_args is None for c in trace.calls)
    assert [c.duration for c in trace.calls] == pytest.approx(
        [0.017979136, 0.001524992, 0.033903104, 0.001520896])
    assert trace.calls[0].timestamp == "2026-12-06T23:14:47.115028992Z"
    assert trace.final_answer == ("Paris: sunny, 21 C; Tokyo: 18:00. Atlantis has no forecast "
                                  "and no hotel.")
    assert trace.model == "gpt-4o-mini"
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30, "total_tokens": 180}
    assert trace.run_duration == pytest.approx(0.81158784)
    assert trace.notes == ()


def test_langgraph_with_the_openai_instrumentation_too_counts_each_call_and_request_once(
) -> None:
    trace = _read("openinference_langgraph_openai_otel.json")
    # The OpenAI client's LLM spans (traces of their own) ask for the same calls as the
    # LangChain LLM spans around them: one call each, run by its TOOL span.
    assert set(_calls(trace)) == LANGGRAPH_CALLS
    assert len(trace.calls) == 4
    assert all(c.duration is not None for c in trace.calls)
    # Three model requests, each with an LLM span of both instrumentations.
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30, "total_tokens": 180}
    assert trace.run_duration == pytest.approx(0.64709504)
    assert trace.final_answer == ("Paris: sunny, 21 C; Tokyo: 18:00. Atlantis has no forecast "
                                  "and no hotel.")
    assert trace.notes == ()


def test_a_llama_index_function_agent_reads_its_tool_outputs_and_its_answer() -> None:
    trace = _read("openinference_llama_index_otel.json")
    # input.value is the bound {"kwargs": {...}}; output.value LlamaIndex's ToolOutput.
    assert _calls(trace) == [
        ("get_weather", "call_w1", (("city", "Paris"),), json.dumps(PARIS), False, None),
        ("get_time", "call_t1", (("city", "Tokyo"),), "18:00", False, None),
        # its result: the text LlamaIndex sent the model (the next LLM span's input)
        ("get_forecast", "call_f1", (("city", "Atlantis"),), "no forecast for Atlantis", True,
         "ValueError: no forecast for Atlantis"),
    ]
    assert [c.duration for c in trace.calls] == pytest.approx(
        [0.011069379, 0.003333414, 0.003254929])
    # The root CHAIN span's output is the workflow's StopEvent repr, not the answer.
    assert trace.final_answer == "Paris: sunny, 21 C; Tokyo: 18:00. No forecast for Atlantis."
    assert trace.model == "gpt-4o-mini"
    # The _prepare_chat_with_tools LLM spans call no model: three requests.
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30, "total_tokens": 180}
    assert trace.run_duration == pytest.approx(1.759541925)


@pytest.mark.parametrize(("name", "usage", "run_duration"), [
    ("openinference_dspy_otel.json", None, 0.140342092),
    ("openinference_dspy_litellm_otel.json",
     {"input_tokens": 200, "output_tokens": 40, "total_tokens": 240}, 0.248774041),
])
def test_a_dspy_react_program_reads_its_tools_and_its_answer_field(
        name: str, usage: dict[str, int] | None, run_duration: float) -> None:
    trace = _read(name)
    # DSPy asks for tools in text fields: no call ids. ReAct's own finish tool is a call
    # the model asked for, run by a TOOL span.
    assert _calls(trace) == [
        ("get_weather", None, (("city", "Paris"),), json.dumps(PARIS), False, None),
        ("get_forecast", None, (("city", "Atlantis"),), None, True,
         "ValueError: no forecast for Atlantis"),
        ("finish", None, (), "Completed.", False, None),
    ]
    assert all(c.duration is not None and c.timestamp is not None for c in trace.calls)
    assert trace.final_answer == "Paris: sunny, 21 C. No forecast for Atlantis."
    assert trace.model == "gpt-4o-mini"
    # DSPy's own engine's LM spans give no token counts: unknown, never 0. Through litellm,
    # its LLM spans inside give them, counted once.
    assert trace.usage == usage
    assert trace.run_duration == pytest.approx(run_duration)


def test_the_langgraph_run_against_a_contract_fails_the_errors_it_had() -> None:
    trace = _read("openinference_langgraph_otel.json")
    evaluation = toolscore.evaluate({"expected": [
        {"tool": "get_weather", "args": {"city": "Paris"}},
        {"tool": "get_time", "args": {"city": "Tokyo"}},
        {"tool": "book_hotel", "args": {"city": "Atlantis"}}]}, trace)
    record = evaluation.to_dict()
    assert record["metrics"]["selection_accuracy"] == pytest.approx(0.75)
    assert record["metrics"]["argument_f1"] == 1.0
    checks = {c["check"]: c for c in record["evidence"]["checks"]}
    assert checks["required-calls"]["status"] == "fail"
    assert [f["tool"] for f in checks["required-calls"]["details"]["failed"]] == ["book_hotel"]
    assert checks["call-errors"]["status"] == "fail"
    assert record["coverage"]["with_outcome"] == 4


def _document(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text("utf-8"))


def _tool_spans(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [span for rs in document["resourceSpans"] for ss in rs["scopeSpans"]
            for span in ss["spans"] if any(
                a["key"] == "openinference.span.kind" and a["value"]["stringValue"] == "TOOL"
                for a in span["attributes"])]


def _set(span: dict[str, Any], key: str, value: str) -> None:
    span["attributes"] = [a for a in span["attributes"] if a["key"] != key] + [
        {"key": key, "value": {"stringValue": value}}]


def test_a_tool_whose_own_parameter_is_named_kwargs_keeps_it() -> None:
    # Constructed from the LlamaIndex fixture: get_time's schema declares a "kwargs"
    # parameter, so {"kwargs": {...}} is the tool's own argument, not bound keywords.
    document = copy.deepcopy(_document("openinference_llama_index_otel.json"))
    span = next(s for s in _tool_spans(document) if any(
        a["value"].get("stringValue") == "get_time" for a in s["attributes"]))
    _set(span, "tool.parameters", json.dumps(
        {"type": "object", "properties": {"kwargs": {"type": "object"}}}))
    trace, _ = parse_trace(document)
    assert [c.args for c in trace.calls if c.tool == "get_time"] == [
        {"kwargs": {"city": "Tokyo"}}]
    assert [c.args for c in trace.calls if c.tool == "get_weather"] == [{"city": "Paris"}]


def _attribute(span: dict[str, Any], key: str) -> str:
    return next(a["value"]["stringValue"] for a in span["attributes"] if a["key"] == key)


def test_a_traceback_status_without_an_exception_event_is_the_error_as_written() -> None:
    # Constructed from the LangGraph fixture: get_forecast's span without its exception
    # event. The status message is all the file says of the error: it is kept.
    document = copy.deepcopy(_document("openinference_langgraph_otel.json"))
    span = next(s for s in _tool_spans(document) if _attribute(s, "tool.name") == "get_forecast")
    span["events"] = []
    trace, _ = parse_trace(document)
    (failed,) = [c for c in trace.calls if c.tool == "get_forecast"]
    assert failed.is_error is True
    assert failed.error == span["status"]["message"]
    assert (failed.error or "").startswith("ValueError('no forecast for Atlantis')Traceback")


def test_a_llama_index_tool_output_flagged_as_an_error_fails_the_call() -> None:
    # Constructed from the LlamaIndex fixture: get_time's ToolOutput with is_error true (a
    # tool that returned an error output without raising; the span is OK).
    document = copy.deepcopy(_document("openinference_llama_index_otel.json"))
    span = next(s for s in _tool_spans(document) if _attribute(s, "tool.name") == "get_time")
    output = json.loads(_attribute(span, "output.value"))
    _set(span, "output.value", json.dumps({**output, "is_error": True}))
    trace, _ = parse_trace(document)
    (call,) = [c for c in trace.calls if c.tool == "get_time"]
    # its result: the text the model was sent for the call (the next LLM span's input)
    assert (call.is_error, call.error, call.result) == (True, "18:00", "18:00")
