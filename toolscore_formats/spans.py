"""Spans, whatever carried them: the span record, attribute access, the OTLP and Jaeger
envelopes (spans and log records), and the parent/child tree the span readers (otel,
jaeger, openinference) share."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView
from typing import Any, Generic, Protocol, TypeVar

from toolscore import count
from toolscore_formats.times import parse_time
from toolscore_formats.values import as_int, as_str, dict_of, list_of
from toolscore_formats.vercel_spans import is_tool_call as is_ai_sdk_tool_call

GROUP_KEYS = ("resourceSpans", "batches")
SCOPE_KEYS = ("scopeSpans", "instrumentationLibrarySpans")
LOG_SCOPE_KEYS = ("scopeLogs", "instrumentationLibraryLogs")
ERROR_CODES = frozenset((2, "2", "STATUS_CODE_ERROR", "ERROR"))
JAEGER_ERROR_STATUS = frozenset(("ERROR", "Error", "error"))
OPENINFERENCE_KIND = "openinference.span.kind"
TOOL_OPERATIONS = frozenset(("execute_tool", "tool"))
EXECUTE_TOOL_PREFIX = "execute_tool "
# Pydantic AI's tool span before it set gen_ai.operation.name (its instrumentation versions 1
# and 2): named "running tool", with gen_ai.tool.name and gen_ai.tool.call.id.
PYDANTIC_AI_TOOL_SPAN = "running tool"
# Its agent span then: named "agent run", with the agent's name in agent_name.
PYDANTIC_AI_AGENT_SPAN = "agent run"
NAMED_OPERATIONS = (EXECUTE_TOOL_PREFIX, "invoke_agent ")


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
    """Attributes by key, each OTLP value converted only when it is read.

    Most spans of a large export are not tool calls: converting all their attributes
    would cost more than decoding them.
    """

    __slots__ = ("otlp", "raw")

    def __init__(self, raw: dict[Any, Any], otlp: bool) -> None:
        self.raw = raw
        self.otlp = otlp

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    def keys(self) -> KeysView[Any]:
        return self.raw.keys()

    def get(self, key: str) -> Any:
        value = self.raw.get(key)
        return attribute_value(value) if self.otlp and value is not None else value

    def text(self, key: str) -> str | None:
        value = self.get(key)
        return value if isinstance(value, str) else None

    def items(self) -> Iterator[tuple[Any, Any]]:
        """Every attribute, converted."""
        for key in self.raw:
            yield key, self.get(key)


EMPTY = Attributes({}, otlp=False)


def otlp_attributes(attributes: Any) -> Attributes:
    """OTLP key/value pairs (``[{"key", "value": AnyValue}]``), or a plain mapping (the
    Python SDK's ``to_json()``), as Attributes."""
    if isinstance(attributes, dict):
        return Attributes(attributes, otlp=False)
    if not isinstance(attributes, list):
        return EMPTY
    try:
        raw = {a["key"]: a.get("value") for a in attributes}
    except (TypeError, KeyError, AttributeError):
        raw = {a["key"]: a.get("value") for a in attributes
               if isinstance(a, dict) and isinstance(a.get("key"), str)}
    return Attributes(raw, otlp=True)


def jaeger_fields(items: Iterable[Any]) -> Attributes:
    """Typed Jaeger key/values (a span's tags, a log's fields) as Attributes."""
    return Attributes({item["key"]: item.get("value") for item in items
                       if isinstance(item, dict) and isinstance(item.get("key"), str)},
                      otlp=False)


_UNSET: Any = object()


class Span:
    """One span as the readers need it, from an OTLP export, the Python SDK's JSON, a
    Phoenix span export or a Jaeger export alike.

    ``start`` and ``end`` are integer nanoseconds since the epoch (None when absent);
    ``raw`` is the span as the document has it, for what only one envelope carries. An
    OTLP span's fields are read when first asked for: most spans of a large export are
    neither calls nor chats.
    """

    __slots__ = ("_end", "_error_text", "_events", "_failed", "_parent", "_span_id", "_start",
                 "_trace_id", "attributes", "name", "order", "raw")

    def __init__(self, raw: dict[str, Any], order: int, *, name: str | None,
                 attributes: Attributes) -> None:
        self.raw = raw
        self.order = order
        self.name = name
        self.attributes = attributes
        self._span_id = self._parent = self._trace_id = _UNSET
        self._start = self._end = self._failed = self._error_text = _UNSET
        self._events: list[tuple[str | None, Attributes]] | None = None

    @classmethod
    def from_otlp(cls, span: dict[str, Any], order: int) -> Span:
        """An OTLP JSON span, the SDK's ``span.to_json()``, or a Phoenix span record."""
        name = span.get("name")
        return cls(span, order, name=name if isinstance(name, str) else None,
                   attributes=otlp_attributes(span.get("attributes")))

    @classmethod
    def from_jaeger(cls, span: dict[str, Any], order: int, trace_id: Any) -> Span:
        """A span of a Jaeger JSON export.

        Jaeger keeps OpenTelemetry attributes as typed tags, the span status as the
        ``otel.status_code`` / ``otel.status_description`` tags (or an ``error`` tag of
        true), events as logs whose ``event`` field is the event's name, and times in
        microseconds.
        """
        attributes = jaeger_fields(list_of(span, "tags"))
        made = cls(span, order, name=span.get("operationName"), attributes=attributes)
        parent = next((ref.get("spanID") for ref in list_of(span, "references")
                       if isinstance(ref, dict) and ref.get("refType") == "CHILD_OF"), None)
        made._span_id, made._parent, made._trace_id = (as_str(span.get("spanID")),
                                                       as_str(parent), as_str(trace_id))
        made._start = parse_time(span.get("startTime"), unit="us")
        duration = as_int(span.get("duration"))
        made._end = made._start + duration * 1000 if made._start is not None and \
            duration is not None and duration >= 0 else None
        made._failed = attributes.get("otel.status_code") in JAEGER_ERROR_STATUS or \
            attributes.get("error") is True
        made._error_text = as_str(attributes.get("otel.status_description")) \
            if made._failed else None
        made._events = [(as_str(fields.get("event")), fields)
                        for fields in (jaeger_fields(list_of(log, "fields"))
                                       for log in list_of(span, "logs") if isinstance(log, dict))]
        return made

    @property
    def span_id(self) -> str | None:
        if self._span_id is _UNSET:
            raw = self.raw
            self._span_id = as_str(raw.get("spanId") or raw.get("span_id") or dict_of(
                raw, "context").get("span_id") or raw.get("context.span_id"))
        return self._span_id

    @property
    def parent(self) -> str | None:
        if self._parent is _UNSET:
            raw = self.raw
            self._parent = as_str(raw.get("parentSpanId") or raw.get("parent_id") or
                                  raw.get("parent_span_id"))
        return self._parent

    @property
    def trace_id(self) -> str | None:
        if self._trace_id is _UNSET:
            raw = self.raw
            self._trace_id = as_str(raw.get("traceId") or dict_of(raw, "context").get(
                "trace_id") or raw.get("context.trace_id"))
        return self._trace_id

    @property
    def start(self) -> int | None:
        if self._start is _UNSET:
            self._start = _otlp_time(self.raw, "start")
        return self._start

    @property
    def end(self) -> int | None:
        if self._end is _UNSET:
            self._end = _otlp_time(self.raw, "end")
        return self._end

    @property
    def failed(self) -> bool:
        """An ERROR status (OTLP ``2`` / ``STATUS_CODE_ERROR``, the SDK's ``ERROR``)."""
        if self._failed is _UNSET:
            status = dict_of(self.raw, "status")
            code = status.get("code", status.get("status_code", self.raw.get("status_code")))
            self._failed = isinstance(code, int | str) and code in ERROR_CODES
        return self._failed

    @property
    def error_text(self) -> str | None:
        """A failed span's status message."""
        if self._error_text is _UNSET:
            status = dict_of(self.raw, "status")
            self._error_text = (as_str(status.get("message")) or as_str(
                status.get("description")) or as_str(self.raw.get("status_message"))) \
                if self.failed else None
        return self._error_text

    @property
    def events(self) -> list[tuple[str | None, Attributes]]:
        """The span's events: each its name and its attributes."""
        if self._events is None:
            self._events = [(as_str(event.get("name")), otlp_attributes(event.get("attributes")))
                            for event in list_of(self.raw, "events") if isinstance(event, dict)]
        return self._events

    def exception_message(self) -> str | None:
        """The message of the span's first ``exception`` event, if it has one."""
        for name, attributes in self.events:
            if name == "exception":
                return as_str(attributes.get("exception.message"))
        return None

    def operation(self) -> str | None:
        """``gen_ai.operation.name``; for a span named ``execute_tool {tool}`` or
        ``invoke_agent {agent}`` without it (older GenAI instrumentations, Google ADK's among
        them), that operation: the span name is the convention's own signal. Pydantic AI's
        ``agent run`` span with ``agent_name`` (before it set the operation) is
        ``invoke_agent``."""
        operation = self.attributes.text("gen_ai.operation.name")
        if operation is None and self.name is not None:
            for prefix in NAMED_OPERATIONS:
                if self.name.startswith(prefix):
                    return prefix[:-1]
            if self.name == PYDANTIC_AI_AGENT_SPAN and "agent_name" in self.attributes:
                return "invoke_agent"
        return operation

    def is_tool_span(self, operation: str | None = _UNSET) -> bool:
        """A GenAI tool call span: ``execute_tool`` (or the vendor ``tool`` with a tool
        name), an MCP ``tools/call`` span, Pydantic AI's ``running tool`` span with a tool
        name, or the Vercel AI SDK's ``ai.toolCall`` span. ``operation``: ``operation()``,
        when known."""
        if operation is _UNSET:
            operation = self.operation()
        attributes = self.attributes
        if operation == "execute_tool" or attributes.get("mcp.method.name") == "tools/call":
            return True
        if (operation in TOOL_OPERATIONS or (
                operation is None and self.name == PYDANTIC_AI_TOOL_SPAN)) and \
                "gen_ai.tool.name" in attributes:
            return True
        return operation is None and is_ai_sdk_tool_call(self.name, attributes)

    def openinference_kind(self) -> str | None:
        if OPENINFERENCE_KIND not in self.attributes.raw and "span_kind" not in self.raw:
            return None
        kind = self.attributes.text(OPENINFERENCE_KIND)
        if kind is None:
            kind = self.raw.get("span_kind") if isinstance(self.raw.get("span_kind"), str) \
                else None
        return kind.upper() if kind is not None else None


def _otlp_time(span: dict[str, Any], edge: str) -> int | None:
    """Start or end: OTLP nanoseconds (strings or numbers, exact), or the SDK's ISO text."""
    value = span.get(f"{edge}TimeUnixNano")
    if value is not None:
        return parse_time(value)
    text = span.get(f"{edge}_time")
    return parse_time(text) if isinstance(text, str) else None


def is_span(item: Any, *, flat: bool = False) -> bool:
    """An OTLP span, or the SDK's JSON of one: a name and a span id.

    With ``flat``, also a span whose context is flattened into a ``context.span_id`` key
    (Arize Phoenix's span lists).
    """
    return isinstance(item, dict) and isinstance(item.get("name"), str) and (
        "spanId" in item or "span_id" in item or isinstance(item.get("context"), dict) or
        (flat and "context.span_id" in item))


def otlp_spans(document: Any) -> Iterator[dict[str, Any]]:
    """Every span of an export (``resourceSpans`` or Tempo's ``batches``), a list of
    exports, or a list of spans, in document order."""
    exports = document if isinstance(document, list) else [document]
    for export in exports:
        if is_span(export):
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


def openinference_only(spans: Iterable[Span]) -> bool:
    """Whether spans carry OpenInference span kinds and none is a GenAI tool span.

    Such spans are read by the OpenInference convention; spans with a GenAI tool span are
    read by their gen_ai attributes, whatever OpenInference attributes they also have.
    """
    seen = False
    for span in spans:
        if span.is_tool_span():
            return False
        seen = seen or span.openinference_kind() is not None
    return seen


def unread_openinference_tools(spans: Iterable[Span]) -> str:
    """What reading spans by their gen_ai attributes leaves out, in words for a detect
    reason: OpenInference TOOL spans without GenAI attributes ("" when there are none)."""
    unread = sum(1 for span in spans
                 if span.attributes.text(OPENINFERENCE_KIND) is not None and
                 span.openinference_kind() == "TOOL" and not span.is_tool_span())
    return (f" ({count(unread, 'OpenInference TOOL span')} without GenAI attributes not read: "
            "an export with GenAI tool spans is read by its gen_ai attributes)") if unread else ""


class Node(Protocol):
    """What the tree needs of a span (a Span, or a reader's own view of one)."""

    @property
    def span_id(self) -> str | None: ...

    @property
    def parent(self) -> str | None: ...


N = TypeVar("N", bound=Node)


class SpanTree(Generic[N]):
    """Spans by id, each with its parent."""

    __slots__ = ("by_id", "spans")

    def __init__(self, spans: Iterable[N]) -> None:
        self.spans = list(spans)
        self.by_id = {span.span_id: span for span in self.spans if span.span_id is not None}

    def parent(self, span: N) -> N | None:
        return self.by_id.get(span.parent) if span.parent is not None else None

    def roots(self) -> list[N]:
        """The spans whose parent is not in the tree (the export's top spans)."""
        return [span for span in self.spans
                if span.parent is None or span.parent not in self.by_id]


def log_records(document: Any) -> Iterator[dict[str, Any]]:
    """Every log record of an export's ``resourceLogs`` (or of a list of exports)."""
    exports = document if isinstance(document, list) else [document]
    for export in exports:
        groups = export.get("resourceLogs") if isinstance(export, dict) else None
        for group in groups if isinstance(groups, list) else ():
            if not isinstance(group, dict):
                continue
            scopes = next((group[k] for k in LOG_SCOPE_KEYS if isinstance(group.get(k), list)),
                          ())
            for scope in scopes:
                records = scope.get("logRecords") if isinstance(scope, dict) else None
                if isinstance(records, list):
                    yield from (r for r in records if isinstance(r, dict))
