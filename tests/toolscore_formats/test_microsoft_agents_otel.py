"""Microsoft Agent Framework's and Semantic Kernel's OTLP exports, written by their own
telemetry: each call once, with what the export holds, and nothing it does not.

The fixtures were written by tests/toolscore_formats/fixtures/make_agent_framework_otel.py and
make_semantic_kernel_otel.py (see fixtures/SOURCES.md): one agent asked twice in one session
against a scripted Chat Completions server. Turn 1: ``get_weather(city=Paris)`` (``call_w1``)
and ``get_time(city=Tokyo)`` (``call_t1``) in one response; turn 2:
``get_weather(city=Atlantis)`` (``call_w2``), which raises ``ValueError``; each turn ends with
a text answer. Semantic Kernel names the tools after the plugin (``Weather-get_weather``).

- ``agent_framework_otel_sensitive.json`` / ``_no_sensitive.json``: Agent Framework with
  ``enable_sensitive_data`` on and off (spans only; the messages in span attributes);
- ``semantic_kernel_otel_sensitive.json`` / ``_no_sensitive.json``: Semantic Kernel with
  ``SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE`` on and off (the
  messages as log records whose bodies are JSON text).
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
PARIS = {"city": "Paris", "sky": "sunny", "celsius": 21}
ANSWER = "I could not get the weather in Atlantis."
USAGE = {"input_tokens": 200, "output_tokens": 40}  # four chats of 50 and 10 (not the agents')


def _calls(trace: Trace) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.result, c.is_error, c.error, c.turn) for c in trace.calls]


def _assert_times_are_the_spans(trace: Trace, name: str) -> None:
    """Each call's duration and timestamp are its tool span's; its turn is the invoke_agent
    span it ran in. Two runs of the agent (two root spans): no one run duration."""
    spans = spans_of(json.loads((FIXTURES / name).read_text(encoding="utf-8")))
    by_call = {a["value"]["stringValue"]: span for span in spans for a in span["attributes"]
               if a["key"] == "gen_ai.tool.call.id"}
    agents = sorted((span for span in spans if span["name"].startswith("invoke_agent ")),
                    key=lambda span: int(span["startTimeUnixNano"]))
    assert len(agents) == 2 and all("parentSpanId" not in span for span in agents)
    for call in trace.calls:
        span = by_call[call.id]
        assert call.duration is not None and call.duration > 0
        assert call.duration == pytest.approx(seconds(span))
        start = int(span["startTimeUnixNano"])
        assert call.timestamp == iso_from_nanos(start)
        assert call.turn is not None
        agent = agents[call.turn - 1]
        assert int(agent["startTimeUnixNano"]) <= start <= int(agent["endTimeUnixNano"])
    assert trace.run_duration is None and trace.span is None


def test_agent_framework_with_sensitive_data_gives_each_call_once_with_its_content() -> None:
    trace, choice = load_trace(FIXTURES / "agent_framework_otel_sensitive.json")
    assert choice.format == "otel"
    # The tool span and the chats' tool_call parts are one call, joined by id. The call that
    # raised has the span's status message as its error and, as its result, the text the
    # framework sent the model (the span has no result).
    assert _calls(trace) == [
        ("get_weather", "call_w1", {"city": "Paris"}, PARIS, False, None, 1),
        ("get_time", "call_t1", {"city": "Tokyo"}, "18:00", False, None, 1),
        ("get_weather", "call_w2", {"city": "Atlantis"}, "Error: Function failed.", True,
         "ValueError('no such city: Atlantis')", 2),
    ]
    _assert_times_are_the_spans(trace, "agent_framework_otel_sensitive.json")
    assert (trace.final_answer, trace.model, trace.usage) == (ANSWER, "gpt-4o-mini", USAGE)
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 3 execute_tool spans, 3 calls in message parts "
                                  "of span attributes; joined 3 by call id")


def test_agent_framework_without_sensitive_data_leaves_arguments_and_results_unknown() -> None:
    trace, choice = load_trace(FIXTURES / "agent_framework_otel_no_sensitive.json")
    # The tool spans still name the tool, the call id and the failure (error.type only).
    assert _calls(trace) == [
        ("get_weather", "call_w1", None, None, False, None, 1),
        ("get_time", "call_t1", None, None, False, None, 1),
        ("get_weather", "call_w2", None, None, True, "ValueError", 2),
    ]
    assert all(call.raw_args is None for call in trace.calls)
    _assert_times_are_the_spans(trace, "agent_framework_otel_no_sensitive.json")
    # No content, no answer; the chat spans still name the model and count the tokens.
    assert (trace.final_answer, trace.model, trace.usage) == (None, "gpt-4o-mini", USAGE)
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 3 execute_tool spans")


def test_semantic_kernel_with_sensitive_data_reads_its_log_records_json_bodies() -> None:
    trace, choice = load_trace(FIXTURES / "semantic_kernel_otel_sensitive.json")
    # The kernel writes a result as Python's str() of the value: a dict's text is not JSON,
    # and stays text. The failed call's result is the tool message the kernel sent the model
    # (a gen_ai.tool.message log record naming it by "tool_call_id").
    assert _calls(trace) == [
        ("Weather-get_weather", "call_w1", {"city": "Paris"},
         "{'city': 'Paris', 'sky': 'sunny', 'celsius': 21}", False, None, 1),
        ("Weather-get_time", "call_t1", {"city": "Tokyo"}, "18:00", False, None, 1),
        ("Weather-get_weather", "call_w2", {"city": "Atlantis"},
         "An error occurred while invoking the function Weather-get_weather: no such city: "
         "Atlantis", True, "ValueError: no such city: Atlantis", 2),
    ]
    _assert_times_are_the_spans(trace, "semantic_kernel_otel_sensitive.json")
    # The answer is the last gen_ai.choice record's message; the chat spans give only the
    # requested model.
    assert (trace.final_answer, trace.model, trace.usage) == (ANSWER, "gpt-4o-mini", USAGE)
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 3 execute_tool spans, 3 calls in message parts "
                                  "of log records; joined 3 by call id")


def test_semantic_kernel_without_sensitive_data_leaves_arguments_and_results_unknown() -> None:
    trace, choice = load_trace(FIXTURES / "semantic_kernel_otel_no_sensitive.json")
    assert _calls(trace) == [
        ("Weather-get_weather", "call_w1", None, None, False, None, 1),
        ("Weather-get_time", "call_t1", None, None, False, None, 1),
        ("Weather-get_weather", "call_w2", None, None, True,
         "ValueError: no such city: Atlantis", 2),
    ]
    _assert_times_are_the_spans(trace, "semantic_kernel_otel_no_sensitive.json")
    assert (trace.final_answer, trace.model, trace.usage) == (None, "gpt-4o-mini", USAGE)
    assert trace.notes == ()
    assert choice.reason.endswith("calls from 3 execute_tool spans")
