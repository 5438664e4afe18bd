"""Langfuse trace exports: a trace's tool observations, joined by call id to the tool calls
its generations asked for."""

from __future__ import annotations

from typing import Any

from toolscore import JSON_FAILURES, InputError, Trace, TraceFormat, count, hookimpl, loads
from toolscore_formats.calls import CallRow, CallTable, RowsByStart, outcome
from toolscore_formats.content import block_content
from toolscore_formats.langfuse_messages import Request, answer_text, requests_in, results_in
from toolscore_formats.lc_messages import message_fields
from toolscore_formats.times import parse_time, seconds_between
from toolscore_formats.usage import RunUsage, UsageKeys, innermost, span_counts
from toolscore_formats.values import as_float, as_str, decode_args, dict_of, json_key, maybe_json

OBSERVATION_TYPES = frozenset(("SPAN", "GENERATION", "EVENT", "TOOL", "AGENT", "CHAIN",
                               "RETRIEVER", "EVALUATOR", "EMBEDDING", "GUARDRAIL"))
# Where OTel instrumentations put a tool span's name and call id (GenAI conventions,
# OpenInference, the Vercel AI SDK), in the order they are read.
NAME_KEYS = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name")
ID_KEYS = ("gen_ai.tool.call.id", "tool_call.id", "ai.toolCall.id")
# A generation's usageDetails counts the run's usage is summed from (its other keys, a
# provider's cache or audio details, differ by integration and are not read).
USAGE_COUNTS = UsageKeys(((("input_tokens",), ("input",)), (("output_tokens",), ("output",)),
                          (("total_tokens",), ("total",))))


def is_observation(item: Any) -> bool:
    """An observation as Langfuse's API writes it: an id, a known type, a start time."""
    return isinstance(item, dict) and isinstance(item.get("id"), str) and \
        item.get("type") in OBSERVATION_TYPES and isinstance(item.get("startTime"), str)


Layout = tuple[dict[str, Any] | None, list[Any], str, int, int]


def _layout(document: Any) -> Layout | None:
    """The trace (None when the file has none), its observations, the layout's name, and how
    many times the trace's and the observations' stored values are JSON-encoded in it."""
    if not isinstance(document, dict) or not isinstance(document.get("observations"), list):
        return None
    observations = document["observations"]
    trace = document.get("trace")
    if isinstance(trace, dict) and isinstance(trace.get("id"), str):
        # The UI's download serialises the trace's stored input and output once more, and
        # gives the observations' as the stored JSON text.
        return trace, observations, 'a Langfuse trace download ("trace", "observations")', 2, 1
    if "trace" in document or not observations:
        return None
    if isinstance(document.get("id"), str) and "timestamp" in document:
        # The public API parses what it stored: values are values.
        return (document, observations, "a Langfuse trace with its observations (public API)",
                0, 0)
    if isinstance(document.get("scores"), list):
        return None, observations, 'a Langfuse trace export ("observations", "scores")', 1, 1
    return None


def detect(document: Any) -> str | None:
    found = _layout(document)
    if found is None or not all(is_observation(item) for item in found[1]):
        return None
    return found[2]


def near(document: Any) -> str | None:
    """What an unclaimed document holding Langfuse observations misses."""
    found = _layout(document)
    if found is None:
        return None
    items = found[1]
    for index, item in enumerate(items):
        if not is_observation(item):
            return (f"{found[2]}, but $.observations[{index}] is not an observation (an "
                    f'"id", a "type" of {", ".join(sorted(OBSERVATION_TYPES))} and a '
                    '"startTime")')
    return None


def _decoded(value: Any, times: int = 1) -> Any:
    """A stored value: Langfuse keeps inputs, outputs and metadata as JSON text."""
    for _ in range(times):
        if not isinstance(value, str):
            break
        decoded = maybe_json(value) if value[:1] in "{[" else _scalar(value)
        if decoded is value:
            break
        value = decoded
    return value


def _scalar(text: str) -> Any:
    """A JSON string, number or literal in text form, decoded; other text as it is."""
    if not text[:1] or text[:1] not in '"-0123456789tfn':
        return text
    try:
        return loads(text)
    except JSON_FAILURES:
        return text


class Observation:
    """One observation, its stored values decoded, timed."""

    __slots__ = ("attributes", "end", "index", "raw", "start", "times")

    def __init__(self, raw: dict[str, Any], index: int, times: int) -> None:
        self.raw = raw
        self.index = index
        self.times = times
        metadata = _decoded(raw.get("metadata"), times)
        self.attributes = dict_of(metadata, "attributes")
        self.start = parse_time(raw.get("startTime"))
        self.end = parse_time(raw.get("endTime"))

    @property
    def type(self) -> str:
        return str(self.raw["type"])

    @property
    def id(self) -> str:
        return str(self.raw["id"])

    @property
    def parent(self) -> str | None:
        return as_str(self.raw.get("parentObservationId"))

    def value(self, key: str) -> Any:
        return _decoded(self.raw.get(key), self.times)

    def attribute(self, keys: tuple[str, ...]) -> str | None:
        for key in keys:
            value = as_str(self.attributes.get(key))
            if value:
                return value
        return None

    def sort_key(self) -> tuple[int, int]:
        return (self.start if self.start is not None else -1, self.index)


def _tool_message(output: Any) -> dict[str, Any] | None:
    """The LangChain ToolMessage a LangChain tool observation returns, if it is one."""
    fields = message_fields(output)
    return fields[1] if fields is not None and fields[0] == "tool" else None


def _is_tool(observation: Observation) -> bool:
    """A TOOL observation, or a span an instrumentation marked as a tool's: GenAI or
    OpenInference tool attributes, or a LangChain ToolMessage as its output."""
    if observation.type == "TOOL":
        return True
    if observation.type == "GENERATION":
        return False
    attributes = observation.attributes
    if attributes.get("gen_ai.operation.name") == "execute_tool" or \
            as_str(attributes.get("gen_ai.tool.name")) or \
            as_str(attributes.get("ai.toolCall.name")):
        return True
    if as_str(attributes.get("tool.name")):
        # OpenInference agent spans (BeeAI's) name the tool they are about to pick: only a
        # TOOL span, or a span of no OpenInference kind, is the tool's own.
        return attributes.get("openinference.span.kind") in (None, "TOOL")
    return _tool_message(observation.value("output")) is not None


def _add_tool(observation: Observation, table: CallTable) -> CallRow:
    output = observation.value("output")
    message = _tool_message(output)
    name = observation.attribute(NAME_KEYS) or (
        as_str(message.get("name")) if message else None) or as_str(observation.raw.get("name"))
    call_id = observation.attribute(ID_KEYS) or (
        as_str(message.get("tool_call_id")) if message else None)
    arguments = observation.value("input")
    if arguments is None:
        arguments = maybe_json(observation.attributes.get("gen_ai.tool.call.arguments"))
    row = table.add(name or "", arguments, call_id=call_id,
                    timestamp=as_str(observation.raw.get("startTime")))
    duration = seconds_between(observation.start, observation.end)
    if observation.raw.get("level") == "ERROR":
        error = as_str(observation.raw.get("statusMessage")) or None
        row.settle(**outcome(output, failed=True, error=error), duration=duration)
    elif message is not None:
        result = block_content(message.get("content"))
        row.settle(**outcome(result, failed=message.get("status") == "error" or None),
                   duration=duration)
    elif output is not None:
        row.settle(**outcome(output, failed=None), duration=duration)
    else:
        # No output: the tool's result was not captured (or it returned nothing); either
        # way the outcome is not in the file.
        row.duration = duration
    return row


def _join(rows: list[tuple[Observation, CallRow]], generations: list[Observation],
          table: CallTable, notes: list[str]) -> dict[int, tuple[int, int, int]]:
    """Join the generations' requested calls to the tool observations; add the requests no
    tool observation ran. The place of each row (by its index in the table) for ordering."""
    by_id = {row.id: index for index, (_, row) in enumerate(rows) if row.id is not None}
    # (start, place in the model's request, file order): tools started in the same
    # millisecond keep the order the model asked for them in.
    places: dict[int, tuple[int, int, int]] = {
        index: (obs.sort_key()[0], 0, obs.index) for index, (obs, _) in enumerate(rows)}
    tools = _ToolRows(rows)
    taken: set[int] = set()
    seen: set[str] = set()
    results: dict[str, Any] = {}
    for generation in generations:
        results.update(results_in(generation.value("input")))
    for generation in generations:
        position = 0
        for request in requests_in(generation.value("output")):
            if request.id is not None:
                if request.id in seen:
                    continue  # a parent generation repeats its child's request
                seen.add(request.id)
            position += 1
            match = by_id.get(request.id) if request.id is not None else None
            if match is None:
                match = tools.idless_tool(taken, request, generation)
                if match is not None and rows[match][1].id is None:
                    rows[match][1].id = request.id
            if match is not None:
                taken.add(match)
                _fill_arguments(rows[match][1], request)
                start, _, index = places[match]
                places[match] = (start, position, index)
                continue
            row = table.add(request.tool, request.arguments, call_id=request.id,
                            timestamp=as_str(generation.raw.get("endTime")))
            if request.id is not None and request.id in results:
                row.settle(**outcome(results[request.id], failed=None))
            end = generation.end if generation.end is not None else generation.sort_key()[0]
            places[len(table) - 1] = (end, position, generation.index)
            notes.append(f"{generation.raw.get('name') or 'a generation'} asked for "
                         f"{request.tool}{f' ({request.id})' if request.id else ''}, but no "
                         "tool observation ran it")
    return places


class _ToolRows:
    """The tool observations a request without a joining id may be: by tool, whether the
    observation has an id, and its arguments."""

    __slots__ = ("by_args", "by_tool", "rows")

    def __init__(self, rows: list[tuple[Observation, CallRow]]) -> None:
        self.rows = rows
        self.by_tool: dict[tuple[str, bool], RowsByStart] = {}
        self.by_args: dict[tuple[str, bool, Any], RowsByStart] = {}
        for index, (obs, row) in enumerate(rows):
            self.by_tool.setdefault((row.tool, row.id is None), RowsByStart()).add(index, obs.start)
            if row.args is not None:
                self.by_args.setdefault((row.tool, row.id is None, json_key(row.args)),
                                        RowsByStart()).add(index, obs.start)

    def idless_tool(self, taken: set[int], request: Request,
                    generation: Observation) -> int | None:
        """The first untaken tool observation of the request's tool that started after the
        generation did (one with the same arguments first): an id-less observation for a
        request with an id no observation has, any for a request without one."""
        kinds = (True,) if request.id is not None else (True, False)
        args, _ = decode_args(request.arguments)
        rows = self.rows

        def same(index: int) -> bool:
            return rows[index][1].args in (args, {"input": args})

        found: list[int | None] = []
        if args is not None:
            found = [self.by_args[key].first(generation.start, taken, same)
                     for key in ((request.tool, idless, json_key(value)) for idless in kinds
                                 for value in (args, {"input": args}))
                     if key in self.by_args]
        if not any(index is not None for index in found):
            found = [self.by_tool[(request.tool, idless)].first(generation.start, taken)
                     for idless in kinds if (request.tool, idless) in self.by_tool]
        return min((index for index in found if index is not None), default=None)


def _fill_arguments(row: CallRow, request: Request) -> None:
    """The model's arguments where the tool observation has none, has text that is not JSON
    (LangChain's callback handler writes the Python ``repr`` of the arguments), or wraps
    them as ``{"input": arguments}`` (LangSmith's OTel exporter does)."""
    args, raw = decode_args(request.arguments)
    if row.args is None and (row.raw_args is None or args is not None):
        row.args, row.raw_args = args, raw
    elif args is not None and row.args == {"input": args}:
        row.args = args


def _final_answer(trace: dict[str, Any] | None, times: int,
                  generations: list[Observation]) -> str | None:
    """The trace's output when it is the agent's text, else the last generation's text."""
    output = _decoded(trace.get("output"), times) if trace is not None else None
    if output is not None:
        return answer_text(output)
    if generations:
        last = max(generations, key=lambda g: (g.end if g.end is not None else -1, g.index))
        return answer_text(last.value("output"))
    return None


def _model_calls(observations: list[Observation]) -> list[Observation]:
    """The generations that are model calls: no generation below them (a framework's wrapper
    generation repeats its model calls' usage and cost)."""
    return innermost([o for o in observations if o.type == "GENERATION"],
                     lambda o: (o.id, o.parent))


def _usage(calls: list[Observation], notes: list[str]) -> dict[str, Any] | None:
    """The model calls' summed counts; None, with a note, when one gives no input or output
    count (a total some call lacks is left out)."""
    usage = RunUsage("token usage (usageDetails input / output)", "model calls (generations)",
                     common_only=True)
    for call in calls:
        usage.add_flat(span_counts(dict_of(call.raw, "usageDetails"), USAGE_COUNTS))
    return usage.result(notes)


def _run_cost(calls: list[Observation]) -> float | None:
    """What Langfuse computed the model calls cost, when it did for every one (the public
    API's ``totalCost`` counts a call it has no price for as 0, so it is not read)."""
    costs = [as_float(dict_of(call.raw, "costDetails").get("total")) for call in calls]
    if not costs or any(cost is None for cost in costs):
        return None
    return sum(cost for cost in costs if cost is not None)


def parse(document: Any) -> Trace:
    found = _layout(document)
    if found is None:
        raise InputError("not a Langfuse trace export", place="$",
                         fix='give {"trace": {...}, "observations": [...]} as Langfuse\'s '
                             "download writes it, or the public API's GET /api/public/traces/"
                             "{id} response")
    trace, items, _, times, stored = found
    for index, item in enumerate(items):
        if not is_observation(item):
            raise InputError("an observation has an id, a type and a startTime",
                             place=f"$.observations[{index}]",
                             fix="export the trace again from Langfuse; an observation "
                                 "edited by hand keeps its id, type and startTime")
    traces = {as_str(item.get("traceId")) for item in items} - {None}
    if len(traces) > 1:
        raise InputError(f"the observations belong to {len(traces)} traces; toolscore reads "
                         "one agent run at a time", place="$.observations",
                         fix="export one trace per file")
    observations = sorted((Observation(item, index, stored) for index, item in enumerate(items)),
                          key=Observation.sort_key)
    table = CallTable()
    rows = [(obs, _add_tool(obs, table)) for obs in observations if _is_tool(obs)]
    generations = [obs for obs in observations if obs.type == "GENERATION"]
    notes: list[str] = []
    places = _join(rows, generations, table, notes)
    calls = table.calls()
    order = sorted(range(len(calls)), key=lambda index: places[index])
    unnamed = sum(1 for obs in observations if not _is_tool(obs) and
                  obs.attributes.get("openinference.span.kind") == "TOOL")
    if unnamed:
        notes.append(f"{count(unnamed, 'span')} of OpenInference kind TOOL name no tool "
                     "(tool.name): not read as calls")
    if not calls:
        notes.append(f"no tool call in {count(len(observations), 'observation')}: no tool "
                     "observation, and no tool call in the generations' output")
    model_calls = _model_calls(observations)
    last = max(model_calls, key=lambda g: (g.end if g.end is not None else -1, g.index),
               default=None)
    latency = as_float(trace.get("latency")) if trace is not None else None
    if latency is not None and latency < 0:
        latency = None  # the public API writes -1 when it was not asked for the trace's metrics
    return Trace(calls=tuple(calls[index] for index in order),
                 final_answer=_final_answer(trace, times, generations),
                 model=as_str(last.raw.get("model")) if last else None,
                 usage=_usage(model_calls, notes), run_cost=_run_cost(model_calls),
                 run_duration=latency, notes=tuple(notes))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="langfuse",
        description="Langfuse trace exports: a trace and its observations",
        reads='{"trace": {...}, "observations": [...]} (the UI download), a trace with its '
              '"observations" (GET /api/public/traces/{id}) or {"observations", "scores"}: '
              "TOOL observations and tool spans (gen_ai.tool.*, tool.name, a LangChain "
              "ToolMessage) joined by call id to the generations' requested calls; level "
              "ERROR as failure; the trace's output as the final answer",
        detect=detect, parse=parse, near=near,
    )]
