"""required_call_recall: the share of required calls that were made and succeeded."""

from __future__ import annotations

from toolscore import EvaluationContext, Metric, MetricOutcome, hookimpl


def compute(context: EvaluationContext) -> MetricOutcome:
    required = [call.required for call in context.expected]
    total = required.count(True)
    if not total:
        return MetricOutcome(value=None, score=None)
    outcomes = context.outcomes
    done = [outcomes[j] for i, j in context.paired.items() if required[i]].count(False)
    value = round(done / total, 12)
    return MetricOutcome(value=value, score=value)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="required_call_recall",
        description="Required calls made with a known successful outcome / required calls "
                    "(a failed call or one without a result is not done; none required: unknown).",
        compute=compute, default_weight=0.0,
    )]
