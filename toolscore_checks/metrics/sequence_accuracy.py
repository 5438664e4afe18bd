"""sequence_accuracy: 1 - normalized edit distance between expected and actual tool names."""

from __future__ import annotations

from typing import Any

from toolscore_core.evaluation import EvaluationContext
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Metric, MetricOutcome


def _distance(expected: list[str], actual: list[str], levenshtein: Any) -> int:
    """Exact edit distance, banded: cost grows with the distance, not with both lengths.

    rapidfuzz answers ``cutoff + 1`` when the distance exceeds the cutoff, so the band is
    widened (x4) until the answer is within it.
    """
    longest = max(len(expected), len(actual))
    cutoff = 64
    while True:
        distance: int = levenshtein.distance(expected, actual, score_cutoff=cutoff)
        if distance <= cutoff or cutoff >= longest:
            return distance
        cutoff *= 4


def compute(context: EvaluationContext) -> MetricOutcome:
    from rapidfuzz.distance import Levenshtein

    expected = [call.tool for call in context.expected]
    actual = [call.tool for call in context.calls]
    longest = max(len(expected), len(actual))
    if longest == 0:
        return MetricOutcome(value=1.0, score=1.0)
    distance = _distance(expected, actual, Levenshtein)
    value = round(1.0 - distance / longest, 12)
    return MetricOutcome(value=value, score=value)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="sequence_accuracy",
        description="1 - Levenshtein distance over the sequences of tool names / the longer "
                    "length (both empty: 1.0).",
        compute=compute, default_weight=0.2,
    )]
