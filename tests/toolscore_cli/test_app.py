"""The command group: help lists every command without importing them all."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli
from toolscore_cli.app import COMMANDS


def test_help_lists_every_command() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    for name in COMMANDS:
        assert name in out.stdout


def test_version() -> None:
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.startswith("toolscore ")


@pytest.mark.parametrize("args", [
    ["eval", "{d}", "gold.json"], ["eval", "gold.json", "{d}"],
    ["eval", "gold.json", "trace.json", "--forbidden", "{d}"],
    ["eval", "gold.json", "trace.json", "--receipt", "{d}"],
    ["verify", "{d}"], ["regrade", "{d}"], ["regrade", "trace.json", "--gold", "{d}"],
    ["summary", "{d}"], ["agent", "run", "--spec", "{d}", "--agent", "true", "-o", "r.jsonl"],
    ["mcp", "record", "-o", "{d}", "--", "true"],
])
def test_a_directory_given_as_a_file_is_one_line(args: list[str], tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    filled = [a.replace("{d}", str(folder)) for a in args]
    out = run_cli(*filled, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    [line] = out.stderr.splitlines()
    assert line.startswith(f"error: {folder}: is a directory, given as ")
    assert line.endswith("; give a file")


@pytest.mark.parametrize("args", [
    ["eval", "{e}", "trace.json"], ["eval", "gold.json", "{e}"],
    ["eval", "gold.json", "trace.json", "--forbidden", "{e}"],
    ["eval", "gold.json", "trace.json", "--honesty-config", "{e}"],
    ["eval", "gold.json", "trace.json", "--injected", "{e}"],
    ["verify", "{e}"], ["regrade", "{e}", "--gold", "gold.json"],
    ["agent", "run", "--spec", "{e}", "--agent", "true", "-o", "r.jsonl"],
])
@pytest.mark.parametrize("name, text", [("empty.json", ""), ("blank.yaml", " \n\n")])
def test_an_empty_file_says_it_is_empty(args: list[str], name: str, text: str,
                                        tmp_path: Path) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "gold.json").write_text('[{"tool": "a"}]', encoding="utf-8")
    (tmp_path / "trace.json").write_text('{"calls": [{"tool": "a"}]}', encoding="utf-8")
    out = run_cli(*[a.replace("{e}", name) for a in args], cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr == (f"error: {name}: the file is empty; check the path, or that "
                          "whatever writes it has finished\n")


def test_python_errors_name_keywords_and_the_cli_names_flags(tmp_path: Path) -> None:
    import toolscore
    from toolscore_core.errors import InputError

    with pytest.raises(InputError) as caught:
        toolscore.evaluate([{"tool": "a"}], [{"tool": "a"}], weights={"speed": 1.0})
    assert str(caught.value).startswith("weights=: unknown weight 'speed'; use one of ")
    with pytest.raises(InputError) as caught:
        toolscore.run_study({"study": "s", "tasks": {"t": {"prompt": "p", "expected": []}}},
                            lambda prompt: [], trials=0)
    assert str(caught.value) == "trials=: trials must be at least 1, not 0"
    (tmp_path / "gold.json").write_text('[{"tool": "a"}]', encoding="utf-8")
    (tmp_path / "trace.json").write_text('{"calls": [{"tool": "a"}]}', encoding="utf-8")
    out = run_cli("eval", "gold.json", "trace.json", "--weight", "speed=1", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("error: --weight: unknown weight 'speed'; use one of ")
    out = run_cli("eval", "gold.json", "trace.json", "--format", "nope", cwd=tmp_path)
    assert out.stderr.startswith("error: --format: unknown trace format 'nope'")


FORKED = """
import os, signal, time
from toolscore_cli import app
signal.signal(signal.SIGTERM, app._terminated)
app._OWNER.append(os.getpid())
pid = os.fork()
if pid == 0:
    time.sleep(30)
    os._exit(0)
time.sleep(0.2)
os.kill(pid, signal.SIGTERM)
_, status = os.waitpid(pid, 0)
print(os.WIFSIGNALED(status) and os.WTERMSIG(status))
"""


@pytest.mark.process  # a forked worker and SIGTERM
def test_a_forked_worker_dies_of_sigterm_as_before() -> None:
    """The entry point turns SIGTERM into an exception (temp files are removed); a process
    pool's forked worker that inherits the handler still dies of the signal, quietly."""
    done = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert (done.stdout, done.stderr) == (f"{int(signal.SIGTERM)}\n", "")
