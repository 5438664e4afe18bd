"""The command group: help lists every command without importing them all."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import run_cli
from toolscore_cli.app import COMMANDS


def test_help_lists_every_command() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    for name in COMMANDS:
        assert name in out.stdout


def test_help_does_not_import_rich_yaml_or_the_engine() -> None:
    code = ("import sys; from toolscore_cli.app import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('rich', 'yaml', 'scipy', 'rapidfuzz', "
            "'toolscore_core.evaluation') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_version() -> None:
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.startswith("toolscore ")
