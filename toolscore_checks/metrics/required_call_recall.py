"""required_call_recall: the share of required calls made, with their arguments, that
succeeded."""

from __future__ import annotations

from toolscore import EvaluationContext, Metric, MetricOutcome, count, hookimpl
from toolscore_checks.required import required_made


def compute(context: EvaluationContext) -> MetricOutcome:
    found = required_made(context)
    if not found:
        return MetricOutcome(value=None, score=None)
    waiting = [item for item in found if item.made is None]
    if waiting:
        return MetricOutcome(value={"unknown": f"{count(len(waiting), 'required call')} made "
                                    "with arguments only the judge decides"}, score=None)
    outcomes = context.outcomes
    done = sum(1 for item in found
               if item.made and item.call is not None and outcomes[item.call] is False)
    value = round(done / len(found), 12)
    return MetricOutcome(value=value, score=value)


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
