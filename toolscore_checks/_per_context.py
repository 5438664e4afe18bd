"""Answers that several checks and metrics ask of one evaluation, found once: they run in
turn on the same context, so the answer for the last context asked is kept."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import wraps
from typing import TypeVar

from toolscore import EvaluationContext

T = TypeVar("T")


def once_per_context(find: Callable[[EvaluationContext], T]) -> Callable[[EvaluationContext], T]:
    """``find``, kept for the last context asked (by a weak reference: a context is not kept
    alive; unhashable, it cannot key a dict)."""
    last: list[tuple[weakref.ref[EvaluationContext], T] | None] = [None]

    @wraps(find)
    def asked(context: EvaluationContext) -> T:
        kept = last[0]
        if kept is not None and kept[0]() is context:
            return kept[1]
        found = find(context)
        last[0] = (weakref.ref(context), found)
        return found

    return asked
