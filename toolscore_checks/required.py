"""Which required calls were made with their arguments: what required-calls and
required_call_recall both ask."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, filterfalse
from operator import attrgetter
from typing import NamedTuple

from toolscore import EvaluationContext, arguments_differ, arguments_unknown
from toolscore_checks._per_context import once_per_context


class Made(NamedTuple):
    """A required expected call not made with its arguments, or not yet known to be."""

    expected: int
    """The expected call's index."""
    call: int | None
    """The call of its tool paired with it (made with other arguments), or None."""
    made: bool | None
    """False: not made; None: not known (a ``$judge`` argument without a verdict, or a
    call whose arguments the trace does not record: :func:`arguments_unknown`)."""
    why: str | None = None
    """Why not, or why undecided: the argument that differs, the judge's silence, or the
    arguments' absence."""


class Required(NamedTuple):
    """The required expected calls of one evaluation, in the contract's order."""

    total: int
    """How many expected calls are required."""
    made: list[tuple[int, int]]
    """Those made with their arguments: (expected call, the call that is it)."""
    not_made: list[Made]
    """The others."""


_REQUIRED = attrgetter("required")
_new_made = tuple.__new__  # Made's fields in order, without NamedTuple's Python-level __new__


@once_per_context
def required_made(context: EvaluationContext) -> Required:
    """Which required expected calls were made with their arguments. A call that differs
    only in ``$judge`` arguments is made as the judge rules. Found once per evaluation: the
    check and the metric both ask, in turn, of the same context."""
    expected, calls = context.expected, context.calls
    exact = context.made_exactly  # most required calls: taken whole, by C passes
    if False in map(_REQUIRED, expected):  # some expected calls are optional
        wanted: Sequence[int] = list(compress(range(len(expected)), map(_REQUIRED, expected)))
        made = [(i, exact[i]) for i in wanted if i in exact]
    else:
        wanted = range(len(expected))
        made = list(exact.items())
    not_made: list[Made] = []
    judged = False
    paired = context.paired
    for i in filterfalse(exact.__contains__, wanted):
        near = paired.get(i)
        if near is None:
            not_made.append(_new_made(Made, (i, None, False, None)))
            continue
        why = arguments_differ(expected[i], calls[near], except_judged=True)
        if why is None:
            judged = True
            not_made.append(_new_made(Made, (i, near, None, None)))
        elif arguments_unknown(expected[i], calls[near]):
            not_made.append(_new_made(Made, (i, near, None, why)))
        else:
            not_made.append(_new_made(Made, (i, near, False, why)))
    if judged:
        return _as_ruled(context, len(wanted), made, not_made)
    return Required(len(wanted), made, not_made)


def _as_ruled(context: EvaluationContext, total: int, made: list[tuple[int, int]],
              not_made: list[Made]) -> Required:
    # Imported here: a contract without $judge loads none of the judge.
    from toolscore import rulings

    by_pair: dict[tuple[int, int], list[tuple[str, str | None, str]]] = {}
    for ruling in rulings(context):
        by_pair.setdefault((ruling.expected, ruling.call), []).append(
            (ruling.argument, ruling.verdict, ruling.why))
    still: list[Made] = []
    for item in not_made:
        if item.made is not None or item.why is not None or item.call is None:
            still.append(item)  # not the judge's to decide
            continue
        ruled = by_pair.get((item.expected, item.call), [])
        refused = next((r for r in ruled if r[1] == "no"), None)
        waiting = next((r for r in ruled if r[1] is None), None)
        if refused is not None:
            still.append(Made(item.expected, item.call, False,
                              f"argument {refused[0]!r} differs (the judge said no)"))
        elif waiting is not None:
            still.append(Made(item.expected, item.call, None,
                              f"argument {waiting[0]!r} is the judge's to decide: {waiting[2]}"))
        else:
            made.append((item.expected, item.call))
    return Required(total, sorted(made), still)
