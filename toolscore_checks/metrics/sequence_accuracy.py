"""sequence_accuracy: 1 - normalized edit distance between expected and actual tool names."""

from __future__ import annotations

from collections.abc import Sequence

from toolscore import EvaluationContext, Metric, MetricOutcome, hookimpl


def distance(expected: Sequence[str], actual: Sequence[str]) -> int:
    """The exact edit distance, asked of rapidfuzz with a cutoff that doubles.

    Under a cutoff rapidfuzz only looks at a band around the diagonal, so the cost grows
    with the distance rather than with the product of the lengths (an agent that follows
    its contract closely is cheap to compare however long the run). It answers
    ``cutoff + 1`` when the distance is larger, and the cutoff doubles. Tool names are
    compared as one character per distinct name: rapidfuzz reads a string's characters
    about twice as fast as hashed list items, and equal names get equal characters.
    """
    if expected == actual:  # the agent made the calls of its contract, in order
        return 0
    from rapidfuzz.distance import Levenshtein

    distinct = dict.fromkeys([*expected, *actual])
    if len(distinct) < 0xD800:  # below the surrogates every code is a plain character
        names = dict(zip(distinct, map(chr, range(len(distinct))), strict=True))
        expected = "".join(map(names.__getitem__, expected))
        actual = "".join(map(names.__getitem__, actual))
    longest = max(len(expected), len(actual))
    cutoff = 64
    while True:
        found: int = Levenshtein.distance(expected, actual, score_cutoff=cutoff)
        if found <= cutoff or cutoff >= longest:
            return found
        cutoff *= 2


def compute(context: EvaluationContext) -> MetricOutcome:
    expected, actual = context.expected_tools, context.tools
    longest = max(len(expected), len(actual))
    if longest == 0:
        return MetricOutcome(value=1.0, score=1.0)
    value = round(1.0 - distance(expected, actual) / longest, 12)
    return MetricOutcome(value=value, score=value)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="sequence_accuracy",
        description="1 - Levenshtein distance over the sequences of tool names / the longer "
                    "length (both empty: 1.0).",
        compute=compute, default_weight=0.2, depends_on=("rapidfuzz",),
    )]
