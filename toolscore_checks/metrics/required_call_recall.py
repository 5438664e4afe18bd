"""required_call_recall: the share of required calls made, with their arguments, that
succeeded."""

from __future__ import annotations

from itertools import repeat
from operator import is_, itemgetter

from toolscore import EvaluationContext, Metric, MetricOutcome, count, hookimpl
from toolscore_checks.required import required_made


def compute(context: EvaluationContext) -> MetricOutcome:
    found = required_made(context)
    if not found.total:
        return MetricOutcome(value=None, score=None)
    # Not known to be made with their arguments: a $judge argument without a verdict, or a
    # call whose arguments the trace does not record and that succeeded (one that failed, or
    # has no outcome, is not done whatever its arguments were).
    waiting = [item for item in found.not_made if item.made is None and (
        item.why is None or (item.call is not None and context.outcomes[item.call] is False))]
    if waiting:
        unrecorded = sum(1 for item in waiting if item.why is not None)
        parts = [f"{count(unrecorded, 'required call')} made with arguments the trace does "
                 "not record"] if unrecorded else []
        if len(waiting) > unrecorded:
            parts.append(f"{count(len(waiting) - unrecorded, 'required call')} made with "
                         "arguments only the judge decides")
        return MetricOutcome(value={"unknown": "; ".join(parts)}, score=None)
    # the calls made with a known successful outcome, counted by C passes
    done = sum(map(is_, map(context.outcomes.__getitem__, map(_CALL, found.made)),
                   repeat(False)))
    value = round(done / found.total, 12)
    return MetricOutcome(value=value, score=value)


_CALL = itemgetter(1)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="required_call_recall",
        description="Required calls made, with their arguments, with a known successful "
                    "outcome / required calls (a call with other arguments, a failed call or one "
                    "without a result is not done; none required, a $judge argument undecided, "
                    "or a call's arguments not in the trace: unknown).",
        compute=compute, default_weight=0.0,
    )]
