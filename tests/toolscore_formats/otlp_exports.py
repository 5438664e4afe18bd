"""What the OTLP exports written by real instrumentations hold, read from the file itself:
their spans, and the times toolscore must give the calls and the run."""

from __future__ import annotations

from typing import Any

import pytest

from toolscore import Trace
from toolscore_formats.times import iso_from_nanos


def spans_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every span of an OTLP JSON export."""
    return [span for group in document["resourceSpans"] for scope in group["scopeSpans"]
            for span in scope["spans"]]


def seconds(span: dict[str, Any]) -> float:
    return (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e9


def assert_times_are_the_spans(trace: Trace, spans: list[dict[str, Any]]
                               ) -> tuple[dict[str, Any], list[str]]:
    """Each call's duration and timestamp are its tool span's (found by
    ``gen_ai.tool.call.id``), and the run's duration is the root (agent) span's; the root
    span and the tool spans' call ids, in the export's order."""
    tool_spans = {attribute["value"]["stringValue"]: span for span in spans
                  for attribute in span["attributes"] if attribute["key"] == "gen_ai.tool.call.id"}
    for call in trace.calls:
        span = tool_spans[call.id]
        assert call.duration is not None and call.duration > 0
        assert call.duration == pytest.approx(seconds(span))
        assert call.timestamp == iso_from_nanos(int(span["startTimeUnixNano"]))
    [agent] = [span for span in spans if "parentSpanId" not in span]
    assert trace.run_duration == pytest.approx(seconds(agent))
    assert trace.span is not None and trace.span.span_id == agent["spanId"]
    return agent, list(tool_spans)
