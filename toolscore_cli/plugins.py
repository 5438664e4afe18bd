"""``toolscore plugins``: what is loaded, from where, and what each plugin provides."""

from __future__ import annotations

import json as jsonlib
from typing import Any

import click

from toolscore_cli import console
from toolscore_core.plugins import HOOKS, Registry


def plugin_table(registry: Registry) -> list[dict[str, Any]]:
    """One row per plugin: name, distribution, version, hooks, and ids by kind."""
    provides: dict[str, dict[str, list[str]]] = {}
    kinds = (("trace_formats", registry.trace_formats), ("checks", registry.checks),
             ("metrics", registry.metrics), ("report_writers", registry.report_writers),
             ("settings", registry.settings), ("run_importers", registry.run_importers))
    for kind, records in kinds:
        for record in records.values():
            owner = record.plugin.name if record.plugin else "unknown"
            provides.setdefault(owner, {}).setdefault(kind, []).append(record.id)
    return [
        {**info.to_dict(), "hooks": list(registry.hooks.get(info.name, ())),
         "provides": provides.get(info.name, {})}
        for info in registry.plugins
    ]


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.option("--hook", type=click.Choice(sorted(HOOKS)), help="Only plugins implementing it.")
def plugins_command(as_json: bool, hook: str | None) -> None:
    """List the loaded plugins with their version, hooks and the ids each provides."""
    from toolscore_core.plugins import default_registry

    rows = plugin_table(default_registry())
    if hook:
        rows = [r for r in rows if hook in r["hooks"]]
    if as_json:
        click.echo(jsonlib.dumps(rows, indent=2, sort_keys=True))
        return
    from rich.table import Table

    table = Table(show_header=True, header_style="bold")
    for column in ("Plugin", "Distribution", "Version", "Provides"):
        table.add_column(column, overflow="fold")
    for row in rows:
        provided = "; ".join(f"{kind.replace('_', ' ')}: {', '.join(ids)}"
                             for kind, ids in row["provides"].items())
        table.add_row(row["name"], row["distribution"] or "", row["version"] or "", provided)
    console.stdout().print(table)
