"""argument_f1: how well the arguments of each expected call were matched."""

from __future__ import annotations

from itertools import compress
from operator import attrgetter, itemgetter

from toolscore import EvaluationContext, Metric, MetricOutcome, hookimpl

_ARGS = attrgetter("args")
_SCORE = itemgetter(3)
_ARGS_CHECKED = itemgetter(4)


def compute(context: EvaluationContext) -> MetricOutcome:
    expected = context.expected
    checked = len(expected) - list(map(_ARGS, expected)).count(None)
    if not checked:
        return MetricOutcome(value=None, score=None)
    # Pairs come in expected order, so the scores add up in that order (an unmade call
    # adds 0.0, which changes no sum).
    pairs = context.pairing.pairs
    value = sum(compress(map(_SCORE, pairs), map(_ARGS_CHECKED, pairs))) / checked
    value = round(value, 12)
    return MetricOutcome(value=value, score=value)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="argument_f1",
        description="Mean argument F1 over expected calls that check arguments, each paired "
                    "optimally with a call of its tool (unmade calls: 0; none checked: unknown).",
        compute=compute, default_weight=0.3,
    )]
