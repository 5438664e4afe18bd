"""``toolscore formats``: the trace formats that can be read, what each reads, and from where."""

from __future__ import annotations

import json as jsonlib
from typing import Any

import click

from toolscore_cli import console
from toolscore_core.plugins import Registry


def format_table(registry: Registry) -> list[dict[str, Any]]:
    """One row per trace format: id, description, what it reads, and the plugin providing it."""
    return [
        {"id": fmt.id, "description": fmt.description, "reads": fmt.reads,
         "plugin": fmt.plugin.to_dict() if fmt.plugin else None}
        for fmt in registry.trace_formats.values()
    ]


def format_lines(rows: list[dict[str, Any]]) -> list[str]:
    """One line per format: its id and description, and the plugin's distribution when it is
    not toolscore itself."""
    width = max((len(row["id"]) for row in rows), default=0)
    lines = []
    for row in rows:
        plugin = row["plugin"] or {}
        origin = ""
        if plugin.get("distribution") != "toolscore":
            shipped = " ".join(str(v) for v in (plugin.get("distribution"),
                                                 plugin.get("version")) if v)
            origin = f"  [plugin {plugin.get('name', '?')}{': ' + shipped if shipped else ''}]"
        lines.append(f"{row['id']:<{width}}  {row['description']}{origin}")
    return lines


@click.command("formats")
@click.option("--long", "long_", is_flag=True,
              help="Also show what each format reads and the plugin that provides it.")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON (what --long shows).")
def formats_command(long_: bool, as_json: bool) -> None:
    """List the trace formats --format accepts, one line each (auto picks the one that claims
    the file)."""
    from toolscore_core.plugins import default_registry

    rows = format_table(default_registry())
    if as_json:
        click.echo(jsonlib.dumps(rows, indent=2, sort_keys=True, ensure_ascii=False))
        return
    if not long_:
        for line in format_lines(rows):
            click.echo(line)
        return
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", show_lines=True)
    table.add_column("Format", no_wrap=True)
    table.add_column("Reads", ratio=3)
    table.add_column("Plugin", ratio=1, overflow="fold")
    for row in rows:
        plugin = row["plugin"] or {}
        table.add_row(row["id"], f"{row['description']}\n{row['reads']}",
                      f"{plugin.get('name', '')}\n{plugin.get('distribution') or ''} "
                      f"{plugin.get('version') or ''}".rstrip())
    console.stdout().print(table)
