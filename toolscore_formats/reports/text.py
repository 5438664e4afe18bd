"""How numbers are shown in every report: scores, seconds, dollars, unknowns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def score_text(score: float | None, grade: str | None) -> str:
    """``95.7% A``; ``unknown`` when the score is unknown."""
    if score is None:
        return "unknown"
    return f"{score * 100:.1f}% {grade}"


def percent(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value * 100:.1f}%"
    return "unknown"


def measured_text(summary: Mapping[str, Any], total_key: str, unit: str) -> str:
    """``unknown``, ``1.234s`` or ``1.234s (3 of 5 calls)`` (cost: ``$0.0123``)."""
    total = summary.get(total_key)
    if summary.get("status") == "unknown" or total is None:
        return "unknown"
    shown = f"{total:.3f}s" if unit == "s" else f"${total:.4f}"
    if summary.get("status") == "partial":
        shown += f" ({summary['measured_calls']} of {summary['calls']} calls)"
    return shown


def latency_text(metrics: Mapping[str, Any]) -> str:
    return measured_text(metrics.get("latency_metrics") or {}, "total_duration", "s")


def cost_text(metrics: Mapping[str, Any]) -> str:
    return measured_text(metrics.get("cost_metrics") or {}, "total_cost", "$")


def metric_text(value: Any) -> str:
    """A metric value for a table cell."""
    if value is None:
        return "unknown"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
