"""The collector pause around reading and evaluating: restored as it was, and harmless to
a host process's frozen objects and to cycles."""

from __future__ import annotations

import gc
import weakref

from toolscore_core.gc_pause import paused_gc


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_the_collector_is_restored_as_it_was() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # a caller that paused it keeps it paused
    finally:
        gc.enable()


def test_objects_made_in_the_block_are_not_collected_on_the_next_allocation() -> None:
    """They join the oldest generation unexamined: the allocations after the block do not
    start a collection over the thousands of objects it left young."""
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        with paused_gc():
            made = [[n] for n in range(2_000)]
        after = [[n] for n in range(100)]
    finally:
        gc.callbacks.remove(seen)
    assert collections == []
    assert any(obj is made[0] for obj in gc.get_objects(generation=2))
    assert len(after) == 100


def test_a_hosts_frozen_objects_stay_frozen() -> None:
    """A process that froze objects before forking (so that its children share their
    pages) finds them still frozen: in no generation the collector examines."""
    kept = [_Node()]
    gc.freeze()
    try:
        with paused_gc():
            [[n] for n in range(100)]
        examined = (gc.get_objects(generation=0) + gc.get_objects(generation=1)
                    + gc.get_objects(generation=2))
        assert not any(obj is kept for obj in examined)
    finally:
        gc.unfreeze()


def test_a_cycle_made_in_the_block_is_still_collected() -> None:
    with paused_gc():
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
    del a, b
    assert gone() is not None  # a cycle is not freed by reference count
    gc.collect()
    assert gone() is None
