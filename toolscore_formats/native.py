"""toolscore's own trace format: ``{"calls": [ToolCall...], "final_answer": ...}``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from typing import Any

from toolscore_core.batches import in_batches
from toolscore_core.documents import type_name
from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import ToolCall, Trace, TraceFormat
from toolscore_formats.common import as_float, as_str, decode_args
from toolscore_formats.times import iso_timestamp

CALL_KEYS = frozenset(
    ("id", "tool", "args", "raw_args", "result", "is_error", "error", "duration", "cost",
     "timestamp", "turn")
)
_DICT = frozenset((dict,))
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
    """Every item an object of the call keys with a string "tool" (whole-list passes)."""
    return (set(map(type, items)) <= _DICT and all(map(CALL_KEYS.issuperset, items))
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
    fast = in_batches(calls, _plain_calls)
    return Trace(
        calls=fast if fast is not None else tuple([parse_call(c, i) for i, c in enumerate(calls)]),
        final_answer=final_answer,
        model=as_str(document.get("model")),
        usage=usage if isinstance(usage, Mapping) else None,
        run_cost=measured(document, "run_cost", "$"),
        run_duration=measured(document, "run_duration", "$"),
        notes=tuple(str(n) for n in document.get("notes") or ()),
        replies=None if replies is None else tuple(replies),
    )


def parse_call(item: Any, index: int) -> ToolCall:
    """One native call object (``$.calls[index]``); absent fields stay null."""
    if type(item) is dict and item.keys() <= CALL_KEYS:
        fast = _fast_call(item)
        if fast is not None:
            return fast
    place = f"$.calls[{index}]"
    if not isinstance(item, Mapping):
        raise InputError(f"a call is an object, not {type_name(item)}", place=place)
    refuse_unknown(item, sorted(CALL_KEYS), path=place)
    tool = item.get("tool")
    if not isinstance(tool, str) or not tool:
        raise InputError('"tool" must be a non-empty string', place=f"{place}.tool")
    args, raw = decode_args(item.get("args"))
    if item.get("raw_args") is not None:
        raw = str(item["raw_args"])
    error = item.get("error")
    error_text = None if error is None else (error if isinstance(error, str) else str(error))
    is_error = item.get("is_error")
    if not isinstance(is_error, bool):
        if error_text is not None:
            is_error = True
        elif "result" in item:
            is_error = False
        else:
            is_error = None
    turn = item.get("turn")
    if turn is not None and (type(turn) is not int or turn < 1):
        raise InputError('"turn" is the conversation turn, a whole number from 1 (or null)',
                         place=f"{place}.turn")
    return ToolCall(
        tool=tool, args=args, raw_args=raw, id=as_str(item.get("id")),
        result=item.get("result"), is_error=is_error, error=error_text,
        duration=measured(item, "duration", place), cost=measured(item, "cost", place),
        timestamp=iso_timestamp(item.get("timestamp")), turn=turn,
    )


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


_NUMBER = (int, float)
_STR = frozenset((str,))
_OPTIONAL_STR = frozenset((str, type(None)))
_OPTIONAL_DICT = frozenset((dict, type(None)))
_OPTIONAL_BOOL = frozenset((bool, type(None)))
_OPTIONAL_FLOAT = frozenset((float, type(None)))
_OPTIONAL_NUMBER = frozenset((int, float, type(None)))


def _plain_calls(items: Sequence[Any]) -> tuple[ToolCall, ...] | None:
    """The common trace read in whole-list passes (what :func:`_fast_call` reads one call
    at a time); None sends the list call by call, which reports problems with their place."""
    if not items or set(map(type, items)) != {dict} or not all(map(CALL_KEYS.issuperset, items)):
        return None
    get = dict.get
    tools = list(map(get, items, repeat("tool")))
    args = list(map(get, items, repeat("args")))
    ids = list(map(get, items, repeat("id")))
    errors = list(map(get, items, repeat("error")))
    flags = list(map(get, items, repeat("is_error")))
    durations = list(map(get, items, repeat("duration")))
    costs = list(map(get, items, repeat("cost")))
    stamps = list(map(get, items, repeat("timestamp")))
    number_types = set(map(type, durations)) | set(map(type, costs))
    if not (set(map(type, tools)) <= _STR and all(tools)
            and set(map(type, args)) <= _OPTIONAL_DICT
            and set(map(type, ids)) <= _OPTIONAL_STR
            and set(map(type, errors)) <= _OPTIONAL_STR
            and set(map(type, flags)) <= _OPTIONAL_BOOL
            and number_types <= _OPTIONAL_NUMBER
            and not any(n is not None and n < 0 for n in (*durations, *costs))
            and set(map(type, stamps)) <= _OPTIONAL_STR
            and not any(map(dict.__contains__, items, repeat("raw_args")))
            and not any(map(dict.__contains__, items, repeat("turn")))):
        return None
    if None in flags:  # no is_error: an error says failed, a result says succeeded
        flags = [flag if flag is not None else True if error is not None
                 else False if "result" in item else None
                 for flag, error, item in zip(flags, errors, items, strict=True)]
    if not number_types <= _OPTIONAL_FLOAT:
        durations = [None if d is None else float(d) for d in durations]
        costs = [None if c is None else float(c) for c in costs]
    if "" in stamps:
        stamps = [stamp or None for stamp in stamps]
    return tuple(map(ToolCall, tools, args, ids, map(get, items, repeat("result")), flags,
                     errors, durations, costs, stamps))


def _fast_call(item: dict[str, Any]) -> ToolCall | None:
    """The common case read directly: plain types everywhere; None sends it the long way."""
    tool = item.get("tool")
    args = item.get("args")
    call_id = item.get("id")
    error = item.get("error")
    is_error = item.get("is_error")
    duration = item.get("duration")
    cost = item.get("cost")
    stamp = item.get("timestamp")
    if not (type(tool) is str and tool and (args is None or type(args) is dict)
            and (call_id is None or type(call_id) is str)
            and (error is None or type(error) is str)
            and (is_error is None or type(is_error) is bool)
            and (duration is None or (type(duration) in _NUMBER and duration >= 0))
            and (cost is None or (type(cost) in _NUMBER and cost >= 0))
            and (stamp is None or type(stamp) is str)
            and "raw_args" not in item and "turn" not in item):
        return None
    if is_error is None:
        if error is not None:
            is_error = True
        elif "result" in item:
            is_error = False
    return ToolCall(
        tool, args, call_id, item.get("result"), is_error, error,
        None if duration is None else float(duration), None if cost is None else float(cost),
        stamp or None,
    )


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
