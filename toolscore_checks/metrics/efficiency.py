"""efficiency_metrics: failed calls and blind retries (null where outcomes are unknown)."""

from __future__ import annotations

import json
from itertools import compress

from toolscore import EvaluationContext, Metric, MetricOutcome, ToolCall, hookimpl

# What json.dumps(args, sort_keys=True, default=repr) writes, without a new encoder each time.
_ENCODER = json.JSONEncoder(sort_keys=True, default=repr)


def _signature(call: ToolCall) -> tuple[str, str, str | None]:
    return call.tool, _ENCODER.encode(call.args), call.raw_args


def _unread(call: ToolCall) -> bool:
    """Arguments the trace does not record: whether a call repeats another is unknown."""
    return call.args is None and call.raw_args is None


def compute(context: EvaluationContext) -> MetricOutcome:
    calls = context.calls
    outcomes = context.outcomes
    known = len(outcomes) - outcomes.count(None)
    errors = outcomes.count(True)
    # a failed call followed by a call of the same tool: a retry when the arguments repeat
    after = [i for i in compress(range(len(calls) - 1), outcomes)  # the failed calls
             if calls[i].tool == calls[i + 1].tool]
    unread = any(_unread(calls[i]) or _unread(calls[i + 1]) for i in after)
    retries = None if unread else sum(
        1 for i in after if _signature(calls[i]) == _signature(calls[i + 1]))
    value = {
        "calls": len(calls),
        "calls_with_outcome": known,
        "errors": errors if known else None,
        "error_rate": round(errors / known, 12) if known else None,
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
