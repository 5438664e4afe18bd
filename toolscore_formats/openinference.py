"""OpenInference spans (Arize Phoenix): TOOL spans, and the tool calls in LLM spans' messages."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from attrs import evolve

from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import ToolCall, Trace, TraceFormat
from toolscore_core.wording import count
from toolscore_formats.common import (
    as_str,
    decode_args,
    dict_of,
    iso_from_nanos,
    list_of,
    maybe_json,
)
from toolscore_formats.otel import (
    ERROR_CODES,
    GROUP_KEYS,
    OPENINFERENCE_KIND,
    attribute_value,
    attributes_of,
    nanos,
    openinference_only,
    spans_of,
)

INPUT, OUTPUT = "llm.input_messages.", "llm.output_messages."
ANSWER_KINDS = frozenset(("AGENT", "CHAIN"))


def _is_span(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("name"), str) and (
        "spanId" in item or "span_id" in item or isinstance(item.get("context"), dict) or
        "context.span_id" in item)


def _spans(document: Any) -> tuple[list[dict[str, Any]], str] | None:
    """The spans of a document in a layout this format reads, and the layout's name."""
    if isinstance(document, dict):
        for key in GROUP_KEYS:
            if isinstance(document.get(key), list):
                return list(spans_of(document)), f'an OTLP JSON export ("{key}")'
        data = document.get("data")
        if isinstance(data, list) and data and all(_is_span(s) for s in data):
            return data, 'a Phoenix REST API span list ("data")'
        return None
    if isinstance(document, list) and document:
        if all(isinstance(d, dict) and isinstance(d.get("resourceSpans"), list)
               for d in document):
            return list(spans_of(document)), 'OTLP JSON Lines ("resourceSpans" per line)'
        if all(_is_span(item) for item in document):
            return document, "a list of spans (a Phoenix span export, or OTLP spans)"
    return None


def _is_openinference(spans: list[dict[str, Any]]) -> bool:
    # A spans dataframe written as records keeps its columns at the top: "span_kind" there.
    return openinference_only(spans) or (
        any(isinstance(s.get("span_kind"), str) for s in spans) and
        not any(isinstance(s.get("attributes.gen_ai.operation.name"), str) for s in spans))


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
        spans = [i for i, item in enumerate(document) if _is_span(item)]
        kinds = any(isinstance(item, dict) and isinstance(item.get("span_kind"), str)
                    for item in document)
        if kinds and len(spans) * 2 >= len(document) and len(spans) < len(document):
            index = next(i for i in range(len(document)) if i not in set(spans))
            return (f"a list of Phoenix spans ({len(spans)} of {len(document)} items are), but "
                    f"item {index} is not a span (a name and context.span_id)")
    return None


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    """Nested attributes (Phoenix's older JSON, a dataframe's columns) as dotted keys."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), item, out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for index, item in enumerate(value):
            _flatten(f"{prefix}.{index}", item, out)
    elif prefix:
        out[prefix] = value


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    raw = span.get("attributes")
    flat: dict[str, Any] = {}
    if isinstance(raw, list):  # OTLP key/value pairs
        otlp = attributes_of(span)
        for key, value in otlp.raw.items():
            _flatten(key, attribute_value(value) if value is not None else None, flat)
    elif isinstance(raw, dict):
        _flatten("", raw, flat)
    for key, value in span.items():
        if isinstance(key, str) and key.startswith("attributes."):
            _flatten(key[len("attributes."):], value, flat)
    return flat


class Span:
    """One span as this reader needs it: kind, attributes by dotted key, times, outcome."""

    __slots__ = ("attributes", "end", "error", "failed", "kind", "name", "order", "parent",
                 "span_id", "start")

    def __init__(self, span: dict[str, Any], order: int) -> None:
        self.order = order
        self.attributes = _attributes(span)
        kind = self.attributes.get(OPENINFERENCE_KIND, span.get("span_kind"))
        self.kind = kind.upper() if isinstance(kind, str) else None
        self.name = span.get("name") if isinstance(span.get("name"), str) else None
        context = dict_of(span, "context")
        self.span_id = as_str(span.get("spanId") or span.get("span_id") or
                              context.get("span_id") or span.get("context.span_id"))
        self.parent = as_str(span.get("parentSpanId") or span.get("parent_id") or
                             span.get("parent_span_id"))
        self.start, self.end = _time(span, "start"), _time(span, "end")
        status = dict_of(span, "status")
        code = status.get("code", span.get("status_code"))
        self.failed = isinstance(code, int | str) and code in ERROR_CODES
        self.error = None
        if self.failed:
            self.error = as_str(status.get("message")) or as_str(
                span.get("status_message")) or _exception(span)

    def text(self, key: str) -> str | None:
        value = self.attributes.get(key)
        return value if isinstance(value, str) else None

    def messages(self, prefix: str) -> list[dict[str, Any]]:
        """``llm.input_messages`` or ``llm.output_messages`` as Chat Completions messages."""
        grouped: dict[int, dict[str, Any]] = {}
        for key, value in self.attributes.items():
            if key.startswith(prefix):
                head, _, rest = key[len(prefix):].partition(".")
                if head.isdigit() and rest:
                    grouped.setdefault(int(head), {})[rest] = value
        return [_chat_message(grouped[index]) for index in sorted(grouped)]


def _time(span: dict[str, Any], edge: str) -> int | None:
    value = nanos(span, edge)
    if value is None:  # pandas' to_json writes datetimes as epoch milliseconds
        millis = span.get(f"{edge}_time")
        value = millis * 1_000_000 if isinstance(millis, int) and not isinstance(
            millis, bool) else None
    return value


def _exception(span: dict[str, Any]) -> str | None:
    for event in list_of(span, "events"):
        if isinstance(event, dict) and event.get("name") == "exception":
            attributes: dict[str, Any] = {}
            _flatten("", {a.get("key"): attribute_value(a.get("value"))
                          for a in event["attributes"] if isinstance(a, dict)}
                     if isinstance(event.get("attributes"), list)
                     else dict_of(event, "attributes"), attributes)
            return as_str(attributes.get("exception.message"))
    return None


def _indexed(fields: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The items of a flattened list (``prefix.N.rest``), by N, as {rest: value}."""
    grouped: dict[int, dict[str, Any]] = {}
    for key, value in fields.items():
        if key.startswith(prefix):
            head, _, rest = key[len(prefix):].partition(".")
            if head.isdigit() and rest:
                grouped.setdefault(int(head), {})[rest] = value
    return [grouped[index] for index in sorted(grouped)]


def _chat_message(fields: dict[str, Any]) -> dict[str, Any]:
    content = fields.get("message.content")
    if content is None:
        texts = [part.get("message_content.text") for part in _indexed(
            fields, "message.contents.") if part.get("message_content.type", "text") == "text"]
        content = "".join(t for t in texts if isinstance(t, str)) if texts else None
    message: dict[str, Any] = {"role": fields.get("message.role"), "content": content}
    calls = [{"id": call.get("tool_call.id"), "type": "function",
              "function": {"name": call.get("tool_call.function.name"),
                           "arguments": call.get("tool_call.function.arguments")}}
             for call in _indexed(fields, "message.tool_calls.")]
    if calls:
        message["tool_calls"] = calls
    for key in ("tool_call_id", "name"):
        if f"message.{key}" in fields:
            message[key] = fields[f"message.{key}"]
    return message


def _is_schema(value: Any) -> bool:
    return isinstance(value, dict) and (value.get("type") == "object" or
                                        isinstance(value.get("properties"), dict))


def _tool_call(span: Span) -> ToolCall:
    attributes = span.attributes
    # input.value is what the tool was given; tool.parameters is, by the spec, the tool's
    # JSON schema, but some instrumentations write the arguments there.
    raw = attributes.get("input.value")
    if raw is None:
        parameters = maybe_json(attributes.get("tool.parameters"))
        raw = None if _is_schema(parameters) else parameters
    args, raw_args = decode_args(raw)
    has_output = "output.value" in attributes
    result = maybe_json(attributes["output.value"]) if has_output else None
    is_error: bool | None = True if span.failed else (
        False if span.end is not None or has_output else None)
    duration = (span.end - span.start) / 1e9 if span.start is not None and \
        span.end is not None and span.end >= span.start else None
    return ToolCall(
        tool=span.text("tool.name") or span.name or "", args=args, raw_args=raw_args,
        id=as_str(attributes.get("tool_call.id") or attributes.get("tool.id")), result=result,
        is_error=is_error, error=span.error, duration=duration,
        timestamp=iso_from_nanos(span.start) if span.start is not None else None)


def _conversation_calls(messages: list[dict[str, Any]]) -> tuple[ToolCall, ...]:
    from toolscore_formats import openai_chat

    try:
        return openai_chat.parse(messages).calls
    except InputError:
        return ()


def _key(call: ToolCall, seen: dict[Any, int]) -> Any:
    if call.id is not None:
        return call.id
    # An id-less call is the n-th of its name and arguments in every later span's history.
    shape = (call.tool, json.dumps(call.args, sort_keys=True, default=str), call.raw_args)
    seen[shape] = seen.get(shape, 0) + 1
    return (*shape, seen[shape])


def _from_messages(llms: list[Span]) -> tuple[list[ToolCall], list[str]]:
    """No TOOL span: the calls are those of the LLM spans' conversations, each once."""
    calls: dict[Any, ToolCall] = {}
    for span in llms:
        seen: dict[Any, int] = {}
        for call in _conversation_calls(span.messages(INPUT) + span.messages(OUTPUT)):
            key = _key(call, seen)
            known = calls.get(key)
            if known is None or (known.is_error is None and call.is_error is not None):
                calls[key] = call
    notes = [f"no TOOL spans: {count(len(calls), 'call')} read from the LLM spans' messages (the "
             "messages time no call)"] if calls else []
    return list(calls.values()), notes


def _from_tool_spans(tools: list[Span], llms: list[Span]) -> tuple[list[ToolCall], list[str]]:
    """TOOL spans are the calls; a call an LLM asked for that no TOOL span ran is added."""
    rows: list[tuple[tuple[int, int, int], ToolCall]] = [
        ((span.start if span.start is not None else -1, span.order, 0), _tool_call(span))
        for span in tools]
    by_id = {call.id: index for index, (_, call) in enumerate(rows) if call.id is not None}
    taken: set[int] = set()
    notes: list[str] = []
    asked: set[str] = set()
    history: dict[str, ToolCall] = {}
    for span in llms:
        for call in _conversation_calls(span.messages(INPUT)):
            known = history.get(call.id) if call.id is not None else None
            if call.id is not None and (known is None or known.is_error is None):
                history[call.id] = call
    for span in llms:
        # An unrun call sits after the calls asked before it in the same message.
        place = (span.end if span.end is not None else -1, span.order, 0)
        for call in _conversation_calls(span.messages(OUTPUT)):
            match = by_id.get(call.id) if call.id is not None else None
            if call.id is not None:
                asked.add(call.id)
            if match is None:
                match = next((i for i, (key, c) in enumerate(rows) if i not in taken and
                              c.id is None and c.tool == call.tool and
                              (span.start is None or key[0] >= span.start)), None)
                if match is not None:  # an id-less TOOL span: the LLM's call gives its id
                    rows[match] = (rows[match][0], evolve(rows[match][1], id=call.id))
            if match is not None:
                taken.add(match)
                place = rows[match][0]
                continue
            place = (place[0], place[1], place[2] + 1)
            answer = history.get(call.id) if call.id is not None else None
            rows.append((place, answer or call))
            notes.append(f"the LLM asked for {call.tool}"
                         f"{f' ({call.id})' if call.id else ''}, but no TOOL span ran it")
    earlier = sorted(key for key in history if key not in asked and key not in by_id)
    if earlier:
        notes.append(f"{count(len(earlier), 'call')} in the LLM spans' input history "
                     f"({', '.join(earlier)}) ran before this trace (no TOOL span): not counted")
    rows.sort(key=lambda row: row[0])
    return [row[1] for row in rows], notes


def _final_answer(spans: list[Span], llms: list[Span]) -> str | None:
    ids = {span.span_id for span in spans}
    roots = [span for span in spans if span.parent is None or span.parent not in ids]
    if len(roots) == 1 and roots[0].kind in ANSWER_KINDS:
        output = roots[0].text("output.value")
        if output is not None and roots[0].text("output.mime_type") != "application/json":
            return output
    if llms:
        last = max(llms, key=lambda s: (s.end if s.end is not None else -1, s.order))
        messages = last.messages(OUTPUT)
        if messages and not messages[-1].get("tool_calls"):
            content = messages[-1].get("content")
            return content if isinstance(content, str) and content else None
    return None


def parse(document: Any) -> Trace:
    found = _spans(document)
    if found is None:
        raise InputError("not OpenInference spans", place="$",
                         fix='give an OTLP export {"resourceSpans": [...]} or a list of spans '
                             "as Phoenix exports them")
    return read_spans(found[0])


def read_spans(found: Iterable[Any]) -> Trace:
    """The trace of OpenInference spans, each in the shape of an OTLP or Phoenix span.

    The seam for other envelopes (the jaeger format): a span needs its ``attributes`` (OTLP
    key/value pairs, or a mapping by dotted key), ``name``, ``spanId`` / ``parentSpanId``,
    ``startTimeUnixNano`` / ``endTimeUnixNano``, ``status`` ``{"code", "message"}`` and
    ``events`` (``{"name", "attributes"}``).
    """
    spans = [Span(span, order) for order, span in enumerate(found) if isinstance(span, dict)]
    spans.sort(key=lambda s: (s.start if s.start is not None else -1, s.order))
    tools = [span for span in spans if span.kind == "TOOL"]
    llms = [span for span in spans if span.kind == "LLM"]
    calls, notes = _from_tool_spans(tools, llms) if tools else _from_messages(llms)
    model = None
    if llms:
        last = max(llms, key=lambda s: (s.end if s.end is not None else -1, s.order))
        model = last.text("llm.model_name")
    agents = [span for span in spans if span.kind == "AGENT" and span.parent is None]
    run_duration = None
    if len(agents) == 1 and agents[0].start is not None and agents[0].end is not None and \
            agents[0].end >= agents[0].start:
        run_duration = (agents[0].end - agents[0].start) / 1e9
    return Trace(calls=tuple(calls), final_answer=_final_answer(spans, llms), model=model,
                 run_duration=run_duration, notes=tuple(notes))


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
