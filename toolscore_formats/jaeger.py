"""Jaeger JSON exports (``{"data": [traces]}``) of OpenTelemetry GenAI or OpenInference spans."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_formats.common import as_int, as_str, list_of
from toolscore_formats.openinference import read_spans
from toolscore_formats.otel import (
    NAME_PREFIXES,
    SpanCollector,
    openinference_only,
    unread_openinference_tools,
)

ERROR_STATUS = frozenset(("ERROR", "Error", "error"))
EXPORT = 'a Jaeger JSON trace export ("data": [{"traceID", "spans"}])'


def _is_jaeger_span(span: Any) -> bool:
    return isinstance(span, dict) and isinstance(span.get("operationName"), str) and \
        "spanID" in span


def _traces(document: Any) -> list[Any] | None:
    if isinstance(document, dict) and isinstance(document.get("data"), list) and document["data"]:
        traces = document["data"]
        if all(isinstance(t, dict) and isinstance(t.get("spans"), list) and "traceID" in t and
               all(_is_jaeger_span(s) for s in t["spans"]) for t in traces):
            return traces
    return None


def detect(document: Any) -> str | None:
    traces = _traces(document)
    if traces is None:
        return None
    spans = _otel_spans(traces)
    if openinference_only(spans):
        return (f"{EXPORT} of OpenInference spans (openinference.span.kind, no GenAI tool "
                "span), read as the openinference format reads them")
    # The same rule as for an OTLP export (otel over openinference): say what it leaves out.
    return f"{EXPORT} of OpenTelemetry GenAI spans" + unread_openinference_tools(spans)


def near(document: Any) -> str | None:
    """What an unclaimed document holding Jaeger traces misses."""
    if isinstance(document, dict) and _is_trace(document):
        return ('one Jaeger trace without the export\'s "data" wrapper: save it as '
                '{"data": [trace]}, as the Jaeger UI and API export it')
    if isinstance(document, list) and document and all(_is_trace(t) for t in document):
        return 'Jaeger traces as a bare list: wrap them as {"data": [...]}'
    traces = document.get("data") if isinstance(document, dict) else None
    if not isinstance(traces, list) or not traces:
        return None
    for index, trace in enumerate(traces):
        spans = trace.get("spans") if isinstance(trace, dict) else None
        if not isinstance(spans, list) or "traceID" not in trace:
            if index or any(_is_trace(t) for t in traces):
                return (f'a Jaeger export, but $.data[{index}] is not a trace ("traceID" and '
                        'a "spans" list)')
            return None
        for position, span in enumerate(spans):
            if not _is_jaeger_span(span):
                return (f"a Jaeger export, but $.data[{index}].spans[{position}] is not a "
                        "Jaeger span (operationName and spanID)")
    return None


def _is_trace(trace: Any) -> bool:
    spans = trace.get("spans") if isinstance(trace, dict) else None
    return isinstance(spans, list) and bool(spans) and "traceID" in trace and \
        all(_is_jaeger_span(span) for span in spans)


def _fields(items: Iterable[Any]) -> dict[str, Any]:
    """Typed Jaeger key/values (a span's tags, a log's fields) as a mapping by key."""
    return {item["key"]: item.get("value") for item in items
            if isinstance(item, dict) and isinstance(item.get("key"), str)}


def _otel_spans(traces: list[Any]) -> list[dict[str, Any]]:
    return [{**_as_otel_span(span), "traceId": as_str(trace["traceID"])}
            for trace in traces for span in trace["spans"]]


def _as_otel_span(span: dict[str, Any]) -> dict[str, Any]:
    """The span in the OpenTelemetry SDK's JSON shape the otel and openinference readers read.

    Jaeger keeps OpenTelemetry attributes as typed tags, the span status as the
    ``otel.status_code`` / ``otel.status_description`` tags and events as logs whose
    ``event`` field is the event's name; times are microseconds.
    """
    attributes = _fields(list_of(span, "tags"))
    name = span["operationName"]
    # Older GenAI instrumentations (ADK's) name the span "execute_tool {tool}" but set no
    # gen_ai.operation.name: the span name is the convention's own signal.
    if "gen_ai.operation.name" not in attributes and name.startswith(NAME_PREFIXES[0]):
        attributes["gen_ai.operation.name"] = "execute_tool"
    parent = next((ref.get("spanID") for ref in list_of(span, "references")
                   if isinstance(ref, dict) and ref.get("refType") == "CHILD_OF"), None)
    start, duration = as_int(span.get("startTime")), as_int(span.get("duration"))
    failed = attributes.get("otel.status_code") in ERROR_STATUS or attributes.get("error") is True
    status = {"code": "ERROR", "message": as_str(attributes.get("otel.status_description"))} \
        if failed else {}
    events = [{"name": fields.get("event"), "attributes": fields}
              for fields in (_fields(list_of(log, "fields")) for log in list_of(span, "logs")
                             if isinstance(log, dict))]
    otel_span: dict[str, Any] = {"name": name, "spanId": as_str(span.get("spanID")),
                                 "parentSpanId": as_str(parent), "attributes": attributes,
                                 "status": status, "events": events}
    if start is not None:
        otel_span["startTimeUnixNano"] = start * 1000
        if duration is not None and duration >= 0:
            otel_span["endTimeUnixNano"] = (start + duration) * 1000
    return otel_span


def parse(document: Any) -> Trace:
    traces = _traces(document)
    if traces is None:
        raise InputError("not a Jaeger JSON trace export", place="$",
                         fix='give {"data": [{"traceID", "spans": [...]}]} as Jaeger exports it')
    spans = _otel_spans(traces)
    if openinference_only(spans):
        return read_spans(spans)
    collector = SpanCollector()
    for span in spans:
        collector.feed(span)
    if not collector.found:
        raise InputError("a Jaeger export without OpenTelemetry GenAI or OpenInference tool "
                         "spans: no span is an execute_tool (gen_ai.operation.name) or MCP "
                         "tools/call span, and none carries openinference.span.kind", place="$",
                         fix="export the traces of an instrumented agent, or pass --format")
    return collector.trace()


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="jaeger",
        description="Jaeger JSON exports of OpenTelemetry GenAI or OpenInference spans",
        reads='{"data": [{"traceID", "spans"}]} as the Jaeger UI and API export it: '
              'execute_tool spans (tags as in the otel format), or, with no such span, '
              'OpenInference spans (openinference.span.kind, as in the openinference format); '
              'otel.status_code ERROR, an error tag or error.type as failure, duration from '
              'the microsecond duration',
        detect=detect, parse=parse, near=near,
    )]
