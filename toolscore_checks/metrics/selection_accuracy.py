"""selection_accuracy: the share of calls made to a tool the contract expects."""

from __future__ import annotations

from toolscore import EvaluationContext, Metric, MetricOutcome, hookimpl


def compute(context: EvaluationContext) -> MetricOutcome:
    calls, expected = context.calls, context.expected
    if not calls:
        value = 1.0 if not expected else 0.0
    else:
        tools = set(context.expected_tools)
        value = sum(map(tools.__contains__, context.tools)) / len(calls)
    return MetricOutcome(value=value, score=value)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="selection_accuracy",
        description="Share of calls made to a tool the contract expects "
                    "(no calls: 1.0 when none were expected, else 0.0).",
        compute=compute, default_weight=0.4,
    )]
