"""Whole-list passes in batches that stay in the CPU's cache.

A pass over 100,000 scattered objects costs about twice as much per object as a pass over
1,000 (each object is a cache miss). Code that makes several passes over a long list (one
C-level ``map`` per field, say) makes them over one batch of ``BATCH`` items at a time, so
time stays linear in the length of the list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

BATCH = 512
"""Items per batch: a few hundred kilobytes of objects."""

T = TypeVar("T")


def in_batches(items: Sequence[Any],
               read: Callable[[Sequence[Any]], Sequence[T] | None]) -> tuple[T, ...] | None:
    """``read`` of each batch of ``items``, joined; None as soon as a batch gives None."""
    if len(items) <= BATCH:
        whole = read(items)
        return None if whole is None else tuple(whole)
    out: list[T] = []
    for start in range(0, len(items), BATCH):
        part = read(items[start:start + BATCH])
        if part is None:
            return None
        out.extend(part)
    return tuple(out)
