"""Helpers every trace format shares: decoding arguments, reading values, joining results."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from toolscore_core.documents import JSON_FAILURES, STRICT_DECODER, loads
from toolscore_core.errors import InputError
from toolscore_core.models import ToolCall

_DECODE = STRICT_DECODER.raw_decode  # NaN and the infinities are not JSON


def decode_args(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    """Arguments as an object, and the raw text when they were given but are not one.

    A JSON string is decoded; ``None`` stays ``None``; text that does not decode to an
    object is kept raw (second item) and the arguments are ``None``.
    """
    if value is None:
        return None, None
    if isinstance(value, dict):
        return value, None
    if isinstance(value, str):
        if value[:1] == "{":  # the common case, without json.loads' whitespace handling
            try:
                decoded, end = _DECODE(value)
            except JSON_FAILURES:
                return None, value
            if end == len(value) and isinstance(decoded, dict):
                return decoded, None
        if not value.strip():
            return {}, None
        try:
            decoded = loads(value)
        except JSON_FAILURES:
            return None, value
        if isinstance(decoded, dict):
            return decoded, None
        return None, value
    return None, json.dumps(value, ensure_ascii=False, default=str)


def maybe_json(value: Any) -> Any:
    """A string holding a JSON object or list, decoded; anything else as it is."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return loads(value)
        except JSON_FAILURES:
            return value
    return value


def as_int(value: Any) -> int | None:
    """An integer from an int or a decimal string (OTLP writes 64-bit values as strings)."""
    if type(value) is str and value.isascii() and value.isdigit():
        return int(value)  # the common case first: OTLP nanoseconds as a decimal string
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isascii() and \
            value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def as_float(value: Any) -> float | None:
    """A finite number, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def as_str(value: Any) -> str | None:
    """A string id (numbers become strings: JSON-RPC ids are compared as text)."""
    if type(value) is str:
        return value
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return value
    return None


def require(condition: bool, problem: str, *, place: str, fix: str | None = None) -> None:
    """Raise an InputError at ``place`` unless ``condition``."""
    if not condition:
        raise InputError(problem, place=place, fix=fix)


TEXT_BLOCK_TYPES = frozenset(("text", "output_text", "input_text"))


def text_of(content: Any, *, separator: str = "") -> str | None:
    """The text of a message's content: a string, or the text blocks of a list joined
    (with ``separator`` between them).

    Empty text is no text (None): an assistant turn with ``""`` says nothing.
    """
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        parts = [block["text"] for block in content
                 if isinstance(block, dict) and name_of(block, "type") in TEXT_BLOCK_TYPES
                 and isinstance(block.get("text"), str)]
        text = separator.join(parts)
        return text or None
    return None


def block_content(content: Any, *, separator: str = "") -> Any:
    """A tool result's content: a list of only text blocks becomes its text, joined (with
    ``separator`` between the blocks).

    Any other content (a string, images, search hits, mixed blocks, an empty list) stays as
    it is: nothing is dropped to make it a string.
    """
    if isinstance(content, list) and content and all(
            isinstance(block, dict) and name_of(block, "type") in TEXT_BLOCK_TYPES and
            isinstance(block.get("text"), str) for block in content):
        return separator.join(block["text"] for block in content)
    return content


def error_text(value: Any) -> str | None:
    """An error as text: a string as it is, a JSON-RPC-style ``{"message"}`` by its message."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        return value["message"]
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


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


class CallTable:
    """Calls in invocation order, joined to their results by id or by position.

    Every format reads calls first and results later; a call no result reaches keeps
    ``is_error`` None (outcome unknown). A reused id is answered first-in, first-out. A
    reader whose messages have turns calls ``start_turn`` at each user message: the calls
    after it belong to that turn (None before the first, or in a format without turns).
    """

    __slots__ = ("_by_id", "_next_open", "_rows", "turn")

    def __init__(self) -> None:
        self._rows: list[CallRow] = []
        self._by_id: dict[str, list[CallRow]] = {}
        self._next_open = 0
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
        if row.id is not None:
            self._by_id.setdefault(row.id, []).append(row)
        return row

    def has_id(self, call_id: Any) -> bool:
        key = as_str(call_id)
        return key is not None and key in self._by_id

    def answer(self, call_id: Any, **outcome: Any) -> bool:
        """Give the oldest unanswered call with this id its outcome; False if there is none."""
        key = as_str(call_id)
        for row in self._by_id.get(key, ()) if key is not None else ():
            if not row.answered:
                row.settle(**outcome)
                return True
        return False

    def answer_result(self, call_id: Any, result: Any) -> bool:
        """The common case of ``answer``: a result came back and the format flags no error."""
        key = call_id if type(call_id) is str else as_str(call_id)
        for row in self._by_id.get(key, ()) if key is not None else ():
            if not row.answered:
                row.answered, row.result, row.is_error = True, result, False
                return True
        return False

    def answer_next(self, name: str | None = None, **outcome: Any) -> bool:
        """Give the first unanswered call (with this tool name, when given) its outcome."""
        rows = self._rows
        while self._next_open < len(rows) and rows[self._next_open].answered:
            self._next_open += 1
        for index in range(self._next_open, len(rows)):
            row = rows[index]
            if not row.answered and (name is None or row.tool == name):
                row.settle(**outcome)
                return True
        return False

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


def name_of(mapping: dict[str, Any], key: str) -> str | None:
    """``mapping[key]`` when it is a string (a type, role or method), else None."""
    value = mapping.get(key)
    return value if isinstance(value, str) else None


def list_of(mapping: Any, key: str) -> list[Any]:
    """``mapping[key]`` when it is a list, else an empty list."""
    value = mapping.get(key) if isinstance(mapping, dict) else None
    return value if isinstance(value, list) else []


def dict_of(mapping: Any, key: str) -> dict[str, Any]:
    """``mapping[key]`` when it is an object, else an empty one."""
    value = mapping.get(key) if isinstance(mapping, dict) else None
    return value if isinstance(value, dict) else {}


_SPACE = re.compile(r"[ \t\n\r]*")
WINDOW_BYTES = 2_000_000
EDGE = 8
"""Characters at a window's end that a cut number could leave undecoded ("e+", ".")."""


class TextCursor:
    """Walks the JSON of a large file, decoding one element at a time.

    Streaming readers use it to visit the long arrays of a log (messages, spans) without
    building the whole document. Only a window of the bytes is decoded to text at a time,
    so memory stays near the file's size even when non-ASCII text makes a Python string
    two or four bytes a character. Bad JSON or UTF-8 raises ValueError; the loader then
    reads the document whole and reports the precise place.
    """

    __slots__ = ("ascii", "base", "data", "failed_at", "pos", "size", "stop", "text")

    def __init__(self, data: bytes | str, window: int = WINDOW_BYTES) -> None:
        self.data = data.encode("utf-8") if isinstance(data, str) else data
        self.size = max(16, window)
        self.base = 0  # byte offset of the window's first character
        self.stop = 0  # byte offset just after the window
        self.pos = 0  # position in the window's text
        self.text = ""
        self.ascii = True
        self.failed_at = -1  # the window where a run of elements could not be cut
        self._load(0)

    def _load(self, start: int) -> None:
        """Decode the window beginning at byte ``start``, ending on a character boundary."""
        data = self.data
        stop = min(len(data), start + self.size)
        while stop < len(data) and (data[stop] & 0xC0) == 0x80:
            stop -= 1
        self.base, self.stop, self.pos = start, stop, 0
        self.text = str(memoryview(data)[start:stop], "utf-8")
        self.ascii = self.text.isascii()

    def _slide(self, grow: bool = False) -> bool:
        """Move the window to start at the cursor (twice as large with ``grow``)."""
        if self.stop >= len(self.data):
            return False
        consumed = self.pos if self.ascii else len(self.text[:self.pos].encode("utf-8"))
        if grow:
            self.size *= 2
        self._load(self.base + consumed)
        return True

    def peek(self) -> str:
        while True:
            match = _SPACE.match(self.text, self.pos)
            self.pos = match.end() if match else self.pos
            if self.pos < len(self.text) or not self._slide():
                return self.text[self.pos:self.pos + 1]

    def take(self, char: str) -> bool:
        if self.peek() == char:
            self.pos += 1
            return True
        return False

    def value(self) -> Any:
        """Decode the next whole value."""
        self.peek()
        while True:
            try:
                value, end = _DECODE(self.text, self.pos)
            except json.JSONDecodeError:
                # Cut by the window's end: move the window to the value (grow it only when
                # the value already starts the window and still does not fit).
                if self._slide(grow=self.pos == 0):
                    continue
                raise
            # A number near the window's edge may have been cut ("1.5e" decodes as 1.5).
            if end < len(self.text) - EDGE or not self._slide(grow=self.pos == 0):
                self.pos = end
                return value

    def values(self) -> Iterator[Any]:
        """Decode an array's elements: whole runs of them per window, in one C call."""
        if not self.take("["):
            raise ValueError("expected an array")
        if self.take("]"):
            return
        while True:
            run = self._run()
            if run is not None:
                yield from run
            else:
                yield self.value()
            if self.take(","):
                continue
            if self.take("]"):
                return
            raise ValueError("expected , or ] in an array")

    def _run(self) -> list[Any] | None:
        """The whole elements from the cursor up to the last one that starts like this one.

        The cut is found by the first key of the element at the cursor (``{"role":``,
        ``{"traceId":``), the way log arrays repeat it. ``[`` + that text + ``]`` is valid
        JSON only when the cut falls between two elements (inside a string or a nested
        object it would not close), so a successful decode is exactly those elements. None
        when there is no such cut, and for the rest of the window once a cut failed.
        """
        if self.peek() != "{" or self.failed_at == self.base:
            return None
        text, pos = self.text, self.pos
        colon = text.find(":", pos, pos + 200)
        if colon < 0:
            return None
        start = text.rfind(text[pos:colon + 1], pos + 1, len(text) - EDGE)
        comma = start - 1
        while comma > pos and text[comma] in " \n\r\t":
            comma -= 1
        cut = comma - 1
        while cut > pos and text[cut] in " \n\r\t":
            cut -= 1
        if start < 0 or text[comma] != "," or text[cut] != "}":
            self.failed_at = self.base
            return None
        try:
            run = loads(f"[{text[pos:cut + 1]}]")
        except json.JSONDecodeError:
            self.failed_at = self.base
            return None
        self.pos = cut + 1
        return run if isinstance(run, list) else None

    def elements(self) -> Iterator[None]:
        """Step through an array: at each yield the cursor is on one element to consume."""
        if not self.take("["):
            raise ValueError("expected an array")
        if self.take("]"):
            return
        while True:
            yield
            if self.take(","):
                continue
            if self.take("]"):
                return
            raise ValueError("expected , or ] in an array")

    def members(self) -> Iterator[str]:
        """Step through an object: yields each key with the cursor on its value to consume."""
        if not self.take("{"):
            raise ValueError("expected an object")
        if self.take("}"):
            return
        while True:
            key = self.value()
            if not isinstance(key, str) or not self.take(":"):
                raise ValueError("expected a key and :")
            yield key
            if self.take(","):
                continue
            if self.take("}"):
                return
            raise ValueError("expected , or } in an object")

    def at_end(self) -> bool:
        return self.peek() == ""
