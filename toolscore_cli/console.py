"""The one place the CLI makes rich consoles."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@cache
def stdout() -> Console:
    from rich.console import Console

    return Console(highlight=False)


@cache
def stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)
