"""Jaeger JSON exports (``{"data": [traces]}``) of OpenTelemetry GenAI or OpenInference spans."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.spans import Span, openinference_only, unread_openinference_tools

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
    where = _read_genai(spans)[1] if _is_genai(spans) else "no GenAI span"
    # The same rule as for an OTLP export (otel over openinference): say what it leaves out.
    return f"{EXPORT} of OpenTelemetry GenAI spans: {where}" + unread_openinference_tools(spans)


def _is_genai(spans: list[Span]) -> bool:
    """Whether any span follows the GenAI conventions (a gen_ai.* attribute or an
    execute_tool / MCP tools/call span): an agent's trace, even one that called no tool."""
    return any(span.is_tool_span() or any(
        isinstance(key, str) and key.startswith("gen_ai.") for key in span.attributes.raw)
        for span in spans)


def _read_genai(spans: list[Span]) -> tuple[Trace, str]:
    # Imported here: only a document this format claims is read.
    from toolscore_formats.genai import GenAIReader

    reader = GenAIReader()
    for span in spans:
        reader.feed(span)
    return reader.trace()


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


def _otel_spans(traces: list[Any]) -> list[Span]:
    spans: list[Span] = []
    for trace in traces:
        for span in trace["spans"]:
            spans.append(Span.from_jaeger(span, len(spans), trace.get("traceID")))
    return spans


def parse(document: Any) -> Trace:
    traces = _traces(document)
    if traces is None:
        raise InputError("not a Jaeger JSON trace export", place="$",
                         fix='give {"data": [{"traceID", "spans": [...]}]} as Jaeger exports it')
    spans = _otel_spans(traces)
    if openinference_only(spans):
        # Imported here: only a document this format claims is read.
        from toolscore_formats.openinference_spans import read_spans

        return read_spans(spans)
    if not _is_genai(spans):
        raise InputError("a Jaeger export without OpenTelemetry GenAI or OpenInference spans: "
                         "no span carries a gen_ai.* attribute, is an MCP tools/call span or "
                         "carries openinference.span.kind", place="$",
                         fix="export the traces of an instrumented agent, or pass --format")
    return _read_genai(spans)[0]


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
