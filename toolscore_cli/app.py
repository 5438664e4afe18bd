"""The ``toolscore`` command: errors as one line and an exit code, never a traceback.

The click group itself is in ``toolscore_cli.group``; its subcommands are imported only
when they run.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import click

from toolscore_cli.commands import COMMANDS, SHORT_HELP
from toolscore_cli.console import error_line
from toolscore_cli.group import LazyGroup, cli
from toolscore_core.errors import ToolscoreError

__all__ = ["COMMANDS", "SHORT_HELP", "LazyGroup", "cli", "main"]


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that what is being written is cleaned up
    (temp files removed) before the process dies of the signal."""


_OWNER: list[int] = []
"""The process that installed the SIGTERM handler (a forked worker inherits it)."""


def _terminated(signum: int, frame: Any) -> None:
    if _OWNER and os.getpid() != _OWNER[-1]:  # a worker of a process pool: die as before
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated


def main(argv: list[str] | None = None) -> Any:
    """Entry point: bad input is one line on stderr and exit code 2, never a traceback."""
    watching = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    if watching:  # commands with their own SIGTERM handling replace this one meanwhile
        try:
            signal.signal(signal.SIGTERM, _terminated)
            _OWNER.append(os.getpid())
        except ValueError:  # not the main thread (an embedding program's): left alone
            watching = False
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
    except Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)  # die of it, as without the handler
        raise
    finally:
        if watching:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _OWNER.pop()
    sys.exit(code if isinstance(code, int) else 0)
