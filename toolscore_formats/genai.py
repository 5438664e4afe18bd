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

import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from toolscore import ToolCall, Trace, count
from toolscore_formats import autogen_spans
from toolscore_formats.genai_join import (
    _KINDS,
    AUTOGEN_SOURCE,
    CHOICE_EVENT,
    Request,
    ToolSpan,
    _distinct_spans,
    _history_spans,
    _join,
    _kind_of,
    _merge,
    _request_call,
    _requests,
    _turn_at,
    _turn_intervals,
)
from toolscore_formats.genai_messages import (
    Exchange,
    _converse_blocks,
    _decoded,
    _gemini_message,
    _has_old_messages,
    _messages,
    _old_message,
    _old_messages,
    _tool_result,
)
from toolscore_formats.spans import Attributes, Span, otlp_attributes
from toolscore_formats.times import parse_time, seconds_between
from toolscore_formats.traceloop_spans import (
    AGENT_KINDS,
    ENTITY_INPUT,
    ENTITY_NAME,
    TOOL,
    entity_call,
)
from toolscore_formats.traceloop_spans import kind as traceloop_kind
from toolscore_formats.usage import GENAI_COUNTS, ModelCalls, span_counts
from toolscore_formats.values import as_str
from toolscore_formats.vercel_spans import input_messages, is_model_call, is_run, output_messages

if TYPE_CHECKING:
    from toolscore import SpanRef

MERGED_TOOLS = "(merged tools)"
MESSAGE_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")
ADK_REQUEST, ADK_RESPONSE = "gcp.vertex.agent.llm_request", "gcp.vertex.agent.llm_response"
TOOL_FINISHES = ("tool_calls", "tool_call")
CHAT_OPERATIONS = frozenset(("chat", "generate_content", "text_completion"))
INFERENCE_EVENT = "gen_ai.client.inference.operation.details"
INPUT_EVENTS = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}
EVENT_NAMES = frozenset((INFERENCE_EVENT, CHOICE_EVENT, *INPUT_EVENTS))
# Pydantic AI's instrumentation version 1 (and its releases before versions) writes a chat's
# messages as the per-message GenAI events, in one span attribute: a JSON list of objects,
# each an event's body with its "event.name".
EVENTS_ATTRIBUTE = "events"


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
        # Whether the first tool, agent or workflow span at or above an OpenLLMetry span is a
        # tool: each span's answer is worked out once, the answer of the spans it was found
        # through too (a chain of spans that are each other's parents, as a malformed export
        # may link them, holds none).
        known: dict[str, bool] = {}
        for tool in spans:
            current = tool.parent if tool.traceloop else None
            path: list[str] = []
            on_path: set[str] = set()
            inside = False
            while current is not None and current in parents:
                if current in known:
                    inside = known[current]
                    break
                if current in on_path:
                    break
                parent, kind = parents[current]
                if kind == TOOL or kind in AGENT_KINDS:
                    inside = known[current] = kind == TOOL
                    break
                on_path.add(current)
                path.append(current)
                current = parent
            known.update(dict.fromkeys(path, inside))
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


def _any(value: Any) -> Any:
    """A log record's body (an OTLP AnyValue) as plain JSON."""
    return otlp_attributes([{"key": "body", "value": value}]).get("body") \
        if isinstance(value, dict) else value


# --- spans as calls


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
