"""Shared fixtures: example files, a CLI runner like the installed command, the test agent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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


ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
AGENTS = Path(__file__).parent / "agents"


PROCESS_ENV = ("PYTHONPATH", "TOOLSCORE_DISABLE_PLUGINS", "TOOLSCORE_LOAD_PLUGINS")
"""Variables that decide what a process loads once (its plugins): a call setting one runs a
real subprocess."""


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``toolscore`` as a user would: its ``main()`` with the arguments, stdin, stdout
    and stderr of a command (click's test isolation), in this process, so a call costs
    milliseconds instead of a Python start-up. With one of ``PROCESS_ENV`` in ``env``, a
    real subprocess (:func:`run_cli_process`)."""
    if env and any(name in env for name in PROCESS_ENV):
        return run_cli_process(*args, cwd=cwd, env=env, input=input)
    from click.testing import CliRunner

    from toolscore_cli.app import main

    before = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        with CliRunner().isolation(input=input, env=env) as (out, err, _):
            try:
                main(list(args))
                code: int = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            stdout, stderr = out.getvalue(), err.getvalue()
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(["toolscore", *args], code,
                                       stdout.decode("utf-8", "replace"),
                                       stderr.decode("utf-8", "replace"))


def run_cli_process(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
                    input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``toolscore`` in a real subprocess: where the process boundary is what is tested
    (start-up, entry points, signals)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "toolscore_cli", *args], cwd=cwd or ROOT, env=full_env,
        capture_output=True, text=True, input=input, timeout=120,
    )


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


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
