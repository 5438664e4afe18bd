"""Times in traces: the one parser of ISO 8601 text and epoch numbers, and ISO output.

Every reader with times reads them here, so a time means the same in every format: epoch
numbers are UTC by definition, ISO text counts only with an explicit zone (``Z`` or an
offset) unless the format documents naive text as UTC, and the machine's local zone is
never consulted (the same file must time the same calls on any machine).
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from toolscore_formats.values import as_int

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
UNITS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
# The fraction is read digit by digit: datetime keeps microseconds, OTLP times nanoseconds.
_FRACTION = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2})\.(\d+)(.*)$")

Unit = Literal["s", "ms", "us", "ns"]


def parse_time(value: Any, *, unit: Unit = "ns", naive_utc: bool = False) -> int | None:
    """A time as integer nanoseconds since the epoch, or None when it is not one.

    ``value`` is an epoch number in ``unit`` (an int, a decimal string as OTLP writes
    64-bit integers, or a float, rounded to the microsecond), or ISO 8601 text. ISO text
    without a zone is None unless ``naive_utc`` (a format that documents it as UTC).
    """
    if type(value) is str:
        if value.isdigit() and value.isascii():  # the common case: OTLP's decimal strings
            return int(value) * UNITS[unit]
        return _parse_iso(value, naive_utc)
    number = as_int(value)
    if number is not None:
        return number * UNITS[unit]
    if isinstance(value, float) and math.isfinite(value):
        return round(value * UNITS[unit] / 1000) * 1000
    return None


def _parse_iso(text: str, naive_utc: bool) -> int | None:
    text = text.strip()
    match = _FRACTION.match(text)
    digits = ""
    if match:
        text, digits = match.group(1) + match.group(3), match.group(2)
    try:
        moment = datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        if not naive_utc:
            return None
        moment = moment.replace(tzinfo=UTC)
    whole = (moment - EPOCH) // timedelta(seconds=1)
    return whole * 1_000_000_000 + int(digits[:9].ljust(9, "0") or 0)


def seconds_between(start: int | None, end: int | None) -> float | None:
    """Seconds from ``start`` to ``end`` (nanoseconds); None when either is missing or
    the end is before the start."""
    if start is None or end is None or end < start:
        return None
    return (end - start) / 1e9


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
