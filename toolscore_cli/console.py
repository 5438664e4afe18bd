"""The one place the CLI makes rich consoles."""

from __future__ import annotations

import os
import sys
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


PIPE_WIDTH = 120
"""Width used when output goes to a file or a pipe (a terminal uses its own width)."""


class PipeSafeStdout:
    """``sys.stdout`` (whichever it is at each write) for output a closed pipe may end.

    When the reader goes away (``toolscore eval ... | head -1``) the rest of the printing
    is dropped quietly, as ``git log | head`` does, and the command carries on: its report
    files and receipt are still written and its exit code is its verdict's. Stdout is then
    pointed at the null device so Python's last flush at exit has nowhere to fail.
    """

    def __init__(self) -> None:
        self._gone: object | None = None

    def write(self, text: str) -> int:
        stream = sys.stdout
        if stream is not self._gone:
            try:
                return stream.write(text)
            except BrokenPipeError:
                self._close(stream)
        return len(text)

    def flush(self) -> None:
        stream = sys.stdout
        if stream is not self._gone:
            try:
                stream.flush()
            except BrokenPipeError:
                self._close(stream)

    def _close(self, stream: object) -> None:
        self._gone = stream
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        except (OSError, ValueError, AttributeError):  # no descriptor (a test's capture)
            pass

    def isatty(self) -> bool:
        return sys.stdout.isatty()

    def fileno(self) -> int:
        return sys.stdout.fileno()

    @property
    def encoding(self) -> str:
        return getattr(sys.stdout, "encoding", None) or "utf-8"


STDOUT_STREAM = PipeSafeStdout()
"""Where the CLI prints what goes to stdout: the console verdict, and reports given ``-``."""


@cache
def stdout() -> Console:
    from rich.console import Console

    return Console(file=STDOUT_STREAM, highlight=False, emoji=False,  # type: ignore[arg-type]
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
