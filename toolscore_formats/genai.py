"""The OpenTelemetry GenAI conventions: tool calls, turns, final answer and run time from
spans, their message parts and log records (whichever envelope carried them: the otel and
jaeger readers).

The conventions put one call in several places: an ``execute_tool`` span (the tool's run),
a ``tool_call`` part in a chat's output messages (the model's request) and again in every
later chat's input history, a ``tool_call_response`` part in a later input (the result), and
the same messages in log records when content goes to events. Each place is a sighting of
the call; the sightings are joined into one call (by call id, else by tool name and order),
and a field comes from the place that holds real content: placeholders and elided content
are absence, never values.
"""

from __future__ import annotations

import json
import sys
from bisect import bisect_right
from collections import Counter, deque
from typing import TYPE_CHECKING, Any

from toolscore import JSON_FAILURES, ToolCall, Trace, count, loads
from toolscore_formats import autogen_spans
from toolscore_formats.content import converse_result, text_of
from toolscore_formats.spans import (
    EXECUTE_TOOL_PREFIX,
    Attributes,
    Span,
    SpanTree,
    otlp_attributes,
)
from toolscore_formats.times import iso_from_nanos, iso_timestamp, parse_time, seconds_between
from toolscore_formats.traceloop_spans import (
    AGENT_KINDS,
    ENTITY_INPUT,
    ENTITY_NAME,
    ENTITY_OUTPUT,
    TOOL,
    EntityCall,
    entity_call,
)
from toolscore_formats.traceloop_spans import kind as traceloop_kind
from toolscore_formats.usage import GENAI_COUNTS, ModelCalls, span_counts
from toolscore_formats.values import as_str, decode_args, maybe_json
from toolscore_formats.vercel_spans import (
    TOOL_ARGS,
    TOOL_ID,
    TOOL_NAME,
    TOOL_RESULT,
    decoded,
    input_messages,
    is_model_call,
    is_run,
    output_messages,
)

if TYPE_CHECKING:
    from toolscore import SpanRef

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
PLACEHOLDERS = frozenset(("N/A", "<not specified>", "<elided>"))
MERGED_TOOLS = "(merged tools)"
MESSAGE_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")
ADK_REQUEST, ADK_RESPONSE = "gcp.vertex.agent.llm_request", "gcp.vertex.agent.llm_response"
ADK_TOOL_RESPONSE = "gcp.vertex.agent.tool_response"
TOOL_FINISHES = ("tool_calls", "tool_call")
CHAT_OPERATIONS = frozenset(("chat", "generate_content", "text_completion"))
OLD_FIRST_KEYS = tuple(f"gen_ai.{side}.0.{field}" for side in ("prompt", "completion")
                       for field in ("role", "content", "tool_calls.0.name"))
INFERENCE_EVENT = "gen_ai.client.inference.operation.details"
INPUT_EVENTS = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}
CHOICE_EVENT = "gen_ai.choice"
EVENT_NAMES = frozenset((INFERENCE_EVENT, CHOICE_EVENT, *INPUT_EVENTS))
CONVERSE_KINDS = ("text", "toolUse", "toolResult")
STRANDS = "strands-agents"  # gen_ai.system under Strands Agents' default conventions
# Pydantic AI's instrumentation version 1 (and its releases before versions) writes a chat's
# messages as the per-message GenAI events, in one span attribute: a JSON list of objects,
# each an event's body with its "event.name".
EVENTS_ATTRIBUTE = "events"
AUTOGEN_SOURCE = "AutoGen's runtime messages"


def absent(value: Any) -> bool:
    """No content: null, or a placeholder an instrumentation writes where it has none."""
    return value is None or (isinstance(value, str) and value.strip() in PLACEHOLDERS)


def _absent_result(value: Any) -> bool:
    # ADK wraps a missing response's placeholder as {"result": "<not specified>"}.
    # A tool that returned None is {"result": null}: a result, not an absence.
    return absent(value) or (isinstance(value, dict) and len(value) == 1 and
                             value.get("result") is not None and absent(value.get("result")))


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


class Exchange:
    """One model call, kept compact: the calls its output asks for, the calls its input
    history repeats (as keys), how many user turns the history holds, and the answer.

    The messages themselves are not kept: an instrumentation repeats the whole history in
    every chat, so keeping them would make memory grow with the square of a conversation.
    """

    __slots__ = ("answer", "answer_raw", "end", "from_autogen", "from_events", "from_spans",
                 "has_input", "has_output",
                 "history", "key", "model", "order", "requests", "start", "turns")

    def __init__(self, key: Any, order: int) -> None:
        self.key = key
        self.order = order
        self.start: int | None = None
        self.end: int | None = None
        self.has_input = self.has_output = False
        self.requests: list[tuple[str | None, str, Any]] = []  # (id, tool, arguments)
        self.history: list[tuple[str | None, int]] = []  # (id, key of tool and arguments)
        self.turns = 0
        self.answer: str | None = None
        self.answer_raw: str | None = None  # output messages without a call, decoded if last
        self.model: str | None = None
        self.from_spans = False  # content read from span attributes (else log records only)
        self.from_events = False  # content read from the span's own events
        self.from_autogen = False  # requests from AutoGen's runtime messages (not a chat)

    def time(self) -> int:
        moment = self.end if self.end is not None else self.start
        return moment if moment is not None else -1

    def user_turns(self) -> int | None:
        """How many user messages the input holds: the turn this chat answers."""
        return self.turns or None

    def add_input(self, message: dict[str, Any], responses: dict[str, Any],
                  keys: dict[str, int]) -> None:
        """A message of the input history (or the system instructions, role "system").

        ``responses`` gathers the results by call id, ``keys`` the key of each call id's
        tool and arguments (a history repeats every earlier call: each is keyed once)."""
        self.has_input = True
        spoke = False
        for part in _parts(message):
            kind = part.get("type")
            if kind == "tool_call" and isinstance(part.get("name"), str):
                call_id = _call_id(part.get("id"))
                key = keys.get(call_id) if call_id is not None else None
                if key is None:
                    key = _shape_key(part["name"], part.get("arguments"))
                    if call_id is not None:
                        keys[call_id] = key
                self.history.append((call_id, key))
            elif kind == "tool_call_response":
                call_id = _call_id(part.get("id"))
                value = part.get("response", part.get("result"))
                if call_id is not None and not _absent_result(value):
                    responses.setdefault(call_id, _tool_result(value))
            else:
                spoke = True
        self.turns += message.get("role") == "user" and spoke

    def final_text(self) -> str | None:
        if self.answer_raw is not None:
            for message in _messages(self.answer_raw) or ():
                self.add_output(message)
            self.answer_raw = None
        return self.answer

    def add_output(self, message: dict[str, Any]) -> None:
        """A message the model answered with; the last one is the answer unless it asks
        for a tool."""
        self.has_output = True
        parts = _parts(message)
        for part in parts:
            if part.get("type") == "tool_call" and isinstance(part.get("name"), str):
                self.requests.append((_call_id(part.get("id")), part["name"],
                                      part.get("arguments")))
        asks = any(part.get("type") == "tool_call" for part in parts)
        self.answer = None if asks else text_of(
            [{"type": "text", "text": p.get("content")} for p in parts
             if p.get("type") == "text"])


def _call_id(value: Any) -> str | None:
    call_id = as_str(value)
    return None if absent(call_id) else call_id


def _shape_key(tool: str, arguments: Any) -> int:
    """A key of a call's tool and arguments, to find the same call in another history."""
    args, raw = decode_args(arguments) if not absent(arguments) else (None, None)
    return hash((tool, json.dumps(args, sort_keys=True, default=str) if args is not None
                 else f"raw:{raw}"))


class GenAIReader:
    """Takes spans and log records as they come; keeps only what the calls need."""

    def __init__(self) -> None:
        self.tool_spans: list[ToolSpan] = []
        self.exchanges: dict[Any, Exchange] = {}
        self.agents: list[tuple[int, int]] = []
        self.agent_durations: list[float] = []
        self.sdk_runs: list[float] = []  # the Vercel AI SDK's generateText / streamText spans
        self.merged = 0
        self.unnamed: list[int] = []
        # The parent of each unnamed tool span: a tool span below one is compared with the
        # span above it.
        self.unnamed_parents: dict[str, str | None] = {}
        self.spans = 0
        self.log_records = 0
        self.chat_tool_finishes = 0
        self.tool_finish = TOOL_FINISHES[0]  # the finish reason they gave, for the note
        self.models: dict[str, str] = {}
        # The last model-call span's model ((end, order, model)): the run's model when no
        # chat's content was recorded (sensitive data off), since the spans still name it.
        self.last_model: tuple[int, int, str] | None = None
        self.responses: dict[str, Any] = {}
        self.keys: dict[str, int] = {}
        self.last_output: Exchange | None = None
        self.chats = 0
        self.order = 0
        self.openinference = False
        # Each OpenLLMetry span's parent and kind (traceloop.span.kind), to tell a tool span
        # inside another tool span (the outer tool's own work) from an agent's call.
        self.traceloop_parents: dict[str, tuple[str | None, str]] = {}
        # Where verdicts written back belong (``Trace.span``): the trace ids seen, the
        # earliest invoke_agent span ((start, id)) and the first root span; and the last
        # response id ((end, order, id)) for ``Trace.response_id``.
        self.trace_ids: set[str] = set()
        self.agent_span: tuple[int, str] | None = None
        self.root_span: str | None = None
        self.response: tuple[int, int, str] | None = None
        # An AutoGen team's latest message from a model ((time, order, its text or None)):
        # the answer when no chat span gives one.
        self.autogen_answer: tuple[int, int, str | None] | None = None
        self.autogen_seen: set[Any] = set()  # the runtime messages read (by message id)
        # The run's tokens: the model-call spans' only. An agent or run span's usage is its
        # chats' total (Pydantic AI and the Vercel AI SDK write one): added, it would count
        # them twice.
        self.usage = ModelCalls("token usage (gen_ai.usage.input_tokens / output_tokens)",
                                "model-call spans")

    # --- feeding

    def feed_raw(self, span: dict[str, Any]) -> None:
        """An OTLP span as the document has it."""
        self.feed(Span.from_otlp(span, self.order))

    def feed(self, span: Span) -> None:
        order = self.order
        self.order += 1
        self.spans += 1
        attributes = span.attributes
        self.openinference = self.openinference or span.openinference_kind() is not None
        operation = span.operation()
        self._place(span, operation, order)
        if operation in CHAT_OPERATIONS or is_model_call(attributes):
            counts = span_counts(attributes, GENAI_COUNTS)
            self.usage.add(span.span_id, span.parent, counts)
            self._note_model(span, order)
        kind = traceloop_kind(attributes)
        if kind is not None and span.span_id is not None:
            self.traceloop_parents[span.span_id] = (span.parent, kind)
        genai_tool = span.is_tool_span(operation)
        if genai_tool or kind == TOOL:
            name = attributes.text("gen_ai.tool.name")
            if name == MERGED_TOOLS:
                # ADK's span over parallel calls re-reports the calls' own spans: not a call.
                self.merged += 1
                return
            entity = None
            if kind == TOOL:
                # OpenLLMetry's: its arguments and result are in its entity input and output
                # (the same JSON as gen_ai.tool.call.*, a wrapper, in LangChain's).
                entity = entity_call(attributes)
                name = attributes.text(ENTITY_NAME) or name
            tool = ToolSpan(span, order, name, entity, traceloop_only=not genai_tool)
            if tool.call is None:
                self.unnamed.append(order)
                if span.span_id is not None:
                    self.unnamed_parents[span.span_id] = span.parent
            else:
                self.tool_spans.append(tool)
            return
        if is_run(attributes):
            # The AI SDK's whole call times the run. Its turns stay its prompts' user
            # messages: a chat app sends the whole history with each call.
            duration = seconds_between(span.start, span.end)
            if duration is not None:
                self.sdk_runs.append(duration)
        if operation == "invoke_agent":
            # The agent's input and answer (as attributes or events) are not a chat: its
            # answer is the last chat's, which Strands' agent span repeats with a line break.
            duration = seconds_between(span.start, span.end)
            if duration is not None:
                self.agent_durations.append(duration)
            if span.start is not None and span.end is not None and span.end >= span.start:
                self.agents.append((span.start, span.end))
            return
        messages = autogen_spans.runtime_messages(span.name, attributes)
        if messages is not None:
            self._autogen(messages, span, order)
            return
        if span.raw.get("events") or span.raw.get("logs"):
            self._span_events(span, order)
        if EVENTS_ATTRIBUTE in attributes.raw:
            self._attribute_events(span, order)
        raw = attributes.raw
        has_messages = any(key in raw for key in MESSAGE_KEYS) or ADK_RESPONSE in raw or \
            _has_old_messages(attributes) or is_model_call(attributes)
        if not has_messages and operation not in CHAT_OPERATIONS:
            return
        finishes = attributes.get("gen_ai.response.finish_reasons")
        # OpenAI's "tool_calls"; the conventions' (OpenLLMetry writes them) "tool_call".
        reason = next((r for r in TOOL_FINISHES if r in finishes), None) \
            if isinstance(finishes, list) else None
        if reason is not None:
            self.chat_tool_finishes += 1
            self.tool_finish = reason
        model = as_str(attributes.get("gen_ai.response.model") or attributes.get(
            "gen_ai.request.model"))
        if has_messages:
            exchange = self._exchange(span.span_id, order)
            exchange.start, exchange.end = span.start, span.end
            exchange.model = model
            _fill(exchange, attributes, True, self)
            self._settle(exchange)
        elif model is not None and span.span_id is not None:
            self.models[span.span_id] = sys.intern(model)  # for this chat's log records

    def _note_model(self, span: Span, order: int) -> None:
        """Keep the model a model-call span names, if it ended last so far."""
        model = as_str(span.attributes.get("gen_ai.response.model") or span.attributes.get(
            "gen_ai.request.model"))
        end = span.end if span.end is not None else -1
        if model is not None and (self.last_model is None or (end, order) >= self.last_model[:2]):
            self.last_model = (end, order, sys.intern(model))

    def feed_log(self, record: dict[str, Any]) -> None:
        """An OTLP log record (``resourceLogs``): a GenAI event, or nothing for the calls."""
        order = self.order
        self.order += 1
        self.log_records += 1
        attributes = otlp_attributes(record.get("attributes"))
        name = as_str(record.get("eventName")) or attributes.text("event.name")
        if name is not None:
            # Semantic Kernel logs each event's body as JSON text (a Python log message).
            body = _decoded(_any(record.get("body")))
            self._event(name, attributes, body if isinstance(body, dict) else {},
                        as_str(record.get("spanId")) or None, order,
                        parse_time(record.get("timeUnixNano")) or parse_time(
                            record.get("observedTimeUnixNano")))

    def _span_events(self, span: Span, order: int) -> None:
        """The same events recorded on the chat's span instead of as log records (some
        instrumentations do): an event's body is its ``gen_ai.event.content``, else its
        attributes."""
        for name, attributes in span.events:
            if name in EVENT_NAMES:
                content = _decoded(attributes.get("gen_ai.event.content"))
                body = content if isinstance(content, dict) else dict(attributes.items())
                self._event(name, attributes, body, span.span_id, order, span.end)
        exchange = self.exchanges.get(span.span_id) if span.span_id is not None else None
        if exchange is not None:
            exchange.from_events = True

    def _attribute_events(self, span: Span, order: int) -> None:
        """The events in a span's ``events`` attribute (Pydantic AI's version 1), read as the
        same events recorded as log records of that span."""
        events = _decoded(span.attributes.get(EVENTS_ATTRIBUTE))
        if not isinstance(events, list):
            return
        for event in events:
            name = event.get("event.name") if isinstance(event, dict) else None
            if isinstance(name, str) and name in EVENT_NAMES:
                self._event(name, Attributes(event, otlp=False), event, span.span_id, order,
                            span.end)
        exchange = self.exchanges.get(span.span_id) if span.span_id is not None else None
        if exchange is not None:
            exchange.from_spans = True

    def _event(self, name: str, attributes: Attributes, body: dict[str, Any],
               span_id: str | None, order: int, time: int | None) -> None:
        if name == INFERENCE_EVENT:
            exchange = self._exchange(span_id, order)
            exchange.model = exchange.model or as_str(attributes.get(
                "gen_ai.response.model") or attributes.get("gen_ai.request.model"))
            if _fill(exchange, attributes, False, self) and exchange.end is None:
                exchange.end = time
            self._settle(exchange)
        elif name in INPUT_EVENTS or name == CHOICE_EVENT:
            exchange = self._exchange(span_id, order)
            if exchange.end is None:
                exchange.end = time
            self.chats += 1
            if name == CHOICE_EVENT:
                message = body.get("message")
                if not isinstance(message, dict):
                    # Strands writes the message's Bedrock content blocks, as JSON text.
                    blocks = _converse_blocks(message)
                    message = {} if blocks is None else {"content": blocks}
                exchange.add_output(_old_message("assistant", message))
            else:
                exchange.add_input(_old_message(INPUT_EVENTS[name], body), self.responses,
                                   self.keys)

    def _autogen(self, messages: list[dict[str, Any]], span: Span, order: int) -> None:
        """An AutoGen runtime span's AgentChat messages: the model's requests (an exchange
        that is not a chat: no answer, no model), the results, an agent's text. A message
        an earlier span delivered is passed over."""
        for index, message in enumerate(messages):
            message_id = autogen_spans.message_id(message)
            key = ("autogen", message_id if message_id is not None else (order, index))
            if key in self.autogen_seen:
                continue
            self.autogen_seen.add(key)
            time = autogen_spans.message_time(message)
            if time is None:
                time = span.start
            calls = autogen_spans.requests(message)
            if calls:
                exchange = self.exchanges[key] = Exchange(key, order)
                exchange.start = exchange.end = time
                exchange.from_autogen = True
                exchange.requests.extend(calls)
            for call_id, content in autogen_spans.results(message):
                self.responses.setdefault(call_id, _tool_result(content))
            moment = time if time is not None else -1
            if autogen_spans.from_model(message) and (
                    self.autogen_answer is None or (moment, order) >= self.autogen_answer[:2]):
                # The latest model answer decides, as the last chat's output does: its text,
                # none when it asked for tools.
                self.autogen_answer = (moment, order, autogen_spans.answer(message))

    def _settle(self, exchange: Exchange) -> None:
        """After a chat's content was read whole: keep only the last chat's answer text, and
        forget a chat that asked for no call and repeats none (most chats of a long export),
        so memory does not grow with the number of chats."""
        self.chats += exchange.has_input or exchange.has_output
        last = self.last_output
        if exchange.has_output and exchange is not last:
            if last is None or (exchange.time(), exchange.order) >= (last.time(), last.order):
                self.last_output = exchange
                if last is not None:
                    last.answer_raw = None
                    self._forget(last)
            else:
                exchange.answer_raw = None
        self._forget(exchange)

    def _forget(self, exchange: Exchange) -> None:
        if exchange is not self.last_output and not exchange.requests and not exchange.history:
            self.exchanges.pop(exchange.key, None)

    def _exchange(self, span_id: str | None, order: int) -> Exchange:
        key: Any = span_id if span_id is not None else ("record", order)
        exchange = self.exchanges.get(key)
        if exchange is None:
            exchange = self.exchanges[key] = Exchange(key, order)
        return exchange

    # --- reading

    def _place(self, span: Span, operation: str | None, order: int) -> None:
        """Note where the trace sits: its id, its agent or root span, its last response."""
        trace_id = span.trace_id
        if trace_id is not None:
            self.trace_ids.add(trace_id)
        root = span.parent is None
        if operation == "invoke_agent" or (root and self.root_span is None):
            span_id = hex_id(span.span_id, 16)
            if span_id is not None:
                start = span.start
                if operation == "invoke_agent" and start is not None and (
                        self.agent_span is None or start < self.agent_span[0]):
                    self.agent_span = (start, span_id)
                if root and self.root_span is None:
                    self.root_span = span_id
        if "gen_ai.response.id" in span.attributes.raw:
            response = as_str(span.attributes.get("gen_ai.response.id"))
            end = span.end
            key = (end if end is not None else -1, order)
            if response is not None and (self.response is None or key >= self.response[:2]):
                self.response = (*key, response)

    def span_ref(self) -> SpanRef | None:
        """The span verdicts about this trace belong to: one trace only (an export of several
        has no one span), its earliest agent span, else its root."""
        trace_ids = {hex_id(t, 32) for t in self.trace_ids}
        trace_id = trace_ids.pop() if len(trace_ids) == 1 else None
        if trace_id is None:
            return None
        # Imported here: a trace of spans is the only one that has a span to name.
        from toolscore import SpanRef

        return SpanRef(trace_id=trace_id, span_id=(
            self.agent_span[1] if self.agent_span else self.root_span))

    def trace(self) -> tuple[Trace, str]:
        """The trace, and where its calls were found, in words (for ``--explain-format``)."""
        notes: list[str] = [f"span {order}: a tool span without a tool name (not read)"
                            for order in self.unnamed]
        if self.merged:
            notes.append(f"{count(self.merged, 'execute_tool span')} named {MERGED_TOOLS!r} (over "
                         "parallel calls that have their own spans) not read as calls")
        for key, exchange in self.exchanges.items():
            if exchange.model is None and isinstance(key, str):
                exchange.model = self.models.get(key)
        exchanges = sorted(self.exchanges.values(), key=lambda e: (e.time(), e.order))
        requests, history = _requests(exchanges, self.responses)
        outer, nested = self._outermost(sorted(self.tool_spans, key=lambda t: (
            t.start if t.start is not None else -1, t.order)))
        spans = _distinct_spans(outer, self.unnamed_parents)
        joined_id, joined_order = _join(spans, requests)
        history_only = _history_spans(history, spans)
        turns = _turn_intervals(self.agents)
        rows: list[tuple[tuple[int, int, int], ToolCall]] = []
        positional = unread = bare_autogen = 0
        # The calls one model response asked for are in the order it asked for them, from
        # the first one's start: a framework runs them concurrently, and which of its spans
        # starts first is the scheduler's doing, not the agent's (nor the same each run).
        first: dict[int, int] = {}
        for tool in spans:
            if tool.request is not None:
                order, start = tool.request.place[1], tool.start if tool.start is not None else -1
                first[order] = min(first.get(order, start), start)
        for tool in spans:
            request = tool.request
            turn = _turn_at(turns, tool.start) if turns else (request.turn if request else None)
            call = _merge(tool, request, turn)
            if call.args is None and call.raw_args is None:
                positional += tool.positional
                unread += tool.unread
                bare_autogen += tool.autogen
            rows.append(((first[request.place[1]], *request.place[1:]) if request else
                         (tool.start if tool.start is not None else -1, tool.order, 0), call))
            tool.call = None  # its fields are in the call now: memory stays flat
        unrun = [request for request in requests if request.span is None]
        for request in unrun:
            turn = _turn_at(turns, request.place[0]) if turns else request.turn
            rows.append((request.place, _request_call(request, turn)))
        rows.sort(key=lambda row: row[0])
        if spans and unrun:
            notes.extend(f"the model asked for {r.tool}{f' ({r.call_id})' if r.call_id else ''} "
                         "(a tool_call message part), but no execute_tool span ran it"
                         for r in unrun)
        if nested:
            notes.append(f"{count(nested, 'OpenLLMetry tool span')} inside another tool span "
                         "not read as calls (the outer tool's own work, not the model's request)")
        if positional:
            notes.append(f"{count(positional, 'OpenLLMetry tool span')} with positional "
                         f"arguments ({ENTITY_INPUT} {{\"args\": [...]}}: their names are not "
                         "in the span) and no model request that names them: arguments unknown")
        if unread:
            notes.append(f"{count(unread, 'OpenLLMetry tool span')} whose {ENTITY_INPUT} is in "
                         "a shape not read (neither the @tool decorator's nor LangChain's) and "
                         "no GenAI attribute or model request gives them: arguments unknown")
        if bare_autogen:
            notes.append(f"{count(bare_autogen, 'AutoGen execute_tool span')} without "
                         "arguments: AutoGen's tool spans record neither the arguments nor the "
                         "result, and no model request or runtime message in this export gives "
                         "them (unknown)")
        by_order = Counter(_kind_of(tool) for tool in spans if tool.by_order)
        for noun in sorted(by_order, key=_KINDS.index):
            notes.append(f"{count(by_order[noun], noun)} joined to the model's request by tool "
                         "name and order (no call id in common)")
        if history_only:
            notes.append(f"{count(history_only, 'call')} only in the chats' input history "
                         "(asked for before this export's first chat): not counted")
        where = self._where(spans, requests, joined_id, joined_order)
        if not rows:
            notes.append(self._no_calls())
        final_answer, model = _final_answer(exchanges)
        if model is None and self.last_model is not None:
            model = self.last_model[2]
        if self.autogen_answer is not None and not any(e.has_output for e in exchanges):
            # No chat's output in the export (AutoGen's spans alone): the team's latest
            # model answer.
            final_answer = self.autogen_answer[2]
        usage = self.usage.result(notes)
        return Trace(calls=tuple(call for _, call in rows), final_answer=final_answer,
                     model=model, usage=usage, notes=tuple(notes),
                     run_duration=self._run_duration(), span=self.span_ref(),
                     response_id=self.response[2] if self.response else None), where

    def _outermost(self, spans: list[ToolSpan]) -> tuple[list[ToolSpan], int]:
        """The spans without the OpenLLMetry tool spans inside another OpenLLMetry tool span
        (a tool that calls a decorated function: its own work), and how many were left out.

        The parents are followed through OpenLLMetry's other spans (tasks); an agent or
        workflow span in between makes the inner span an agent's call (a tool that runs an
        agent)."""
        kept: list[ToolSpan] = []
        nested = 0
        parents = self.traceloop_parents
        for tool in spans:
            parent, hops = tool.parent if tool.traceloop else None, 0
            inside = False
            # Bounded: a malformed export may link spans in a cycle.
            while parent is not None and parent in parents and hops < len(parents):
                parent, kind = parents[parent]
                if kind == TOOL or kind in AGENT_KINDS:
                    inside = kind == TOOL
                    break
                hops += 1
            if inside:
                nested += 1
            else:
                kept.append(tool)
        return kept, nested

    def _run_duration(self) -> float | None:
        """The single ``invoke_agent`` span's duration; without agent spans, the single AI SDK
        ``generateText`` / ``streamText`` span's. Several runs have no one duration."""
        runs = self.agent_durations or self.sdk_runs
        return runs[0] if len(runs) == 1 else None

    def _where(self, spans: list[ToolSpan], requests: list[Request], joined_id: int,
               joined_order: int) -> str:
        kinds = Counter(map(_kind_of, spans))
        places = [count(kinds[noun], noun) for noun in sorted(kinds, key=_KINDS.index)]
        for source in ("span attributes", "span events", "log records", AUTOGEN_SOURCE):
            found = sum(1 for r in requests if r.source == source)
            if found:
                places.append(f"{count(found, 'call')} in " + (
                    source if source == AUTOGEN_SOURCE else f"message parts of {source}"))
        if not places:
            return "no tool call"
        joined = ""
        if joined_id or joined_order:
            joined = "; joined " + ", ".join(
                text for text in (f"{joined_id} by call id" if joined_id else "",
                                  f"{joined_order} by tool name and order" if joined_order
                                  else "") if text)
        return "calls from " + ", ".join(places) + joined

    def _no_calls(self) -> str:
        seen = f"{count(self.spans, 'span')}" + (
            f" and {count(self.log_records, 'log record')}" if self.log_records else "")
        if self.chat_tool_finishes and not self.chats and not self.exchanges:
            return (f"no tool call read: {count(self.chat_tool_finishes, 'chat')} ended with "
                    f"finish reason {self.tool_finish}, but the export holds no message content "
                    "(content capture was off): which calls were made is unknown")
        return (f"no tool call in this export ({seen}: no execute_tool span and no tool_call "
                "message part)")


# --- sightings in messages


def _has_old_messages(attributes: Attributes) -> bool:
    raw = attributes.raw
    return any(key in raw for key in OLD_FIRST_KEYS)


def _fill(exchange: Exchange, attributes: Attributes, from_spans: bool,
          reader: GenAIReader) -> bool:
    """The exchange's messages from GenAI attributes (the structured ones, else ADK's legacy
    Gemini request and response, else the older ``gen_ai.prompt.N.*`` /
    ``gen_ai.completion.N.*``); content already known is kept. Whether any was added."""
    inputs = _messages(attributes.get("gen_ai.input.messages"))
    raw_outputs = attributes.get("gen_ai.output.messages")
    if isinstance(raw_outputs, str) and "tool_call" not in raw_outputs and \
            not exchange.has_output:
        # No call in it: only the last chat's answer is read from it, at the end.
        exchange.has_output, exchange.answer_raw = True, raw_outputs
        raw_outputs = None
        if inputs is None:
            exchange.from_spans = exchange.from_spans or from_spans
            return True
    outputs = _messages(raw_outputs)
    system = _decoded(attributes.get("gen_ai.system_instructions"))
    if inputs is None and outputs is None and ADK_RESPONSE in attributes:
        request, response = _decoded(attributes.get(ADK_REQUEST)), _decoded(
            attributes.get(ADK_RESPONSE))
        contents = request.get("contents") if isinstance(request, dict) else None
        inputs = [_gemini_message(c) for c in contents or () if isinstance(c, dict)]
        content = response.get("content") if isinstance(response, dict) else None
        outputs = [_gemini_message(content)] if isinstance(content, dict) else []
    if inputs is None and outputs is None and _has_old_messages(attributes):
        inputs = _old_messages(attributes, "gen_ai.prompt.", "user")
        outputs = _old_messages(attributes, "gen_ai.completion.", "assistant")
    if inputs is None and outputs is None and is_model_call(attributes):
        inputs, outputs = input_messages(attributes), output_messages(attributes)
    added = False
    if inputs is not None and not exchange.has_input:
        for message in inputs:
            exchange.add_input(message, reader.responses, reader.keys)
        if isinstance(system, list):
            exchange.add_input({"role": "system", "parts": system}, reader.responses,
                               reader.keys)
        added = True
    if outputs is not None and not exchange.has_output:
        for message in outputs:
            exchange.add_output(message)
        added = True
    if added:
        exchange.from_spans = exchange.from_spans or from_spans
    return added


def _decoded(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return loads(value)
        except JSON_FAILURES:
            return None
    return value


def _messages(value: Any) -> list[dict[str, Any]] | None:
    decoded = _decoded(value)
    if not isinstance(decoded, list):
        return None
    return [message for message in decoded if isinstance(message, dict)]


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = message.get("parts")
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def _any(value: Any) -> Any:
    """A log record's body (an OTLP AnyValue) as plain JSON."""
    return otlp_attributes([{"key": "body", "value": value}]).get("body") \
        if isinstance(value, dict) else value


def _old_message(role: str, body: dict[str, Any]) -> dict[str, Any]:
    """An older per-message event's body (``content``, ``tool_calls``, ``id``) as a message
    of parts, the shape of ``gen_ai.input.messages``."""
    parts: list[dict[str, Any]] = []
    content = body.get("content")
    blocks = _converse_blocks(content)
    if blocks is not None:
        return {"role": role, "parts": [_converse_part(block) for block in blocks]}
    if role == "tool":
        # The conventions' "id"; Semantic Kernel writes the Chat Completions message's
        # "tool_call_id".
        parts.append({"type": "tool_call_response",
                      "id": as_str(body.get("id")) or as_str(body.get("tool_call_id")),
                      "response": content})
    elif not absent(content):
        text = content if isinstance(content, str) else text_of(content)
        parts.append({"type": "text", "content": text if text is not None else content})
    elif role == "user":
        # Content not captured: still a user message, which starts a turn.
        parts.append({"type": "text", "content": None})
    for call in body.get("tool_calls") or ():
        if isinstance(call, dict):
            function = call.get("function")
            function = function if isinstance(function, dict) else {}
            parts.append({"type": "tool_call", "id": as_str(call.get("id")),
                          "name": function.get("name"), "arguments": function.get("arguments")})
    return {"role": role, "parts": parts}


def _converse_blocks(content: Any) -> list[dict[str, Any]] | None:
    """Bedrock Converse content blocks (Strands writes a message's content so, as JSON text):
    a list of objects without ``type``, each one block keyed by its kind."""
    blocks = _decoded(content)
    if not isinstance(blocks, list) or not blocks or not all(
            isinstance(block, dict) and len(block) == 1 and "type" not in block
            for block in blocks):
        return None
    return blocks if any(key in block for block in blocks for key in CONVERSE_KINDS) \
        else None


def _converse_part(block: dict[str, Any]) -> dict[str, Any]:
    """One Converse content block as a GenAI message part."""
    (kind, value), = block.items()
    if kind == "toolUse" and isinstance(value, dict):
        return {"type": "tool_call", "id": value.get("toolUseId"), "name": value.get("name"),
                "arguments": value.get("input")}
    if kind == "toolResult" and isinstance(value, dict):
        return {"type": "tool_call_response", "id": value.get("toolUseId"),
                "response": value.get("content")}
    if kind == "text":
        return {"type": "text", "content": value}
    return {"type": kind, "content": value}


def _tool_result(value: Any, *, quoted: bool = False) -> Any:
    """A tool's result as a span or a response part holds it: JSON text decoded, and Bedrock
    Converse content blocks (Strands' tool results) read as the bedrock_converse reader reads
    them, their text then decoded the same way.

    ``quoted`` (``gen_ai.tool.call.result``, JSON text): a JSON string (``"\\"14:05\\""``,
    the Vercel AI SDK's ``JSON.stringify`` of a string result) is that string. Other text
    stays text: a plain ``42`` some instrumentations write is not a number."""
    if quoted and isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            text = loads(value)
        except JSON_FAILURES:
            return value
        return text if isinstance(text, str) else value
    value = maybe_json(value)
    unwrapped = converse_result(value)
    return value if unwrapped is value else maybe_json(unwrapped)


def _gemini_message(content: dict[str, Any]) -> dict[str, Any]:
    """A Gemini ``Content`` (role, parts of text, function_call, function_response) as a
    message of GenAI parts."""
    parts: list[dict[str, Any]] = []
    for part in content.get("parts") or ():
        if not isinstance(part, dict):
            continue
        call, response = part.get("function_call"), part.get("function_response")
        if isinstance(call, dict):
            parts.append({"type": "tool_call", "id": call.get("id"), "name": call.get("name"),
                          "arguments": call.get("args")})
        elif isinstance(response, dict):
            parts.append({"type": "tool_call_response", "id": response.get("id"),
                          "response": response.get("response")})
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            parts.append({"type": "text", "content": part["text"]})
    role = content.get("role")
    return {"role": "assistant" if role == "model" else role, "parts": parts}


def _old_messages(attributes: Attributes, prefix: str, role: str) -> list[dict[str, Any]]:
    """``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` (role, content, tool_call_id,
    tool_calls.M.id/name/arguments) as messages of parts."""
    grouped: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if isinstance(key, str) and key.startswith(prefix):
            head, _, rest = key[len(prefix):].partition(".")
            if head.isdigit() and rest:
                grouped.setdefault(int(head), {})[rest] = value
    messages = []
    for index in sorted(grouped):
        fields = grouped[index]
        calls: dict[int, dict[str, Any]] = {}
        for key, value in fields.items():
            if key.startswith("tool_calls."):
                head, _, rest = key[len("tool_calls."):].partition(".")
                if head.isdigit():
                    calls.setdefault(int(head), {})[rest] = value
        message_role = as_str(fields.get("role")) or role
        body = {"content": fields.get("content"), "id": fields.get("tool_call_id"),
                "tool_calls": [{"id": calls[i].get("id"), "function": {
                    "name": calls[i].get("name"), "arguments": calls[i].get("arguments")}}
                    for i in sorted(calls)]}
        messages.append(_old_message("tool" if message_role == "tool" else message_role, body))
    return messages


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
    for request in requests:
        if request.span is None:
            unrun.setdefault(request.tool, deque()).append(request)
    for tool in waiting:
        if tool.call_id is not None and tool.call_id in by_id:
            continue
        queue = unrun.get(tool.name or "", deque())
        while queue and queue[0].span is not None:
            queue.popleft()
        # A span with an id takes only a request without one (else the ids would differ).
        free = [r for r in queue if r.span is None and (r.call_id is None or
                                                        tool.call_id is None)]
        # The request with the span's own arguments, else the first: parallel calls of one
        # tool need not start in the order the model asked for them.
        args = tool.call["args"] if tool.call is not None else None
        request = next((r for r in free if args is not None and r.args == args),
                       free[0] if free else None)
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


def _final_answer(exchanges: list[Exchange]) -> tuple[str | None, str | None]:
    """The text of the last chat's last output message, unless it asks for a tool."""
    last = next((e for e in reversed(exchanges) if e.has_output), None)
    return (None, None) if last is None else (last.final_text(), last.model)


def hex_id(value: Any, digits: int) -> str | None:
    """A trace or span id as lowercase hex (OTLP's, the SDK's ``0x...``, Jaeger's), padded to
    ``digits``; None when it is not one."""
    text = value.removeprefix("0x").lower() if isinstance(value, str) else ""
    if not 0 < len(text) <= digits or text.strip("0123456789abcdef") or not text.strip("0"):
        return None
    return text.zfill(digits)
