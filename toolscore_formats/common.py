"""Helpers every trace format shares: decoding arguments, timestamps, joining results."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.models import ToolCall


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
        if not value.strip():
            return {}, None
        try:
            decoded = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return None, value
        if isinstance(decoded, dict):
            return decoded, None
        return None, value
    return None, json.dumps(value, ensure_ascii=False, default=str)


def maybe_json(value: Any) -> Any:
    """A string holding a JSON object or list, decoded; anything else as it is."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return value
    return value


def iso_timestamp(value: Any) -> str | None:
    """ISO 8601 (UTC, ``Z``) from epoch seconds; an ISO string is kept as it is."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return None
        try:
            moment = datetime.fromtimestamp(value, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
        return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")
    if isinstance(value, str) and value.strip():
        return value
    return None


def iso_from_nanos(value: Any) -> str | None:
    """ISO 8601 from integer nanoseconds since the epoch (exact, no float rounding)."""
    nanos = as_int(value)
    if nanos is None:
        return None
    seconds, rest = divmod(nanos, 1_000_000_000)
    try:
        moment = datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{rest:09d}Z"


def as_int(value: Any) -> int | None:
    """An integer from an int or a decimal string (OTLP writes 64-bit values as strings)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
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


def text_of(content: Any) -> str | None:
    """The text of a message's content: a string, or the text blocks of a list joined.

    Empty text is no text (None): an assistant turn with ``""`` says nothing.
    """
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        parts = [block["text"] for block in content
                 if isinstance(block, dict) and name_of(block, "type") in TEXT_BLOCK_TYPES
                 and isinstance(block.get("text"), str)]
        text = "".join(parts)
        return text or None
    return None


def error_text(value: Any) -> str | None:
    """An error as text: a string as it is, a JSON-RPC-style ``{"message"}`` by its message."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        return value["message"]
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


class CallTable:
    """Calls in invocation order, joined to their results by id or by position.

    Every format reads calls first and results later; a call no result reaches keeps
    ``is_error`` None (outcome unknown). A reused id is answered first-in, first-out.
    """

    __slots__ = ("_by_id", "_next_open", "_rows")

    def __init__(self) -> None:
        self._rows: list[dict[str, Any]] = []
        self._by_id: dict[str, list[dict[str, Any]]] = {}
        self._next_open = 0

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, tool: Any, args: Any, *, call_id: Any = None, timestamp: Any = None,
            decode: bool = True) -> dict[str, Any]:
        """Record a call; ``args`` as given (a JSON string is decoded unless ``decode`` is off)."""
        if decode:
            parsed, raw = decode_args(args)
        else:
            parsed, raw = (args, None) if isinstance(args, dict) or args is None else (
                None, args if isinstance(args, str) else json.dumps(args, default=str))
        row: dict[str, Any] = {
            "tool": tool if isinstance(tool, str) else str(tool), "args": parsed,
            "raw_args": raw, "id": as_str(call_id), "timestamp": timestamp, "answered": False,
        }
        self._rows.append(row)
        if row["id"] is not None:
            self._by_id.setdefault(row["id"], []).append(row)
        return row

    def has_id(self, call_id: Any) -> bool:
        key = as_str(call_id)
        return key is not None and key in self._by_id

    def answer(self, call_id: Any, **outcome: Any) -> bool:
        """Give the oldest unanswered call with this id its outcome; False if there is none."""
        key = as_str(call_id)
        for row in self._by_id.get(key, ()) if key is not None else ():
            if not row["answered"]:
                _settle(row, outcome)
                return True
        return False

    def answer_next(self, name: str | None = None, **outcome: Any) -> bool:
        """Give the first unanswered call (with this tool name, when given) its outcome."""
        rows = self._rows
        while self._next_open < len(rows) and rows[self._next_open]["answered"]:
            self._next_open += 1
        for index in range(self._next_open, len(rows)):
            row = rows[index]
            if not row["answered"] and (name is None or row["tool"] == name):
                _settle(row, outcome)
                return True
        return False

    def answer_row(self, row: dict[str, Any], **outcome: Any) -> None:
        """Give a call recorded earlier (the row ``add`` returned) its outcome."""
        _settle(row, outcome)

    def rows(self) -> list[dict[str, Any]]:
        """The mutable rows, for formats that fill in fields after pairing (durations)."""
        return self._rows

    def open_count(self) -> int:
        return sum(1 for row in self._rows if not row["answered"])

    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(
            ToolCall(
                tool=row["tool"], args=row["args"], raw_args=row["raw_args"], id=row["id"],
                result=row.get("result"), is_error=row.get("is_error"),
                error=row.get("error"), duration=row.get("duration"),
                cost=row.get("cost"), timestamp=row["timestamp"],
            )
            for row in self._rows
        )


def _settle(row: dict[str, Any], outcome: dict[str, Any]) -> None:
    row["answered"] = True
    row.update(outcome)


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
