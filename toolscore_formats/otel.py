"""OpenTelemetry GenAI spans: ``execute_tool`` and MCP ``tools/call`` spans as tool calls."""

from __future__ import annotations

from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_formats.common import TextCursor
from toolscore_formats.genai import SpanCollector
from toolscore_formats.spans import (
    GROUP_KEYS,
    SCOPE_KEYS,
    Span,
    is_span,
    openinference_only,
    otlp_spans,
    unread_openinference_tools,
)


def _spans(document: Any) -> list[Span]:
    return [Span.from_otlp(span, order) for order, span in enumerate(otlp_spans(document))]


def detect(document: Any) -> str | None:
    reason = _layout(document)
    if reason is None:
        return None
    spans = _spans(document)
    if openinference_only(spans):
        return None  # OpenInference spans without GenAI tool spans: the openinference format's
    return reason + unread_openinference_tools(spans)


def _layout(document: Any) -> str | None:
    if isinstance(document, dict):
        for key in GROUP_KEYS:
            if isinstance(document.get(key), list):
                return f'an OTLP JSON trace export ("{key}")'
        return None
    if isinstance(document, list) and document:
        if all(isinstance(d, dict) and isinstance(d.get("resourceSpans"), list)
               for d in document):
            return 'OTLP JSON Lines: one {"resourceSpans": [...]} export per line'
        if all(is_span(item) for item in document):
            return "a list of OpenTelemetry spans (name, span id, attributes)"
    return None


def near(document: Any) -> str | None:
    """What an unclaimed document that holds spans in another layout misses."""
    if isinstance(document, list) and document:
        if all(_is_zipkin_span(item) for item in document):
            return ("Zipkin v2 spans (id, localEndpoint), which it does not read: export OTLP "
                    "JSON (resourceSpans) instead")
        spans = sum(1 for item in document if is_span(item))
        if spans * 2 >= len(document):
            index = next(i for i, item in enumerate(document) if not is_span(item))
            return (f"a list of OpenTelemetry spans ({spans} of {len(document)} items are), "
                    f"but $[{index}] is not a span (a name and a spanId)")
    return None


def _is_zipkin_span(item: Any) -> bool:
    return (isinstance(item, dict) and "traceId" in item and "id" in item and
            "spanId" not in item and ("localEndpoint" in item or "remoteEndpoint" in item))


def parse(document: Any) -> Trace:
    if _layout(document) is None:
        raise InputError("not an OTLP export or a list of spans", place="$",
                         fix='give {"resourceSpans": [...]} or a list of spans')
    collector = SpanCollector()
    for span in otlp_spans(document):
        collector.feed_raw(span)
    return collector.trace()


def stream(data: bytes) -> tuple[Trace, str] | None:
    """Stream a large OTLP export (``resourceSpans`` or ``batches``), one span at a time."""
    cursor = TextCursor(data)
    collector = SpanCollector()
    if cursor.peek() != "{":
        return None
    group_key = None
    for key in cursor.members():
        if key in GROUP_KEYS and group_key is None and cursor.peek() == "[":
            group_key = key
            for _ in cursor.elements():
                _stream_group(cursor, collector)
        elif cursor.peek() in ("[", "{"):
            return None  # not an OTLP export: read whole
        else:
            cursor.value()
    if group_key is None or not cursor.at_end():
        return None
    if not collector.found and collector.openinference:
        return None  # the openinference format's (see detect)
    return collector.trace(), f'an OTLP JSON trace export ("{group_key}")'


def _stream_group(cursor: TextCursor, collector: SpanCollector) -> None:
    scoped = False
    for key in cursor.members():
        if key in SCOPE_KEYS and cursor.peek() == "[":
            if scoped:  # the whole-document reader reads only the first: let it decide
                raise ValueError("two scope span lists in one resource")
            scoped = True
            for _ in cursor.elements():
                for scope_key in cursor.members():
                    if scope_key == "spans" and cursor.peek() == "[":
                        for span in cursor.values():
                            if isinstance(span, dict):
                                collector.feed_raw(span)
                    else:
                        cursor.value()
        else:
            cursor.value()


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="otel",
        description="OpenTelemetry GenAI spans: OTLP JSON exports and span lists",
        reads='{"resourceSpans": [...]} (also Tempo "batches", JSON Lines of exports) or a '
              'list of spans: execute_tool and MCP tools/call spans (gen_ai.tool.name, '
              'gen_ai.tool.call.id/.arguments/.result), ERROR status or error.type as '
              'failure, duration from start/end nanoseconds',
        detect=detect, parse=parse, stream=stream, near=near,
    )]
