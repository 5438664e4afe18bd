"""The README's exit-code table has a row for every command the CLI has."""

from __future__ import annotations

import re

import click

from tests.conftest import ROOT
from toolscore_cli.group import cli

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _commands(group: click.Group, prefix: str = "") -> list[str]:
    """Every command a user runs, as typed after ``toolscore`` (``runs import``)."""
    names: list[str] = []
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, f"toolscore {prefix}{name} does not load"
        if isinstance(command, click.Group):
            names += _commands(command, f"{prefix}{name} ")
        else:
            names.append(f"{prefix}{name}")
    return names


def _exit_code_rows() -> list[str]:
    """The commands named in the first column of the README's exit-code table."""
    section = re.search(r"^## Exit codes\n(.*?)(?=^## )", README, re.S | re.M)
    assert section, "README.md has no '## Exit codes' section"
    rows = [line for line in section.group(1).splitlines() if line.startswith("| `")]
    named: list[str] = []
    for row in rows:
        named += re.findall(r"`([^`]+)`", row.split("|")[1])
    return named


def test_the_exit_code_table_has_a_row_for_every_command() -> None:
    named = _exit_code_rows()
    missing = [command for command in _commands(cli) if command not in named]
    assert not missing, f"README.md's exit-code table has no row for: {', '.join(missing)}"


def test_the_exit_code_table_names_only_commands_that_exist() -> None:
    commands = set(_commands(cli))
    unknown = [name for name in _exit_code_rows() if name not in commands]
    assert not unknown, f"README.md's exit-code table names no such command: {unknown}"
