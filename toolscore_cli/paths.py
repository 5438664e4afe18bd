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
    ``outputs`` are (flag, path) and ``inputs`` (what, path); ``-`` and None are skipped.
    Each path is looked at once, so a batch of thousands of traces and receipts costs a
    stat per file, not one per pair."""
    folders: dict[str, str] = {}
    index: dict[tuple[Any, ...], tuple[int, str]] = {}
    seen: set[str | os.PathLike[str]] = set()  # one contract of a batch is given per trace
    for order, (what, source) in enumerate(inputs):
        if source is not None and source != "-" and source not in seen:
            seen.add(source)
            key = _identity(source, folders)
            if key is not None and key not in index:
                index[key] = (order, what)
    for flag, path in outputs:
        if path is None or path == "-":
            continue
        key = _identity(path, folders)
        found = None if key is None else index.get(key)
        if found is not None:
            raise InputError(f"{flag} would overwrite the {found[1]} this command reads",
                             file=os.fspath(path), place=flag, fix="write it to another path")


def _identity(path: str | os.PathLike[str], folders: dict[str, str]) -> tuple[Any, ...] | None:
    """What makes two paths the same file: an existing file's device and inode (links of
    either kind followed); a path to no file yet, the path once links are resolved (it can
    only be the same as another path to no file). None when the path cannot be looked at
    (a NUL byte, a folder that cannot be read): the reader says so. ``folders`` keeps the
    resolved folders, as a batch's receipts share one."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        try:
            return ("path", _resolved(os.fspath(path), folders))
        except (OSError, ValueError):
            return None
    except (OSError, ValueError):
        return None
    return ("file", status.st_dev, status.st_ino)


def _resolved(path: str, folders: dict[str, str]) -> str:
    """``os.path.realpath`` of a path to no file, its folder resolved once per call."""
    folder, name = os.path.split(path)
    if name in ("", ".", "..") or os.path.islink(path):  # realpath follows a dangling link
        return os.path.realpath(path)
    if folder not in folders:
        folders[folder] = os.path.realpath(folder or ".")
    return os.path.join(folders[folder], name)
