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
    waiting = [item for item in found.not_made if item.made is None]
    if waiting:
        return MetricOutcome(value={"unknown": f"{count(len(waiting), 'required call')} made "
                                    "with arguments only the judge decides"}, score=None)
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
                    "without a result is not done; none required, or a $judge argument undecided: "
                    "unknown).",
        compute=compute, default_weight=0.0,
    )]
