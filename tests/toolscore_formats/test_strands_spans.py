"""Strands Agents' OpenTelemetry exports, written by its own telemetry: the calls read are the
calls the scripted agent made, under each of its GenAI conventions.

The fixtures were written by tests/toolscore_formats/fixtures/make_strands_otel.py (a
``Model`` subclass streaming one response that asks for ``get_weather(Paris)`` and
``get_time(Atlantis)``, which raises, then a text answer); see fixtures/SOURCES.md:

- ``strands_otel_default.json``: no opt-in: per-message span events whose content is Bedrock
  Converse blocks (``toolUse`` / ``toolResult``), and tool spans that keep the arguments in a
  ``gen_ai.tool.message`` event and the result in a ``gen_ai.choice`` event;
- ``strands_otel_latest.json``: ``gen_ai_latest_experimental``: message parts in
  ``gen_ai.client.inference.operation.details`` span events, and the tool spans'
  ``gen_ai.tool.call.arguments`` / ``.result`` (a result only for the call that succeeded);
- ``strands_otel_latest_attributes.json``: the same, with ``gen_ai_span_attributes_only``: the
  message parts as span attributes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.toolscore_formats.otlp_exports import assert_times_are_the_spans, spans_of
from toolscore_core.traces import load_trace, parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
EXPORTS = {"strands_otel_default.json": "span events",
           "strands_otel_latest.json": "span events",
           "strands_otel_latest_attributes.json": "span attributes"}
ANSWER = "Paris: sunny, 21 C. I could not get the time in Atlantis."
# What the agent made, as its model asked and its tools answered: Strands hands the model the
# weather's dict as JSON text in a text block, and the exception as an "Error: ..." text.
CALLS = [
    ("get_weather", "strands-call-1", {"city": "Paris"},
     {"city": "Paris", "sky": "sunny", "celsius": 21}, False, None, 1),
    ("get_time", "strands-call-2", {"city": "Atlantis"},
     "Error: RuntimeError - no such city: Atlantis", True, "no such city: Atlantis", 1),
]


def _document(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return document


def _calls(trace: Any) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.result, c.is_error, c.error, c.turn) for c in trace.calls]


@pytest.mark.parametrize("name", EXPORTS)
def test_the_calls_are_the_ones_the_agent_made(name: str) -> None:
    trace, choice = load_trace(FIXTURES / name)
    assert choice.format == "otel"
    assert _calls(trace) == CALLS
    # The last chat's answer: the agent span repeats it with a line break after it.
    assert trace.final_answer == ANSWER
    assert trace.model == "scripted"
    assert trace.notes == ()
    # The two chats' tokens (52 + 118 in, 31 + 17 out); the agent span's total is not added.
    assert trace.usage == {"input_tokens": 170, "output_tokens": 48}
    # Each call's one tool span, joined to the model's request by call id: not counted twice.
    assert choice.reason.endswith(
        f"calls from 2 execute_tool spans, 2 calls in message parts of {EXPORTS[name]}; "
        "joined 2 by call id")


@pytest.mark.parametrize("name", EXPORTS)
def test_each_call_has_its_tool_span_time_and_the_run_its_agent_span_time(name: str) -> None:
    trace, _ = load_trace(FIXTURES / name)
    agent, tool_ids = assert_times_are_the_spans(trace, spans_of(_document(name)))
    assert [call.id for call in trace.calls] == tool_ids
    assert agent["name"] == "invoke_agent assistant"


def _tool_spans_only(strands: bool) -> dict[str, Any]:
    """The default export with only its tool spans (no chat holds the calls), their
    ``gen_ai.system`` kept or removed."""
    document = _document("strands_otel_default.json")
    for scope in document["resourceSpans"][0]["scopeSpans"]:
        scope["spans"] = [span for span in scope["spans"]
                          if span["name"].startswith("execute_tool ")]
        for span in scope["spans"]:
            if not strands:
                span["attributes"] = [a for a in span["attributes"]
                                      if a["key"] != "gen_ai.system"]
    return document


def test_strands_default_tool_spans_alone_give_the_arguments_and_results() -> None:
    trace, choice = parse_trace(_tool_spans_only(strands=True))
    assert [call[:6] for call in _calls(trace)] == [call[:6] for call in CALLS]
    assert trace.final_answer is None
    assert choice.reason.endswith("calls from 2 execute_tool spans")


def test_another_instrumentations_tool_message_event_is_not_a_tool_spans_arguments() -> None:
    # In the conventions gen_ai.tool.message is the result sent back to the model: only
    # Strands' own tool spans (gen_ai.system strands-agents) put the arguments there.
    trace, _ = parse_trace(_tool_spans_only(strands=False))
    assert [(c.tool, c.id, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("get_weather", "strands-call-1", None, None, False),
        ("get_time", "strands-call-2", None, None, True)]
