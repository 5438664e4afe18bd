"""argument_f1: how well the arguments of each expected call were matched."""

from __future__ import annotations

from collections import Counter
from itertools import compress
from operator import attrgetter, itemgetter

from toolscore import (
    EvaluationContext,
    Metric,
    MetricOutcome,
    absent_optional,
    arguments_unknown,
    count,
    hookimpl,
    undecided_in,
)

_ARGS = attrgetter("args")
_SCORE = itemgetter(3)
_ARGS_CHECKED = itemgetter(4)


def compute(context: EvaluationContext) -> MetricOutcome:
    expected = context.expected
    checked = len(expected) - list(map(_ARGS, expected)).count(None)
    if not checked:
        return MetricOutcome(value=None, score=None)
    # Pairs come in expected order, so the scores add up in that order (an unmade call
    # adds 0.0, which changes no sum).
    pairs = context.pairing.pairs
    calls = context.calls
    if None in map(_ARGS, calls):  # some call's arguments did not decode, or are not known
        unrecorded = sum(1 for pair in pairs
                         if pair[4] and arguments_unknown(expected[pair[0]], calls[pair[1]]))
        if unrecorded:
            return MetricOutcome(value={"unknown": f"the arguments of {count(unrecorded, 'call')} "
                                        "paired with an expected call are not in the trace"},
                                 score=None)
    if context.to_judge or undecided_in(expected, calls, pairs):
        return _judged(context, checked)
    value = sum(compress(map(_SCORE, pairs), map(_ARGS_CHECKED, pairs))) / checked
    value = round(value, 12)
    return MetricOutcome(value=value, score=value)


def _judged(context: EvaluationContext, checked: int) -> MetricOutcome:
    """The F1 with each ``$judge`` argument matched as the judge decided; unknown while one
    a call gave is undecided (pairing matched it with nothing: it cannot tell), or while
    an argument's ``$regex`` ran past its time limit."""
    # Imported here: a contract without $judge loads none of the judge.
    from toolscore import rulings, undecided

    found = rulings(context)
    waiting = [r for r in found if r.verdict is None]
    if waiting:
        return MetricOutcome(value={"unknown": undecided(waiting)}, score=None)
    met = Counter(r.expected for r in found if r.verdict == "yes")
    scores = []
    for pair in context.pairing.pairs:
        if not pair.args_checked:
            continue
        if pair.expected not in met:
            scores.append(pair.score)
            continue
        want = context.expected[pair.expected].args or {}
        got = context.calls[pair.actual].args or {}
        size = len(want) + len(got) - absent_optional(want, got)
        scores.append(2.0 * (pair.matched_args + met[pair.expected]) / size)
    value = round(sum(scores) / checked, 12)
    return MetricOutcome(value=value, score=value)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="argument_f1",
        description="Mean argument F1 over expected calls that check arguments, each paired "
                    "optimally with a call of its tool (unmade calls: 0; none checked, or a "
                    "paired call's arguments not in the trace: unknown; a {\"$judge\": ...} "
                    "argument as the judge decides).",
        compute=compute, default_weight=0.3,
    )]
