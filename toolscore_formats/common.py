"""Helpers every trace format shares: decoding arguments, timestamps, joining results."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from toolscore_core.errors import InputError


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
