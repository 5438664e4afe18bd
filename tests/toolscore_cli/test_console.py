"""Files first: a closed stdout ends only the printing, quietly; every report file and the
receipt are written, and the exit code is the verdict's. Real pipes, real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, example_folder

pytestmark = pytest.mark.process  # real pipes closed by real readers

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
TOOLSCORE = f"{sys.executable} -m toolscore_cli"


@pytest.mark.parametrize(("gate", "code"), [([], 0), (["--fail-under", "0.9"], 1)])
def test_a_pipe_closed_before_the_verdict(tmp_path: Path, gate: list[str], code: int) -> None:
    """The reader is gone before anything is printed: every write to stdout fails."""
    folder = example_folder(tmp_path)
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "toolscore_cli", "eval", "gold.json", "trace.json",
             "--json", "out.json", "--markdown", "out.md", "--receipt", "run.receipt.json",
             *gate], cwd=folder, stdout=write, stderr=subprocess.PIPE, env=ENV, timeout=120,
            text=True)
    finally:
        os.close(write)
    assert done.returncode == code, done.stderr
    assert done.stderr == ""
    assert json.loads((folder / "out.json").read_text())["summary"]
    assert (folder / "out.md").read_text().startswith("#")
    assert json.loads((folder / "run.receipt.json").read_text())["kind"] == "toolscore.evaluation"


def test_head_1(tmp_path: Path) -> None:
    folder = example_folder(tmp_path)
    done = subprocess.run(
        f"{TOOLSCORE} eval gold.json trace.json --json out.json --receipt run.receipt.json "
        "| head -1; echo \"exit ${PIPESTATUS[0]}\"", shell=True, executable="/bin/bash",
        cwd=folder, capture_output=True, text=True, env=ENV, timeout=120)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Score 49.9% F")
    assert lines[-1] == "exit 0"
    assert done.stderr == ""
    assert (folder / "out.json").is_file() and (folder / "run.receipt.json").is_file()


@pytest.mark.parametrize(("command", "written"), [
    (["verify", "run.receipt.json", "--json", "v.json"], ["v.json"]),
    (["regrade", "run.receipt.json", "--gold", "contract.json", "--json", "r.json",
      "--receipt-dir", "v2"], ["r.json", "v2/run.receipt.json"]),
])
def test_other_commands_write_their_files_past_a_closed_pipe(
        tmp_path: Path, command: list[str], written: list[str]) -> None:
    folder = example_folder(tmp_path)
    subprocess.run([sys.executable, "-m", "toolscore_cli", "eval", "gold.json", "trace.json",
                    "--receipt", "run.receipt.json"], cwd=folder, env=ENV, check=True,
                   capture_output=True, timeout=120)
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "toolscore_cli", *command], cwd=folder,
                              stdout=write, stderr=subprocess.PIPE, env=ENV, timeout=120,
                              text=True)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (0, "")
    for name in written:
        assert (folder / name).is_file(), name
