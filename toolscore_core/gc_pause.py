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
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
