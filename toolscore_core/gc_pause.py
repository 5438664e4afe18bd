"""Pausing the cyclic garbage collector while toolscore builds many small objects."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the collector for the block, and restore it as it was.

    Reading a trace and evaluating it allocate many small objects and make no reference
    cycles, so collector passes over them are pure overhead, growing with the number of
    live objects (millions in a large trace).

    When the block ends, the objects it made join the oldest generation unexamined
    (``gc.freeze()`` then ``gc.unfreeze()``: two list moves) instead of making the next
    allocation collect them all; what is garbage among them is freed by reference count as
    it goes, and a cycle waits for the next full collection. A process that froze objects of
    its own (``gc.freeze()`` before forking) keeps them frozen: for it the collector is
    simply re-enabled.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
