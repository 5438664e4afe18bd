"""toolscore's own trace format: ``{"calls": [ToolCall...], "final_answer": ...}``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import repeat
from typing import Any

from toolscore import InputError, ToolCall, Trace, TraceFormat, hookimpl, type_name
from toolscore_formats.times import iso_timestamp
from toolscore_formats.values import as_float, as_str, decode_args

CALL_KEYS = frozenset(
    ("id", "tool", "args", "raw_args", "result", "is_error", "error", "duration", "cost",
     "timestamp", "turn")
)
_DICT = frozenset((dict,))
_STR = frozenset((str,))
TRACE_KEYS = frozenset(
    ("calls", "final_answer", "model", "usage", "run_cost", "run_duration", "notes", "metadata",
     "replies")
)


def detect(document: Any) -> str | None:
    if isinstance(document, Mapping):
        calls = document.get("calls")
        if isinstance(calls, list) and set(document) <= TRACE_KEYS and _all_calls(calls):
            return 'an object with a "calls" list of {"tool", "args", ...} objects'
        return None
    if isinstance(document, list) and document and _all_calls(document):
        return 'a list of {"tool", "args", ...} objects'
    return None


def _all_calls(items: list[Any]) -> bool:
    """Every item an object of the call keys with a string "tool" (whole-list passes; the
    keys of all the objects are gathered in one set)."""
    return (set(map(type, items)) <= _DICT and CALL_KEYS.issuperset(set().union(*items))
            and set(map(type, map(dict.get, items, repeat("tool")))) <= _STR)


def parse(document: Any) -> Trace:
    if isinstance(document, list):
        document = {"calls": document}
    if not isinstance(document, Mapping):
        raise InputError(f"a native trace is an object, not {type_name(document)}", place="$",
                         fix='write {"calls": [...], "final_answer": "..."}')
    refuse_unknown(document, sorted(TRACE_KEYS), path="$")
    calls = document.get("calls")
    if not isinstance(calls, list):
        raise InputError('"calls" must be a list', place="$.calls")
    final_answer = document.get("final_answer")
    if final_answer is not None and not isinstance(final_answer, str):
        raise InputError('"final_answer" must be a string or null', place="$.final_answer")
    replies = document.get("replies")
    if replies is not None and not (isinstance(replies, list)
                                    and all(isinstance(r, str) for r in replies)):
        raise InputError('"replies" must be a list of strings or null', place="$.replies",
                         fix='write "replies": ["what the agent told the user", ...]')
    usage = document.get("usage")
    return Trace(
        calls=tuple([parse_call(c, i) for i, c in enumerate(calls)]),
        final_answer=final_answer,
        model=as_str(document.get("model")),
        usage=usage if isinstance(usage, Mapping) else None,
        run_cost=measured(document, "run_cost", "$"),
        run_duration=measured(document, "run_duration", "$"),
        notes=tuple(str(n) for n in document.get("notes") or ()),
        replies=None if replies is None else tuple(replies),
    )


def parse_call(item: Any, index: int) -> ToolCall:
    """One native call object (``$.calls[index]``); absent fields stay null.

    The one reader of a call record: ``evaluate()``'s lists of dicts, native files and
    streamed call lists all come through here.
    """
    if type(item) is not dict and not isinstance(item, Mapping):
        raise InputError(f"a call is an object, not {type_name(item)}", place=_place(index))
    if not CALL_KEYS.issuperset(item):
        refuse_unknown(item, sorted(CALL_KEYS), path=_place(index))
    get = item.get
    tool = get("tool")
    if not isinstance(tool, str) or not tool:
        raise InputError('"tool" must be a non-empty string', place=f"{_place(index)}.tool")
    args = get("args")
    raw = None
    if args is not None and type(args) is not dict:
        args, raw = decode_args(args)
    raw_args = get("raw_args")
    if raw_args is not None:
        raw = str(raw_args)
    error = get("error")
    if error is not None and not isinstance(error, str):
        error = str(error)
    is_error = get("is_error")
    if is_error is not True and is_error is not False:
        if error is not None:
            is_error = True
        elif "result" in item:
            is_error = False
        else:
            is_error = None
    turn = get("turn")
    if turn is not None and (type(turn) is not int or turn < 1):
        raise InputError('"turn" is the conversation turn, a whole number from 1 (or null)',
                         place=f"{_place(index)}.turn")
    duration = get("duration")
    if duration is not None and not (type(duration) is float and 0 <= duration < math.inf):
        duration = measured(item, "duration", _place(index))
    cost = get("cost")
    if cost is not None and not (type(cost) is float and 0 <= cost < math.inf):
        cost = measured(item, "cost", _place(index))
    call_id = get("id")
    if call_id is not None and type(call_id) is not str:
        call_id = as_str(call_id)
    stamp = get("timestamp")
    if stamp is not None:
        stamp = iso_timestamp(stamp)
    return ToolCall(tool, args, call_id, get("result"), is_error, error, duration, cost, stamp,
                    raw, None, turn)


def _place(index: int) -> str:
    return f"$.calls[{index}]"


_MEASURES = {"duration": "a number of seconds", "cost": "a number (USD)",
             "run_duration": "a number of seconds", "run_cost": "a number (USD)"}


def measured(item: Mapping[str, Any], key: str, place: str) -> float | None:
    """A duration or a cost: a number, 0 or more, or null (absent, NaN, an infinity);
    anything else is bad input naming the place (a negative latency is no measurement)."""
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f'"{key}" must be {_MEASURES[key]} or null, not {type_name(value)}',
                         place=f"{place}.{key}", fix="write the number, or null when unknown")
    number = as_float(value)
    if number is not None and number < 0:
        raise InputError(f'"{key}" must be 0 or more, not {value!r}', place=f"{place}.{key}",
                         fix="write the measured number, or null when unknown")
    return number


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="toolscore",
        description="toolscore's native trace: calls with their results, and a final answer",
        reads='{"calls": [{"id", "tool", "args", "result", "is_error", "error", "duration", '
              '"cost", "timestamp", "turn"}], "final_answer"} or a bare list of calls',
        detect=detect, parse=parse,
    )]


def refuse_unknown(item: Mapping[str, Any], allowed: Iterable[str], *, path: str,
                   file: str | None = None) -> None:
    """Raise an InputError naming the first key of ``item`` not in ``allowed``."""
    allowed = tuple(allowed)
    for key in item:
        if key not in allowed:
            raise InputError(f"unknown key {key!r}", file=file, place=f"{path}.{key}",
                             fix=f"use only {', '.join(allowed)}")
