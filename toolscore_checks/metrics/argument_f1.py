"""argument_f1: how well the arguments of each expected call were matched."""

from __future__ import annotations

from toolscore_core.evaluation import EvaluationContext
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Metric, MetricOutcome


def compute(context: EvaluationContext) -> MetricOutcome:
    checked = [i for i, call in enumerate(context.expected) if call.args is not None]
    if not checked:
        return MetricOutcome(value=None, score=None)
    by_expected = {pair.expected: pair.score for pair in context.pairing.pairs}
    value = sum(by_expected.get(i, 0.0) for i in checked) / len(checked)
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
