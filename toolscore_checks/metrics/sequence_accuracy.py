"""sequence_accuracy: 1 - normalized edit distance between expected and actual tool names."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from toolscore_core.evaluation import EvaluationContext
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Metric, MetricOutcome

CHUNK = 1024
"""Length of the pieces whose distances add up to the upper bound for long sequences."""
_SMALL = 4 * CHUNK


def _symbols(expected: list[str], actual: list[str]) -> tuple[Sequence[Any], Sequence[Any]]:
    """Both sequences over one small alphabet: a character per distinct tool name.

    rapidfuzz compares characters of a string far faster than hashed list items; the
    distance is the same, since equal names get equal characters and no others do.
    """
    names = dict.fromkeys(expected)
    names.update(dict.fromkeys(actual))
    if len(names) >= 0xD800:  # past the surrogates a character is no longer a plain code
        codes = {name: k for k, name in enumerate(names)}
        return [codes[t] for t in expected], [codes[t] for t in actual]
    chars = dict(zip(names, map(chr, range(len(names))), strict=True))
    return "".join(map(chars.__getitem__, expected)), "".join(map(chars.__getitem__, actual))


def _upper_bound(expected: Sequence[Any], actual: Sequence[Any], levenshtein: Any) -> int:
    """The cost of one alignment, which no optimal alignment exceeds (a safe cutoff).

    The expected names are cut into pieces of ``CHUNK``; each cut is set against the
    nearest place in the actual names where a few names around it recur (else where the
    pace so far puts it); the pieces between cuts are aligned optimally and their
    distances add up. The closer the cuts follow an optimal alignment, the tighter the
    bound and the cheaper the exact distance: it never changes the distance itself.
    """
    n, m = len(expected), len(actual)
    bound = 0
    lo = 0  # where the current piece starts in the actual names
    for start in range(CHUNK, n, CHUNK):
        guess = min(lo + (m - lo) * CHUNK // (n - start + CHUNK), m)
        cut = (_anchor(expected, actual, start, guess, lo)
               if isinstance(expected, str) and isinstance(actual, str) else guess)
        bound += levenshtein.distance(expected[start - CHUNK:start], actual[lo:cut])
        lo = cut
    bound += levenshtein.distance(expected[(n - 1) // CHUNK * CHUNK:], actual[lo:])
    return int(bound)


_ANCHOR = 4
_REACH = 128


def _anchor(expected: str, actual: str, i: int, guess: int, floor: int) -> int:
    """A place in ``actual`` for the cut before ``expected[i]``: where the names around
    ``expected[i + shift]`` recur nearest ``guess + shift``, minus the shift."""
    for shift in (0, 8, -8, 16, -16, 24, -24, 32, -32):
        at = i + shift
        if at < _ANCHOR or at + _ANCHOR > len(expected):
            continue
        probe = expected[at - _ANCHOR:at + _ANCHOR]
        near = guess + shift
        ahead = actual.find(probe, max(near - _ANCHOR, floor), near + _REACH)
        behind = actual.rfind(probe, max(near - _REACH, floor), near + _ANCHOR)
        found = [j + _ANCHOR - shift for j in (ahead, behind) if j != -1]
        found = [j for j in found if floor <= j <= len(actual)]
        if found:
            return min(found, key=lambda j: (abs(j - guess), j))
    return guess


def _distance(expected: Sequence[Any], actual: Sequence[Any], levenshtein: Any) -> int:
    """Exact edit distance, banded: cost grows with the distance, not with both lengths.

    rapidfuzz answers ``cutoff + 1`` when the distance exceeds the cutoff. Short sequences
    widen the band (x4) until the answer is within it; long ones (where a wasted try costs
    most) take the cost of a real alignment as the cutoff, which the distance never exceeds.
    """
    longest = max(len(expected), len(actual))
    if longest > _SMALL and expected and actual:
        bound = _upper_bound(expected, actual, levenshtein)
        if bound >= longest:
            return int(levenshtein.distance(expected, actual))
        return int(levenshtein.distance(expected, actual, score_cutoff=bound))
    cutoff = 64
    while True:
        distance: int = levenshtein.distance(expected, actual, score_cutoff=cutoff)
        if distance <= cutoff or cutoff >= longest:
            return distance
        cutoff *= 4


_TINY = 16_384
"""Up to this many cells (128 x 128 names), the bit-parallel distance below costs less
than importing rapidfuzz (about 8 ms, which a one-shot ``toolscore eval`` would pay)."""


def small_distance(expected: Sequence[Any], actual: Sequence[Any]) -> int:
    """The exact edit distance, computed a column at a time with the column held in the
    bits of two integers (Hyyrö's bit-parallel form of Myers' algorithm): a handful of
    integer operations per actual name instead of one step per cell."""
    m = len(expected)
    if not m:
        return len(actual)
    matches: dict[Any, int] = {}  # name -> the bits of the expected positions holding it
    bit = 1
    for name in expected:
        matches[name] = matches.get(name, 0) | bit
        bit <<= 1
    mask = bit - 1
    last = bit >> 1
    plus, minus, distance = mask, 0, m  # the vertical deltas +1 and -1, bottom cell
    get = matches.get
    for name in actual:
        eq = get(name, 0)
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        h_plus = minus | (mask ^ ((xh | plus) & mask))
        h_minus = plus & xh
        if h_plus & last:
            distance += 1
        elif h_minus & last:
            distance -= 1
        h_plus = (h_plus << 1) | 1  # the top row counts up: D[0][j] = j
        h_minus <<= 1
        plus = h_minus | (mask ^ ((xv | h_plus) & mask))
        minus = h_plus & xv
    return distance


def compute(context: EvaluationContext) -> MetricOutcome:
    expected: Sequence[Any] = [call.tool for call in context.expected]
    actual: Sequence[Any] = [call.tool for call in context.calls]
    longest = max(len(expected), len(actual))
    if longest > _SMALL:
        expected, actual = _symbols(expected, actual)  # type: ignore[arg-type]
    if longest == 0:
        return MetricOutcome(value=1.0, score=1.0)
    if len(expected) * len(actual) <= _TINY and "rapidfuzz.distance" not in sys.modules:
        distance = small_distance(expected, actual)
    else:
        from rapidfuzz.distance import Levenshtein

        distance = _distance(expected, actual, Levenshtein)
    value = round(1.0 - distance / longest, 12)
    return MetricOutcome(value=value, score=value)


@hookimpl
def toolscore_register_metrics() -> list[Metric]:
    return [Metric(
        id="sequence_accuracy",
        description="1 - Levenshtein distance over the sequences of tool names / the longer "
                    "length (both empty: 1.0).",
        compute=compute, default_weight=0.2, depends_on=("rapidfuzz",),
    )]
