"""OpenTelemetry GenAI spans: ``execute_tool`` and MCP ``tools/call`` spans as tool calls."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import ToolCall, Trace, TraceFormat
from toolscore_formats.common import (
    as_int,
    as_str,
    decode_args,
    dict_of,
    iso_from_nanos,
    iso_timestamp,
    maybe_json,
    name_of,
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


def _is_span(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("name"), str) and (
        "spanId" in item or "span_id" in item or isinstance(item.get("context"), dict))


def detect(document: Any) -> str | None:
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


def attributes_of(span: dict[str, Any]) -> dict[str, Any]:
    attributes = span.get("attributes")
    if isinstance(attributes, dict):  # the SDK's own JSON (span.to_json())
        return attributes
    if not isinstance(attributes, list):
        return {}
    return {a["key"]: attribute_value(a.get("value")) for a in attributes
            if isinstance(a, dict) and isinstance(a.get("key"), str)}


def parse(document: Any) -> Trace:
    if detect(document) is None:
        raise InputError("not an OTLP export or a list of spans", place="$",
                         fix='give {"resourceSpans": [...]} or a list of spans')
    found: list[tuple[int, int, dict[str, Any], dict[str, Any]]] = []
    chats: list[tuple[int, int, dict[str, Any]]] = []
    agents: list[float] = []
    for order, span in enumerate(spans_of(document)):
        attributes = attributes_of(span)
        operation = name_of(attributes, "gen_ai.operation.name")
        start, end = _nanos(span, "start"), _nanos(span, "end")
        if _is_tool_span(operation, attributes):
            found.append((start if start is not None else -1, order, span, attributes))
        elif "gen_ai.output.messages" in attributes:
            chats.append((end if end is not None else -1, order, attributes))
        elif operation == "invoke_agent" and start is not None and end is not None:
            agents.append((end - start) / 1e9)
    found.sort(key=lambda item: (item[0], item[1]))
    calls, notes = _calls(found)
    chats.sort(key=lambda item: (item[0], item[1]))
    final_answer, model = _final_answer(chats[-1][2]) if chats else (None, None)
    return Trace(calls=calls, final_answer=final_answer, model=model,
                 run_duration=agents[0] if len(agents) == 1 else None, notes=tuple(notes))


def _is_tool_span(operation: str | None, attributes: dict[str, Any]) -> bool:
    if operation == "execute_tool" or attributes.get("mcp.method.name") == "tools/call":
        return True
    return operation in TOOL_OPERATIONS and "gen_ai.tool.name" in attributes


def _calls(found: list[tuple[int, int, dict[str, Any], dict[str, Any]]]
           ) -> tuple[tuple[ToolCall, ...], list[str]]:
    calls: list[ToolCall] = []
    notes: list[str] = []
    seen_ids: set[str] = set()
    tool_spans: dict[str | None, str] = {}
    for _, order, span, attributes in found:
        name = name_of(attributes, "gen_ai.tool.name") or name_of(attributes, "mcp.tool.name") \
            or _name_from(span.get("name"))
        if not name:
            notes.append(f"span {order}: a tool span without a tool name (not read)")
            continue
        context = dict_of(span, "context")
        span_id = as_str(span.get("spanId") or span.get("span_id") or context.get("span_id"))
        parent = as_str(span.get("parentSpanId") or span.get("parent_id"))
        # An MCP client span inside the execute_tool span of the same tool is the same call.
        if parent is not None and tool_spans.get(parent) == name:
            tool_spans[span_id] = name
            continue
        call_id = as_str(attributes.get("gen_ai.tool.call.id")) or as_str(
            attributes.get("jsonrpc.request.id"))
        if call_id is not None:
            if call_id in seen_ids:
                continue
            seen_ids.add(call_id)
        tool_spans[span_id] = name
        calls.append(_call(span, attributes, name, call_id))
    return tuple(calls), notes


def _call(span: dict[str, Any], attributes: dict[str, Any], name: str,
          call_id: str | None) -> ToolCall:
    raw_args = next((attributes[k] for k in ARGS_KEYS if k in attributes), None)
    args, raw = decode_args(raw_args)
    result_key = next((k for k in RESULT_KEYS if k in attributes), None)
    result = maybe_json(attributes[result_key]) if result_key else None
    status = dict_of(span, "status")
    code = status.get("code", status.get("status_code"))
    code = code if isinstance(code, int | str) else None
    failed = code in ERROR_CODES or "error.type" in attributes or \
        attributes.get("gen_ai.tool.result.is_error") is True or \
        (isinstance(result, dict) and result.get("isError") is True)
    start, end = _nanos(span, "start"), _nanos(span, "end")
    error = None
    if failed:
        error = status.get("message") or status.get("description") or as_str(
            attributes.get("error.type")) or "error"
    # A span that ended without an error status is a completed call: not failed.
    is_error: bool | None = True if failed else (False if end is not None or result_key
                                                 else None)
    return ToolCall(
        tool=name, args=args, raw_args=raw, id=call_id, result=result, is_error=is_error,
        error=error, duration=(end - start) / 1e9 if start is not None and end is not None
        else None,
        timestamp=iso_from_nanos(start) if start is not None else iso_timestamp(
            span.get("start_time")),
    )


def _name_from(span_name: Any) -> str | None:
    if isinstance(span_name, str):
        for prefix in NAME_PREFIXES:
            if span_name.startswith(prefix) and len(span_name) > len(prefix):
                return span_name[len(prefix):]
    return None


def _nanos(span: dict[str, Any], edge: str) -> int | None:
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


def _final_answer(attributes: dict[str, Any]) -> tuple[str | None, str | None]:
    model = as_str(attributes.get("gen_ai.response.model") or attributes.get(
        "gen_ai.request.model"))
    messages = attributes.get("gen_ai.output.messages")
    if isinstance(messages, str):
        try:
            messages = json.loads(messages)
        except (json.JSONDecodeError, RecursionError):
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
        detect=detect, parse=parse,
    )]
