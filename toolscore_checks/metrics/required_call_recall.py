"""required_call_recall: the share of required calls that were made and succeeded."""

from __future__ import annotations

from toolscore_core.evaluation import EvaluationContext
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Metric, MetricOutcome


def compute(context: EvaluationContext) -> MetricOutcome:
    required = [i for i, call in enumerate(context.expected) if call.required]
    if not required:
        return MetricOutcome(value=None, score=None)
    paired = {pair.expected: pair.actual for pair in context.pairing.pairs}
    calls = context.calls
    done = sum(1 for i in required if i in paired and calls[paired[i]].is_error is False)
    value = round(done / len(required), 12)
    return MetricOutcome(value=value, score=value)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="required_call_recall",
        description="Required calls made with a known successful outcome / required calls "
                    "(a failed call or one without a result is not done; none required: unknown).",
        compute=compute, default_weight=0.0,
    )]
