"""efficiency_metrics: failed calls and blind retries (null where outcomes are unknown)."""

from __future__ import annotations

import json
from itertools import pairwise

from toolscore_core.evaluation import EvaluationContext
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Metric, MetricOutcome, ToolCall


def _signature(call: ToolCall) -> tuple[str, str]:
    return call.tool, json.dumps(call.args, sort_keys=True, default=repr)


def compute(context: EvaluationContext) -> MetricOutcome:
    calls = context.calls
    known = [c for c in calls if c.is_error is not None]
    errors = sum(1 for c in known if c.is_error)
    retries = sum(
        1 for prev, cur in pairwise(calls)
        if prev.is_error and _signature(prev) == _signature(cur)
    )
    value = {
        "calls": len(calls),
        "calls_with_outcome": len(known),
        "errors": errors if known else None,
        "error_rate": round(errors / len(known), 12) if known else None,
        "retries_after_error": retries if known else None,
    }
    return MetricOutcome(value=value, score=None)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="efficiency_metrics",
        description="Failed calls, error rate over calls with an outcome, and retries of a failed "
                    "call with the same arguments; null when no call has an outcome.",
        compute=compute, weightable=False,
    )]
