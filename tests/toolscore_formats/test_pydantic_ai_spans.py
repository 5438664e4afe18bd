"""Pydantic AI's OpenTelemetry exports, written by its own instrumentation: the calls read
are the calls the scripted agent made, in each tool span Pydantic AI writes.

The fixtures were written by tests/toolscore_formats/fixtures/make_pydantic_ai_otel.py (a
``FunctionModel`` scripted to call ``get_weather(Paris)`` and ``get_time(Tokio)``, which
raises ``ModelRetry``, then ``get_time(Tokyo)``, then to answer); see fixtures/SOURCES.md:

- ``pydantic_ai_otel_v5.json``: Pydantic AI 2.78, the default instrumentation version 5:
  ``execute_tool {tool}`` spans with ``gen_ai.tool.call.arguments`` / ``.result``;
- ``pydantic_ai_otel_v2.json``: the same release, version 2: ``running tool`` spans with
  ``tool_arguments`` / ``tool_response`` (and ``gen_ai.operation.name``);
- ``pydantic_ai_1_0_otel_v2.json``: Pydantic AI 1.0, its default version 2: ``running tool``
  spans without ``gen_ai.operation.name``, under an ``agent run`` span without it either;
- ``pydantic_ai_1_0_otel_v1.json``: the same release, version 1: the same tool spans, the
  chats' messages as per-message events in each chat span's ``events`` attribute.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.toolscore_formats.otlp_exports import assert_times_are_the_spans, spans_of
from toolscore_core.traces import load_trace, parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
EXPORTS = ["pydantic_ai_otel_v5.json", "pydantic_ai_otel_v2.json", "pydantic_ai_1_0_otel_v2.json",
           "pydantic_ai_1_0_otel_v1.json"]
RETRY = "unknown city 'Tokio': did you mean 'Tokyo'?"
# Pydantic AI 1.0 writes the retry prompt the model is sent as the tool's response, and lets
# the SDK set the ERROR status from the exception: "ToolRetryError: " (its message is empty).
RETRIED_1_0 = (f"{RETRY}\n\nFix the errors and try again.", "ToolRetryError: ")
RETRIED = {
    "pydantic_ai_otel_v5.json": (RETRY, RETRY),
    "pydantic_ai_otel_v2.json": (RETRY, RETRY),
    "pydantic_ai_1_0_otel_v2.json": RETRIED_1_0,
    "pydantic_ai_1_0_otel_v1.json": RETRIED_1_0,
}
ANSWER = "Paris: sunny, 21 C. Tokyo: 18:00."


@pytest.mark.parametrize("name", EXPORTS)
def test_the_calls_are_the_ones_the_agent_made(name: str) -> None:
    trace, choice = load_trace(FIXTURES / name)
    assert choice.format == "otel"
    result, error = RETRIED[name]
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error, c.turn)
            for c in trace.calls] == [
        ("get_weather", "pyd-call-1", {"city": "Paris"},
         {"city": "Paris", "sky": "sunny", "celsius": 21}, False, None, 1),
        ("get_time", "pyd-call-2", {"city": "Tokio"}, result, True, error, 1),
        ("get_time", "pyd-call-3", {"city": "Tokyo"}, "18:00", False, None, 1),
    ]
    assert trace.final_answer == ANSWER
    assert trace.model == "scripted"
    assert trace.notes == ()
    # Each call's one span, joined to the model's request by call id: not counted twice.
    assert "calls from 3 execute_tool spans, 3 calls in message parts of span attributes; " \
        "joined 3 by call id" in choice.reason


@pytest.mark.parametrize("name", EXPORTS)
def test_each_call_has_its_tool_span_time_and_the_run_its_agent_span_time(name: str) -> None:
    trace, _ = load_trace(FIXTURES / name)
    document = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    agent, _ = assert_times_are_the_spans(trace, spans_of(document))
    assert agent["name"] in ("invoke_agent assistant", "agent run")


def test_a_span_named_running_tool_without_a_tool_name_is_not_a_call() -> None:
    document = json.loads((FIXTURES / "pydantic_ai_1_0_otel_v2.json").read_text(
        encoding="utf-8"))
    for scope in document["resourceSpans"][0]["scopeSpans"]:
        for span in scope["spans"]:
            span["attributes"] = [a for a in span["attributes"]
                                  if a["key"] != "gen_ai.tool.name"]
    trace, choice = parse_trace(document)
    # The calls are still the model's requests in the chats' messages, without a span's
    # time: no span was read as a call.
    assert [(c.tool, c.id, c.duration) for c in trace.calls] == [
        ("get_weather", "pyd-call-1", None), ("get_time", "pyd-call-2", None),
        ("get_time", "pyd-call-3", None)]
    assert "execute_tool span" not in choice.reason
