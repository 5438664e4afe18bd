"""OpenTelemetry GenAI spans: ``execute_tool`` and MCP ``tools/call`` spans as tool calls."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from toolscore_core.documents import JSON_FAILURES, loads
from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import SpanRef, ToolCall, Trace, TraceFormat
from toolscore_core.wording import count
from toolscore_formats.common import (
    TextCursor,
    as_int,
    as_str,
    decode_args,
    dict_of,
    iso_from_nanos,
    iso_timestamp,
    maybe_json,
    text_of,
)

GROUP_KEYS = ("resourceSpans", "batches")
SCOPE_KEYS = ("scopeSpans", "instrumentationLibrarySpans")
TOOL_OPERATIONS = frozenset(("execute_tool", "tool"))
ERROR_CODES = frozenset((2, "2", "STATUS_CODE_ERROR", "ERROR"))
ARGS_KEYS = ("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args")
RESULT_KEYS = ("gen_ai.tool.call.result", "gen_ai.tool.result.value",
               "gcp.vertex.agent.tool_response")
NAME_PREFIXES = ("execute_tool ", "tools/call ")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
OPENINFERENCE_KIND = "openinference.span.kind"


def _is_span(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("name"), str) and (
        "spanId" in item or "span_id" in item or isinstance(item.get("context"), dict))


def detect(document: Any) -> str | None:
    reason = _layout(document)
    if reason is None or openinference_only(spans_of(document)):
        return None  # OpenInference spans without GenAI tool spans: the openinference format's
    return reason + unread_openinference_tools(spans_of(document))


def unread_openinference_tools(spans: Iterable[dict[str, Any]]) -> str:
    """What reading spans by their gen_ai attributes leaves out, in words for a detect
    reason: OpenInference TOOL spans without GenAI attributes ("" when there are none)."""
    unread = 0
    for span in spans:
        kind = attributes_of(span).text(OPENINFERENCE_KIND)
        unread += kind is not None and kind.upper() == "TOOL" and openinference_only((span,))
    return (f" ({count(unread, 'OpenInference TOOL span')} without GenAI attributes not read: "
            "an export with GenAI tool spans is read by its gen_ai attributes)") if unread else ""


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
        if all(_is_span(item) for item in document):
            return "a list of OpenTelemetry spans (name, span id, attributes)"
    return None


def openinference_only(spans: Iterable[dict[str, Any]]) -> bool:
    """Whether spans carry OpenInference span kinds and none is a GenAI tool span.

    Such a document is the openinference format's; one with a GenAI tool span is read here,
    by its gen_ai attributes, whatever OpenInference attributes it also has.
    """
    seen = False
    for span in spans:
        attributes = attributes_of(span)
        if _is_tool_span(attributes.text("gen_ai.operation.name"), attributes):
            return False
        seen = seen or OPENINFERENCE_KIND in attributes or isinstance(span.get("span_kind"), str)
    return seen


def near(document: Any) -> str | None:
    """What an unclaimed document that holds spans in another layout misses."""
    if isinstance(document, list) and document:
        if all(_is_zipkin_span(item) for item in document):
            return ("Zipkin v2 spans (id, localEndpoint), which it does not read: export OTLP "
                    "JSON (resourceSpans) instead")
        spans = sum(1 for item in document if _is_span(item))
        if spans * 2 >= len(document):
            index = next(i for i, item in enumerate(document) if not _is_span(item))
            return (f"a list of OpenTelemetry spans ({spans} of {len(document)} items are), "
                    f"but $[{index}] is not a span (a name and a spanId)")
    return None


def _is_zipkin_span(item: Any) -> bool:
    return (isinstance(item, dict) and "traceId" in item and "id" in item and
            "spanId" not in item and ("localEndpoint" in item or "remoteEndpoint" in item))


def spans_of(document: Any) -> Iterator[dict[str, Any]]:
    """Every span in an export, a list of exports, or a list of spans, in document order."""
    exports = document if isinstance(document, list) else [document]
    for export in exports:
        if _is_span(export):
            yield export
            continue
        groups = None
        if isinstance(export, dict):
            groups = next((export[k] for k in GROUP_KEYS if isinstance(export.get(k), list)),
                          None)
        for group in groups or ():
            if not isinstance(group, dict):
                continue
            scopes = next((group[k] for k in SCOPE_KEYS if isinstance(group.get(k), list)), ())
            for scope in scopes:
                spans = scope.get("spans") if isinstance(scope, dict) else None
                if isinstance(spans, list):
                    yield from (s for s in spans if isinstance(s, dict))


def attribute_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as plain JSON (64-bit integers exact)."""
    if not isinstance(value, dict):
        return value
    for key, item in value.items():
        if key == "stringValue" or key == "boolValue" or key == "doubleValue":
            return item
        if key == "intValue":
            return as_int(item)
        values = item.get("values") if isinstance(item, dict) else None
        values = values if isinstance(values, list) else []
        if key == "arrayValue":
            return [attribute_value(v) for v in values]
        if key == "kvlistValue":
            return {kv["key"]: attribute_value(kv.get("value")) for kv in values
                    if isinstance(kv, dict) and isinstance(kv.get("key"), str)}
        if key == "bytesValue":
            return item
    return None


class Attributes:
    """A span's attributes by key, each OTLP value converted only when it is read.

    Most spans of a large export are not tool calls: converting all their attributes
    would cost more than decoding them.
    """

    __slots__ = ("otlp", "raw")

    def __init__(self, raw: dict[Any, Any], otlp: bool) -> None:
        self.raw = raw
        self.otlp = otlp

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    def get(self, key: str) -> Any:
        value = self.raw.get(key)
        return attribute_value(value) if self.otlp and value is not None else value

    def text(self, key: str) -> str | None:
        value = self.get(key)
        return value if isinstance(value, str) else None


def attributes_of(span: dict[str, Any]) -> Attributes:
    attributes = span.get("attributes")
    if isinstance(attributes, dict):  # the SDK's own JSON (span.to_json())
        return Attributes(attributes, otlp=False)
    if not isinstance(attributes, list):
        return Attributes({}, otlp=False)
    try:
        raw = {a["key"]: a.get("value") for a in attributes}
    except (TypeError, KeyError, AttributeError):
        raw = {a["key"]: a.get("value") for a in attributes
               if isinstance(a, dict) and isinstance(a.get("key"), str)}
    return Attributes(raw, otlp=True)


class SpanCollector:
    """Keeps what matters of each span as it comes: the tool calls, the last chat, the agent."""

    def __init__(self) -> None:
        # (start, order, span id, parent id, tool name, call id, call): small, not the span.
        self.found: list[tuple[int, int, str | None, str | None, str | None, str | None,
                               ToolCall | None]] = []
        self.last_chat: tuple[int, int, Attributes] | None = None
        self.agents: list[float] = []
        self.order = 0
        self.openinference = False
        # Where verdicts written back belong: the trace ids seen, the earliest invoke_agent
        # span and the root span ((start, id)), the last response id ((end, order, id)).
        self.trace_ids: set[str] = set()
        self.agent_span: tuple[int, str] | None = None
        self.root_span: str | None = None
        self.response: tuple[int, int, str] | None = None

    def feed(self, span: dict[str, Any]) -> None:
        order = self.order
        self.order += 1
        attributes = attributes_of(span)
        operation = attributes.text("gen_ai.operation.name")
        self.openinference = self.openinference or OPENINFERENCE_KIND in attributes or \
            isinstance(span.get("span_kind"), str)
        # Most spans cost two lookups here; the few that say where the trace sits, more.
        trace_id = span.get("traceId") or dict_of(span, "context").get("trace_id")
        if isinstance(trace_id, str):
            self.trace_ids.add(trace_id)
        root = not (span.get("parentSpanId") or span.get("parent_id"))
        if operation == "invoke_agent" or (root and self.root_span is None):
            self._place(span, operation, root)
        if "gen_ai.response.id" in attributes.raw:
            self._respond(span, attributes, order)
        if _is_tool_span(operation, attributes):
            start = nanos(span, "start")
            name = attributes.text("gen_ai.tool.name") or attributes.text(
                "mcp.tool.name") or _name_from(span.get("name"))
            context = dict_of(span, "context")
            span_id = as_str(span.get("spanId") or span.get("span_id") or context.get("span_id"))
            parent = as_str(span.get("parentSpanId") or span.get("parent_id"))
            call_id = as_str(attributes.get("gen_ai.tool.call.id")) or as_str(
                attributes.get("jsonrpc.request.id"))
            call = _call(span, attributes, name, call_id, start) if name else None
            self.found.append((start if start is not None else -1, order, span_id, parent, name,
                               call_id, call))
        elif "gen_ai.output.messages" in attributes:
            end = nanos(span, "end")
            key = (end if end is not None else -1, order)
            if self.last_chat is None or key >= self.last_chat[:2]:
                self.last_chat = (*key, attributes)
        elif operation == "invoke_agent":
            duration = _duration(nanos(span, "start"), nanos(span, "end"))
            if duration is not None:
                self.agents.append(duration)

    def _place(self, span: dict[str, Any], operation: str | None, root: bool) -> None:
        """Note an agent span or a root span: where verdicts written back belong."""
        context = dict_of(span, "context")
        span_id = _hex_id(span.get("spanId") or span.get("span_id") or context.get("span_id"), 16)
        if span_id is None:
            return
        start = nanos(span, "start")
        if operation == "invoke_agent" and start is not None and (
                self.agent_span is None or start < self.agent_span[0]):
            self.agent_span = (start, span_id)
        if root and self.root_span is None:
            self.root_span = span_id

    def _respond(self, span: dict[str, Any], attributes: Attributes, order: int) -> None:
        """Note a response id: the last one is the one verdicts about the trace name."""
        response = as_str(attributes.get("gen_ai.response.id"))
        end = nanos(span, "end")
        key = (end if end is not None else -1, order)
        if response is not None and (self.response is None or key >= self.response[:2]):
            self.response = (*key, response)

    def trace(self) -> Trace:
        self.found.sort(key=lambda item: (item[0], item[1]))
        calls, notes = _calls(self.found)
        final_answer, model = _final_answer(self.last_chat[2]) if self.last_chat else (None, None)
        # One trace only: an export of several has no one span its verdicts belong to.
        trace_ids = {_hex_id(t, 32) for t in self.trace_ids}
        trace_id = trace_ids.pop() if len(trace_ids) == 1 else None
        span = None if trace_id is None else SpanRef(trace_id=trace_id, span_id=(
            self.agent_span[1] if self.agent_span else self.root_span))
        return Trace(calls=calls, final_answer=final_answer, model=model,
                     run_duration=self.agents[0] if len(self.agents) == 1 else None,
                     notes=tuple(notes), span=span,
                     response_id=self.response[2] if self.response else None)


def _hex_id(value: Any, digits: int) -> str | None:
    """A trace or span id as lowercase hex (OTLP's, the SDK's ``0x...``, Jaeger's), padded to
    ``digits``; None when it is not one."""
    text = value.removeprefix("0x").lower() if isinstance(value, str) else ""
    if not 0 < len(text) <= digits or text.strip("0123456789abcdef") or not text.strip("0"):
        return None
    return text.zfill(digits)


def parse(document: Any) -> Trace:
    if _layout(document) is None:
        raise InputError("not an OTLP export or a list of spans", place="$",
                         fix='give {"resourceSpans": [...]} or a list of spans')
    collector = SpanCollector()
    for span in spans_of(document):
        collector.feed(span)
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
                                collector.feed(span)
                    else:
                        cursor.value()
        else:
            cursor.value()


def _is_tool_span(operation: str | None, attributes: Attributes) -> bool:
    if operation == "execute_tool" or attributes.get("mcp.method.name") == "tools/call":
        return True
    return operation in TOOL_OPERATIONS and "gen_ai.tool.name" in attributes


def _calls(found: list[tuple[int, int, str | None, str | None, str | None, str | None,
                             ToolCall | None]]) -> tuple[tuple[ToolCall, ...], list[str]]:
    calls: list[ToolCall] = []
    notes: list[str] = []
    seen_ids: set[str] = set()
    tool_spans: dict[str | None, str] = {}
    for _, order, span_id, parent, name, call_id, call in found:
        if not name or call is None:
            notes.append(f"span {order}: a tool span without a tool name (not read)")
            continue
        # An MCP client span inside the execute_tool span of the same tool is the same call.
        if parent is not None and tool_spans.get(parent) == name:
            tool_spans[span_id] = name
            continue
        if call_id is not None:
            if call_id in seen_ids:
                continue
            seen_ids.add(call_id)
        tool_spans[span_id] = name
        calls.append(call)
    return tuple(calls), notes


def _call(span: dict[str, Any], attributes: Attributes, name: str, call_id: str | None,
          start: int | None) -> ToolCall:
    raw_args = next((attributes.get(k) for k in ARGS_KEYS if k in attributes), None)
    args, raw = decode_args(raw_args)
    result_key = next((k for k in RESULT_KEYS if k in attributes), None)
    result = maybe_json(attributes.get(result_key)) if result_key else None
    status = dict_of(span, "status")
    code = status.get("code", status.get("status_code"))
    code = code if isinstance(code, int | str) else None
    mcp_error = isinstance(result, dict) and result.get("isError") is True
    failed = code in ERROR_CODES or "error.type" in attributes or mcp_error or \
        attributes.get("gen_ai.tool.result.is_error") is True
    end = nanos(span, "end")
    error = None
    if failed:
        # The span's own words first; an error without any text stays without text.
        error = as_str(status.get("message")) or as_str(status.get("description")) or \
            as_str(attributes.get("error.type")) or (
                text_of(result.get("content")) if mcp_error else None)  # type: ignore[union-attr]
    # A span that ended without an error status is a completed call: not failed.
    is_error: bool | None = True if failed else (False if end is not None or result_key
                                                 else None)
    return ToolCall(
        tool=name, args=args, raw_args=raw, id=call_id, result=result, is_error=is_error,
        error=error, duration=_duration(start, end),
        timestamp=iso_from_nanos(start) if start is not None else iso_timestamp(
            span.get("start_time")),
    )


def _duration(start: int | None, end: int | None) -> float | None:
    """Seconds between integer nanoseconds; None when either is missing or end < start."""
    if start is None or end is None or end < start:
        return None
    return (end - start) / 1e9


def _name_from(span_name: Any) -> str | None:
    if isinstance(span_name, str):
        for prefix in NAME_PREFIXES:
            if span_name.startswith(prefix) and len(span_name) > len(prefix):
                return span_name[len(prefix):]
    return None


def nanos(span: dict[str, Any], edge: str) -> int | None:
    """Start or end in integer nanoseconds (OTLP strings or numbers, or the SDK's ISO text)."""
    value = as_int(span.get(f"{edge}TimeUnixNano"))
    if value is not None:
        return value
    text = span.get(f"{edge}_time")
    if isinstance(text, str):
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
        if moment.tzinfo is None:
            return None
        return (moment - EPOCH) // timedelta(microseconds=1) * 1000
    return None


def _final_answer(attributes: Attributes) -> tuple[str | None, str | None]:
    model = as_str(attributes.get("gen_ai.response.model") or attributes.get(
        "gen_ai.request.model"))
    messages = attributes.get("gen_ai.output.messages")
    if isinstance(messages, str):
        try:
            messages = loads(messages)
        except JSON_FAILURES:
            return None, model
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return None, model
    parts = messages[-1].get("parts")
    if not isinstance(parts, list) or any(
            isinstance(p, dict) and p.get("type") == "tool_call" for p in parts):
        return None, model
    texts = [{"type": "text", "text": p.get("content")} for p in parts
             if isinstance(p, dict) and p.get("type") == "text"]
    return text_of(texts), model


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
