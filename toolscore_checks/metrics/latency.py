"""latency_metrics: total and mean call duration, measured / partial / unknown."""

from __future__ import annotations

from operator import attrgetter

from toolscore import EvaluationContext, Metric, MetricOutcome, hookimpl
from toolscore_checks.metrics._measured import summarize

_DURATION = attrgetter("duration")


def compute(context: EvaluationContext) -> MetricOutcome:
    value = summarize(list(map(_DURATION, context.calls)), "total_duration")
    value["run_duration"] = context.trace.run_duration
    return MetricOutcome(value=value, score=None)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="latency_metrics",
        description="Call durations in seconds: status measured/partial/unknown; totals cover "
                    "the measured calls and are null when none is measured.",
        compute=compute, weightable=False,
    )]
