"""Weights, the composite score and the letter grade."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Protocol

from toolscore_core.errors import InputError
from toolscore_core.models import MetricResult

GRADES: tuple[tuple[str, float], ...] = (("A", 0.9), ("B", 0.8), ("C", 0.7), ("D", 0.6))
DIGITS = 12
"""Scores and weights are rounded to 12 decimals, so a perfect match is exactly 1.0."""


def grade_for(score: float) -> str:
    """A >= 0.9, B >= 0.8, C >= 0.7, D >= 0.6, else F."""
    for letter, floor in GRADES:
        if score >= floor:
            return letter
    return "F"


class Weighted(Protocol):
    """What weighting reads of a metric (``toolscore.Metric``)."""

    @property
    def id(self) -> str: ...
    @property
    def default_weight(self) -> float: ...
    @property
    def weightable(self) -> bool: ...


def resolve_weights(
    metrics: Mapping[str, Weighted], overrides: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Defaults of the weightable metrics, merged with overrides, normalized to sum 1."""
    raw = {m.id: float(m.default_weight) for m in metrics.values() if m.weightable}
    for name, value in (overrides or {}).items():
        if name not in raw:
            raise InputError(f"unknown weight {name!r}", place="weights=",
                             fix=f"use one of {', '.join(sorted(raw))}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value) and value >= 0
        ):
            raise InputError(f"weight {name!r} must be a number >= 0, not {value!r}",
                             place="weights=")
        raw[name] = float(value)
    total = math.fsum(raw.values())
    if total <= 0:
        raise InputError("the weights sum to 0", place="weights=",
                         fix="give at least one metric a positive weight")
    if abs(total - 1.0) <= 1e-9:
        # Already normalized (a receipt's weights): dividing again could move the 12th
        # decimal, and a regrade with unchanged weights must reproduce the record exactly.
        return {name: round(value, DIGITS) for name, value in sorted(raw.items())}
    return {name: round(value / total, DIGITS) for name, value in sorted(raw.items())}


def composite(
    results: Iterable[MetricResult], weights: Mapping[str, float]
) -> tuple[float | None, tuple[str, ...]]:
    """Weighted mean of the metrics' scores, and the weighted metrics left out as unknown.

    A weighted metric whose score is unknown (null) is left out and the other weights are
    renormalized: missing evidence never counts as 0. When every weighted metric is
    unknown the score is None.
    """
    by_id = {r.id: r for r in results}
    used: list[tuple[float, float]] = []
    unknown: list[str] = []
    for name, weight in weights.items():
        if weight <= 0:
            continue
        result = by_id.get(name)
        if result is None or result.score is None:
            unknown.append(name)
            continue
        used.append((weight, result.score))
    total_weight = math.fsum(w for w, _ in used)
    if total_weight <= 0:
        return None, tuple(unknown)
    score = math.fsum(w * s for w, s in used) / total_weight
    return min(1.0, max(0.0, round(score, DIGITS))), tuple(unknown)
