"""Whole-list passes in cache-sized batches: the same answer as one pass, or None."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.batches import BATCH, in_batches


def _doubled(items: Sequence[int]) -> list[int] | None:
    return None if -1 in items else [2 * i for i in items]


@given(st.lists(st.integers(0, 9), max_size=3 * BATCH + 7))
def test_batches_join_to_the_whole(items: list[int]) -> None:
    assert in_batches(items, _doubled) == tuple(2 * i for i in items)


def test_a_refusing_batch_refuses_the_whole() -> None:
    items = [1] * (2 * BATCH + 3)
    items[BATCH + 5] = -1
    assert in_batches(items, _doubled) is None
    assert in_batches([], _doubled) == ()
