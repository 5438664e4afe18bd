"""Shared fixtures: example files, a CLI runner like the installed command, the test agent."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import settings

pytest_plugins = ["pytester"]  # the pytest plugin's tests run pytest as its users do

# CI runs every property on the same examples each time (derandomized), so a red build
# is the code's doing, never the draw's; locally the examples stay random and find new
# cases. HYPOTHESIS_PROFILE=ci reproduces a CI run anywhere.
settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
HYPOTHESIS_PROFILE = os.environ.get(
    "HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI", "").lower() == "true" else "dev")
settings.load_profile(HYPOTHESIS_PROFILE)


def pytest_report_header() -> str:
    chosen = settings.get_profile(HYPOTHESIS_PROFILE)
    draws = "derandomized" if chosen.derandomize else "random"
    return f"hypothesis profile: {HYPOTHESIS_PROFILE} ({draws} examples)"


# The helpers live in tests/helpers.py (import them from there); these names are also
# importable from here.
from tests.helpers import (  # noqa: E402, F401
    AGENTS,
    EXAMPLES,
    ROOT,
    run_cli,
    run_cli_process,
    write_json,
)


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


@pytest.fixture
def study_dir(tmp_path: Path) -> Path:
    """A folder holding the test agent and its study spec (study.yaml)."""
    for name in ("plan_agent.py", "study.yaml"):
        shutil.copy(AGENTS / name, tmp_path / name)
    return tmp_path


@pytest.fixture
def agent_command() -> list[str]:
    return [sys.executable, str(AGENTS / "plan_agent.py")]
