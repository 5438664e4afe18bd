"""Shared fixtures: the test agent command and its study specs."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

AGENTS = Path(__file__).parent / "agents"


@pytest.fixture
def study_dir(tmp_path: Path) -> Path:
    """A folder holding the test agent and its study spec (study.yaml)."""
    for name in ("plan_agent.py", "study.yaml"):
        shutil.copy(AGENTS / name, tmp_path / name)
    return tmp_path


@pytest.fixture
def agent_command() -> list[str]:
    return [sys.executable, str(AGENTS / "plan_agent.py")]
