"""The one place the CLI makes rich consoles."""

from __future__ import annotations

import sys
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


PIPE_WIDTH = 120
"""Width used when output goes to a file or a pipe (a terminal uses its own width)."""


@cache
def stdout() -> Console:
    from rich.console import Console

    return Console(highlight=False, emoji=False,
                   width=None if sys.stdout.isatty() else PIPE_WIDTH)


@cache
def stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, emoji=False,
                   width=None if sys.stderr.isatty() else PIPE_WIDTH)
