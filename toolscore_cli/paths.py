"""The click type of a file argument: a folder given for a file is one line of bad input."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import click

from toolscore_core.errors import InputError


class FilePath(click.ParamType):
    """A path to a file (it need not exist yet); a folder is an InputError (one ``error:``
    line and exit 2, as for any bad input), not click's usage screen."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> str:
        path = os.fspath(value)
        if os.path.isdir(path):
            label = "a file"
            if param is not None:
                flag = max(param.opts, key=len)
                label = flag if flag.startswith("-") else param.human_readable_name
            raise InputError(f"is a directory, given as {label}", file=path, fix="give a file")
        return path


FILE = FilePath()


def refuse_outputs_over_inputs(
    outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
    inputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
) -> None:
    """An InputError (one line, exit 2) for the first output that is one of the command's
    inputs: the same file by any name (a symbolic link, a hard link, ``./trace.json``).
    ``outputs`` are (flag, path) and ``inputs`` (what, path); ``-`` and None are skipped."""
    given = [(what, path) for what, path in inputs if path is not None and path != "-"]
    for flag, path in outputs:
        if path is None or path == "-":
            continue
        for what, source in given:
            if _same_file(path, source):
                raise InputError(f"{flag} would overwrite the {what} this command reads",
                                 file=os.fspath(path), place=flag,
                                 fix="write it to another path")


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """The same file (links of either kind followed), or, when one does not exist yet, the
    same path once links are resolved."""
    try:
        try:
            return os.path.samefile(a, b)
        except FileNotFoundError:
            return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):  # no path at all (a NUL byte): the reader says so
        return False
