"""The ``toolscore`` group: subcommands imported only when they run, errors as one line."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from toolscore_core.errors import ToolscoreError

# command name -> "module:attribute"; each module holds one command or command group.
COMMANDS: dict[str, str] = {
    "eval": "toolscore_cli.eval:eval_command",
    "formats": "toolscore_cli.formats:formats_command",
    "plugins": "toolscore_cli.plugins:plugins_command",
    "regrade": "toolscore_cli.regrade:regrade_command",
    "verify": "toolscore_cli.verify:verify_command",
    "mcp": "toolscore_cli.mcp:mcp_group",
    "agent": "toolscore_cli.agent:agent_group",
    "summary": "toolscore_cli.summary:summary_command",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, so ``--help`` stays fast."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, _SHORT_HELP.get(name, "")) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


# Shown by --help without importing every command module.
_SHORT_HELP: dict[str, str] = {
    "eval": "Evaluate a trace against a contract (gold file).",
    "formats": "List the trace formats and what each reads.",
    "plugins": "List the loaded plugins, their hooks and what each provides.",
    "regrade": "Re-score receipts or traces under a new contract or weights.",
    "verify": "Check that receipts and the inputs they bind are unchanged.",
    "mcp": "Record an MCP session through a proxy, planting faults and prompt injections.",
    "agent": "Run an agent over a study's tasks and trials (agent run), one JSON line per run.",
    "summary": "Summarize a runs file: pass rate, pass^k, score, evidence, time and cost.",
}


def _version() -> str:
    from toolscore_core.version import toolscore_version

    return toolscore_version()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=None, package_name="toolscore", prog_name="toolscore",
                      message="%(prog)s %(version)s")
def cli() -> None:
    """toolscore: deterministic, offline evaluation of LLM agents' tool calls."""


def main(argv: list[str] | None = None) -> Any:
    """Entry point: bad input is one line on stderr and exit code 2, never a traceback."""
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
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
