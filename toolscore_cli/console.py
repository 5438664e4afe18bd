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


# The core names a Python keyword argument (``weights=``) where a value came from the
# caller; on the command line that value came from a flag, and the error names the flag.
FLAGS: dict[str, str] = {
    "weights=": "--weight", "trace_format=": "--format", "tasks=": "--tasks",
    "trials=": "--trials", "jobs=": "--jobs", "agent=": "--agent", "spec=": "--spec",
    "gold=": "--gold", "output=": "-o", "receipt_dir=": "--receipt-dir",
    "forbidden=": "--forbidden",
}


def error_line(exc: BaseException) -> str:
    """``error: <message>`` for bad input, with credentials masked and control characters
    shown as ``\\xNN``: messages quote the input (an unknown key, a value), which is untrusted."""
    from toolscore_core.errors import InputError
    from toolscore_formats.reports.text import visible
    from toolscore_secrets.redaction import redact_text

    if isinstance(exc, InputError) and exc.place in FLAGS:
        exc = InputError(exc.problem, file=exc.file, place=FLAGS[exc.place], fix=exc.fix)
    return f"error: {visible(redact_text(str(exc)))}"
