"""Built-in run importers: other tools' result files read into runs rows, one module each."""

from __future__ import annotations

import json
import math
from typing import Any

from toolscore import InputError


def load_json(path: str, fix: str) -> Any:
    """The JSON document of a results file; one line naming the place and ``fix`` when the
    file is not JSON."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"not JSON ({exc})", place="$", fix=fix) from None


def inner_place(place: str | None) -> str:
    """A place inside a run's message list, as a suffix of the run's own place ($[2] -> [2];
    another place in brackets after it)."""
    if not place or place == "$":
        return ""
    return place[1:] if place.startswith("$") else f" ({place})"


def finite_number(value: Any) -> float | None:
    """A measured number (a time, a cost) as the file gives it; None for anything else: text,
    a flag, NaN or an infinity (Python's JSON reads those), so nothing unmeasured is a number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)
