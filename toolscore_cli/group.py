"""The ``toolscore`` click group: subcommands imported only when they run."""

from __future__ import annotations

import importlib

import click

from toolscore_cli.commands import COMMANDS, SHORT_HELP
from toolscore_core.gc_pause import paused_gc


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, so ``--help`` stays fast."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        # The collector is paused while the command's modules are imported: they make
        # objects that live as long as the process, and no garbage to collect.
        with paused_gc():
            command: click.Command = getattr(importlib.import_module(module_name), attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, SHORT_HELP.get(name, "")) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=None, package_name="toolscore", prog_name="toolscore",
                      message="%(prog)s %(version)s")
def cli() -> None:
    """toolscore: deterministic, offline evaluation of LLM agents' tool calls."""
