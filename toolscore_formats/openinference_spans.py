"""The OpenInference conventions (Arize Phoenix): the tool calls, final answer and run time
of spans (whichever envelope carried them: the openinference and jaeger readers)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from attrs import evolve

from toolscore import InputError, ToolCall, Trace, count
from toolscore_formats.calls import Unjoined, start_floors
from toolscore_formats.chat import read_messages
from toolscore_formats.openinference_tools import tool_arguments, tool_name, tool_outcome
from toolscore_formats.spans import OPENINFERENCE_KIND, Span, SpanTree
from toolscore_formats.times import iso_from_nanos, seconds_between
from toolscore_formats.usage import OPENINFERENCE_COUNTS, ModelCalls, innermost, span_counts
from toolscore_formats.values import as_float, as_str, maybe_json

INPUT, OUTPUT = "llm.input_messages.", "llm.output_messages."
ANSWER_KINDS = frozenset(("AGENT", "CHAIN"))
TRACEBACK = "Traceback (most recent call last)"
# LlamaIndex marks as an LLM span the method that builds a request; it calls no model.
NOT_MODEL_CALLS = ("._prepare_chat_with_tools",)
# A Python object's repr ("StopEvent(result=...)"), as LlamaIndex writes a workflow's output.
REPR = re.compile(r"[A-Za-z_][\w.]*\((?:[A-Za-z_]\w*=|\))")
# What OpenInference's masking (OPENINFERENCE_HIDE_INPUTS, _OUTPUTS, _INPUT_TEXT, ...) writes
# in place of a value it hides.
REDACTED = "__REDACTED__"


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


def _attributes(span: Span) -> tuple[dict[str, Any], bool]:
    """The span's attributes by dotted key, without the values OpenInference's masking
    replaced (``__REDACTED__``: absent, not values), and whether it replaced any."""
    flat: dict[str, Any] = {}
    for key, value in span.attributes.items():
        _flatten(str(key), value, flat)
    for key, value in span.raw.items():  # a Phoenix dataframe's columns
        if isinstance(key, str) and key.startswith("attributes."):
            _flatten(key[len("attributes."):], value, flat)
    kept = {key: value for key, value in flat.items() if value != REDACTED}
    return kept, len(kept) < len(flat)


class OISpan:
    """One span as this reader needs it: kind, attributes by dotted key, times, outcome."""

    __slots__ = ("attributes", "end", "error", "failed", "kind", "name", "order", "parent",
                 "redacted", "span_id", "start", "trace")

    def __init__(self, span: Span) -> None:
        self.order = span.order
        self.attributes, self.redacted = _attributes(span)
        kind = self.attributes.get(OPENINFERENCE_KIND, span.raw.get("span_kind"))
        self.kind = kind.upper() if isinstance(kind, str) else None
        self.name = span.name
        self.span_id = span.span_id
        self.parent = span.parent
        self.start, self.end = _time(span, "start"), _time(span, "end")
        self.failed = span.failed
        self.error = _error(span) if span.failed else None
        self.trace = span.trace_id

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


def _time(span: Span, edge: str) -> int | None:
    value = span.start if edge == "start" else span.end
    if value is None:  # pandas' to_json writes datetimes as epoch milliseconds
        millis = span.raw.get(f"{edge}_time")
        value = millis * 1_000_000 if isinstance(millis, int) and not isinstance(
            millis, bool) else None
    return value


def _error(span: Span) -> str | None:
    """A failed span's error: its status message, else its exception event's message.

    A status message holding a traceback (the LangChain instrumentation writes the
    exception's repr and traceback there: host paths, not the error) gives way to the
    exception event's type and message, as the other instrumentations' status reads."""
    text = span.error_text
    exception = _exception(span)
    if exception is None or (text is not None and TRACEBACK not in text):
        return text
    kind, message = exception
    if text is not None and kind and message:
        return f"{kind}: {message}"
    return message or text


def _exception(span: Span) -> tuple[str | None, str | None] | None:
    """The type and message of the span's ``exception`` event, if it has one."""
    for name, event_attributes in span.events:
        if name == "exception":
            attributes: dict[str, Any] = {}
            _flatten("", dict(event_attributes.items()), attributes)
            return (as_str(attributes.get("exception.type")),
                    as_str(attributes.get("exception.message")))
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


def _tool_call(span: OISpan) -> tuple[ToolCall, bool]:
    """The TOOL span's call, and whether it was given positional arguments (not named)."""
    attributes = span.attributes
    args, raw_args, positional = tool_arguments(attributes)
    answered, fields = tool_outcome(attributes, failed=span.failed, error=span.error,
                                    ended=span.end is not None)
    return ToolCall(
        tool=tool_name(attributes, span.name), args=args, raw_args=raw_args,
        id=as_str(attributes.get("tool_call.id") or attributes.get("tool.id")) or answered,
        duration=seconds_between(span.start, span.end),
        timestamp=iso_from_nanos(span.start) if span.start is not None else None,
        **fields), positional


def _conversation_calls(messages: list[dict[str, Any]]) -> tuple[ToolCall, ...]:
    try:
        return read_messages(messages).calls
    except InputError:
        return ()


def _key(call: ToolCall, seen: dict[Any, int]) -> Any:
    if call.id is not None:
        return call.id
    # An id-less call is the n-th of its name and arguments in every later span's history.
    shape = (call.tool, json.dumps(call.args, sort_keys=True, default=str), call.raw_args)
    seen[shape] = seen.get(shape, 0) + 1
    return (*shape, seen[shape])


def _from_messages(llms: list[OISpan]) -> tuple[list[ToolCall], list[str]]:
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


def _asked(ran: ToolCall, asked: ToolCall, answer: ToolCall | None) -> ToolCall:
    """A TOOL span's call completed by the LLM's request it ran: an id-less span takes the
    request's id; a span whose input is not an object (the LangChain instrumentation writes
    a one-argument tool's input as the bare value), is positional (smolagents) or redacted
    takes the requested arguments; and a span without output (a tool that raised) takes the
    tool message a later LLM span's input has for the call (what the model was sent, as
    CrewAI's ``Error executing tool: ...``)."""
    if ran.id is None and asked.id is not None:
        ran = evolve(ran, id=asked.id)
    if ran.args is None and asked.args is not None:
        ran = evolve(ran, args=asked.args, raw_args=asked.raw_args)
    if ran.result is None and answer is not None and answer.result is not None:
        ran = evolve(ran, result=answer.result)
    return ran


def _from_tool_spans(tools: list[OISpan], llms: list[OISpan]) -> tuple[list[ToolCall], list[str]]:
    """TOOL spans are the calls; a call an LLM asked for that no TOOL span ran is added."""
    rows: list[tuple[tuple[int, int, int], ToolCall]] = []
    positional: set[int] = set()  # rows whose span gave positional arguments (not named)
    for span in tools:
        call, unnamed = _tool_call(span)
        if unnamed:
            positional.add(len(rows))
        rows.append(((span.start if span.start is not None else -1, span.order, 0), call))
    by_id = {call.id: index for index, (_, call) in enumerate(rows) if call.id is not None}
    taken: set[int] = set()
    # The id-less TOOL spans a request may go to (as rows: an unrun request without an id
    # is one too), and for each LLM span the earliest start of it and the spans after it.
    free = Unjoined(taken)
    for index, (key, call) in enumerate(rows):
        if call.id is None:
            free.add(index, (call.tool,), call.args, key[0])
    floors = start_floors([span.start if span.start is not None else -math.inf
                           for span in llms])
    notes: list[str] = []
    asked: set[str] = set()
    history: dict[str, ToolCall] = {}
    for span in llms:
        for call in _conversation_calls(span.messages(INPUT)):
            known = history.get(call.id) if call.id is not None else None
            if call.id is not None and (known is None or known.is_error is None):
                history[call.id] = call
    grouped: dict[int, list[int]] = {}  # by LLM span: the TOOL span rows it asked for
    for span, floor in zip(llms, floors, strict=True):
        # An unrun call sits after the calls asked before it in the same message.
        place = (span.end if span.end is not None else -1, span.order, 0)
        after = span.start if span.start is not None else -math.inf
        unrun: list[int] = []  # its id-less requests no TOOL span ran (rows added)
        for call in _conversation_calls(span.messages(OUTPUT)):
            match = by_id.get(call.id) if call.id is not None else None
            if call.id is not None:
                asked.add(call.id)
            if match is None:
                # an id-less TOOL span of the tool that started after the LLM span: the one
                # with the call's arguments, else the first (parallel calls of one tool need
                # not start in the order the model asked for them)
                match = free.first(call.tool, call.args, after, floor)
            answer = history.get(call.id) if call.id is not None else None
            if match is not None:
                rows[match] = (rows[match][0], _asked(rows[match][1], call, answer))
                if rows[match][1].args is not None:
                    positional.discard(match)
                if call.id is not None:  # another LLM span asking for it is the same call
                    by_id[call.id] = match
                if match not in taken:
                    grouped.setdefault(span.order, []).append(match)
                taken.add(match)
                place = rows[match][0]
                continue
            place = (place[0], place[1], place[2] + 1)
            rows.append((place, answer or call))
            if call.id is not None:
                by_id[call.id] = len(rows) - 1
            else:
                unrun.append(len(rows) - 1)
            notes.append(f"the LLM asked for {call.tool}"
                         f"{f' ({call.id})' if call.id else ''}, but no TOOL span ran it")
        # Another LLM span's request may be one of these (a second instrumentation of the
        # same model call), never another request of this response: each is a call.
        for index in unrun:
            free.add(index, (rows[index][1].tool,), rows[index][1].args, rows[index][0][0])
    if positional:
        notes.append(f"{count(len(positional), 'smolagents TOOL span')} with positional "
                     'arguments (input.value {"args": [...]}: their names are not in the span) '
                     "and no LLM request that names them: arguments unknown")
    earlier = sorted(key for key in history if key not in asked and key not in by_id)
    if earlier:
        notes.append(f"{count(len(earlier), 'call')} in the LLM spans' input history "
                     f"({', '.join(earlier)}) ran before this trace (no TOOL span): not counted")
    # The calls one response asked for are in the order it asked for them, from the first
    # one's start: a framework runs them concurrently, and which TOOL span starts first is
    # the scheduler's doing, not the agent's (nor the same each run).
    for order, members in grouped.items():
        start = min(rows[i][0][0] for i in members)
        for index, i in enumerate(members):
            rows[i] = ((start, order, index), rows[i][1])
    rows.sort(key=lambda row: row[0])
    return [row[1] for row in rows], notes


def _run_span(spans: list[OISpan]) -> OISpan | None:
    """The run's span: the one root AGENT or CHAIN span (the roots an unlinked provider
    instrumentation adds, its LLM spans, are not the run)."""
    roots = [span for span in SpanTree(spans).roots() if span.kind in ANSWER_KINDS]
    return roots[0] if len(roots) == 1 else None


def _run_output(run: OISpan) -> str | None:
    """The answer the run's span gives: its text output, or the ``answer`` of a JSON object
    (a DSPy program's output fields); a JSON document or an object's repr (LlamaIndex
    writes a workflow's StopEvent so) is no answer."""
    output = run.text("output.value")
    if output is None:
        return None
    if run.text("output.mime_type") == "application/json":
        fields = maybe_json(output)
        answer = fields.get("answer") if isinstance(fields, dict) else None
        return answer if isinstance(answer, str) and answer else None
    return None if REPR.match(output) else output


def _final_answer(run: OISpan | None, llms: list[OISpan]) -> str | None:
    if run is not None:
        answer = _run_output(run)
        if answer is not None:
            return answer
    if llms:
        last = max(llms, key=lambda s: (s.end if s.end is not None else -1, s.order))
        messages = last.messages(OUTPUT)
        if messages and not messages[-1].get("tool_calls"):
            content = messages[-1].get("content")
            return content if isinstance(content, str) and content else None
    return None


def _run_cost(llms: list[OISpan]) -> float | None:
    """What the LLM spans were priced at (``llm.cost.total``: LiteLLM's instrumentation
    writes it), when each was; an LLM span around another is the same request, priced once."""
    costs = [as_float(span.attributes.get("llm.cost.total")) for span in innermost(
        llms, lambda span: (span.span_id, span.parent))]
    if not costs or any(cost is None for cost in costs):
        return None
    return sum(cost for cost in costs if cost is not None)


def _same_request(llms: list[OISpan]) -> dict[str, str]:
    """LLM spans that repeat another's model call, by span id, each with the id of the span
    around it: a provider SDK's instrumentation whose spans the framework's do not parent
    (LangChain's and OpenAI's: separate traces) writes the same answer inside the
    framework's LLM span's time."""
    by_answer: dict[Any, list[tuple[int, int, OISpan]]] = {}
    for span in llms:
        answer = _answer_key(span)
        if answer is not None and span.start is not None and span.end is not None:
            by_answer.setdefault(answer, []).append((span.start, span.end, span))
    outer: dict[str, str] = {}
    for group in by_answer.values():
        if len({span.trace for _, _, span in group}) < 2:
            continue  # a repeat is another trace's: one trace's spans repeat none
        for start, end, inner in group:
            around = next((span for (s, e, span) in group if span is not inner and
                           span.span_id is not None and span.trace != inner.trace and
                           s <= start and end <= e), None)
            if around is not None and inner.span_id is not None:
                outer[inner.span_id] = str(around.span_id)
    return outer


def _answer_key(span: OISpan) -> Any:
    """What an LLM span's answer says, to know two spans of one request: the text and the
    calls asked for (ids and names; instrumentations format the arguments differently)."""
    messages = span.messages(OUTPUT)
    if not messages:
        return None
    return tuple((m.get("role"), m.get("content") or None,
                  tuple((c.get("id"), c["function"].get("name"))
                        for c in m.get("tool_calls") or ())) for m in messages)


def read_spans(found: Iterable[Span]) -> Trace:
    """The trace of OpenInference spans, whichever envelope carried them."""
    spans = [OISpan(span) for span in found]
    spans.sort(key=lambda s: (s.start if s.start is not None else -1, s.order))
    tools = [span for span in spans if span.kind == "TOOL"]
    llms = [span for span in spans if span.kind == "LLM" and not (
        span.name or "").endswith(NOT_MODEL_CALLS)]
    calls, notes = _from_tool_spans(tools, llms) if tools else _from_messages(llms)
    if not calls:
        notes.append(f"no tool call in {count(len(spans), 'span')}: no TOOL span, and no tool "
                     "call in the LLM spans' messages")
    redacted = sum(span.redacted for span in spans)
    if redacted:
        notes.append(f"{count(redacted, 'span')} with values redacted ({REDACTED}: "
                     "OpenInference's OPENINFERENCE_HIDE_* settings): read as unknown")
    model = None
    if llms:
        last = max(llms, key=lambda s: (s.end if s.end is not None else -1, s.order))
        model = last.text("llm.model_name")
    run = _run_span(spans)
    run_duration = seconds_between(run.start, run.end) if run is not None else None
    # The run's tokens are its LLM spans': an AGENT or CHAIN span's counts, where a framework
    # writes them, are their total.
    usage = ModelCalls("token counts (llm.token_count.prompt / completion)", "LLM spans")
    repeats = _same_request(llms)
    for span in llms:
        counts = span_counts(span.attributes, OPENINFERENCE_COUNTS)
        usage.add(span.span_id, repeats.get(span.span_id or "", span.parent), counts)
    return Trace(calls=tuple(calls), final_answer=_final_answer(run, llms), model=model,
                 usage=usage.result(notes), run_cost=_run_cost(llms), run_duration=run_duration,
                 notes=tuple(notes))


