"""cost_metrics: total and mean call cost in USD, measured / partial / unknown."""

from __future__ import annotations

from operator import attrgetter

from toolscore import EvaluationContext, Metric, MetricOutcome, hookimpl
from toolscore_checks.metrics._measured import summarize

_COST = attrgetter("cost")


def compute(context: EvaluationContext) -> MetricOutcome:
    value = summarize(list(map(_COST, context.calls)), "total_cost")
    value["run_cost"] = context.trace.run_cost
    return MetricOutcome(value=value, score=None)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="cost_metrics",
        description="Per-call cost in USD: status measured/partial/unknown; totals cover the "
                    "priced calls and are null when none is priced. run_cost is a run total.",
        compute=compute, weightable=False,
    )]
