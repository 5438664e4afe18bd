"""Values in traces: arguments decoded, ids and numbers read, fields of a mapping taken by type.

Every reader reads a document's loose values here, so the same value means the same in
every format.
"""

from __future__ import annotations

import json
import math
from typing import Any

from toolscore import JSON_FAILURES, STRICT_DECODER, InputError, loads

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


_DEEP = object()


def json_key(value: Any, depth: int = 0) -> Any:
    """A hashable key that equal JSON values share, to find them by in a dict (``1``, ``1.0``
    and ``true`` alike, as ``==`` has them). Below a few levels every value shares one key:
    values found by their key are still compared."""
    if depth > 8:
        return _DEEP
    if isinstance(value, dict):
        return frozenset((name, json_key(item, depth + 1)) for name, item in value.items())
    if isinstance(value, list):
        return tuple(json_key(item, depth + 1) for item in value)
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
