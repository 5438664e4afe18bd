"""Which required calls were made with their arguments: what required-calls and
required_call_recall both ask."""

from __future__ import annotations

import weakref
from typing import NamedTuple

from toolscore import EvaluationContext, arguments_differ


class Made(NamedTuple):
    """Whether one required expected call was made, with its arguments (a tuple: one per
    required call of every evaluation)."""

    expected: int
    """The expected call's index."""
    call: int | None
    """The call that is it; when it was not made, the call of its tool paired with it (made
    with other arguments), or None."""
    made: bool | None
    """True: made with its arguments; False: not; None: only the judge can tell (a
    ``$judge`` argument without a verdict)."""
    why: str | None = None
    """Why not, or why undecided: the argument that differs, or the judge's silence."""


_new_made = tuple.__new__


def required_made(context: EvaluationContext) -> tuple[Made, ...]:
    """Each required expected call, in order: made with its arguments or not. A call that
    differs only in ``$judge`` arguments is made as the judge rules. Found once per
    evaluation: the check and the metric both ask, in turn, of the same context."""
    last = _LAST[0]
    if last is not None and last[0]() is context:
        return last[1]
    found = tuple(_required_made(context))
    _LAST[0] = (weakref.ref(context), found)
    return found


_LAST: list[tuple[weakref.ref[EvaluationContext], tuple[Made, ...]] | None] = [None]
"""The last context asked and its answer (a weak reference: a context is not kept alive;
unhashable, it cannot key a dict)."""


def _required_made(context: EvaluationContext) -> list[Made]:
    expected, calls = context.expected, context.calls
    exact = context.made_exactly
    found: list[Made] = []
    judged: list[tuple[int, int]] = []
    for i, call in enumerate(expected):
        if not call.required:
            continue
        j = exact.get(i)
        if j is not None:  # most calls: built as a plain tuple, without Made's Python __new__
            found.append(_new_made(Made, (i, j, True, None)))
            continue
        near = context.paired.get(i)
        if near is None:
            found.append(Made(i, None, False))
            continue
        why = arguments_differ(call, calls[near], except_judged=True)
        if why is None:
            judged.append((i, near))
            found.append(Made(i, near, None))
        else:
            found.append(Made(i, near, False, why))
    if judged:
        found = _as_ruled(context, found)
    return found


def _as_ruled(context: EvaluationContext, found: list[Made]) -> list[Made]:
    # Imported here: a contract without $judge loads none of the judge.
    from toolscore import rulings

    by_pair: dict[tuple[int, int], list[tuple[str, str | None, str]]] = {}
    for ruling in rulings(context):
        by_pair.setdefault((ruling.expected, ruling.call), []).append(
            (ruling.argument, ruling.verdict, ruling.why))
    out = []
    for item in found:
        if item.made is not None or item.call is None:
            out.append(item)
            continue
        ruled = by_pair.get((item.expected, item.call), [])
        refused = next((r for r in ruled if r[1] == "no"), None)
        waiting = next((r for r in ruled if r[1] is None), None)
        if refused is not None:
            out.append(Made(item.expected, item.call, False,
                            f"argument {refused[0]!r} differs (the judge said no)"))
        elif waiting is not None:
            out.append(Made(item.expected, item.call, None,
                            f"argument {waiting[0]!r} is the judge's to decide: {waiting[2]}"))
        else:
            out.append(Made(item.expected, item.call, True))
    return out
