"""``toolscore eval`` without importing click, when its arguments are plain.

click takes about a sixth of a small evaluation's wall time just to import. This module
parses ``eval``'s arguments the way click's parser does, but only when they are plain:
known long options, values, the two paths. Anything else (``--help``, an unknown or
misspelt option, a missing value, a flag given a value, a path that is a folder or cannot
be read, ``--``, too few or too many paths, shell completion) returns None, and the caller
hands the arguments to click, which answers exactly as it always did.
``tests/toolscore_cli/test_fast_eval.py`` holds this table to the click command's options.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import Any

FLAG, TEXT, MANY, PATH, OPTIONAL = "flag", "text", "many", "path", "optional"

OPTIONS: dict[str, tuple[str, str]] = {
    "--format": ("trace_format", TEXT),
    "--explain-format": ("explain_format", FLAG),
    "--weight": ("weights", MANY),
    "--fail-under": ("fail_under", TEXT),
    "--json": ("json_path", TEXT),
    "--markdown": ("markdown_path", TEXT),
    "--html": ("html_path", TEXT),
    "--junit": ("junit_path", TEXT),
    "--report": ("reports", MANY),
    "--forbidden": ("forbidden_path", PATH),
    "--final-answer": ("final_answer", TEXT),
    "--injected": ("injected_path", PATH),
    "--honesty-config": ("honesty_path", PATH),
    "--validate-side-effects": ("validate_side_effects", FLAG),
    "--fail-on-violations": ("fail_on_violations", FLAG),
    "--fail-on-evidence": ("fail_on_evidence", OPTIONAL),
    "--strict-unknown": ("strict_unknown", FLAG),
    "--receipt": ("receipt_path", PATH),
}
"""``eval``'s options: option -> (parameter, kind). GOLD and TRACE are paths too."""

COMPLETE_VAR = "_TOOLSCORE_COMPLETE"
"""click's shell-completion switch for the ``toolscore`` program."""


def parse_eval_args(args: list[str]) -> dict[str, Any] | None:
    """``eval``'s parameters from ``args`` (after ``eval``), or None to let click parse."""
    params: dict[str, Any] = {}
    many: dict[str, list[str]] = {}
    paths: list[str] = []
    positional: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            return None
        if not (arg[:1] == "-" and len(arg) > 1):
            positional.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name not in OPTIONS:
            return None
        dest, kind = OPTIONS[name]
        if kind == FLAG:
            if eq:
                return None
            params[dest] = True
            continue
        if kind == OPTIONAL and not eq:
            return None  # whether the next argument is its value is click's rule to apply
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        if kind == MANY:
            many.setdefault(dest, []).append(value)
        else:
            params[dest] = value
            if kind == PATH:
                paths.append(value)
    if len(positional) != 2:
        return None
    for dest, values in many.items():
        params[dest] = tuple(values)
    # the last value of a repeated path option is the one click checks, but checking all
    # that were given only sends more cases to click
    if not all(_plain_file_path(p) for p in (*positional, *paths)):
        return None
    params["gold"], params["trace"] = positional
    return params


def _plain_file_path(path: str) -> bool:
    """Whether ``click.Path(dir_okay=False)`` takes ``path`` as it is (absent is fine)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # click.Path(exists=False) takes it as it is
    except ValueError:
        return False  # a NUL in the path: click's own error
    return not stat.S_ISDIR(mode) and os.access(path, os.R_OK)


def main(args: list[str]) -> None:
    """Run ``toolscore eval`` from ``args`` (after ``eval``) and exit; return if click must.

    Exits as ``toolscore_cli.app.main`` does on the click path: the command's code, one
    ``error:`` line and 2 for bad input, 130 when interrupted, 1 on a closed pipe.
    """
    if COMPLETE_VAR in os.environ:
        return None
    params = parse_eval_args(args)
    if params is None:
        return None
    from toolscore_core.errors import ToolscoreError

    try:
        from toolscore_cli.eval_run import run_eval

        code = run_eval(**params)
    except (EOFError, KeyboardInterrupt):
        import click

        click.echo(file=sys.stderr)
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except ToolscoreError as exc:
        import click

        from toolscore_cli.console import error_line

        click.echo(error_line(exc), err=True)
        sys.exit(2)
    except OSError as exc:
        import errno

        if exc.errno != errno.EPIPE:
            raise
        import click.utils  # as click does: no BrokenPipeError when Python flushes at exit

        name = "_PacifyFlushWrapper" if hasattr(click.utils, "_PacifyFlushWrapper") else (
            "PacifyFlushWrapper")  # its name before click 8.2
        wrapper = getattr(click.utils, name)
        sys.stdout = wrapper(sys.stdout)
        sys.stderr = wrapper(sys.stderr)
        sys.exit(1)
    sys.exit(code)
