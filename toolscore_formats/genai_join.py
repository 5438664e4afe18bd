"""The OpenTelemetry GenAI conventions' tool spans and the model's requests, joined into
calls: one call per span, the request it ran, its user turn (the GenAI reader's toolkit)."""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from typing import Any

from toolscore import ToolCall
from toolscore_formats import autogen_spans
from toolscore_formats.content import text_of
from toolscore_formats.genai_messages import (
    Exchange,
    _absent_result,
    _shape_key,
    _tool_result,
    absent,
)
from toolscore_formats.spans import EXECUTE_TOOL_PREFIX, Span, SpanTree
from toolscore_formats.times import iso_from_nanos, iso_timestamp, seconds_between
from toolscore_formats.traceloop_spans import ENTITY_OUTPUT, EntityCall
from toolscore_formats.values import as_str, decode_args
from toolscore_formats.vercel_spans import TOOL_ARGS, TOOL_ID, TOOL_NAME, TOOL_RESULT, decoded

# Vendor keys after the convention's: Google ADK's, the Vercel AI SDK's, and Pydantic AI's
# (tool_arguments / tool_response, its instrumentation versions 1 and 2).
ARGS_KEYS = ("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args", TOOL_ARGS,
             "tool_arguments")
GENAI_RESULT = "gen_ai.tool.call.result"
RESULT_KEYS = (GENAI_RESULT, "gen_ai.tool.result.value",
               "gcp.vertex.agent.tool_response", TOOL_RESULT, "tool_response")
# The MCP Python SDK's client span around a tools/call request: named "MCP send tools/call
# {tool}", with mcp.method.name and jsonrpc.request.id only (no tool attribute).
MCP_CLIENT_PREFIX = "MCP send tools/call "
NAME_PREFIXES = (EXECUTE_TOOL_PREFIX, "tools/call ", MCP_CLIENT_PREFIX)
ADK_TOOL_RESPONSE = "gcp.vertex.agent.tool_response"
CHOICE_EVENT = "gen_ai.choice"
STRANDS = "strands-agents"  # gen_ai.system under Strands Agents' default conventions
AUTOGEN_SOURCE = "AutoGen's runtime messages"


class ToolSpan:
    """An execute_tool, MCP tools/call or OpenLLMetry tool span, as a call's fields, before it
    is joined.

    ``entity``: what an OpenLLMetry tool span's ``traceloop.entity.input`` / ``.output`` say
    (None for other spans); ``traceloop_only``: such a span that is no execute_tool span (the
    ``@tool`` decorator's).
    """

    __slots__ = ("ai_sdk", "autogen", "by_order", "call", "call_id", "mcp_client", "name",
                 "order", "parent", "positional", "request", "rpc_id", "span_id", "start",
                 "traceloop", "traceloop_only", "unread")

    def __init__(self, span: Span, order: int, name: str | None,
                 entity: EntityCall | None = None, *, traceloop_only: bool = False) -> None:
        attributes = span.attributes
        self.order = order
        self.span_id, self.parent, self.start = span.span_id, span.parent, span.start
        self.ai_sdk = TOOL_NAME in attributes  # the Vercel AI SDK's ai.toolCall span
        # AutoGen's: it records no arguments and no result (for the note when nothing else
        # gives them).
        self.autogen = attributes.text("gen_ai.system") == autogen_spans.GENAI_SYSTEM
        self.mcp_client = span.name is not None and span.name.startswith(MCP_CLIENT_PREFIX)
        # Only what the notes need of the entity is kept: its values are in the call.
        self.traceloop = entity is not None
        self.traceloop_only = traceloop_only
        self.positional = entity is not None and entity.positional
        self.unread = entity is not None and entity.unread
        self.name = name or attributes.text("mcp.tool.name") or attributes.text(
            TOOL_NAME) or _name_from(span.name)
        # An MCP span's JSON-RPC id numbers its session's requests, not the model's calls
        # (another session numbers its own from 1 again): it is the call's id only when no
        # model request gives one, and never keeps the span from the request of its tool.
        rpc_id = as_str(attributes.get("jsonrpc.request.id"))
        self.rpc_id = None if absent(rpc_id) else rpc_id
        call_id = as_str(attributes.get("gen_ai.tool.call.id")) or as_str(
            attributes.get(TOOL_ID)) or (entity.call_id if entity is not None else None)
        self.call_id = None if absent(call_id) else call_id
        # An input in no shape read leaves the span to its GenAI attributes, as any tool span.
        self.call = _span_call(span, self.name, self.call_id, entity if entity is not None and
                               entity.shape is not None else None) if self.name else None
        if self.call is not None and self.mcp_client and self.call["is_error"] is False:
            # The client span ends without an error when the server answered: a tool's error
            # (a result with isError) is an answer, so the tool's outcome is unknown here.
            self.call["is_error"] = None
        self.request: Request | None = None  # the model's request it ran, once joined
        self.by_order = False  # joined to it by tool name and order (no call id in common)


# What a tool span is, in the words of the notes and --explain-format, in their order.
_KINDS = ("execute_tool span", "OpenLLMetry tool span", "Vercel AI SDK ai.toolCall span",
          "MCP client span")


def _kind_of(tool: ToolSpan) -> str:
    if tool.traceloop_only:
        return _KINDS[1]
    if tool.ai_sdk:
        return _KINDS[2]
    if tool.mcp_client:
        return _KINDS[3]
    return _KINDS[0]


class Request:
    """A call as a model asked for it: a ``tool_call`` message part, with what answered it."""

    __slots__ = ("aliases", "args", "call_id", "place", "raw_args", "result", "source",
                 "span", "tool", "turn")

    def __init__(self, tool: str, call_id: str | None, arguments: Any, place: tuple[int, int, int],
                 turn: int | None, source: str) -> None:
        self.tool = tool
        self.call_id = call_id
        self.args, self.raw_args = decode_args(arguments) if not absent(arguments) else (None,
                                                                                          None)
        self.place = place
        self.turn = turn
        self.source = source
        self.result: tuple[Any] | None = None  # (value,) once a response answered it
        self.span: ToolSpan | None = None
        self.aliases: set[str] = set()


def _requests(exchanges: list[Exchange], responses: dict[str, Any]
              ) -> tuple[list[Request], list[tuple[str | None, int]]]:
    """The calls the model asked for (output ``tool_call`` parts, each once), with the
    responses in later input histories; and the calls only a history holds (id, key of
    tool and arguments), in order."""
    requests: list[Request] = []
    by_id: dict[str, Request] = {}
    by_shape: dict[int, list[Request]] = {}
    for exchange in exchanges:
        turn = exchange.user_turns()
        source = AUTOGEN_SOURCE if exchange.from_autogen else "span attributes" \
            if exchange.from_spans else ("span events" if exchange.from_events else "log records")
        for index, (call_id, tool, arguments) in enumerate(exchange.requests, 1):
            if call_id is not None and call_id in by_id:
                continue
            request = Request(tool, call_id, arguments, (exchange.time(), exchange.order, index),
                              turn, source)
            requests.append(request)
            if call_id is not None:
                by_id[call_id] = request
            by_shape.setdefault(_shape_key(tool, arguments), []).append(request)
        exchange.requests = []  # now Requests: memory stays flat
    # (id, or key and rank) -> (id, key): each call only a history holds, once
    history_only: dict[Any, tuple[str | None, int]] = {}
    for exchange in exchanges:
        seen: dict[int, int] = {}
        history, exchange.history = exchange.history, []
        for call_id, shape in history:
            seen[shape] = seen.get(shape, 0) + 1
            known = by_id.get(call_id) if call_id is not None else None
            if known is None:
                # Some frameworks give the history's calls new ids: the n-th call of this
                # tool and arguments in the history is the n-th one asked for.
                same = by_shape.get(shape, [])
                known = same[seen[shape] - 1] if seen[shape] <= len(same) else None
                if known is not None and call_id is not None:
                    known.aliases.add(call_id)
                    by_id.setdefault(call_id, known)
            if known is None:
                history_only.setdefault(call_id if call_id is not None else (shape, seen[shape]),
                                        (call_id, shape))
    for request in requests:
        for key in sorted(k for k in (request.call_id, *request.aliases) if k is not None):
            if key in responses:
                request.result = (responses[key],)
                break
    return requests, list(history_only.values())


# --- joining


def _history_spans(history: list[tuple[str | None, int]], spans: list[ToolSpan]) -> int:
    """How many of the calls only the chats' histories hold no tool span ran. A span no
    request was joined to ran such a call when it has the call's id, or else the call's tool
    and arguments (the n-th such span the n-th such call); a span without an id takes the
    call's."""
    free = [tool for tool in spans if tool.request is None and tool.call is not None]
    by_id = {tool.call_id: tool for tool in free if tool.call_id is not None}
    by_shape: dict[int, deque[ToolSpan]] = {}
    for tool in free:
        fields = tool.call
        if tool.call_id is None and fields is not None and tool.name is not None:
            by_shape.setdefault(_shape_key(tool.name, fields["args"] if fields["args"] is not None
                                           else fields["raw_args"]), deque()).append(tool)
    left = 0
    for call_id, shape in history:
        if call_id is not None and by_id.pop(call_id, None) is not None:
            continue
        queue = by_shape.get(shape)
        if queue:
            fields = queue.popleft().call
            if fields is not None and call_id is not None:
                fields["id"] = call_id
            continue
        left += 1
    return left


def _distinct_spans(spans: list[ToolSpan],
                    unnamed_parents: dict[str, str | None]) -> list[ToolSpan]:
    """One span per call: a call id seen again, or an MCP span inside the execute_tool span
    of the same tool, is the same call. The MCP Python SDK's client span is the same call as
    the MCP server span of its tool below it, which holds the tool's outcome: the server span
    is kept, and the client span's parent counts as the server span's (so does an unnamed
    tool span's)."""
    kept: list[ToolSpan] = []
    seen_ids: set[str] = set()
    tree = SpanTree(spans)
    between = dict(unnamed_parents)
    between.update((t.span_id, t.parent) for t in spans if t.mcp_client and t.span_id)
    served = {(t.parent, t.name) for t in spans if not t.mcp_client and t.parent is not None}
    for tool in spans:
        if tool.mcp_client and (tool.span_id, tool.name) in served:
            continue
        parent_id, hops = tool.parent, 0
        # Bounded: a malformed export may link such spans in a cycle.
        while parent_id in between and hops < len(between):
            parent_id, hops = between[parent_id], hops + 1
        parent = tree.by_id.get(parent_id) if parent_id is not None else None
        if parent is not None and parent.name == tool.name:
            continue
        if tool.call_id is not None:
            if tool.call_id in seen_ids:
                continue
            seen_ids.add(tool.call_id)
        kept.append(tool)
    return kept


def _first_free(queue: deque[Request] | None, tool: ToolSpan) -> Request | None:
    """The first request of ``queue`` no span ran yet that ``tool`` may take: a span with an
    id takes only a request without one (else the ids would differ). Requests a span took
    leave the front of the queue, so each is looked at about once."""
    while queue and queue[0].span is not None:
        queue.popleft()
    if not queue:
        return None
    if queue[0].call_id is None or tool.call_id is None:
        return queue[0]
    return next((r for r in queue if r.span is None and r.call_id is None), None)


def _join(spans: list[ToolSpan], requests: list[Request]) -> tuple[int, int]:
    """Give each execute_tool span the request it ran: by call id, else the first request of
    that tool no span ran yet with the span's arguments, else the first in order. Returns how
    many were joined each way."""
    by_id: dict[str, Request] = {}
    request: Request | None
    for request in requests:
        for key in (request.call_id, *request.aliases):
            if key is not None:
                by_id.setdefault(key, request)
    by_id_count = by_order = 0
    waiting: list[ToolSpan] = []
    for tool in spans:
        request = by_id.get(tool.call_id) if tool.call_id is not None else None
        if request is not None and request.span is None:
            request.span = tool
            tool.request = request
            by_id_count += 1
        else:
            waiting.append(tool)
    unrun: dict[str, deque[Request]] = {}
    # The same requests by tool and arguments, for a span whose arguments are known: parallel
    # calls of one tool need not start in the order the model asked for them.
    same: dict[int, deque[Request]] = {}
    for request in requests:
        if request.span is None:
            unrun.setdefault(request.tool, deque()).append(request)
            if request.args is not None:
                same.setdefault(_shape_key(request.tool, request.args), deque()).append(request)
    for tool in waiting:
        if tool.call_id is not None and tool.call_id in by_id:
            continue
        args = tool.call["args"] if tool.call is not None else None
        request = _first_free(same.get(_shape_key(tool.name or "", args)), tool) \
            if args is not None and same else None
        if request is None:
            request = _first_free(unrun.get(tool.name or ""), tool)
        if request is not None:
            request.span = tool
            tool.request = request
            tool.by_order = True
            by_order += 1
    return by_id_count, by_order


def _merge(tool: ToolSpan, request: Request | None, turn: int | None) -> ToolCall:
    """The span's call, with what only the model's request and its response hold."""
    fields = tool.call
    assert fields is not None
    if request is not None:
        if fields["args"] is None and fields["raw_args"] is None:
            fields["args"], fields["raw_args"] = request.args, request.raw_args
        if fields["result"] is None and request.result is not None:
            fields["result"] = request.result[0]
            if fields["is_error"] is None:
                fields["is_error"] = False
        if fields["id"] is None:
            fields["id"] = request.call_id
    if fields["id"] is None:
        fields["id"] = tool.rpc_id
    return ToolCall(**fields, turn=turn)


def _request_call(request: Request, turn: int | None) -> ToolCall:
    """A call only the messages hold: no time, and an outcome only if a response came."""
    answered = request.result is not None
    return ToolCall(tool=request.tool, args=request.args, raw_args=request.raw_args,
                    id=request.call_id, result=request.result[0] if request.result else None,
                    is_error=False if answered else None, turn=turn)


def _turn_intervals(agents: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each user turn's time: ``invoke_agent`` spans, those that overlap (a sub-agent, the
    same request seen by two services) merged into one."""
    turns: list[tuple[int, int]] = []
    for start, end in sorted(agents):
        if turns and start <= turns[-1][1]:
            turns[-1] = (turns[-1][0], max(turns[-1][1], end))
        else:
            turns.append((start, end))
    return turns


def _turn_at(turns: list[tuple[int, int]], moment: int | None) -> int | None:
    if moment is None or moment < 0:
        return None
    index = bisect_right(turns, (moment, _LAST))
    if index and turns[index - 1][0] <= moment <= turns[index - 1][1]:
        return index
    return None


_LAST = 1 << 128  # after every end: (moment, _LAST) sorts after each turn starting at moment


# --- spans as calls


def _span_call(span: Span, name: str, call_id: str | None,
               entity: EntityCall | None = None) -> dict[str, Any]:
    """The fields of the span's call (the call is made once its turn is known); ``entity``:
    an OpenLLMetry tool span's, read from its entity input and output instead of the
    attributes (LangChain's gen_ai.tool.call.* hold the same wrapper)."""
    attributes = span.attributes
    if entity is not None:
        raw_args = entity.args
        result_key = ENTITY_OUTPUT if entity.result is not None else None
        raw_result = entity.result[0] if entity.result is not None else None
    else:
        raw_args = next((attributes.get(k) for k in ARGS_KEYS if k in attributes), None)
        result_key = next((k for k in RESULT_KEYS if k in attributes), None)
        raw_result = attributes.get(result_key) if result_key else None
    if raw_args is None and result_key is None and attributes.get("gen_ai.system") == STRANDS:
        raw_args, raw_result = _strands_tool_events(span)
        result_key = CHOICE_EVENT if raw_result is not None else None
    # ADK without content capture writes "{}" for both the arguments and the response of its
    # legacy attributes: elided, not "called with no arguments".
    elided = ADK_TOOL_RESPONSE in attributes and attributes.get(ADK_TOOL_RESPONSE) == "{}"
    if elided or absent(raw_args):
        raw_args = None
    # The AI SDK writes the result's JSON.stringify: any JSON value (a string too).
    result = None if elided else (decoded(raw_result) if result_key == TOOL_RESULT
                                  else _tool_result(raw_result,
                                                    quoted=result_key == GENAI_RESULT))
    result = None if _absent_result(result) else result
    has_result = result_key is not None and not elided and result is not None
    args, raw = decode_args(raw_args)
    mcp_error = isinstance(result, dict) and result.get("isError") is True
    tool_error = entity is not None and entity.failed  # a LangChain ToolMessage's status
    failed = span.failed or "error.type" in attributes or mcp_error or tool_error or \
        attributes.get("gen_ai.tool.result.is_error") is True
    error = None
    if failed:
        # The span's own words first (its status message, else the message of the exception
        # it recorded: Pydantic AI sets the ERROR status without a message); an error without
        # any text stays without text.
        error = span.error_text or span.exception_message() or as_str(
            attributes.get("error.type")) or (
            text_of(result.get("content")) if mcp_error else None) or (  # type: ignore[union-attr]
            text_of(result) if tool_error else None)
    # A span that ended without an error status is a completed call: not failed.
    is_error: bool | None = True if failed else (False if span.end is not None or has_result
                                                 else None)
    return {
        "tool": name, "args": args, "raw_args": raw, "id": call_id, "result": result,
        "is_error": is_error, "error": error, "duration": seconds_between(span.start, span.end),
        "timestamp": iso_from_nanos(span.start) if span.start is not None else iso_timestamp(
            span.raw.get("start_time")),
    }


def _strands_tool_events(span: Span) -> tuple[Any, Any]:
    """Strands' tool span under its default conventions keeps the arguments in its
    ``gen_ai.tool.message`` event (``content``) and the result in its ``gen_ai.choice`` event
    (``message``): the arguments and the result, each None when the span has no such event."""
    arguments = result = None
    for name, attributes in span.events:
        if name == "gen_ai.tool.message":
            arguments = attributes.get("content")
        elif name == CHOICE_EVENT:
            result = attributes.get("message")
    return arguments, result


def _name_from(span_name: str | None) -> str | None:
    if span_name is not None:
        for prefix in NAME_PREFIXES:
            if span_name.startswith(prefix) and len(span_name) > len(prefix):
                return span_name[len(prefix):]
    return None
