"""The OpenInference conventions (Arize Phoenix): the tool calls, final answer and run time
of spans (whichever envelope carried them: the openinference and jaeger readers)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from attrs import evolve

from toolscore import InputError, ToolCall, Trace, count
from toolscore_formats.chat import read_messages
from toolscore_formats.spans import OPENINFERENCE_KIND, Span, SpanTree
from toolscore_formats.times import iso_from_nanos, seconds_between
from toolscore_formats.usage import OPENINFERENCE_COUNTS, ModelCalls, innermost, span_counts
from toolscore_formats.values import as_float, as_str, decode_args, maybe_json

INPUT, OUTPUT = "llm.input_messages.", "llm.output_messages."
ANSWER_KINDS = frozenset(("AGENT", "CHAIN"))
SMOLAGENTS_CALL = frozenset(("args", "kwargs", "sanitize_inputs_outputs"))
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
                 "redacted", "span_id", "start")

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
        self.error = span.error_text or _exception(span) if span.failed else None

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


def _exception(span: Span) -> str | None:
    for name, event_attributes in span.events:
        if name == "exception":
            attributes: dict[str, Any] = {}
            _flatten("", dict(event_attributes.items()), attributes)
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
    """A tool's JSON schema; or smolagents' ``inputs`` (each parameter's ``{"type",
    "description"}`` by name), which its instrumentation writes as ``tool.parameters``."""
    if not isinstance(value, dict):
        return False
    return value.get("type") == "object" or isinstance(value.get("properties"), dict) or (
        bool(value) and all(isinstance(v, dict) and isinstance(v.get("type"), str) and
                            "description" in v for v in value.values()))


def _bound_call(value: Any, parameters: Any) -> tuple[bool, dict[str, Any] | None]:
    """smolagents' TOOL spans: ``input.value`` is its ``Tool.__call__(*args,
    sanitize_inputs_outputs, **kwargs)`` bound to that signature, ``{"args", "kwargs",
    "sanitize_inputs_outputs"}``. (True, the keyword arguments) for that shape, (True, None)
    when it gives positional ones (they name no parameter), (False, None) for any other."""
    if not (isinstance(value, dict) and set(value) == SMOLAGENTS_CALL and
            isinstance(value["args"], list) and isinstance(value["kwargs"], dict)):
        return False, None
    given, named = value["args"], value["kwargs"]
    if not given:
        return True, named
    # smolagents' own rule: one dict whose keys are all the tool's inputs is its keywords.
    if len(given) == 1 and not named and isinstance(given[0], dict) and \
            isinstance(parameters, dict) and all(key in parameters for key in given[0]):
        return True, given[0]
    return True, None


def _tool_call(span: OISpan) -> tuple[ToolCall, bool]:
    """The TOOL span's call, and whether it was given positional arguments (not named)."""
    attributes = span.attributes
    # input.value is what the tool was given; tool.parameters is, by the spec, the tool's
    # JSON schema, but some instrumentations write the arguments there.
    raw = attributes.get("input.value")
    parameters = maybe_json(attributes.get("tool.parameters"))
    bound, named = _bound_call(maybe_json(raw), parameters)
    if bound:
        args, raw_args = named, None
    else:
        if raw is None:
            raw = None if _is_schema(parameters) else parameters
        args, raw_args = decode_args(raw)
    has_output = "output.value" in attributes
    result = maybe_json(attributes["output.value"]) if has_output else None
    is_error: bool | None = True if span.failed else (
        False if span.end is not None or has_output else None)
    duration = seconds_between(span.start, span.end)
    return ToolCall(
        tool=span.text("tool.name") or span.name or "", args=args, raw_args=raw_args,
        id=as_str(attributes.get("tool_call.id") or attributes.get("tool.id")), result=result,
        is_error=is_error, error=span.error, duration=duration,
        timestamp=iso_from_nanos(span.start) if span.start is not None else None,
    ), bound and named is None


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


def _completed(span_call: ToolCall, asked: ToolCall, answer: ToolCall | None,
               positional: bool) -> ToolCall:
    """A TOOL span's call with what the LLM spans add: the arguments the request named when
    the span gave positional ones, and, when the span holds no output (a tool that raised),
    the tool message a later LLM span's input has for its id (what the model was sent)."""
    if positional:
        span_call = evolve(span_call, args=asked.args, raw_args=asked.raw_args)
    if span_call.result is None and answer is not None and answer.result is not None:
        span_call = evolve(span_call, result=answer.result)
    return span_call


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
            answer = history.get(call.id) if call.id is not None else None
            if match is not None:
                taken.add(match)
                place = rows[match][0]
                rows[match] = (place, _completed(rows[match][1], call, answer,
                                                 match in positional))
                positional.discard(match)
                continue
            place = (place[0], place[1], place[2] + 1)
            rows.append((place, answer or call))
            notes.append(f"the LLM asked for {call.tool}"
                         f"{f' ({call.id})' if call.id else ''}, but no TOOL span ran it")
    if positional:
        notes.append(f"{count(len(positional), 'smolagents TOOL span')} with positional "
                     'arguments (input.value {"args": [...]}: their names are not in the span) '
                     "and no LLM request that names them: arguments unknown")
    earlier = sorted(key for key in history if key not in asked and key not in by_id)
    if earlier:
        notes.append(f"{count(len(earlier), 'call')} in the LLM spans' input history "
                     f"({', '.join(earlier)}) ran before this trace (no TOOL span): not counted")
    rows.sort(key=lambda row: row[0])
    return [row[1] for row in rows], notes


def _final_answer(spans: list[OISpan], llms: list[OISpan]) -> str | None:
    roots = SpanTree(spans).roots()
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


def _run_span(spans: list[OISpan]) -> OISpan | None:
    """The span of the whole run: the single root AGENT span; without a root AGENT span, the
    single root span when it is a CHAIN (CrewAI's crew kickoff holds its agents' spans)."""
    roots = [span for span in spans if span.parent is None]
    agents = [span for span in roots if span.kind == "AGENT"]
    if agents:
        return agents[0] if len(agents) == 1 else None
    return roots[0] if len(roots) == 1 and roots[0].kind == "CHAIN" else None


def _run_cost(llms: list[OISpan]) -> float | None:
    """What the LLM spans were priced at (``llm.cost.total``: LiteLLM's instrumentation
    writes it), when each was; an LLM span around another is the same request, priced once."""
    costs = [as_float(span.attributes.get("llm.cost.total")) for span in innermost(
        llms, lambda span: (span.span_id, span.parent))]
    if not costs or any(cost is None for cost in costs):
        return None
    return sum(cost for cost in costs if cost is not None)


def read_spans(found: Iterable[Span]) -> Trace:
    """The trace of OpenInference spans, whichever envelope carried them."""
    spans = [OISpan(span) for span in found]
    spans.sort(key=lambda s: (s.start if s.start is not None else -1, s.order))
    tools = [span for span in spans if span.kind == "TOOL"]
    llms = [span for span in spans if span.kind == "LLM"]
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
    for span in llms:
        counts = span_counts(span.attributes, OPENINFERENCE_COUNTS)
        usage.add(span.span_id, span.parent, counts)
    return Trace(calls=tuple(calls), final_answer=_final_answer(spans, llms), model=model,
                 usage=usage.result(notes), run_cost=_run_cost(llms), run_duration=run_duration,
                 notes=tuple(notes))


