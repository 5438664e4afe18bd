"""OpenInference exports of agent frameworks (written by make_openinference_agents_otel.py):
each call once, with the arguments, result, error, id and times the spans hold."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolscore import FormatChoice, Trace, evaluate
from toolscore_core.traces import parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
Read = Callable[[str], tuple[Trace, FormatChoice]]
ANSWER = "Paris is sunny at 21 C; there is no forecast for Atlantis."
CONTRACT = {"expected": [{"tool": "get_weather", "args": {"city": "Paris"}},
                         {"tool": "get_forecast", "args": {"city": "Atlantis"}}]}


def _document(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text("utf-8"))
    return loaded


def _spans(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [span for resource in document["resourceSpans"]
            for scope in resource["scopeSpans"] for span in scope["spans"]]


def _seconds(span: dict[str, Any]) -> float:
    return (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e9


def _span(document: dict[str, Any], name: str, tool: str | None = None) -> dict[str, Any]:
    """The span called ``name`` (of tool ``tool``: smolagents names its spans by class)."""
    return next(s for s in _spans(document) if s["name"] == name and (tool is None or any(
        a["key"] == "tool.name" and a["value"]["stringValue"] == tool for a in s["attributes"])))


def test_the_openai_agents_sdk_reads_both_parallel_calls_and_the_failed_one(read: Read) -> None:
    trace, choice = read("openinference_openai_agents.json")
    document = _document("openinference_openai_agents.json")
    assert choice.format == "openinference"
    # The TOOL spans carry no call id: the LLM span's tool calls give them, by name.
    assert [(c.tool, c.id, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("get_weather", "call_w1", {"city": "Paris"},
         {"city": "Paris", "sky": "sunny", "celsius": 21}, False),
        ("get_forecast", "call_f1", {"city": "Atlantis"},
         "An error occurred while running the tool. Please try again.", True),
    ]
    weather, forecast = trace.calls
    assert weather.error is None
    # The SDK redacts the exception; the span's status message is what the file says.
    assert forecast.error == ("Error running tool (non-fatal): {'tool_name': 'get_forecast', "
                              "'error': 'Tool execution failed. Error details are redacted.'}")
    assert [c.duration for c in trace.calls] == [
        pytest.approx(_seconds(_span(document, name))) for name in ("get_weather",
                                                                    "get_forecast")]
    assert trace.final_answer == ANSWER
    assert trace.model == "gpt-4o-mini"
    assert trace.usage == {"input_tokens": 100, "output_tokens": 20}
    root = next(s for s in _spans(document) if not s.get("parentSpanId"))
    assert trace.run_duration == pytest.approx(_seconds(root))
    assert trace.notes == ()


def test_smolagents_tool_spans_give_the_tools_keyword_arguments_not_its_wrapper(read: Read) -> None:
    trace, choice = read("openinference_smolagents.json")
    document = _document("openinference_smolagents.json")
    assert choice.format == "openinference"
    # input.value is Tool.__call__ bound: {"args": [], "sanitize_inputs_outputs", "kwargs"}.
    assert [(c.tool, c.id, c.args, c.raw_args, c.result, c.is_error, c.error)
            for c in trace.calls] == [
        ("get_weather", "call_w1", {"city": "Paris"}, None,
         {"city": "Paris", "sky": "sunny", "celsius": 21}, False, None),
        ("get_forecast", "call_f1", {"city": "Atlantis"}, None, None, True,
         "ValueError: no forecast for Atlantis"),
        # final_answer is a tool smolagents' agent calls: a call like any other.
        ("final_answer", "call_a1", {"answer": ANSWER}, None, ANSWER, False, None),
    ]
    assert [c.duration for c in trace.calls] == [
        pytest.approx(_seconds(_span(document, cls, tool))) for cls, tool in (
            ("SimpleTool", "get_weather"), ("SimpleTool", "get_forecast"),
            ("FinalAnswerTool", "final_answer"))]
    assert trace.final_answer == ANSWER
    assert trace.model == "gpt-4o-mini"
    # The AGENT span repeats its LLM spans' total: counted once.
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30, "total_tokens": 180}
    assert trace.run_duration == pytest.approx(_seconds(_span(document, "ToolCallingAgent.run")))
    assert trace.notes == ()


def test_a_contract_scores_the_smolagents_arguments_and_fails_the_failed_call(read: Read) -> None:
    trace, _ = read("openinference_smolagents.json")
    record = evaluate(CONTRACT, trace).to_dict()
    assert record["metrics"]["argument_f1"] == 1.0
    checks = {c["check"]: (c["status"], c["reason"]) for c in record["evidence"]["checks"]}
    assert checks["required-calls"] == ("fail", "failed: get_forecast")
    assert checks["call-errors"][0] == "fail"


def _with_input(document: dict[str, Any], tool: str, value: dict[str, Any]) -> dict[str, Any]:
    """The smolagents fixture with ``tool``'s span given ``value`` as input.value (constructed:
    the shape smolagents writes when a tool is called positionally, as a CodeAgent does)."""
    changed = copy.deepcopy(document)
    span = _span(changed, "SimpleTool", tool)
    for attribute in span["attributes"]:
        if attribute["key"] == "input.value":
            attribute["value"] = {"stringValue": json.dumps(value)}
    return changed


def test_positional_smolagents_arguments_are_named_by_the_request_else_unknown() -> None:
    document = _document("openinference_smolagents.json")
    positional = {"args": ["Paris"], "sanitize_inputs_outputs": True, "kwargs": {}}
    changed = _with_input(document, "get_weather", positional)
    # The LLM's request for the call names the arguments.
    weather = parse_trace(changed)[0].calls[0]
    assert (weather.id, weather.args, weather.raw_args) == ("call_w1", {"city": "Paris"}, None)
    # Without the LLM spans nothing names "Paris": the arguments are unknown, with a note.
    for resource in changed["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            scope["spans"] = [s for s in scope["spans"] if s["name"] != "OpenAIModel.generate"]
    trace = parse_trace(changed)[0]
    assert [(c.tool, c.args, c.raw_args) for c in trace.calls] == [
        ("get_weather", None, None), ("get_forecast", {"city": "Atlantis"}, None),
        ("final_answer", {"answer": ANSWER}, None)]
    assert trace.notes == (
        '1 smolagents TOOL span with positional arguments (input.value {"args": [...]}: '
        "their names are not in the span) and no LLM request that names them: arguments "
        "unknown",)


def test_one_dict_of_the_tools_inputs_given_positionally_is_its_keywords() -> None:
    # smolagents' Tool.__call__ reads a lone dict whose keys are all inputs as the keywords.
    document = _document("openinference_smolagents.json")
    given = {"args": [{"city": "Paris"}], "sanitize_inputs_outputs": True, "kwargs": {}}
    assert parse_trace(_with_input(document, "get_weather", given))[0].calls[0].args == {
        "city": "Paris"}
    other = {"args": [{"town": "Paris"}], "sanitize_inputs_outputs": True, "kwargs": {}}
    assert parse_trace(_with_input(document, "get_weather", other))[0].calls[0].args == {
        "city": "Paris"}  # not its keywords: positional, named by the LLM's request


def _attribute(span: dict[str, Any], key: str) -> Any:
    return next(next(iter(a["value"].values())) for a in span["attributes"] if a["key"] == key)


def test_crewai_calls_take_ids_from_the_llm_and_a_raised_tool_the_text_the_model_got(
        read: Read) -> None:
    trace, choice = read("openinference_crewai.json")
    document = _document("openinference_crewai.json")
    assert choice.format == "openinference"
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("get_weather", "call_w1", {"city": "Paris"},
         {"city": "Paris", "sky": "sunny", "celsius": 21}, False, None),
        # The TOOL span that raised holds no output: the result is the tool message the next
        # LLM span sent for call_f1; the error is the span's status message.
        ("get_forecast", "call_f1", {"city": "Atlantis"},
         "Error executing tool: no forecast for Atlantis", True, "no forecast for Atlantis"),
    ]
    assert [c.duration for c in trace.calls] == [
        pytest.approx(_seconds(_span(document, f"{name}.run")))
        for name in ("get_weather", "get_forecast")]
    assert (trace.final_answer, trace.model) == (ANSWER, "gpt-4o-mini")
    assert trace.usage == {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
    # The root is the crew's kickoff (a CHAIN span) around the agent's AGENT span.
    (root,) = [s for s in _spans(document) if not s.get("parentSpanId")]
    assert root["name"].endswith(".kickoff") and _attribute(
        root, "openinference.span.kind") == "CHAIN"
    assert trace.run_duration == pytest.approx(_seconds(root))
    assert (trace.run_cost, trace.notes) == (None, ())


def test_crewai_through_litellm_pairs_id_less_tool_messages_and_sums_the_llm_costs(
        read: Read) -> None:
    trace, _ = read("openinference_crewai_litellm.json")
    document = _document("openinference_crewai_litellm.json")
    tools = sorted((s for s in _spans(document) if s["name"].endswith(".run")),
                   key=lambda s: int(s["startTimeUnixNano"]))
    # CrewAI ran the two calls concurrently, get_forecast's span starting first: they are in
    # the order the model asked for them, from the first one's start.
    assert [_attribute(s, "tool.name") for s in tools] == ["get_forecast", "get_weather"]
    assert [c.tool for c in trace.calls] == ["get_weather", "get_forecast"]
    calls = {c.tool: c for c in trace.calls}
    assert (calls["get_weather"].id, calls["get_weather"].result) == (
        "call_w1", {"city": "Paris", "sky": "sunny", "celsius": 21})
    # LiteLLM's instrumentation writes no tool_call_id: the tool messages pair by position.
    forecast = calls["get_forecast"]
    assert (forecast.id, forecast.args, forecast.is_error, forecast.result) == (
        "call_f1", {"city": "Atlantis"}, True, "Error executing tool: no forecast for Atlantis")
    assert trace.model == "openai/gpt-4o-mini"
    costs = [_attribute(s, "llm.cost.total") for s in _spans(document)
             if s["name"] == "completion"]
    assert len(costs) == 2 and trace.run_cost == pytest.approx(sum(costs))
    assert trace.final_answer == ANSWER and trace.notes == ()


def test_values_openinference_redacted_are_unknown_not_values(read: Read) -> None:
    trace, choice = read("openinference_smolagents_hidden.json")
    document = _document("openinference_smolagents_hidden.json")
    assert choice.format == "openinference"
    # hide_inputs / hide_outputs: input.value and output.value are "__REDACTED__", the LLM
    # spans' messages left out; tool.parameters (smolagents' inputs) is no argument either.
    assert [(c.tool, c.id, c.args, c.raw_args, c.result, c.is_error, c.error)
            for c in trace.calls] == [
        ("get_weather", None, None, None, None, False, None),
        ("get_forecast", None, None, None, None, True, "ValueError: no forecast for Atlantis"),
        ("final_answer", None, None, None, None, False, None),
    ]
    assert trace.final_answer is None
    assert trace.model == "gpt-4o-mini"
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30, "total_tokens": 180}
    assert trace.run_duration == pytest.approx(_seconds(_span(document, "ToolCallingAgent.run")))
    assert trace.notes == ("10 spans with values redacted (__REDACTED__: OpenInference's "
                           "OPENINFERENCE_HIDE_* settings): read as unknown",)
    record = evaluate(CONTRACT, trace).to_dict()
    assert record["metrics"]["argument_f1"]["unknown"].startswith("the arguments of 2 calls")


def test_the_agents_sdk_on_the_responses_api_reads_as_on_chat_completions(read: Read) -> None:
    chat, _ = read("openinference_openai_agents.json")
    trace, choice = read("openinference_openai_agents_responses.json")
    assert choice.format == "openinference"
    # The LLM spans come from the Responses API's function_call items: the same calls.
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        (c.tool, c.id, c.args, c.result, c.is_error, c.error) for c in chat.calls]
    assert (trace.final_answer, trace.model, trace.notes) == (ANSWER, "gpt-4o-mini", ())
    # Its LLM spans also give the cached and reasoning counts (0 here).
    assert trace.usage == {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120,
                           "input_token_details": {"cache_read": 0},
                           "output_token_details": {"reasoning": 0}}
