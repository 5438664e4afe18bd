"""LangSmith run trees: the ``run_type: "tool"`` runs of one exported trace, in execution order."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.content import block_content, text_of
from toolscore_formats.lc_messages import message_fields
from toolscore_formats.times import iso_timestamp, parse_time, seconds_between
from toolscore_formats.values import as_float, as_int, as_str, decode_args, list_of

RUN_TYPES = frozenset(("llm", "chain", "tool", "retriever", "embedding", "prompt", "parser"))
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


def _is_run(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("run_type"), str) and \
        item["run_type"] in RUN_TYPES and isinstance(item.get("name"), str)


def _tree_runs(root: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The run and its nested ``child_runs`` in pre-order, or None if one is not a run."""
    runs: list[dict[str, Any]] = []
    stack: list[Any] = [root]
    while stack:
        run = stack.pop()
        if not _is_run(run):
            return None
        runs.append(run)
        children = run.get("child_runs")
        if children is None:
            continue
        if not isinstance(children, list):
            return None
        stack.extend(reversed(children))
    return runs


def runs_of(document: Any) -> tuple[list[dict[str, Any]], str] | None:
    """Every run of the document and what the document is, or None when it is not runs."""
    if isinstance(document, dict) and "run_type" not in document and \
            isinstance(document.get("runs"), list):
        items, what = document["runs"], 'a LangSmith runs query response ("runs")'
    elif isinstance(document, list):
        items, what = document, "a list of LangSmith runs"
    elif _is_run(document):
        items, what = [document], "a LangSmith run tree (run_type, child_runs)"
    else:
        return None
    if not items:
        return None
    runs: list[dict[str, Any]] = []
    for item in items:
        tree = _tree_runs(item) if isinstance(item, dict) else None
        if tree is None:
            return None
        runs.extend(tree)
    return runs, what


def detect(document: Any) -> str | None:
    read = runs_of(document)
    return read[1] if read is not None else None


def near(document: Any) -> str | None:
    """What an unclaimed document holding LangSmith runs misses."""
    operations = document if isinstance(document, list) else [document]
    if operations and all(isinstance(op, dict) and op and set(op) <= {"post", "patch"} and
                          all(isinstance(v, list) and v and all(map(_is_run_part, v))
                              for v in op.values()) for op in operations):
        return ('LangSmith ingest operations ("post"/"patch" halves of runs), not exported '
                "runs: export the trace (Client.read_run(id, load_child_runs=True) or "
                "list_runs(trace_id=...)) and save the runs as JSON")
    rule = f'(a "name" and a run_type of {", ".join(sorted(RUN_TYPES))})'
    if _is_run(document):
        place = _first_non_run(document, "$")
        return f"a LangSmith run tree, but {place} is not a run {rule}" if place else None
    items = document.get("runs") if isinstance(document, dict) else document
    if not isinstance(items, list) or not items:
        return None
    found = sum(1 for item in items if _is_run(item))
    if found * 2 < len(items):
        return None
    base = "$.runs" if isinstance(document, dict) else "$"
    for index, item in enumerate(items):
        place = _first_non_run(item, f"{base}[{index}]")
        if place is not None:
            return (f"LangSmith runs ({found} of {len(items)} items are), but {place} is not "
                    f"a run {rule}")
    return None


def _first_non_run(item: Any, place: str) -> str | None:
    """The place of the first item under ``item`` (itself included) that is not a run."""
    stack = [(item, place)]
    while stack:
        run, where = stack.pop()
        if not _is_run(run):
            return where
        children = run.get("child_runs")
        if children is not None and not isinstance(children, list):
            return f"{where}.child_runs"
        stack.extend(reversed([(child, f"{where}.child_runs[{i}]")
                               for i, child in enumerate(children or [])]))
    return None


def _is_run_part(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("id"), str) and (
        "dotted_order" in item or "trace_id" in item)


def _moment(value: Any) -> int | None:
    """A run time in nanoseconds: ISO text (naive means UTC, as LangSmith writes it) or
    epoch milliseconds (the JS SDK's)."""
    return parse_time(value, unit="ms", naive_utc=True)


def _stamp(value: Any) -> str | None:
    if isinstance(value, str):
        return iso_timestamp(value)
    millis = as_float(value)
    return iso_timestamp(millis / 1000) if millis is not None else None


def _seconds(run: dict[str, Any]) -> float | None:
    return seconds_between(_moment(run.get("start_time")), _moment(run.get("end_time")))


def _order(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """By dotted order (execution order), else start time, else as the document has them."""
    if all(isinstance(run.get("dotted_order"), str) for run in tools):
        return sorted(tools, key=lambda run: run["dotted_order"])
    timed = [(_moment(run.get("start_time")), run) for run in tools]
    if all(start is not None for start, _ in timed):
        return [run for _, run in sorted(timed, key=lambda pair: pair[0])]  # type: ignore[arg-type,return-value]
    return tools


def _literal_args(text: str) -> dict[str, Any] | None:
    """A Python ``repr`` of an arguments dict (LangChain's tracer writes ``str(tool_input)``)."""
    import ast

    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    try:
        plain = _json_value(value)
    except (ValueError, RecursionError):
        return None
    return plain if isinstance(plain, dict) else None


def _json_value(value: Any) -> Any:
    """``value`` as JSON data (tuples become lists); ValueError for what JSON cannot hold."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("not a finite number")
        return value
    if isinstance(value, list | tuple):
        return [_json_value(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: _json_value(item) for key, item in value.items()}
    raise ValueError(f"{type(value).__name__} is not JSON")


def _arguments(inputs: Any) -> Any:
    """The tool's arguments: ``inputs`` as they are, unless they only hold the text form."""
    if isinstance(inputs, dict) and set(inputs) == {"input"} and isinstance(inputs["input"], str):
        text = inputs["input"]
        parsed, _ = decode_args(text) if text.strip() else (None, None)
        if parsed is None and text.lstrip()[:1] == "{":
            parsed = _literal_args(text)
        return parsed if parsed is not None else inputs
    return inputs


def _tool_message(outputs: Any) -> dict[str, Any] | None:
    """The serialized ToolMessage a LangChain tool returns in ``outputs.output``, if any."""
    fields = message_fields(outputs.get("output")) if isinstance(outputs, dict) else None
    return fields[1] if fields is not None and fields[0] == "tool" else None


def _read_tool(run: dict[str, Any], table: CallTable) -> None:
    outputs = run.get("outputs")
    message = _tool_message(outputs)
    # The model's tool_call_id joins the call to the model's request (and to a contract's
    # ids); the run's own UUID is LangSmith's, used only when the run carries none.
    call_id = as_str(message.get("tool_call_id")) if message else None
    row = table.add(run["name"], _arguments(run.get("inputs")),
                    call_id=call_id or as_str(run.get("id")),
                    timestamp=_stamp(run.get("start_time")))
    status = run.get("status")
    error = run.get("error")
    if status == "pending" or (status is None and run.get("end_time") is None and
                               error is None and outputs is None):
        return
    duration = _seconds(run)
    if error not in (None, "") or status == "error":
        row.settle(**outcome(None, failed=True, error=error if error not in (None, "") else
                             "the run ended with status error"), duration=duration)
        return
    if message is not None:
        result = block_content(message.get("content"))
        row.settle(**outcome(result, failed=message.get("status") == "error" or None),
                   duration=duration)
        return
    if isinstance(outputs, dict) and set(outputs) == {"output"}:
        result = outputs["output"]
    else:
        result = outputs
    row.settle(**outcome(result, failed=None), duration=duration)


def _answer(root: dict[str, Any]) -> str | None:
    """The root run's answer: ``outputs`` text, ``outputs.output`` or the last message."""
    if root.get("run_type") == "tool" or root.get("error") not in (None, ""):
        return None
    outputs = root.get("outputs")
    if isinstance(outputs, str):
        return outputs or None
    if not isinstance(outputs, dict):
        return None
    output = outputs.get("output")
    if isinstance(output, str):
        return output or None
    if isinstance(output, dict):
        return _message_text(output)
    messages = list_of(outputs, "messages")
    return _message_text(messages[-1]) if messages else None


def _message_text(message: Any) -> str | None:
    """An assistant message's text when it asks for no tool (LangChain or role messages)."""
    fields = message_fields(message)
    if fields is not None:
        kind, data = fields
        if kind != "ai" or list_of(data, "tool_calls"):
            return None
        return text_of(data.get("content"))
    if isinstance(message, dict) and message.get("role") == "assistant" and \
            not list_of(message, "tool_calls"):
        return text_of(message.get("content"))
    return None


def parse(document: Any) -> Trace:
    read = runs_of(document)
    if read is None:
        raise InputError("not LangSmith runs", place="$",
                         fix='give a run tree (a run with "child_runs"), a list of the runs of '
                             'one trace, or {"runs": [...]}')
    runs = _unique(read[0])
    traces = {as_str(run.get("trace_id")) for run in runs} - {None}
    if len(traces) > 1:
        raise InputError(f"the runs belong to {len(traces)} traces; toolscore reads one agent "
                         "run at a time", place="$",
                         fix="export the runs of one trace (list_runs(trace_id=...)), one file "
                             "per trace")
    table = CallTable()
    for run in _order([run for run in runs if run["run_type"] == "tool"]):
        _read_tool(run, table)
    ids = {as_str(run.get("id")) for run in runs} - {None}
    roots = [run for run in runs if as_str(run.get("parent_run_id")) not in ids]
    notes: list[str] = []
    root = roots[0] if len(roots) == 1 else None
    if root is None:
        notes.append(f"{len(roots)} runs have no parent in the file: the final answer and run "
                     "totals are not read from any of them")
    return Trace(calls=table.calls(), final_answer=_answer(root) if root else None,
                 usage=_usage(root) if root else None,
                 run_cost=_cost(root.get("total_cost")) if root else None,
                 run_duration=_seconds(root) if root else None, notes=tuple(notes))


def _unique(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each run once: a run listed flat and again under its parent's child_runs is one run."""
    seen: set[str] = set()
    unique = []
    for run in runs:
        key = as_str(run.get("id"))
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        unique.append(run)
    return unique


def _usage(root: dict[str, Any]) -> dict[str, int] | None:
    usage = {key: as_int(root.get(key)) for key in USAGE_KEYS}
    kept = {key: value for key, value in usage.items() if value is not None}
    return kept or None


def _cost(value: Any) -> float | None:
    """``total_cost`` in USD: a number, or the decimal string the API writes."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return as_float(number)
    return as_float(value)


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="langsmith",
        description="LangSmith run trees and run lists (the tool runs of one trace)",
        reads='a run with nested "child_runs", a list of the runs of one trace (linked by '
              'parent_run_id) or {"runs": [...]}: run_type "tool" runs in dotted_order '
              '(name, inputs, outputs, error/status, start and end time); a ToolMessage '
              "output's tool_call_id as the id, else the run id; the root run's output as "
              "the final answer",
        detect=detect, parse=parse, near=near,
    )]
