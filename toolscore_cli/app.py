"""The ``toolscore`` command: errors as one line, click imported only when needed.

The click group itself is in ``toolscore_cli.group`` (``cli`` here too, on first use).
``toolscore eval`` with plain arguments runs without importing click at all
(``toolscore_cli.fast_eval``); everything else goes through the group.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from toolscore_cli.commands import COMMANDS, SHORT_HELP

if TYPE_CHECKING:
    from toolscore_cli.group import LazyGroup, cli

__all__ = ["COMMANDS", "SHORT_HELP", "LazyGroup", "cli", "main"]


def __getattr__(name: str) -> Any:
    if name in ("cli", "LazyGroup"):
        from toolscore_cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> Any:
    """Entry point: bad input is one line on stderr and exit code 2, never a traceback."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["eval"]:
        from toolscore_cli import fast_eval

        fast_eval.main(args[1:])  # exits, unless the arguments need click's parser
    import click

    from toolscore_cli.console import error_line
    from toolscore_cli.group import cli
    from toolscore_core.errors import ToolscoreError

    try:
        code = cli.main(args=argv, prog_name="toolscore", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except ToolscoreError as exc:
        click.echo(error_line(exc), err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
