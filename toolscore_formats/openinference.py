"""OpenInference spans (Arize Phoenix): TOOL spans, and the tool calls in LLM spans' messages."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.spans import (
    GROUP_KEYS,
    OPENINFERENCE_KIND,
    Span,
    is_span,
    openinference_only,
    otlp_spans,
)


def _spans(document: Any) -> tuple[list[Span], str] | None:
    """The spans of a document in a layout this format reads, and the layout's name."""
    found = _layout(document)
    if found is None:
        return None
    spans, layout = found
    return [Span.from_otlp(span, order) for order, span in enumerate(spans)
            if isinstance(span, dict)], layout


def _layout(document: Any) -> tuple[Any, str] | None:
    if isinstance(document, dict):
        for key in GROUP_KEYS:
            if isinstance(document.get(key), list):
                return otlp_spans(document), f'an OTLP JSON export ("{key}")'
        data = document.get("data")
        if isinstance(data, list) and data and all(is_span(s, flat=True) for s in data):
            return data, 'a Phoenix REST API span list ("data")'
        return None
    if isinstance(document, list) and document:
        if all(isinstance(d, dict) and isinstance(d.get("resourceSpans"), list)
               for d in document):
            return otlp_spans(document), 'OTLP JSON Lines ("resourceSpans" per line)'
        if all(is_span(item, flat=True) for item in document):
            return document, "a list of spans (a Phoenix span export, or OTLP spans)"
    return None


def _is_openinference(spans: list[Span]) -> bool:
    # A spans dataframe written as records keeps its columns at the top: "span_kind" there.
    return openinference_only(spans) or (
        any(isinstance(s.raw.get("span_kind"), str) for s in spans) and
        not any(isinstance(s.raw.get("attributes.gen_ai.operation.name"), str) for s in spans))


def detect(document: Any) -> str | None:
    found = _spans(document)
    if found is None or not _is_openinference(found[0]):
        return None
    return (f"{found[1]} with OpenInference span kinds (openinference.span.kind or span_kind) "
            "and no GenAI tool span")


def near(document: Any) -> str | None:
    """What an unclaimed document holding OpenInference data misses."""
    if isinstance(document, dict):
        if OPENINFERENCE_KIND in document:
            return ("the attributes of one OpenInference span without the span: export the "
                    "spans (OTLP JSON, or Phoenix's span export) instead")
        columns = document.get("span_kind")
        if isinstance(columns, dict) and ("context.span_id" in document or "name" in document):
            return ('a Phoenix spans dataframe written column by column: write it with '
                    'to_json(orient="records")')
        document = document.get("data")
    if isinstance(document, list) and document:
        spans = [i for i, item in enumerate(document) if is_span(item, flat=True)]
        kinds = any(isinstance(item, dict) and isinstance(item.get("span_kind"), str)
                    for item in document)
        if kinds and len(spans) * 2 >= len(document) and len(spans) < len(document):
            index = next(i for i, item in enumerate(document) if not is_span(item, flat=True))
            return (f"a list of Phoenix spans ({len(spans)} of {len(document)} items are), but "
                    f"item {index} is not a span (a name and context.span_id)")
    return None


def parse(document: Any) -> Trace:
    found = _spans(document)
    if found is None:
        raise InputError("not OpenInference spans", place="$",
                         fix='give an OTLP export {"resourceSpans": [...]} or a list of spans '
                             "as Phoenix exports them")
    # Imported here: only a document this format claims is read.
    from toolscore_formats.openinference_spans import read_spans

    return read_spans(found[0])


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="openinference",
        description="OpenInference spans (Arize Phoenix): OTLP JSON and Phoenix span exports",
        reads='OTLP JSON {"resourceSpans": [...]} or Phoenix spans [{"context": {"span_id"}, '
              '"span_kind", "attributes"}] (JSON, JSON Lines, REST "data", dataframe records): '
              "TOOL spans (tool.name, input.value, output.value, tool_call.id), ERROR status "
              "as failure; without TOOL spans, the tool calls of LLM spans' messages",
        detect=detect, parse=parse, near=near,
    )]
