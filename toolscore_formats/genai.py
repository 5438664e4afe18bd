"""The OpenTelemetry GenAI conventions: the tool calls, final answer and run time of spans
(whichever envelope carried them: the otel and jaeger readers)."""

from __future__ import annotations

from typing import Any

from toolscore_core.documents import JSON_FAILURES, loads
from toolscore_core.models import ToolCall, Trace
from toolscore_formats.common import as_str, decode_args, maybe_json, text_of
from toolscore_formats.spans import EXECUTE_TOOL_PREFIX, Attributes, Span
from toolscore_formats.times import iso_from_nanos, iso_timestamp, seconds_between

ARGS_KEYS = ("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args")
RESULT_KEYS = ("gen_ai.tool.call.result", "gen_ai.tool.result.value",
               "gcp.vertex.agent.tool_response")
NAME_PREFIXES = (EXECUTE_TOOL_PREFIX, "tools/call ")


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

    def feed_raw(self, span: dict[str, Any]) -> None:
        """An OTLP span as the document has it."""
        self.feed(Span.from_otlp(span, self.order))

    def feed(self, span: Span) -> None:
        order = self.order
        self.order += 1
        attributes = span.attributes
        self.openinference = self.openinference or span.openinference_kind() is not None
        if span.is_tool_span():
            name = attributes.text("gen_ai.tool.name") or attributes.text(
                "mcp.tool.name") or _name_from(span.name)
            call_id = as_str(attributes.get("gen_ai.tool.call.id")) or as_str(
                attributes.get("jsonrpc.request.id"))
            call = _call(span, name, call_id) if name else None
            self.found.append((span.start if span.start is not None else -1, order,
                               span.span_id, span.parent, name, call_id, call))
        elif "gen_ai.output.messages" in attributes:
            key = (span.end if span.end is not None else -1, order)
            if self.last_chat is None or key >= self.last_chat[:2]:
                self.last_chat = (*key, attributes)
        elif span.operation() == "invoke_agent":
            duration = seconds_between(span.start, span.end)
            if duration is not None:
                self.agents.append(duration)

    def trace(self) -> Trace:
        self.found.sort(key=lambda item: (item[0], item[1]))
        calls, notes = _calls(self.found)
        final_answer, model = _final_answer(self.last_chat[2]) if self.last_chat else (None, None)
        return Trace(calls=calls, final_answer=final_answer, model=model,
                     run_duration=self.agents[0] if len(self.agents) == 1 else None,
                     notes=tuple(notes))


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


def _call(span: Span, name: str, call_id: str | None) -> ToolCall:
    attributes = span.attributes
    raw_args = next((attributes.get(k) for k in ARGS_KEYS if k in attributes), None)
    args, raw = decode_args(raw_args)
    result_key = next((k for k in RESULT_KEYS if k in attributes), None)
    result = maybe_json(attributes.get(result_key)) if result_key else None
    mcp_error = isinstance(result, dict) and result.get("isError") is True
    failed = span.failed or "error.type" in attributes or mcp_error or \
        attributes.get("gen_ai.tool.result.is_error") is True
    error = None
    if failed:
        # The span's own words first; an error without any text stays without text.
        error = span.error_text or as_str(attributes.get("error.type")) or (
            text_of(result.get("content")) if mcp_error else None)  # type: ignore[union-attr]
    # A span that ended without an error status is a completed call: not failed.
    is_error: bool | None = True if failed else (False if span.end is not None or result_key
                                                 else None)
    return ToolCall(
        tool=name, args=args, raw_args=raw, id=call_id, result=result, is_error=is_error,
        error=error, duration=seconds_between(span.start, span.end),
        timestamp=iso_from_nanos(span.start) if span.start is not None else iso_timestamp(
            span.raw.get("start_time")),
    )


def _name_from(span_name: str | None) -> str | None:
    if span_name is not None:
        for prefix in NAME_PREFIXES:
            if span_name.startswith(prefix) and len(span_name) > len(prefix):
                return span_name[len(prefix):]
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
