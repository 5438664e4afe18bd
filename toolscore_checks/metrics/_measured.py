"""The measured / partial / unknown rule shared by latency and cost."""

from __future__ import annotations

import math
from collections.abc import Sequence


def summarize(values: Sequence[float | None], total_key: str) -> dict[str, object]:
    """``status`` measured (every call has the value), partial (some), unknown (none)."""
    known = [v for v in values if v is not None]
    if not values or not known:
        status = "unknown"
    elif len(known) == len(values):
        status = "measured"
    else:
        status = "partial"
    total = math.fsum(known) if known else None
    return {
        "status": status,
        total_key: None if total is None else round(total, 12),
        "mean": None if total is None else round(total / len(known), 12),
        "max": max(known) if known else None,
        "measured_calls": len(known),
        "calls": len(values),
    }
