"""Langfuse trace exports: tool observations joined to the generations' requests by call id,
the trace's output as the answer, the generations' model, usage and cost."""

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
from toolscore_formats.langfuse import near

FIXTURES = Path(__file__).parent / "fixtures"
Read = Callable[[str], tuple[Trace, FormatChoice]]


def _load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return document


def _rows(trace: Any) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.result, c.is_error, c.error, c.duration, c.timestamp)
            for c in trace.calls]


def test_pydantic_ai_tool_observations_in_request_order_and_the_unrun_output_tool(
        read: Read) -> None:
    trace, choice = read("langfuse_pydantic_ai_tools.json")
    assert (choice.format, choice.reason) == (
        "langfuse", 'a Langfuse trace download ("trace", "observations")')
    topic = {"topic": "programming"}
    # The file lists the observations out of time order; the two calls started in the same
    # millisecond keep the order the model asked for them in.
    assert _rows(trace)[:3] == [
        ("get_pun_suggestion", "call_X0OSgjUukT5inyEQvuZQnHrk", topic,
         "Pun idea: Play on words related to 'programming' - think about homophones or "
         "double meanings", False, None, 0.006, "2025-12-04T14:51:24.416Z"),
        ("get_dad_joke_suggestion", "call_WxZcCvSDhGT4RJHlcU01k10x", topic,
         "Dad joke idea: Use a classic setup-punchline format about 'programming' with a "
         "groan-worthy twist", False, None, 0.005, "2025-12-04T14:51:24.417Z"),
        ("get_one_liner_suggestion", "call_aRaObiWKKt6GzgDkkUl3bu1Q", topic,
         "One-liner idea: Make a quick, witty observation about 'programming' in a single "
         "sentence", False, None, 0.005, "2025-12-04T14:51:24.417Z"),
    ]
    # The evaluator's output tool is asked for but never runs as an observation: a call
    # whose outcome the file does not hold, and a note that says so.
    final = trace.calls[3]
    assert final.args is not None
    assert (final.tool, final.id, final.args["quality"], final.result, final.is_error,
            final.duration) == ("final_result", "call_ZuzwalMMtvv9BC6xlVe3fiBP", "good",
                                None, None, None)
    assert trace.notes == ("chat gpt-4o-mini asked for final_result "
                           "(call_ZuzwalMMtvv9BC6xlVe3fiBP), but no tool observation ran it",)
    assert trace.final_answer == "Why do programmers hate nature?  \nIt has too many bugs!"
    assert trace.model == "gpt-4o-mini-2024-07-18"
    # The four model calls' usageDetails and costDetails, summed.
    assert trace.usage == {"input_tokens": 1315, "output_tokens": 209, "total_tokens": 1524}
    assert trace.run_cost == pytest.approx(0.00032265)
    assert trace.run_duration == pytest.approx(7.424)


def test_claude_agent_id_less_tools_take_the_ids_and_arguments_the_model_sent(read: Read) -> None:
    trace, _ = read("langfuse_claude_agent.json")
    # LangSmith's exporter writes {"input": {"city": ...}} and no call id; the tool_use
    # blocks of the generations give both.
    assert _rows(trace) == [
        ("mcp__weather__get_weather", "toolu_01TKoqQLvY2UWuC49qnD48y7", {"city": "Berlin"},
         {"content": [{"type": "text", "text": "Weather in Berlin: Cloudy, 59°F"}]}, False,
         None, 0.041, "2025-12-22T10:46:19.027Z"),
        ("mcp__weather__get_weather", "toolu_01NtVat4vJLFfVd5TqdLHcA7", {"city": "New York"},
         {"content": [{"type": "text", "text": "Weather in New York: Sunny, 75°F"}]}, False,
         None, 0.041, "2025-12-22T10:46:19.093Z"),
    ]
    assert (trace.final_answer or "").startswith(
        "Great! Here's the current weather for both cities:")
    assert trace.model == "claude-sonnet-4-5-20250929"
    assert trace.notes == ()


def test_a_langgraph_tool_span_is_read_from_its_tool_message(read: Read) -> None:
    trace, _ = read("langfuse_langgraph_python.json")
    # The span's input is "{'query': 'example'}" (a Python repr, not JSON): the model's
    # arguments stand in; the ToolMessage gives the id and the result text.
    assert _rows(trace) == [
        ("Web-Search", "call_1oGK863sxQHlPreFhDdEs3yl", {"query": "example"},
         '[{"url": "https://example.com", "title": "Example Result", "q": "example"}]',
         False, None, 0.001, "2025-08-22T09:38:57.085Z"),
    ]
    assert trace.calls[0].raw_args is None
    assert (trace.final_answer or "").startswith('The search for "example" primarily leads to')


def test_koog_tool_spans_and_the_last_generation_as_answer(read: Read) -> None:
    trace, _ = read("langfuse_koog.json")
    # Both spans start at 19:41:02.023; the model asked for HelloTool first (its calls are
    # written as the assistant message's text).
    assert _rows(trace) == [
        ("HelloTool", "call_n2HaWg9KFP0BZDqXv6G4b3nJ", {"name": "Bob"},
         "Hello my darling Bob!", False, None, 1.011, "2025-08-26T19:41:02.023Z"),
        ("ByeTool", "call_dOeEHJDI0liHrCdFWTpkTsuO", {"name": "Bob"},
         "Bye my dear Bob!", False, None, 1.014, "2025-08-26T19:41:02.023Z"),
    ]
    # The trace has no output: the last generation's text is the answer.
    assert trace.final_answer == "Hello my darling Bob! And, bye my dear Bob!"
    assert trace.usage == {"input_tokens": 215, "output_tokens": 125, "total_tokens": 340}


def test_a_generation_without_counts_makes_the_usage_unknown_and_says_why() -> None:
    # Constructed from langfuse_koog.json: its second generation's counts removed.
    document = _load("langfuse_koog.json")
    generations = [o for o in document["observations"] if o["type"] == "GENERATION"]
    generations[1]["usageDetails"] = {}
    trace = parse_trace(document)[0]
    # 168 + 19 tokens of the first call would pass for the run's total: none is given.
    assert trace.usage is None
    assert trace.notes == ("token usage (usageDetails input / output) on 1 of 2 model calls "
                           "(generations): the run's token usage is unknown",)
    # The cost and the model are read as before: Langfuse's costDetails are their own.
    assert (trace.run_cost, trace.model) == (pytest.approx(0.0017875), "gpt-4o")
    # Constructed likewise: an output count alone is no count either.
    generations[1]["usageDetails"] = {"output": 106}
    assert parse_trace(document)[0].usage is None


def test_a_total_some_generation_lacks_is_left_out_of_the_usage() -> None:
    # Constructed from langfuse_koog.json: its second generation's total removed.
    document = _load("langfuse_koog.json")
    generations = [o for o in document["observations"] if o["type"] == "GENERATION"]
    del generations[1]["usageDetails"]["total"]
    trace = parse_trace(document)[0]
    assert trace.usage == {"input_tokens": 215, "output_tokens": 125}
    assert trace.notes == ()


def test_openai_agents_tool_takes_the_responses_call_id(read: Read) -> None:
    trace, _ = read("langfuse_openai_agents.json")
    assert _rows(trace) == [
        ("get_weather", "call_Kud0j0DxWSmLzv9W5m6qVqXn", {"city": "Tokyo"},
         "The weather in Tokyo is sunny.", False, None, 0.0, "2025-09-30T09:04:01.000Z"),
    ]
    assert trace.final_answer == (
        "The weather in Tokyo is currently sunny. If you need more details like temperature "
        "or forecast for the upcoming days, just let me know!")
    assert trace.model == "gpt-4.1-2025-04-14"


def test_a_call_no_tool_observation_ran_takes_its_result_from_the_next_generation() -> None:
    document = _load("langfuse_openai_agents.json")
    # An app whose tool is not instrumented: only the two generations remain.
    document["observations"] = [o for o in document["observations"] if o["type"] != "TOOL"]
    trace = parse_trace(document)[0]
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.duration) for c in trace.calls] == [
        ("get_weather", "call_Kud0j0DxWSmLzv9W5m6qVqXn", {"city": "Tokyo"},
         "The weather in Tokyo is sunny.", False, None)]
    assert trace.notes == ("response asked for get_weather (call_Kud0j0DxWSmLzv9W5m6qVqXn), "
                           "but no tool observation ran it",)


def test_level_error_fails_the_call_with_its_status_message() -> None:
    document = _load("langfuse_openai_agents.json")
    tool = next(o for o in document["observations"] if o["type"] == "TOOL")
    tool.update(level="ERROR", statusMessage="TimeoutError: weather service", output=None)
    call = parse_trace(document)[0].calls[0]
    assert (call.is_error, call.error, call.result) == (
        True, "TimeoutError: weather service", None)


def test_a_tool_observation_without_output_has_an_unknown_outcome() -> None:
    document = _load("langfuse_koog.json")
    for observation in document["observations"]:
        if observation["name"] == "tool.ByeTool":
            observation["output"] = None
    bye = parse_trace(document)[0].calls[1]
    assert (bye.tool, bye.result, bye.is_error, bye.duration) == ("ByeTool", None, None, 1.014)


def test_the_public_api_trace_and_the_observations_export_read_the_same_calls() -> None:
    download = _load("langfuse_pydantic_ai_tools.json")
    expected = parse_trace(download)[0]
    # GET /api/public/traces/{id}: the trace's fields at the top, input and output as values.
    trace = download["trace"]
    api = {**trace, "output": json.loads(trace["output"]),
           "observations": download["observations"]}
    read, choice = parse_trace(api)
    assert choice.reason == "a Langfuse trace with its observations (public API)"
    assert (read.calls, read.final_answer) == (expected.calls, expected.final_answer)
    assert read.run_duration == pytest.approx(7.424)
    # Asked without fields=metrics, the API writes latency -1 (and totalCost -1): unknown.
    without = parse_trace({**api, "latency": -1, "totalCost": -1})[0]
    assert (without.run_duration, without.run_cost) == (None, expected.run_cost)
    # The newer download holds no trace: the answer would be the last generation's, and
    # that one asks for the output tool, so the answer is unknown.
    export, choice = parse_trace({"observations": download["observations"], "scores": []})
    assert choice.reason == 'a Langfuse trace export ("observations", "scores")'
    assert export.calls == expected.calls
    assert export.final_answer is None


def test_a_document_with_a_non_observation_is_left_unclaimed_and_told_why() -> None:
    document = _load("langfuse_koog.json")
    broken = copy.deepcopy(document)
    del broken["observations"][2]["startTime"]
    with pytest.raises(InputError, match="no trace format recognises"):
        parse_trace(broken)
    assert near(broken) == (
        'a Langfuse trace download ("trace", "observations"), but $.observations[2] is not '
        'an observation (an "id", a "type" of AGENT, CHAIN, EMBEDDING, EVALUATOR, EVENT, '
        'GENERATION, GUARDRAIL, RETRIEVER, SPAN, TOOL and a "startTime")')


def test_a_broken_observation_read_as_langfuse_is_one_line_naming_it(tmp_path: Path) -> None:
    document = _load("langfuse_koog.json")
    del document["observations"][2]["startTime"]
    trace = write_json(tmp_path / "trace.json", document)
    gold = write_json(tmp_path / "gold.json", [{"tool": "HelloTool"}])
    result = run_cli("eval", str(gold), str(trace), "--format", "langfuse")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {trace}: $.observations[2]: an observation has an id, a type and a "
        "startTime; export the trace again from Langfuse; an observation edited by hand keeps "
        "its id, type and startTime"]


def test_observations_of_several_traces_are_refused_with_the_fix() -> None:
    document = _load("langfuse_koog.json")
    document["observations"][0]["traceId"] = "another-trace"
    with pytest.raises(InputError, match="belong to 2 traces") as caught:
        parse_trace(document)
    assert caught.value.fix == "export one trace per file"


def test_eval_scores_a_langfuse_download_against_a_contract(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [
        {"tool": "HelloTool", "args": {"name": "Bob"}},
        {"tool": "ByeTool", "args": {"name": "Bob"}},
    ])
    result = run_cli("eval", str(gold), str(FIXTURES / "langfuse_koog.json"), "--json", "-")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["score"] == 1.0
    latency = record["metrics"]["latency_metrics"]
    assert (latency["status"], latency["total_duration"], latency["run_duration"]) == (
        "measured", 2.025, 5.843)


def _claude_agent_tools(berlin_start: str, new_york_start: str) -> list[tuple[Any, ...]]:
    document = _load("langfuse_claude_agent.json")
    for observation in document["observations"]:
        if observation["type"] == "TOOL":
            city = json.loads(observation["input"])["input"]["city"]
            observation["startTime"] = berlin_start if city == "Berlin" else new_york_start
    trace = parse_trace(document)[0]
    return [(call.id, call.args, call.timestamp) for call in trace.calls]


def test_an_id_less_tool_observation_is_chosen_by_arguments_then_by_start() -> None:
    berlin, new_york = "toolu_01TKoqQLvY2UWuC49qnD48y7", "toolu_01NtVat4vJLFfVd5TqdLHcA7"
    # New York's observation started first: Berlin's request (asked at 18.725) still takes
    # the observation with its arguments.
    assert _claude_agent_tools("2025-12-22T10:46:19.093Z", "2025-12-22T10:46:19.027Z") == [
        (new_york, {"city": "New York"}, "2025-12-22T10:46:19.027Z"),
        (berlin, {"city": "Berlin"}, "2025-12-22T10:46:19.093Z")]
    # New York's observation started before its request was made (at 18.977): not its run;
    # the request is a call no observation ran (at its generation's end), and the
    # observation keeps no id.
    assert _claude_agent_tools("2025-12-22T10:46:19.027Z", "2025-12-22T10:46:18.800Z") == [
        (None, {"input": {"city": "New York"}}, "2025-12-22T10:46:18.800Z"),
        (berlin, {"city": "Berlin"}, "2025-12-22T10:46:19.027Z"),
        (new_york, {"city": "New York"}, "2025-12-22T10:46:22.849Z")]
