"""Microsoft AutoGen's OTLP exports, written by its real telemetry: its ``execute_tool`` spans
are the calls the agents made, each counted once with what the model's request (the OpenAI
instrumentation's chat spans) or a team's runtime messages say of it.

The fixtures were written by tests/toolscore_formats/fixtures/make_autogen_otel.py (see
fixtures/SOURCES.md), autogen-agentchat 0.7.5 against a scripted Chat Completions server:

- ``autogen_otel_agent.json``: an ``AssistantAgent`` run twice: ``get_weather(Paris)``
  (``call_w1``) and ``get_time(Tokyo)`` (``call_t1``) in one model answer, then
  ``get_forecast(Atlantis)`` (``call_f1``), which raises; AutoGen's spans alone;
- ``autogen_otel_agent_openai_v2.json``: the same with the OpenAI instrumentation's chat spans;
- ``autogen_otel_team.json``: a ``RoundRobinGroupChat`` of ``weather_agent`` (tools) and
  ``writer``: ``get_weather(Paris)`` and ``get_forecast(Atlantis)`` (raises) in one answer;
  AutoGen's spans alone, its runtime's ``autogen ...`` spans among them;
- ``autogen_otel_team_openai_v2.json``: the same with the OpenAI instrumentation's chat spans;
- ``autogen_otel_team_summary.json``: a team of one agent without reflection:
  ``get_weather(Paris)``, then the agent answers with a ``ToolCallSummaryMessage``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.toolscore_formats.otlp_exports import seconds, spans_of
from toolscore import Trace
from toolscore_core.traces import load_trace
from toolscore_formats.times import iso_from_nanos

FIXTURES = Path(__file__).parent / "fixtures"
# What AutoGen sent the model: a tool's return value as str() makes it (a dict's Python repr).
PARIS = "{'city': 'Paris', 'sky': 'sunny', 'celsius': 21}"
# The tool span's status message (the SDK's, with the exception's type), and the error text
# AutoGen sent the model in its place.
FAILED = "ValueError: no forecast for Atlantis"
SENT = "no forecast for Atlantis"
NO_ARGUMENTS = ("3 AutoGen execute_tool spans without arguments: AutoGen's tool spans record "
                "neither the arguments nor the result, and no model request or runtime "
                "message in this export gives them (unknown)")


def _calls(trace: Trace) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.result, c.is_error, c.error, c.turn) for c in trace.calls]


def _assert_times_are_the_tool_spans(trace: Trace, name: str) -> list[dict[str, Any]]:
    """Each call is timed by AutoGen's execute_tool span of its call id; the export's spans."""
    spans = spans_of(json.loads((FIXTURES / name).read_text(encoding="utf-8")))
    tools = {attribute["value"]["stringValue"]: span for span in spans
             for attribute in span["attributes"] if attribute["key"] == "gen_ai.tool.call.id"}
    assert sorted(tools) == sorted(str(call.id) for call in trace.calls)
    for call in trace.calls:
        span = tools[call.id]
        assert span["name"] == f"execute_tool {call.tool}"
        assert call.duration is not None and call.duration > 0
        assert call.duration == pytest.approx(seconds(span))
        assert call.timestamp == iso_from_nanos(int(span["startTimeUnixNano"]))
    return spans


def test_an_agents_tool_spans_alone_are_the_calls_with_unknown_arguments_and_results() -> None:
    trace, choice = load_trace(FIXTURES / "autogen_otel_agent.json")
    assert choice.format == "otel"
    # AutoGen's tool span has the tool, the model's call id and the outcome; the arguments and
    # the result are nowhere in the export. Each agent.run is an invoke_agent span: a turn.
    assert _calls(trace) == [
        ("get_weather", "call_w1", None, None, False, None, 1),
        ("get_time", "call_t1", None, None, False, None, 1),
        ("get_forecast", "call_f1", None, None, True, FAILED, 2),
    ]
    _assert_times_are_the_tool_spans(trace, "autogen_otel_agent.json")
    assert trace.notes == (NO_ARGUMENTS,)
    assert choice.reason.endswith("calls from 3 execute_tool spans")
    # No chat span: no answer, model or tokens; two runs have no one duration.
    assert (trace.final_answer, trace.model, trace.usage, trace.run_duration) == (
        None, None, None, None)


def test_an_agent_with_the_openai_instrumentation_is_read_whole() -> None:
    trace, choice = load_trace(FIXTURES / "autogen_otel_agent_openai_v2.json")
    # The chat spans' tool_call parts give the arguments, the next chat's tool_call_response
    # parts the results, joined to AutoGen's tool spans by call id: each call once.
    assert _calls(trace) == [
        ("get_weather", "call_w1", {"city": "Paris"}, PARIS, False, None, 1),
        ("get_time", "call_t1", {"city": "Tokyo"}, "18:00", False, None, 1),
        ("get_forecast", "call_f1", {"city": "Atlantis"}, SENT, True, FAILED, 2),
    ]
    _assert_times_are_the_tool_spans(trace, "autogen_otel_agent_openai_v2.json")
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 3 execute_tool spans, 3 calls in message parts "
                                  "of span attributes; joined 3 by call id")
    assert trace.final_answer == "I could not get the forecast for Atlantis."
    assert trace.model == "gpt-4o-mini"
    # Four chats, 50 and 10 tokens each (the scripted server's counts).
    assert trace.usage == {"input_tokens": 200, "output_tokens": 40}
    assert trace.run_duration is None


def test_a_teams_runtime_messages_give_the_arguments_results_and_answer() -> None:
    trace, choice = load_trace(FIXTURES / "autogen_otel_team.json")
    # The runtime's spans deliver the group chat's messages to every member (the tool events
    # in several spans each): the ToolCallRequestEvent gives the arguments, the
    # ToolCallExecutionEvent the result, each call once. The failed call's content is the
    # error text sent to the model (is_error true there): not a result.
    assert _calls(trace) == [
        ("get_weather", "call_w1", {"city": "Paris"}, PARIS, False, None, 1),
        ("get_forecast", "call_f1", {"city": "Atlantis"}, None, True, FAILED, 1),
    ]
    spans = _assert_times_are_the_tool_spans(trace, "autogen_otel_team.json")
    runtime = [s for s in spans if s["name"].startswith("autogen process ") and any(
        "ToolCallRequestEvent" in str(a["value"]) for a in s["attributes"])]
    assert len(runtime) > 1  # the same request, delivered more than once
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 2 execute_tool spans, 2 calls in AutoGen's "
                                  "runtime messages; joined 2 by call id")
    # The writer's TextMessage, the team's last; not the termination's StopMessage.
    assert trace.final_answer == "Paris is sunny at 21 C; Atlantis has no forecast. TERMINATE"
    # The messages name no model; their models_usage is not a model-call span's count.
    assert (trace.model, trace.usage, trace.run_duration) == (None, None, None)


def test_a_team_with_the_openai_instrumentation_keeps_the_chats_answer_and_model() -> None:
    trace, choice = load_trace(FIXTURES / "autogen_otel_team_openai_v2.json")
    assert _calls(trace) == [
        ("get_weather", "call_w1", {"city": "Paris"}, PARIS, False, None, 1),
        ("get_forecast", "call_f1", {"city": "Atlantis"}, SENT, True, FAILED, 1),
    ]
    _assert_times_are_the_tool_spans(trace, "autogen_otel_team_openai_v2.json")
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 2 execute_tool spans, 2 calls in message parts "
                                  "of span attributes; joined 2 by call id")
    assert trace.final_answer == "Paris is sunny at 21 C; Atlantis has no forecast. TERMINATE"
    assert trace.model == "gpt-4o-mini"
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30}


def test_a_team_whose_model_gave_no_text_has_no_final_answer() -> None:
    trace, _ = load_trace(FIXTURES / "autogen_otel_team_summary.json")
    assert _calls(trace) == [("get_weather", "call_w1", {"city": "Paris"}, PARIS, False, None, 1)]
    _assert_times_are_the_tool_spans(trace, "autogen_otel_team_summary.json")
    # The model's last answer asked for the tool; the agent's response is the tool's result
    # (a ToolCallSummaryMessage), which no model wrote; the task's TextMessage is the user's.
    assert trace.final_answer is None
    assert trace.notes == ()
