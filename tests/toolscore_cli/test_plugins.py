"""``toolscore plugins``: every built-in listed as its own plugin."""

from __future__ import annotations

import json

from tests.helpers import run_cli
from toolscore_core.plugins import BUILTIN_PLUGINS


def test_every_builtin_is_listed_with_its_hooks_and_ids() -> None:
    out = run_cli("plugins", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    builtins = [r for r in rows if r["distribution"] == "toolscore"]
    assert [r["name"] for r in builtins] == list(BUILTIN_PLUGINS)
    by_name = {r["name"]: r for r in rows}
    native = by_name["toolscore_formats.native"]
    assert native["hooks"] == ["toolscore_register_trace_formats"]
    assert native["provides"] == {"trace_formats": ["toolscore"]}
    assert by_name["toolscore_checks.call_errors"]["provides"] == {"checks": ["call-errors"]}


def test_table_and_hook_filter() -> None:
    out = run_cli("plugins", "--hook", "toolscore_register_report_writers")
    assert out.returncode == 0
    assert "toolscore_formats.reports.console" in out.stdout
    assert "toolscore_checks.call_errors" not in out.stdout
