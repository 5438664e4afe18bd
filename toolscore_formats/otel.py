"""OpenTelemetry GenAI exports: tool calls from spans, message parts and log records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.shapes import is_mlflow_span
from toolscore_formats.spans import (
    GROUP_KEYS,
    LOG_SCOPE_KEYS,
    SCOPE_KEYS,
    Span,
    is_span,
    log_records,
    openinference_only,
    otlp_spans,
    unread_openinference_tools,
)

if TYPE_CHECKING:
    from toolscore_formats.cursor import TextCursor

EXPORT_KEYS = (*GROUP_KEYS, "resourceLogs")
SIGNAL_KEYS = (*EXPORT_KEYS, "resourceMetrics")


def _exports(document: Any) -> list[dict[str, Any]] | None:
    """The export requests a document holds: one OTLP JSON export (traces, logs or both),
    Tempo's ``{"trace": {...}}``, or JSON Lines of exports (the Collector's file exporter:
    one export request of traces, logs or metrics per line). None for anything else."""
    if isinstance(document, dict):
        inner = document.get("trace")
        if isinstance(inner, dict) and any(isinstance(inner.get(k), list) for k in GROUP_KEYS):
            return [inner]  # Tempo's /api/v2/traces/{id}
        if any(isinstance(document.get(k), list) for k in EXPORT_KEYS):
            return [document]
        return None
    if isinstance(document, list) and document and all(
            isinstance(d, dict) and any(isinstance(d.get(k), list) for k in SIGNAL_KEYS)
            for d in document) and any(
            any(isinstance(d.get(k), list) for k in EXPORT_KEYS) for d in document):
        return document
    return None


def _layout(document: Any) -> str | None:
    exports = _exports(document)
    if exports is None:
        if isinstance(document, list) and document and all(is_span(item) for item in document):
            return "a list of OpenTelemetry spans (name, span id, attributes)"
        return None
    signals = [key for key in EXPORT_KEYS if any(isinstance(e.get(key), list) for e in exports)]
    what = " and ".join(f'"{key}"' for key in signals)
    if isinstance(document, list):
        return f"OTLP JSON Lines (the Collector's file exporter): export requests of {what}"
    if isinstance(document.get("trace"), dict):
        return f'a Grafana Tempo trace ("trace": {what})'
    return f"an OTLP JSON export ({what})"


def _read(document: Any) -> tuple[Trace, str, list[Span]]:
    """Read spans and log records in the order the document has them, as ``stream`` does."""
    # Imported here, as in stream: only a document this format claims is read.
    from toolscore_formats.genai import GenAIReader

    reader = GenAIReader()
    spans: list[Span] = []

    def feed(items: Any) -> None:
        for item in items:
            span = Span.from_otlp(item, len(spans))
            spans.append(span)
            reader.feed(span)

    exports = _exports(document)
    if exports is None:
        feed(otlp_spans(document))
    for export in exports or ():
        group = next((k for k in GROUP_KEYS if isinstance(export.get(k), list)), None)
        for key in export:
            if key == group:
                feed(otlp_spans(export))
            elif key == "resourceLogs":
                for record in log_records(export):
                    reader.feed_log(record)
    trace, where = reader.trace()
    return trace, where, spans


def detect(document: Any) -> str | None:
    reason = _layout(document)
    if reason is None:
        return None
    if isinstance(document, list) and all(is_mlflow_span(item) for item in document):
        return None  # spans MLflow Tracing serialised: the mlflow format's
    _, where, spans = _read(document)
    if openinference_only(spans):
        return None  # OpenInference spans without GenAI tool spans: the openinference format's
    return f"{reason}: {where}" + unread_openinference_tools(spans)


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
                         fix='give {"resourceSpans": [...]} (and "resourceLogs"), JSON Lines '
                             "of such export requests, or a list of spans")
    return _read(document)[0]


def stream(data: bytes) -> tuple[Trace, str] | None:
    """Stream a large OTLP export (``resourceSpans`` or ``batches``, and ``resourceLogs``),
    one span or log record at a time."""
    # Imported here: streaming is for large files, reading for a document this format claims.
    from toolscore_formats.cursor import TextCursor
    from toolscore_formats.genai import GenAIReader

    cursor = TextCursor(data)
    reader = GenAIReader()
    if cursor.peek() != "{":
        return None
    found: list[str] = []
    for key in cursor.members():
        if key in EXPORT_KEYS and key not in found and cursor.peek() == "[":
            found.append(key)
            for _ in cursor.elements():
                for item, is_log in _stream_group(cursor, key == "resourceLogs"):
                    if is_log:
                        reader.feed_log(item)
                    else:
                        reader.feed_raw(item)
        elif cursor.peek() in ("[", "{"):
            return None  # not an OTLP export: read whole
        else:
            cursor.value()
    if not found or not cursor.at_end() or ("resourceSpans" in found and "batches" in found):
        return None
    trace, where = reader.trace()
    if not trace.calls and reader.openinference:
        return None  # the openinference format's (see detect)
    what = " and ".join(f'"{key}"' for key in found)
    return trace, f"an OTLP JSON export ({what}): {where}"


def _stream_group(cursor: TextCursor, logs: bool) -> Iterator[tuple[dict[str, Any], bool]]:
    scoped = False
    scope_keys, item_key = (LOG_SCOPE_KEYS, "logRecords") if logs else (SCOPE_KEYS, "spans")
    for key in cursor.members():
        if key in scope_keys and cursor.peek() == "[":
            if scoped:  # the whole-document reader reads only the first: let it decide
                raise ValueError("two scope lists in one resource")
            scoped = True
            for _ in cursor.elements():
                for scope_key in cursor.members():
                    if scope_key == item_key and cursor.peek() == "[":
                        for item in cursor.values():
                            if isinstance(item, dict):
                                yield item, logs
                    else:
                        cursor.value()
        else:
            cursor.value()


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="otel",
        description="OpenTelemetry GenAI spans: OTLP JSON exports and span lists",
        reads='{"resourceSpans": [...], "resourceLogs": [...]} (also Tempo "batches" and '
              '{"trace": ...}, the Collector file exporter\'s JSON Lines) or a list of spans: '
              'execute_tool, MCP tools/call and Vercel AI SDK ai.toolCall spans, tool_call / '
              'tool_call_response message parts (gen_ai.input/output.messages, gen_ai.prompt.N '
              '/ completion.N) and GenAI '
              'log records, joined by call id (else tool name and order); placeholders read '
              'as absent; turns from invoke_agent spans or user messages',
        detect=detect, parse=parse, stream=stream, near=near,
    )]
