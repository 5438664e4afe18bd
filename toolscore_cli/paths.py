"""The click type of a file argument: a folder given for a file is one line of bad input."""

from __future__ import annotations

import os
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
