"""The one progress bar of the commands that show progress (``agent run``, the many-trace
``eval``, the regrade of a runs file): rich, on stderr, off with ``--no-progress``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from toolscore_cli import console

Advance = Callable[..., None]
"""``advance(steps=1, **fields)``: move the bar on and set the fields its status shows."""


@contextlib.contextmanager
def progress_bar(
    noun: str, total: float | None, *, disable: bool, status: str | None = None,
    count: bool = True, timing: bool = False, terminal_only: bool = True, **fields: Any,
) -> Iterator[Advance]:
    """A bar labelled ``noun`` over ``total`` steps; yields its ``advance``.

    ``status`` is a rich text column over the ``fields`` (``{task.fields[failing]}
    failing``); ``count`` shows ``done/total``; ``timing`` the time elapsed and left.
    With ``terminal_only`` the bar is drawn only when stderr is a terminal (as rich tells
    one: ``TTY_COMPATIBLE=1`` or ``FORCE_COLOR`` make one); otherwise its last state is
    printed once at the end, as a line of the log.
    """
    err = console.stderr()
    if disable or (terminal_only and not err.is_terminal):
        yield _still
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns: list[ProgressColumn | str] = [TextColumn(noun), BarColumn()]
    if count:
        columns.append(MofNCompleteColumn())
    if status is not None:
        columns.append(TextColumn(status))
    if timing:
        columns += [TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn()]
    progress = Progress(*columns, console=err, transient=False)
    task = progress.add_task(noun, total=total, **fields)

    def advance(steps: float = 1, **values: Any) -> None:
        progress.update(task, advance=steps, **values)

    with progress:
        yield advance


def _still(steps: float = 1, **values: Any) -> None:
    """The ``advance`` of a bar not shown."""
