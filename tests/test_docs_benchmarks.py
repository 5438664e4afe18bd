"""docs/benchmarks.md names every benchmark script, only scripts that exist, and no dates or
issue numbers."""

from __future__ import annotations

import re

from tests.conftest import ROOT

BENCHMARKS = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
SCRIPTS = sorted(path.name for path in (ROOT / "bench").glob("*.py")
                 if not path.name.startswith("_") and path.name != "synthetic.py")


def _commands() -> set[str]:
    return set(re.findall(r"`python bench/(\w+\.py)[^`]*`", BENCHMARKS))


def test_every_benchmark_script_has_a_row() -> None:
    missing = [name for name in SCRIPTS if name not in _commands()]
    assert not missing, f"docs/benchmarks.md has no row for bench/{missing}"


def test_every_command_runs_a_script_that_exists() -> None:
    assert _commands() <= set(SCRIPTS)


def test_no_dates_or_issue_numbers() -> None:
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b|#\d+\b|\bissue \d+", BENCHMARKS)
