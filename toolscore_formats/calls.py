"""Calls being read: a table that joins each call to its result by id or by position; the
tool spans without a call id, found for the model's requests."""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from toolscore import ToolCall
from toolscore_formats.content import error_text, text_of
from toolscore_formats.values import as_str, decode_args


class CallRow:
    """One call being read: mutable until the table hands out frozen ToolCalls."""

    __slots__ = ("answered", "args", "clock", "cost", "duration", "error", "id", "is_error",
                 "raw_args", "result", "timestamp", "tool", "turn")

    def __init__(self, tool: str, args: dict[str, Any] | None, raw_args: str | None,
                 call_id: str | None, timestamp: str | None, turn: int | None = None) -> None:
        self.tool = tool
        self.args = args
        self.raw_args = raw_args
        self.id = call_id
        self.timestamp = timestamp
        self.answered = False
        self.result: Any = None
        self.is_error: bool | None = None
        self.error: str | None = None
        self.duration: float | None = None
        self.cost: float | None = None
        self.clock: float | None = None
        """A reader's clock reading at the request, to time the call when it is answered."""
        self.turn = turn

    def settle(self, **outcome: Any) -> None:
        """Record the call's outcome (result, is_error, error, duration ...)."""
        self.answered = True
        for key, value in outcome.items():
            setattr(self, key, value)

    def frozen(self) -> ToolCall:
        return ToolCall(tool=self.tool, args=self.args, raw_args=self.raw_args, id=self.id,
                        result=self.result, is_error=self.is_error, error=self.error,
                        duration=self.duration, cost=self.cost, timestamp=self.timestamp,
                        turn=self.turn)


class OpenCalls:
    """Calls waiting for results, in order: the first still open of them all, of one tool,
    or with one id (None: without an id), each found in constant time on average (a call
    once answered stays answered, and is dropped from the queues when next met)."""

    __slots__ = ("_all", "_by_id", "_by_tool", "_count")

    def __init__(self, rows: list[CallRow] | None = None) -> None:
        self._all: deque[CallRow] = deque()
        self._by_id: dict[str | None, deque[CallRow]] = {}
        self._by_tool: dict[str, deque[CallRow]] = {}
        self._count = 0
        for row in rows or ():
            self.add(row)

    def __len__(self) -> int:
        """How many calls were added, answered or not."""
        return self._count

    def add(self, row: CallRow) -> None:
        self._count += 1
        self._all.append(row)
        self._by_tool.setdefault(row.tool, deque()).append(row)
        self._by_id.setdefault(row.id, deque()).append(row)

    def has_id(self, call_id: str) -> bool:
        """Whether a call with this id was added (answered or not)."""
        return call_id in self._by_id

    def first(self, tool: str | None = None) -> CallRow | None:
        """The first open call (of ``tool``, when given)."""
        if tool is None:
            return _first_open(self._all)
        rows = self._by_tool.get(tool)
        return _first_open(rows) if rows is not None else None

    def first_with_id(self, call_id: str | None) -> CallRow | None:
        """The first open call with this id (None: the first without one)."""
        rows = self._by_id.get(call_id)
        return _first_open(rows) if rows is not None else None


def _first_open(rows: deque[CallRow]) -> CallRow | None:
    while rows and rows[0].answered:
        rows.popleft()
    return rows[0] if rows else None


class _Run:
    """Indices in order, the first untaken one from any position found in amortised constant
    time (taken ones are jumped over, by a next-untaken link halved on each walk)."""

    __slots__ = ("indices", "links")

    def __init__(self) -> None:
        self.indices: list[int] = []
        self.links = [0]  # links[p]: p while indices[p] is not known taken; an end sentinel

    def add(self, index: int) -> None:
        self.indices.append(index)
        self.links.append(len(self.indices))

    def first(self, position: int, taken: set[int],
              fits: Callable[[int], bool] | None) -> int | None:
        """The first index at or after ``position`` not taken and that ``fits`` (if given)."""
        indices, links = self.indices, self.links
        while True:
            while links[position] != position:
                links[position] = links[links[position]]
                position = links[position]
            if position == len(indices):
                return None
            index = indices[position]
            if index in taken:
                links[position] = position + 1
            elif fits is None or fits(index):
                return index
            else:
                position += 1


class RowsByStart:
    """Calls of one kind, by their index in the reader's list (in start order), the first
    not yet taken found in amortised constant time: those without a start (open to any
    request) and those with one (open to a request made no later than they started)."""

    __slots__ = ("starts", "timed", "untimed")

    def __init__(self) -> None:
        self.untimed = _Run()
        self.timed = _Run()
        self.starts: list[int] = []

    def add(self, index: int, start: int | None) -> None:
        if start is None:
            self.untimed.add(index)
        else:
            self.timed.add(index)
            self.starts.append(start)

    def first(self, since: int | None, taken: set[int],
              fits: Callable[[int], bool] | None = None) -> int | None:
        """The first untaken index that ``fits``, among the calls a request made at ``since``
        (None: unknown) may be: those without a start, and those that started then or
        later."""
        found = (self.untimed.first(0, taken, fits),
                 self.timed.first(bisect_left(self.starts, since) if since is not None else 0,
                                  taken, fits))
        return min((index for index in found if index is not None), default=None)


class CallTable:
    """Calls in invocation order, joined to their results by id or by position.

    Every format reads calls first and results later; a call no result reaches keeps
    ``is_error`` None (outcome unknown). A reused id is answered first-in, first-out. A
    reader whose messages have turns calls ``start_turn`` at each user message: the calls
    after it belong to that turn (None before the first, or in a format without turns).
    """

    __slots__ = ("_open", "_rows", "turn")

    def __init__(self) -> None:
        self._rows: list[CallRow] = []
        self._open = OpenCalls()
        self.turn: int | None = None

    def start_turn(self) -> None:
        """A user message: the calls that follow answer it."""
        self.turn = (self.turn or 0) + 1

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, tool: Any, args: Any, *, call_id: Any = None, timestamp: Any = None) -> CallRow:
        """Record a call; ``args`` as given (a JSON string is decoded, malformed kept raw)."""
        parsed, raw = decode_args(args)
        row = CallRow(tool if isinstance(tool, str) else str(tool), parsed, raw,
                      as_str(call_id), timestamp, self.turn)
        self._rows.append(row)
        self._open.add(row)
        return row

    def has_id(self, call_id: Any) -> bool:
        key = as_str(call_id)
        return key is not None and self._open.has_id(key)

    def answer(self, call_id: Any, **outcome: Any) -> bool:
        """Give the oldest unanswered call with this id its outcome; False if there is none."""
        key = as_str(call_id)
        row = self._open.first_with_id(key) if key is not None else None
        if row is None:
            return False
        row.settle(**outcome)
        return True

    def answer_result(self, call_id: Any, result: Any) -> bool:
        """The common case of ``answer``: a result came back and the format flags no error."""
        key = call_id if type(call_id) is str else as_str(call_id)
        row = self._open.first_with_id(key) if key is not None else None
        if row is None:
            return False
        row.answered, row.result, row.is_error = True, result, False
        return True

    def answer_next(self, name: str | None = None, **outcome: Any) -> bool:
        """Give the first unanswered call (with this tool name, when given) its outcome."""
        row = self._open.first(name)
        if row is None:
            return False
        row.settle(**outcome)
        return True

    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(row.frozen() for row in self._rows)


def outcome(result: Any, *, failed: bool | None, error: Any = None) -> dict[str, Any]:
    """The outcome fields of an answered call: a failure keeps its text in ``error``.

    ``failed`` None means the format has no error flag and the result came back: not failed.
    A failure without separate error text uses the result's text as the error.
    """
    if failed:
        text = error_text(error) if error is not None else _as_error(result)
        return {"result": None if error is None else result, "is_error": True, "error": text}
    return {"result": result, "is_error": False, "error": None}


def _as_error(result: Any) -> str | None:
    text = text_of(result) if not isinstance(result, str) else result
    if text is not None:
        return text
    return error_text(result)


def response_outcome(response: dict[str, Any]) -> dict[str, Any]:
    """The outcome of a Gemini ``functionResponse`` (the ``gemini`` and ``gemini_cli``
    formats'): ``response.error`` is a failure, else the
    response (unwrapped from an SDK's one-key wrapper) is the result."""
    body = response.get("response")
    if isinstance(body, dict) and "error" in body:
        return outcome(None, failed=True, error=body["error"])
    # {"return_value": x} / {"output": x} / {"result": x} is how SDKs wrap a plain value.
    if isinstance(body, dict) and len(body) == 1:
        key = next(iter(body))
        body = body[key] if key in ("return_value", "output", "result") else body
    return outcome(body, failed=None)


# --- tool spans without a call id, joined to the model's requests


def start_floors(starts: list[float]) -> list[float]:
    """For each request's start, the earliest of it and the starts after it: a tool span
    that started before that is no candidate for any of those requests (``Unjoined.first``'s
    ``floor``)."""
    floors = starts[:]
    for index in range(len(floors) - 2, -1, -1):
        floors[index] = min(floors[index], floors[index + 1])
    return floors


def _equal_key(value: Any) -> Any:
    """A hashable stand-in for a JSON value: equal values (by ``==``: 1, 1.0 and True too)
    have equal keys."""
    if isinstance(value, dict):
        return (dict, frozenset((key, _equal_key(item)) for key, item in value.items()))
    if isinstance(value, list):
        return (list, tuple(_equal_key(item) for item in value))
    return value


_UNHASHABLE = object()  # the key of arguments holding a value that has no hash


def _args_key(tool: str, args: dict[str, Any]) -> tuple[str, Any]:
    key = (tool, _equal_key(args))
    try:
        hash(key)
    except TypeError:
        return (tool, _UNHASHABLE)
    return key


class _Rows:
    """Rows in row order, each with its start and arguments; those before ``head`` are taken
    or started before every later request (dropped for good)."""

    __slots__ = ("head", "items")

    def __init__(self) -> None:
        self.items: list[tuple[int, float, dict[str, Any] | None]] = []
        self.head = 0

    def first(self, taken: set[int], after: float, floor: float,
              args: dict[str, Any] | None) -> int | None:
        items, head = self.items, self.head
        while head < len(items) and (items[head][0] in taken or items[head][1] < floor):
            head += 1
        self.head = head
        for position in range(head, len(items)):
            index, start, own = items[position]
            if index not in taken and start >= after and (args is None or own == args):
                return index
        return None


class Unjoined:
    """The tool spans no request took yet (by index), by tool and by tool and arguments, for
    joining the model's requests to tool spans without a call id: each span is looked at
    about once however long the trace, when the requests come in the order they started.

    ``taken``: the indexes taken, shared with the caller (a span joined by its id is taken
    too)."""

    def __init__(self, taken: set[int]) -> None:
        self.taken = taken
        self._by_tool: dict[str, _Rows] = {}
        self._by_args: dict[tuple[str, Any], _Rows] = {}

    def add(self, index: int, tools: Iterable[str], args: dict[str, Any] | None,
            start: float) -> None:
        """A span, after those added before it: its index, the tool names a request may give
        it, its arguments and its start (``math.inf``: a candidate whenever a request came)."""
        for tool in tools:
            self._by_tool.setdefault(tool, _Rows()).items.append((index, start, None))
            if args is not None:
                self._by_args.setdefault(_args_key(tool, args), _Rows()).items.append(
                    (index, start, args))

    def first(self, tool: str, args: dict[str, Any] | None, after: float,
              floor: float) -> int | None:
        """The first span of ``tool`` not taken that started at ``after`` or later: the first
        with arguments equal to ``args`` (by ``==``), else the first (parallel calls of one
        tool need not start in the order the model asked for them). ``floor``: the earliest
        ``after`` of this request and every later one (``start_floors``)."""
        if args is not None:
            same = self._by_args.get(_args_key(tool, args))
            found = same.first(self.taken, after, floor, args) if same is not None else None
            if found is not None:
                return found
        rows = self._by_tool.get(tool)
        return rows.first(self.taken, after, floor, None) if rows is not None else None
