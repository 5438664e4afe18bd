"""sequence_accuracy: 1 - normalized edit distance between expected and actual tool names."""

from __future__ import annotations

from toolscore_core.evaluation import EvaluationContext
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Metric, MetricOutcome


def compute(context: EvaluationContext) -> MetricOutcome:
    from rapidfuzz.distance import Levenshtein

    expected = [call.tool for call in context.expected]
    actual = [call.tool for call in context.calls]
    longest = max(len(expected), len(actual))
    if longest == 0:
        return MetricOutcome(value=1.0, score=1.0)
    distance = Levenshtein.distance(expected, actual)
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
