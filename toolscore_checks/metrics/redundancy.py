"""redundant_rate: the share of calls beyond what the contract expects of each tool."""

from __future__ import annotations

from collections import Counter

from toolscore import EvaluationContext, Metric, MetricOutcome, hookimpl


def compute(context: EvaluationContext) -> MetricOutcome:
    calls = context.calls
    if not calls:
        return MetricOutcome(value=0.0, score=1.0)
    wanted = Counter(context.expected_tools)
    made = Counter(context.tools)
    redundant = sum(max(0, n - wanted.get(tool, 0)) for tool, n in made.items())
    value = redundant / len(calls)
    return MetricOutcome(value=value, score=round(1.0 - value, 12))


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="redundant_rate",
        description="Calls beyond the contract's count for their tool / all calls "
                    "(lower is better; the composite uses 1 - rate).",
        compute=compute, default_weight=0.1,
    )]
