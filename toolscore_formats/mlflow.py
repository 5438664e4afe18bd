"""MLflow Tracing traces: the TOOL spans as calls, joined to the tool calls the chat spans'
outputs ask for."""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from toolscore import JSON_FAILURES, InputError, Trace, TraceFormat, count, hookimpl, loads
from toolscore_formats.calls import CallRow, CallTable, Unjoined, outcome, start_floors
from toolscore_formats.content import block_content
from toolscore_formats.langfuse_messages import Request, answer_text, requests_in, results_in
from toolscore_formats.lc_messages import message_fields
from toolscore_formats.shapes import is_mlflow_span
from toolscore_formats.spans import Span, SpanTree
from toolscore_formats.times import iso_from_nanos, parse_time, seconds_between
from toolscore_formats.usage import ModelCalls, UsageKeys, innermost, span_counts
from toolscore_formats.values import as_float, as_int, as_str, decode_args, dict_of

SPAN_TYPE = "mlflow.spanType"
INPUTS = "mlflow.spanInputs"
OUTPUTS = "mlflow.spanOutputs"
FUNCTION = "mlflow.spanFunctionName"
TRACE_ID = "mlflow.traceRequestId"
TOKEN_USAGE = "mlflow.chat.tokenUsage"
COST = "mlflow.llm.cost"
MODEL = "mlflow.llm.model"
TOOL_CALL_ID = "tool_call_id"
MODEL_TYPES = frozenset(("CHAT_MODEL", "LLM"))
# MLflow's own counts on a model call (mlflow.chat.tokenUsage), and a Chat Completions
# response's usage (MLflow 2's OpenAI autologging writes no tokenUsage).
MLFLOW_COUNTS = UsageKeys(((("input_tokens",), ("input_tokens",)),
                           (("output_tokens",), ("output_tokens",)),
                           (("total_tokens",), ("total_tokens",))))
CHAT_COUNTS = UsageKeys(((("input_tokens",), ("prompt_tokens",)),
                         (("output_tokens",), ("completion_tokens",)),
                         (("total_tokens",), ("total_tokens",))))
# MLflow 2 renames spans that share a name within a trace to name_1, name_2, ...
_NUMBERED = re.compile(r"^(.+)_([1-9][0-9]{0,8})$")  # a bounded number: int() reads it
SPAN_FIX = ("export the trace again (mlflow.get_trace(trace_id).to_json()); a span keeps "
            "its name and its attributes with mlflow.spanType")


class Layout(NamedTuple):
    """Where a document keeps its spans, and what it says of the run beside them."""

    spans: list[Any]
    place: str
    what: str
    run: dict[str, Any] | None
    """The trace's info (or the search_traces row): its duration."""


def _trace_key(mapping: dict[str, Any]) -> bool:
    """A trace's id: ``trace_id`` (MLflow 3) or ``request_id`` (MLflow 2)."""
    return as_str(mapping.get("trace_id")) is not None or \
        as_str(mapping.get("request_id")) is not None


def _is_row(item: Any) -> bool:
    """A row of ``mlflow.search_traces()`` as pandas writes it: the trace's id, the trace,
    and its spans."""
    return isinstance(item, dict) and _trace_key(item) and "trace" in item and \
        isinstance(item.get("spans"), list)


def _layout(document: Any) -> Layout | None:
    if isinstance(document, dict):
        info, data = document.get("info"), document.get("data")
        if isinstance(info, dict) and isinstance(data, dict) and \
                isinstance(data.get("spans"), list) and _trace_key(info):
            return Layout(data["spans"], "$.data.spans",
                          'an MLflow trace ("info", "data": Trace.to_json())', info)
        if _is_row(document):
            return Layout(document["spans"], "$.spans", "a row of mlflow.search_traces()",
                          document)
        spans = document.get("spans")
        if isinstance(spans, list) and "info" not in document and \
                any(is_mlflow_span(item) for item in spans):
            return Layout(spans, "$.spans", 'MLflow trace data ("spans": the trace '
                          "artifact's traces.json, TraceData.to_dict())", None)
        return None
    if isinstance(document, list) and document:
        if all(_is_row(item) for item in document):
            return Layout(document[0]["spans"], "$[0].spans",
                          "rows of mlflow.search_traces()", document[0])
        if any(is_mlflow_span(item) for item in document):
            return Layout(document, "$", "a list of MLflow spans (Span.to_dict())", None)
    return None


def detect(document: Any) -> str | None:
    found = _layout(document)
    if found is None or not all(is_mlflow_span(item) for item in found.spans):
        return None
    return found.what


def near(document: Any) -> str | None:
    """What an unclaimed document holding MLflow spans misses."""
    found = _layout(document)
    if found is None:
        return None
    for index, item in enumerate(found.spans):
        if not is_mlflow_span(item):
            return (f"{found.what}, but {found.place}[{index}] is not an MLflow span (a "
                    'name, and "attributes" with mlflow.spanType)')
    return None


def _decoded(value: Any) -> Any:
    """An attribute's value: MLflow stores each as JSON text (``"\\"TOOL\\""``)."""
    if not isinstance(value, str):
        return value
    try:
        return loads(value)
    except JSON_FAILURES:
        return value  # written by hand or by another exporter: the text as it is


class MlflowSpan:
    """One span: its ids, status and events read by the shared span record, its times
    (MLflow 3's ``start_time_unix_nano``, MLflow 2's ``start_time``) and its attributes
    decoded when read."""

    __slots__ = ("attributes", "end", "name", "order", "span", "start", "type")

    def __init__(self, raw: dict[str, Any], order: int) -> None:
        self.span = Span.from_otlp(raw, order)
        self.order = order
        self.name = str(raw["name"])
        self.attributes: dict[str, Any] = raw["attributes"]
        self.start = parse_time(raw.get("start_time_unix_nano", raw.get("start_time")))
        self.end = parse_time(raw.get("end_time_unix_nano", raw.get("end_time")))
        self.type = as_str(self.value(SPAN_TYPE))

    @property
    def span_id(self) -> str | None:
        return self.span.span_id

    @property
    def parent(self) -> str | None:
        return self.span.parent

    def value(self, key: str) -> Any:
        return _decoded(self.attributes.get(key))

    def sort_key(self) -> tuple[int, int]:
        return (self.start if self.start is not None else -1, self.order)

    def error(self) -> str | None:
        """A failed span's error: its status message (``ValueError: ...``), else its
        exception event's type and message."""
        text = self.span.error_text
        if text:
            return text
        for name, attributes in self.span.events:
            if name == "exception":
                kind = as_str(attributes.get("exception.type"))
                message = as_str(attributes.get("exception.message"))
                return ": ".join(part for part in (kind, message) if part) or None
        return None


def _undo_numbering(spans: list[MlflowSpan]) -> dict[int, str]:
    """MLflow 2's numbered names back to the name given: a trace whose spans are named
    ``x_1`` ... ``x_n`` (n of 2 or more) and none ``x`` had n spans named ``x``. Only
    MLflow 2's spans (a ``context``) are renamed so; a tool named ``step_1`` keeps it."""
    numbers: dict[str, list[int]] = {}
    for span in spans:
        match = _NUMBERED.match(span.name)
        if match and "context" in span.span.raw:
            numbers.setdefault(match.group(1), []).append(int(match.group(2)))
    names = {span.name for span in spans}
    renamed = {base for base, seen in numbers.items()
               if len(seen) >= 2 and sorted(seen) == list(range(1, len(seen) + 1)) and
               base not in names}
    found: dict[int, str] = {}
    for span in spans:
        match = _NUMBERED.match(span.name)
        if match and match.group(1) in renamed and "context" in span.span.raw:
            found[span.order] = match.group(1)
    return found


def _inside_tool(span: MlflowSpan, tree: SpanTree[MlflowSpan]) -> bool:
    """Whether a TOOL span is the descendant of another (part of that call)."""
    seen = {id(span)}
    parent = tree.parent(span)
    while parent is not None and id(parent) not in seen:
        if parent.type == "TOOL":
            return True
        seen.add(id(parent))
        parent = tree.parent(parent)
    return False


def _tool_message(output: Any) -> dict[str, Any] | None:
    """The LangChain ToolMessage a LangChain tool's span returns, if it is one."""
    fields = message_fields(output)
    return fields[1] if fields is not None and fields[0] == "tool" else None


def _add_tool(span: MlflowSpan, name: str, table: CallTable) -> CallRow:
    output = span.value(OUTPUTS)
    message = _tool_message(output)
    # LangChain's callback writes the call id as the span's tool_call_id attribute.
    call_id = as_str(span.value(TOOL_CALL_ID)) or (
        as_str(message.get("tool_call_id")) if message is not None else None)
    row = table.add(name, span.value(INPUTS), call_id=call_id,
                    timestamp=iso_from_nanos(span.start) if span.start is not None else None)
    duration = seconds_between(span.start, span.end)
    if span.span.failed:
        row.settle(**outcome(output, failed=True, error=span.error()), duration=duration)
    elif message is not None:
        # A tool error LangChain handled (handle_tool_error) ends the span well: the
        # message's status says it failed.
        row.settle(**outcome(block_content(message.get("content")),
                             failed=message.get("status") == "error" or None),
                   duration=duration)
    elif OUTPUTS in span.attributes:
        row.settle(**outcome(output, failed=None), duration=duration)
    else:
        # No outputs and no failure: the span ended before the tool returned (or it was
        # not recorded); the outcome is not in the file.
        row.duration = duration
    return row


class Tool(NamedTuple):
    span: MlflowSpan
    row: CallRow
    names: frozenset[str]
    """The names a request may give it: the span's, and the traced function's."""


def _join(tools: list[Tool], chats: list[MlflowSpan], table: CallTable,
          notes: list[str]) -> dict[int, tuple[int, int, int]]:
    """Join the chat spans' requested calls to the tool spans (by call id when a tool span
    has one, else the first untaken tool span of that name that started after the chat
    did); add the requests no tool span ran. The place of each row, by its index in the
    table, for ordering."""
    places = {index: (tool.span.sort_key()[0], 0, tool.span.order)
              for index, tool in enumerate(tools)}
    by_id = {tool.row.id: index for index, tool in enumerate(tools) if tool.row.id is not None}
    taken: set[int] = set()
    # A request without an id may go to any tool span, one with an id to a span without one
    # (a span with its own id is joined by it); for each chat, the earliest start of it and
    # the chats after it.
    free, idless = Unjoined(taken), Unjoined(taken)
    for index, tool in enumerate(tools):
        start = tool.span.start if tool.span.start is not None else math.inf
        free.add(index, tool.names, tool.row.args, start)
        if tool.row.id is None:
            idless.add(index, tool.names, tool.row.args, start)
    floors = start_floors([chat.start if chat.start is not None else -math.inf
                           for chat in chats])
    seen: set[str] = set()
    results: dict[str, Any] = {}
    for chat in chats:
        inputs = chat.value(INPUTS)
        # A chat's inputs are the request's keyword arguments: the messages are in them.
        messages = inputs.get("messages") if isinstance(inputs, dict) else inputs
        results.update(results_in(messages))
    asked: list[list[int]] = []  # by chat: the tool spans its answer asked for, in order
    unrun: list[list[int]] = []  # by chat: the rows of its requests no tool span ran
    for chat, floor in zip(chats, floors, strict=True):
        position = 0
        asked.append([])
        unrun.append([])
        after = chat.start if chat.start is not None else -math.inf
        for request in requests_in(chat.value(OUTPUTS)):
            if request.id is not None:
                if request.id in seen:
                    continue
                seen.add(request.id)
            position += 1
            match = by_id.get(request.id) if request.id is not None else None
            if match is None:
                # The untaken tool span of the request's tool that started after the chat:
                # the one with the request's arguments, else the first.
                args = decode_args(request.arguments)[0] if request.arguments is not None \
                    else None
                match = (free if request.id is None else idless).first(
                    request.tool, args, after, floor)
            if match is not None:
                taken.add(match)
                _fill(tools[match].row, request)
                start, _, order = places[match]
                places[match] = (start, position, order)
                asked[-1].append(match)
                continue
            row = table.add(request.tool, request.arguments, call_id=request.id,
                            timestamp=iso_from_nanos(chat.end) if chat.end is not None
                            else None)
            if request.id is not None and request.id in results:
                row.settle(**outcome(results[request.id], failed=None))
            end = chat.end if chat.end is not None else chat.sort_key()[0]
            places[len(table) - 1] = (end, position, chat.order)
            unrun[-1].append(len(table) - 1)
            notes.append(f"{chat.name} asked for {request.tool}"
                         f"{f' ({request.id})' if request.id else ''}, but no TOOL span ran it")
    # The calls one answer asked for are in the order it asked for them, from the first
    # one's start: which of a framework's concurrent tool spans starts first is the
    # scheduler's doing, not the agent's. A request no tool span ran takes its place among
    # them too.
    for members, added in zip(asked, unrun, strict=True):
        if members:
            first = min(places[index][0] for index in members)
            for index in members + added:
                places[index] = (first, *places[index][1:])
    return places


def _fill(row: CallRow, request: Request) -> None:
    """The request's id where the tool span has none, and its arguments where the span's
    inputs are not an object (a LangChain tool's input text, say)."""
    if row.id is None:
        row.id = request.id
    args, raw = decode_args(request.arguments)
    if row.args is None and args is not None:
        row.args, row.raw_args = args, raw


def _counts(chat: MlflowSpan) -> dict[tuple[str, ...], int | float] | None:
    usage = chat.value(TOKEN_USAGE)
    if isinstance(usage, dict):
        return span_counts(usage, MLFLOW_COUNTS)
    output = chat.value(OUTPUTS)
    response_usage = dict_of(output, "usage") if isinstance(output, dict) else {}
    return span_counts(response_usage, CHAT_COUNTS) if response_usage else None


def _model(chat: MlflowSpan) -> str | None:
    """The model that answered: mlflow.llm.model, else the response's model, else the
    model the request named."""
    output = chat.value(OUTPUTS)
    return as_str(chat.value(MODEL)) or (
        as_str(output.get("model")) if isinstance(output, dict) else None) or \
        as_str(chat.value("model"))


def _run_cost(calls: list[MlflowSpan]) -> float | None:
    """What MLflow priced the model calls at (mlflow.llm.cost), when it did for each."""
    costs = [as_float(cost.get("total_cost")) if isinstance(cost, dict) else None
             for cost in (call.value(COST) for call in calls)]
    if not costs or any(cost is None for cost in costs):
        return None
    return sum(cost for cost in costs if cost is not None)


def _run_duration(run: dict[str, Any] | None, roots: list[MlflowSpan]) -> float | None:
    """The root span's duration, else the trace's execution time (milliseconds, in its info
    or row). The span comes first: MLflow 2 moves the root span's start past its own store
    call, and its info's ``execution_time_ms`` can still count that call."""
    if len(roots) == 1:
        seconds = seconds_between(roots[0].start, roots[0].end)
        if seconds is not None:
            return seconds
    if run is not None:
        for key in ("execution_duration_ms", "execution_time_ms", "execution_duration"):
            millis = as_int(run.get(key))
            if millis is not None and millis >= 0:
                return millis / 1000
    return None


def _final_answer(roots: list[MlflowSpan], chats: list[MlflowSpan],
                  notes: list[str]) -> str | None:
    """The root span's outputs when they are the agent's text, else the last chat's
    assistant text; none when the run failed."""
    root = roots[0] if len(roots) == 1 else None
    if root is not None and root.span.failed:
        notes.append(f"the run failed ({root.name}: {root.error() or 'no message'}): no final "
                     "answer")
        return None
    if root is not None and root.type != "TOOL" and OUTPUTS in root.attributes:
        text = answer_text(root.value(OUTPUTS))
        if text is not None:
            return text
    last = max(chats, key=lambda chat: (chat.end if chat.end is not None else -1, chat.order),
               default=None)
    return answer_text(last.value(OUTPUTS)) if last is not None else None


def parse(document: Any) -> Trace:
    found = _layout(document)
    if found is None:
        raise InputError("not an MLflow trace", place="$",
                         fix="give mlflow.get_trace(trace_id).to_json(), the trace data "
                             '{"spans": [...]}, or a list of its spans')
    if isinstance(document, list) and found.place == "$[0].spans" and len(document) > 1:
        raise InputError(f"{count(len(document), 'row')} of mlflow.search_traces(); toolscore "
                         "reads one agent run at a time", place="$",
                         fix="write one row per file (df.iloc[[i]].to_json(orient=\"records\"))")
    for index, item in enumerate(found.spans):
        if not is_mlflow_span(item):
            raise InputError("an MLflow span has a name and attributes with mlflow.spanType",
                             place=f"{found.place}[{index}]", fix=SPAN_FIX)
    spans = [MlflowSpan(item, index) for index, item in enumerate(found.spans)]
    traces = {as_str(span.value(TRACE_ID)) for span in spans} - {None}
    if len(traces) > 1:
        raise InputError(f"the spans belong to {len(traces)} traces; toolscore reads one agent "
                         "run at a time", place=found.place, fix="export one trace per file")
    spans.sort(key=MlflowSpan.sort_key)
    tree = SpanTree(spans)
    renamed = _undo_numbering(spans)
    table = CallTable()
    tools: list[Tool] = []
    nested = 0
    for span in spans:
        if span.type != "TOOL":
            continue
        if _inside_tool(span, tree):
            nested += 1
            continue
        name = renamed.get(span.order, span.name)
        function = as_str(span.value(FUNCTION))
        tools.append(Tool(span, _add_tool(span, name, table),
                          frozenset(n for n in (name, function) if n)))
    model_calls = innermost([span for span in spans if span.type in MODEL_TYPES],
                            lambda span: (span.span_id, span.parent))
    notes: list[str] = []
    places = _join(tools, model_calls, table, notes)
    calls = table.calls()
    order = sorted(range(len(calls)), key=lambda index: places[index])
    if nested:
        notes.append(f"{count(nested, 'TOOL span')} inside another tool's span: part of that "
                     "call, not read as calls")
    if not calls:
        notes.append(f"no tool call in {count(len(spans), 'span')}: no TOOL span, and no tool "
                     "call in the chat spans' outputs")
    usage = ModelCalls("token counts (mlflow.chat.tokenUsage or the response's usage)",
                       "chat spans")
    for chat in model_calls:
        usage.add(chat.span_id, chat.parent, _counts(chat))
    last = max(model_calls, key=lambda chat: (chat.end if chat.end is not None else -1,
                                              chat.order), default=None)
    roots = tree.roots()
    answer = _final_answer(roots, model_calls, notes)
    return Trace(calls=tuple(calls[index] for index in order), final_answer=answer,
                 model=_model(last) if last is not None else None, usage=usage.result(notes),
                 run_cost=_run_cost(model_calls), run_duration=_run_duration(found.run, roots),
                 notes=tuple(notes))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="mlflow",
        description="MLflow Tracing traces: Trace.to_json(), trace data and span lists",
        reads='mlflow.get_trace(id).to_json() ({"info", "data": {"spans"}}), the trace data '
              'artifact {"spans": [...]}, a list of spans, or a row of search_traces(), '
              "MLflow 2 or 3: TOOL spans (mlflow.spanType) as calls, their mlflow.spanInputs "
              "and mlflow.spanOutputs, joined to the tool calls the chat spans asked for; "
              "an ERROR status as failure; the root span's outputs as the final answer",
        detect=detect, parse=parse, near=near,
    )]
