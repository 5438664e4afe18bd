"""OpenAI Agents SDK traces: the SDK's own tracing (not OpenTelemetry), each trace and span as
its ``export()`` writes it, in JSON lines (a ``TracingProcessor``'s) or as the
``BackendSpanExporter``'s ``{"data": [...]}`` payload. Function spans are the calls;
generation and response spans give the model, the usage and the final answer."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from toolscore import InputError, Trace
from toolscore import count as plural
from toolscore_formats.calls import CallRow, CallTable, RowsByStart, outcome
from toolscore_formats.langfuse_messages import Request, answer_text, requests_in, results_in
from toolscore_formats.spans import SpanTree
from toolscore_formats.times import parse_time, seconds_between
from toolscore_formats.usage import RunUsage, UsageKeys, span_counts
from toolscore_formats.values import as_str, dict_of, name_of

SPAN, TRACE = "trace.span", "trace"
ITEM_FIX = ('write each span as its export(): {"object": "trace.span", "id", "trace_id", '
            '"span_data": {"type", ...}, ...}, and the trace as {"object": "trace", "id", ...}')
# Only the counts the model's response gave. The SDK writes a cache and a reasoning count of
# 0 where the provider gave none, so those details are not read: absent is not 0.
# (The exporter for OpenAI's endpoint moves every count but input and output to "details".)
COUNTS = UsageKeys((
    (("input_tokens",), ("input_tokens",)),
    (("output_tokens",), ("output_tokens",)),
    (("total_tokens",), ("total_tokens", "details.total_tokens")),
))


class Layout(NamedTuple):
    """Where the exported items are, and what the document is."""

    items: list[Any]
    place: str
    what: str


def _layout(document: Any) -> Layout | None:
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        return Layout(document["data"], "$.data", "an OpenAI Agents SDK traces export "
                      '({"data": [...]}, as its BackendSpanExporter posts it)')
    if isinstance(document, list):
        return Layout(document, "$", "OpenAI Agents SDK trace spans (each span's and the "
                      'trace\'s export(): "object": "trace.span" with span_data)')
    return None


def _is_span(item: Any) -> bool:
    return isinstance(item, dict) and item.get("object") == SPAN and \
        isinstance(item.get("span_data"), dict) and isinstance(item["span_data"].get("type"), str)


def _is_item(item: Any) -> bool:
    return _is_span(item) or (isinstance(item, dict) and item.get("object") == TRACE and
                              isinstance(item.get("id"), str))


def _spans_look(found: Layout) -> bool:
    """At least half the items say they are Agents SDK spans (``"object": "trace.span"``)."""
    said = sum(1 for item in found.items if isinstance(item, dict) and
               item.get("object") == SPAN)
    return said > 0 and 2 * said >= len(found.items)


def meant(document: Any) -> bool:
    """Whether the document is meant as Agents SDK spans (most items say so), so that a
    bad item is named rather than the document taken for run items."""
    found = _layout(document)
    return found is not None and _spans_look(found)


def detect(document: Any) -> str | None:
    found = _layout(document)
    if found is None or not any(_is_span(item) for item in found.items) or \
            not all(_is_item(item) for item in found.items):
        return None
    return found.what


def near(document: Any) -> str | None:
    """What a document that is mostly Agents SDK spans misses."""
    found = _layout(document)
    if found is None or not _spans_look(found):
        return None
    for index, item in enumerate(found.items):
        if not _is_item(item):
            return (f"{found.what}, but {found.place}[{index}] is not a span's or trace's "
                    'export() ("object": "trace.span" with "span_data" and its "type")')
    return None


class SdkSpan:
    """One exported span, read once."""

    __slots__ = ("data", "end", "error", "kind", "order", "parent", "raw", "span_id", "start")

    def __init__(self, raw: dict[str, Any], order: int) -> None:
        self.raw, self.order = raw, order
        self.data: dict[str, Any] = raw["span_data"]
        self.kind: str = self.data["type"]
        self.span_id = as_str(raw.get("id"))
        self.parent = as_str(raw.get("parent_id"))
        self.start = parse_time(raw.get("started_at"))
        self.end = parse_time(raw.get("ended_at"))
        error = raw.get("error")
        self.error: dict[str, Any] | None = error if isinstance(error, dict) else None

    def sort_key(self) -> tuple[bool, int, int]:
        return self.start is None, self.start or 0, self.order


def _error_text(error: dict[str, Any]) -> str | None:
    """The span's error: its message, with the tool's error from ``data`` after it."""
    message = as_str(error.get("message"))
    detail = dict_of(error, "data").get("error")
    if isinstance(detail, str) and detail:
        return f"{message}: {detail}" if message else detail
    return message


def _add_call(span: SdkSpan, table: CallTable) -> CallRow:
    """A function span's call: its arguments as the text the model sent, its output (the
    text the SDK gave the model) as the result, its error as a failure."""
    data = span.data
    row = table.add(data["name"], data.get("input"), timestamp=as_str(span.raw.get("started_at")))
    output = data.get("output")
    if span.error is not None:
        row.settle(**outcome(output, failed=True, error=_error_text(span.error)))
    elif output is not None:
        row.settle(**outcome(output, failed=None))
    # No output and no error: not recorded (sensitive data off, or a tool that returned
    # None, which the export writes the same way): the outcome is unknown.
    row.duration = seconds_between(span.start, span.end)
    return row


def _usage(calls: list[SdkSpan], notes: list[str]) -> dict[str, Any] | None:
    usage = RunUsage("token usage (usage input_tokens / output_tokens)",
                     "model calls (generation and response spans)", common_only=True)
    for call in calls:
        counts = dict_of(call.data, "usage")
        flat = {**counts, **{f"details.{key}": value
                             for key, value in dict_of(counts, "details").items()}}
        found = span_counts(flat, COUNTS)
        if found is not None and not found[("input_tokens",)] and \
                not found[("output_tokens",)]:
            # What the SDK writes when the provider reported no usage (no model call reads
            # no input): unknown, not 0.
            found = None
        usage.add_flat(found)
    return usage.result(notes)


def _outside_functions(generations: list[SdkSpan], tree: SpanTree[SdkSpan]) -> list[SdkSpan]:
    """The generations not run inside a tool (an agent used as a tool runs there): no
    function span above them. What is above each span is worked out once, for all the
    generations below it (spans that are each other's parents, in a cycle, end the walk)."""
    known: dict[str | None, bool] = {}  # by span id: a function span at or above it
    outside = []
    for generation in generations:
        path: list[str | None] = []
        on_path: set[str | None] = set()
        inside = False
        parent = tree.parent(generation)
        while parent is not None and parent.span_id not in on_path:
            if parent.span_id in known:
                inside = known[parent.span_id]
                break
            if parent.kind == "function":
                inside = known[parent.span_id] = True
                break
            on_path.add(parent.span_id)
            path.append(parent.span_id)
            parent = tree.parent(parent)
        known.update(dict.fromkeys(path, inside))
        if not inside:
            outside.append(generation)
    return outside


def _handoff_requests(spans: list[SdkSpan], generations: list[SdkSpan]
                      ) -> dict[str | None, list[Request]]:
    """By turn (the spans' parent), the requests of a turn with a handoff that no function
    span of the turn ran: the tool calls the model made to hand off, in order."""
    handoff_turns = {span.parent for span in spans if span.kind == "handoff"}
    ran = {(span.parent, span.data.get("name")) for span in spans if span.kind == "function"}
    found: dict[str | None, list[Request]] = {}
    for generation in generations:
        if generation.parent in handoff_turns:
            found.setdefault(generation.parent, []).extend(
                request for request in requests_in(generation.data.get("output"))
                if (generation.parent, request.tool) not in ran)
    return found


def _add_handoff(span: SdkSpan, request: Request | None, table: CallTable,
                 notes: list[str]) -> CallRow:
    """A handoff span's call: the transfer tool the model called (as the run items list
    it), named as its request names it, else as the SDK names a handoff by default."""
    target = name_of(span.data, "to_agent") or "?"
    if request is not None:
        row = table.add(request.tool, request.arguments, call_id=request.id,
                        timestamp=as_str(span.raw.get("started_at")))
    else:
        tool = "transfer_to_" + re.sub(r"\W+", "_", target).strip("_").lower()
        notes.append(f"handoff {name_of(span.data, 'from_agent') or '?'} -> {target}: the "
                     f"model's request is not in the trace, read as {tool} (the SDK's default "
                     "name of a handoff tool), its arguments unknown")
        row = table.add(tool, None, timestamp=as_str(span.raw.get("started_at")))
    if span.error is not None:
        row.settle(**outcome(None, failed=True, error=_error_text(span.error)))
    elif span.end is not None:
        row.settle(**outcome(None, failed=None))  # handed over: completed, no result
    row.duration = seconds_between(span.start, span.end)
    return row


def _join_ids(rows: list[tuple[SdkSpan, CallRow]], generations: list[SdkSpan],
              handed: dict[str | None, list[Request]], notes: list[str]) -> None:
    """Give each call the id of the tool call its model asked for: the generation's output
    holds the requests (when the trace records it), and the SDK ran them as function spans
    beside the generation, under the same turn (a handoff's request is its call already)."""
    open_calls: dict[tuple[str | None, str], RowsByStart] = {}
    for index, (span, _) in enumerate(rows):  # by start time: each turn's calls of one tool
        open_calls.setdefault((span.parent, span.data["name"]), RowsByStart()).add(
            index, span.start)
    taken: set[int] = set()
    unrun: list[str] = []
    for generation in generations:
        handoff_tools = {request.tool for request in handed.get(generation.parent, ())}
        for request in requests_in(generation.data.get("output")):
            waiting = open_calls.get((generation.parent, request.tool))
            match = waiting.first(generation.start, taken) if waiting is not None else None
            if match is not None:
                taken.add(match)
                rows[match][1].id = request.id
            elif request.tool not in handoff_tools:
                unrun.append(request.tool)
    if unrun:
        notes.append(f"{plural(len(unrun), 'tool call')} the model asked for ran as no "
                     f"function span, not read as calls: {', '.join(unrun)}")


def _given_results(rows: list[tuple[SdkSpan, CallRow]], generations: list[SdkSpan]) -> None:
    """A call's result is what the model was given for it, when a later generation's input
    holds it (by the call's id): the span's output is ``str()`` of what the tool returned,
    so an MCP tool's content reads there as a Python repr (``{'type': 'text', ...}``)."""
    given: dict[str, Any] = {}
    for generation in generations:
        given.update(results_in(generation.data.get("input")))
    for span, row in rows:
        if row.id is not None and row.id in given and span.error is None:
            row.settle(**outcome(given[row.id], failed=None))


def _mcp_outcomes(rows: list[tuple[SdkSpan, CallRow]], notes: list[str]) -> None:
    """An MCP tool's call without a span error has an unknown outcome: the SDK writes no
    error on the span when the server answers ``isError``, only the error's text as the
    output."""
    unflagged = 0
    for span, row in rows:
        if isinstance(span.data.get("mcp_data"), dict) and span.error is None and row.answered:
            row.is_error = None
            unflagged += 1
    if unflagged:
        notes.append(f"{plural(unflagged, 'MCP tool call')}: outcome unknown, the SDK's "
                     "trace does not flag an MCP server's tool error (isError); the result "
                     "is what the server answered")


def _run_notes(spans: list[SdkSpan], notes: list[str]) -> bool:
    """Notes on guardrails that tripped and spans other than tools that ended in an error;
    True when the run itself (an agent or the whole task) failed."""
    failed = False
    for span in spans:
        name = name_of(span.data, "name")
        if span.kind == "guardrail" and span.data.get("triggered") is True:
            notes.append(f"guardrail {name or '?'} tripped")
        if span.error is not None and span.kind != "function":
            label = f"{span.kind} span {name}" if name else f"{span.kind} span"
            notes.append(f"{label} ended in an error: {_error_text(span.error)}")
            failed = failed or span.kind == "agent" or span.parent is None
    return failed


def parse_traces(document: Any) -> Trace:
    """The calls of one Agents SDK trace: its function spans, by start time."""
    found = _layout(document)
    if found is None:
        raise InputError("not an Agents SDK trace export", place="$", fix=ITEM_FIX)
    for index, item in enumerate(found.items):
        if not _is_item(item):
            raise InputError("not an Agents SDK span or trace", place=f"{found.place}[{index}]",
                             fix=ITEM_FIX)
    spans = sorted((SdkSpan(item, index) for index, item in enumerate(found.items)
                    if item.get("object") == SPAN), key=SdkSpan.sort_key)
    traces = {as_str(span.raw.get("trace_id")) for span in spans} | {
        item["id"] for item in found.items if item.get("object") == TRACE}
    traces.discard(None)
    if len(traces) > 1:
        raise InputError(f"the spans belong to {len(traces)} traces; toolscore reads one agent "
                         "run at a time", place=found.place,
                         fix="keep one trace per file (the lines of one trace_id)")
    tree = SpanTree(spans)
    table = CallTable()
    notes: list[str] = []
    rows: list[tuple[SdkSpan, CallRow]] = []
    handoffs: list[tuple[SdkSpan, CallRow]] = []
    unnamed = 0
    model_calls = [span for span in spans if span.kind in ("generation", "response")]
    every_generation = [span for span in model_calls if span.kind == "generation"]
    handed = _handoff_requests(spans, every_generation)
    waiting = {turn: list(requests) for turn, requests in handed.items()}
    for span in spans:  # by start time: the calls in the order they ran
        if span.kind == "handoff":
            queue = waiting.get(span.parent)
            request = queue.pop(0) if queue else None
            handoffs.append((span, _add_handoff(span, request, table, notes)))
            continue
        if span.kind != "function":
            continue
        if not isinstance(span.data.get("name"), str):
            unnamed += 1
            continue
        rows.append((span, _add_call(span, table)))
    if unnamed:
        notes.append(f"{plural(unnamed, 'function span')} without a name: not read as calls")
    unrecorded = sum(1 for span, _ in rows if span.data.get("input") is None and
                     span.data.get("output") is None)
    if unrecorded:
        notes.append(f"{plural(unrecorded, 'function span')} without input or output (traced "
                     "with trace_include_sensitive_data off): arguments and results unknown")
    generations = _outside_functions(every_generation, tree)
    _join_ids(rows, every_generation, handed, notes)
    _given_results(rows + handoffs, every_generation)
    _mcp_outcomes(rows, notes)
    failed = _run_notes(spans, notes)
    last = max(generations, key=lambda span: (span.end or -1, span.order), default=None)
    answer = None if last is None or failed else answer_text(last.data.get("output"))
    roots = tree.roots()
    duration = seconds_between(roots[0].start, roots[0].end) if len(roots) == 1 else None
    return Trace(calls=table.calls(), final_answer=answer,
                 model=name_of(last.data, "model") if last is not None else None,
                 usage=_usage(model_calls, notes), run_duration=duration, notes=tuple(notes))
