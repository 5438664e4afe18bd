"""OpenLLMetry's (Traceloop's) OTLP exports, written by its real instrumentation: its tool spans
(``traceloop.span.kind`` ``tool``) are the calls the agent made, each counted once with the
model's request for it.

The fixtures were written by tests/toolscore_formats/fixtures/make_traceloop_otel.py (see
fixtures/SOURCES.md):

- ``traceloop_otel_decorators.json``: traceloop-sdk's ``@tool`` functions run by an openai SDK
  loop whose chats the openai instrumentation traces: ``get_weather(city=Paris)`` (keyword
  arguments; it calls the ``@tool`` ``geocode`` itself), ``get_time("Tokyo")`` (positional),
  then ``get_weather(city=Atlantis)``, which raises;
- ``traceloop_otel_decorators_only.json``: the same decorators with no instrumentation (no
  chat span); ``traceloop_otel_decorators_no_content.json``: content tracing off;
- ``traceloop_otel_openai_no_content.json``: the agent without decorators, content off;
- ``traceloop_otel_langgraph.json``: the LangChain instrumentation over LangGraph's ReAct
  agent: ``get_weather(Paris)``, ``get_time(Tokyo)``, ``get_weather(Atlantis)`` (raises) and
  ``get_forecast(Atlantis)`` (its ToolMessage has status ``error``);
- ``traceloop_otel_openai_agents.json``: the OpenAI Agents SDK instrumentation, whose tool
  spans have no ``traceloop.entity.input``: ``get_weather(Paris)``, ``get_time(Tokyo)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.toolscore_formats.otlp_exports import seconds, spans_of
from toolscore import Trace
from toolscore_core.traces import load_trace, parse_trace
from toolscore_formats.times import iso_from_nanos

FIXTURES = Path(__file__).parent / "fixtures"
NESTED = ("2 OpenLLMetry tool spans inside another tool span not read as calls (the outer "
          "tool's own work, not the model's request)")
PARIS = {"city": "Paris", "sky": "sunny", "celsius": 21, "lat": 48.8566, "lon": 2.3522}
ATLANTIS = "no such city: Atlantis"


def _calls(trace: Trace) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.result, c.is_error, c.error, c.turn) for c in trace.calls]


def _tool_spans(name: str) -> list[dict[str, Any]]:
    """The export's outermost OpenLLMetry tool spans (the decorators' get_weather and get_time,
    not the geocode each get_weather ran), in start order."""
    document = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    spans = [span for span in spans_of(document)
             if {"key": "traceloop.span.kind", "value": {"stringValue": "tool"}}
             in span["attributes"]]
    ids = {span["spanId"] for span in spans}
    outer = [span for span in spans if span.get("parentSpanId") not in ids]
    return sorted(outer, key=lambda span: int(span["startTimeUnixNano"]))


def _assert_times_are_the_tool_spans(trace: Trace, name: str) -> None:
    spans = _tool_spans(name)
    assert len(spans) == len(trace.calls)
    # each call is timed by a span of its own (calls are in the model's order, not the start
    # order of the spans of one response's parallel calls)
    by_start = {iso_from_nanos(int(span["startTimeUnixNano"])): span for span in spans}
    for call in trace.calls:
        span = by_start.pop(str(call.timestamp))
        assert call.tool in span["name"]
        assert call.duration is not None and call.duration > 0
        assert call.duration == pytest.approx(seconds(span))
        assert call.timestamp == iso_from_nanos(int(span["startTimeUnixNano"]))


def test_decorated_tools_are_the_calls_joined_to_the_models_requests() -> None:
    trace, choice = load_trace(FIXTURES / "traceloop_otel_decorators.json")
    assert choice.format == "otel"
    # Three calls, each once: its tool span and the chat's tool_call part are one call. The
    # ids are the model's; get_time's arguments too (its span gives them by position only);
    # the failed call's result is the error text the loop sent the model.
    assert _calls(trace) == [
        ("get_weather", "call_w1", {"city": "Paris"}, PARIS, False, None, 1),
        ("get_time", "call_t1", {"city": "Tokyo"}, "18:00", False, None, 1),
        ("get_weather", "call_w2", {"city": "Atlantis"}, f"error: {ATLANTIS}", True, ATLANTIS,
         2),
    ]
    _assert_times_are_the_tool_spans(trace, "traceloop_otel_decorators.json")
    assert trace.notes == (NESTED, "3 OpenLLMetry tool spans joined to the model's request by "
                           "tool name and order (no call id in common)")
    assert choice.reason.endswith("calls from 3 OpenLLMetry tool spans, 3 calls in message "
                                  "parts of span attributes; joined 3 by tool name and order")
    assert trace.final_answer == "I could not get the weather in Atlantis."
    assert trace.usage == {"input_tokens": 200, "output_tokens": 40}


def test_decorated_tools_alone_give_keyword_arguments_and_say_positional_ones_are_unknown(
) -> None:
    trace, choice = load_trace(FIXTURES / "traceloop_otel_decorators_only.json")
    # No chat: no id, no turn. get_time("Tokyo") names no parameter: its arguments are
    # unknown, not {"args": ["Tokyo"]}; the call that raised has no result.
    assert _calls(trace) == [
        ("get_weather", None, {"city": "Paris"}, PARIS, False, None, None),
        ("get_time", None, None, "18:00", False, None, None),
        ("get_weather", None, {"city": "Atlantis"}, None, True, ATLANTIS, None),
    ]
    assert trace.calls[1].raw_args is None
    _assert_times_are_the_tool_spans(trace, "traceloop_otel_decorators_only.json")
    assert trace.notes == (NESTED, "1 OpenLLMetry tool span with positional arguments "
                           '(traceloop.entity.input {"args": [...]}: their names are not in '
                           "the span) and no model request that names them: arguments unknown")
    assert choice.reason.endswith("calls from 3 OpenLLMetry tool spans")


def test_without_content_the_decorated_tools_are_calls_with_unknown_arguments() -> None:
    trace, _ = load_trace(FIXTURES / "traceloop_otel_decorators_no_content.json")
    assert _calls(trace) == [
        ("get_weather", None, None, None, False, None, None),
        ("get_time", None, None, None, False, None, None),
        ("get_weather", None, None, None, True, ATLANTIS, None),
    ]
    _assert_times_are_the_tool_spans(trace, "traceloop_otel_decorators_no_content.json")
    assert trace.notes == (NESTED,)


def test_chats_without_content_say_the_calls_are_unknown() -> None:
    # OpenLLMetry's finish reason is the conventions' "tool_call" (OpenAI's is "tool_calls").
    trace, _ = load_trace(FIXTURES / "traceloop_otel_openai_no_content.json")
    assert trace.calls == ()
    assert trace.notes == (
        "no tool call read: 2 chats ended with finish reason tool_call, but the export holds "
        "no message content (content capture was off): which calls were made is unknown",)


def test_langchain_tool_spans_give_the_tools_inputs_and_results_not_the_callbacks_wrapper(
) -> None:
    trace, choice = load_trace(FIXTURES / "traceloop_otel_langgraph.json")
    # The arguments are the callback's "inputs", the id its tool_call_id, the result the
    # ToolMessage's content; get_forecast's ToolMessage has status "error". The tool node runs
    # a response's calls in parallel (in this run get_time started first): they are in the
    # order the model asked for them.
    assert _calls(trace) == [
        ("get_weather", "call_w1", {"city": "Paris"},
         {"city": "Paris", "sky": "sunny", "celsius": 21}, False, None, 1),
        ("get_time", "call_t1", {"city": "Tokyo"}, "18:00", False, None, 1),
        ("get_weather", "call_w2", {"city": "Atlantis"},
         "Error: ValueError('no such city: Atlantis')\n Please fix your mistakes.", True,
         ATLANTIS, 1),
        ("get_forecast", "call_f1", {"city": "Atlantis"}, "no forecast for Atlantis", True,
         "no forecast for Atlantis", 1),
    ]
    _assert_times_are_the_tool_spans(trace, "traceloop_otel_langgraph.json")
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 4 execute_tool spans, 4 calls in message parts "
                                  "of span attributes; joined 4 by call id")
    assert trace.final_answer == "Paris: sunny, 21 C. Tokyo: 18:00. No weather for Atlantis."


def test_other_openllmetry_tool_spans_are_read_by_their_genai_attributes() -> None:
    # The OpenAI Agents SDK instrumentation's tool spans keep the call in
    # gen_ai.tool.call.arguments / .result: read as they are, each call once.
    trace, choice = load_trace(FIXTURES / "traceloop_otel_openai_agents.json")
    assert [(c.tool, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("get_weather", {"city": "Paris"}, {"city": "Paris", "sky": "sunny", "celsius": 21},
         False, None),
        ("get_time", {"city": "Tokyo"}, "18:00", False, None),
    ]
    _assert_times_are_the_tool_spans(trace, "traceloop_otel_openai_agents.json")
    assert choice.reason.endswith("calls from 2 execute_tool spans")
    # Its chat spans hold no output messages: the calls are in the next chat's input history
    # only. They are the calls the tool spans ran (same tool and arguments), not calls left
    # out: the spans take their ids, and no note says they were not counted.
    assert [c.id for c in trace.calls] == ["call_w1", "call_t1"]
    assert trace.notes == ()


def test_spans_linked_in_a_cycle_above_the_tools_end_the_walk_up() -> None:
    # A malformed export: the agent and workflow spans, made plain tasks, each the other's
    # parent. A tool span under them is inside no tool span; geocode, under get_weather, is.
    document = json.loads((FIXTURES / "traceloop_otel_decorators_only.json").read_text(
        encoding="utf-8"))
    for span in spans_of(document):
        for attribute in span["attributes"]:
            if attribute["key"] == "traceloop.span.kind" and \
                    attribute["value"]["stringValue"] in ("agent", "workflow"):
                attribute["value"]["stringValue"] = "task"
        if span["spanId"] == "d75f081297fe9426":
            span["parentSpanId"] = "678c7b08bbf71665"
    trace = parse_trace(document)[0]
    assert [(c.tool, c.result, c.is_error) for c in trace.calls] == [
        ("get_weather", PARIS, False), ("get_time", "18:00", False),
        ("get_weather", None, True)]
    assert trace.notes[0] == NESTED
