"""No command writes over what it reads: every output flag of every command given one of
the command's inputs (by its name, a symbolic link or a hard link) is one line and exit 2,
and the input is left byte for byte."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.helpers import AGENTS, example_folder
from tests.toolscore_cli.test_regrade import run

EVAL = ["eval", "gold.json", "trace.json", "--forbidden", "forbidden.json"]
CASES = {
    # command line with {out} for the output, the input it names, the flag named
    "eval --json": ([*EVAL, "--json", "{out}"], "trace.json", "--json"),
    "eval --markdown": ([*EVAL, "--markdown", "{out}"], "gold.json", "--markdown"),
    "eval --html": ([*EVAL, "--html", "{out}"], "trace.json", "--html"),
    "eval --junit": ([*EVAL, "--junit", "{out}"], "forbidden.json", "--junit"),
    "eval --report": ([*EVAL, "--report", "markdown={out}"], "trace.json", "--markdown"),
    "eval --receipt": ([*EVAL, "--receipt", "{out}"], "trace.json", "--receipt"),
    "eval many --json": (["eval", "gold.json", "trace.json", "contract.json", "--json",
                          "{out}"], "contract.json", "--json"),
    "eval many --junit": (["eval", "gold.json", "trace.json", "contract.json", "--junit",
                           "{out}"], "gold.json", "--junit"),
    "regrade --json": (["regrade", "run.receipt.json", "--json", "{out}"], "run.receipt.json",
                       "--json"),
    "regrade --json over a bound input": (["regrade", "run.receipt.json", "--json", "{out}"],
                                          "trace.json", "--json"),
    "regrade -o": (["regrade", "runs.jsonl", "--spec", "study.yaml", "-o", "{out}"],
                   "runs.jsonl", "-o"),
    "regrade -o over the spec": (["regrade", "runs.jsonl", "--spec", "study.yaml", "-o",
                                  "{out}"], "study.yaml", "-o"),
    "regrade runs --json over the new runs": (
        ["regrade", "runs.jsonl", "--spec", "study.yaml", "-o", "v2.jsonl", "--json", "{out}"],
        "v2.jsonl", "--json"),
    "summary --json": (["summary", "runs.jsonl", "--json", "{out}"], "runs.jsonl", "--json"),
    "summary --markdown": (["summary", "runs.jsonl", "--markdown", "{out}"], "runs.jsonl",
                           "--markdown"),
    "summary --html": (["summary", "runs.jsonl", "--html", "{out}"], "runs.jsonl", "--html"),
    "summary --junit": (["summary", "runs.jsonl", "--junit", "{out}"], "runs.jsonl",
                        "--junit"),
    "verify --json": (["verify", "run.receipt.json", "--json", "{out}"], "run.receipt.json",
                      "--json"),
    "agent run -o": (["agent", "run", "--spec", "study.yaml", "--agent", "{agent}", "-o",
                      "{out}"], "study.yaml", "-o"),
    "agent run --json over the runs file": (
        ["agent", "run", "--spec", "study.yaml", "--agent", "{agent}", "-o", "new.jsonl",
         "--json", "{out}"], "new.jsonl", "--json"),
    "mcp record -o": (["mcp", "record", "-o", "{out}", "--inject-file", "plan.json", "--",
                       sys.executable, "-c", "pass"], "plan.json", "-o"),
    "mcp record --injected": (["mcp", "record", "-o", "s.jsonl", "--injected", "{out}",
                               "--inject-file", "plan.json", "--", sys.executable, "-c",
                               "pass"], "plan.json", "--injected"),
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Path:
    folder = example_folder(tmp_path)
    monkeypatch.chdir(folder)
    shutil.copy(AGENTS / "study.yaml", folder / "study.yaml")
    (folder / "plan.json").write_text('{"faults": [{"tool": "x"}]}\n')
    code, _, err = run([*EVAL, "--receipt", "run.receipt.json"], capsys)
    assert code == 0, err
    (folder / "runs.jsonl").write_text("")
    (folder / "new.jsonl").write_text("")
    (folder / "v2.jsonl").write_text("")
    return folder


@pytest.mark.parametrize("how", ["name", "symlink", "hardlink"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_no_output_over_an_input(folder: Path, capsys: pytest.CaptureFixture[str], case: str,
                                 how: str) -> None:
    template, target, flag = CASES[case]
    out = target
    if how == "symlink":
        out = "link-to-input"
        os.symlink(target, folder / out)
    elif how == "hardlink":
        out = "hard-link-to-input"
        os.link(folder / target, folder / out)
    agent = f"{sys.executable} {AGENTS / 'plan_agent.py'}"
    args = [a.replace("{out}", out).replace("{agent}", agent) for a in template]
    before = (folder / target).read_bytes()
    code, _, err = run(args, capsys)
    assert code == 2, err
    assert err.startswith(f"error: {out}: {flag}: {flag} would overwrite the "), err
    assert err.rstrip("\n").endswith("; write it to another path") and err.count("\n") == 1
    assert (folder / target).read_bytes() == before


def test_paths_to_no_file_yet_are_the_same_once_resolved(tmp_path: Path) -> None:
    from toolscore_cli.paths import refuse_outputs_over_inputs
    from toolscore_core.errors import InputError

    (tmp_path / "out").mkdir()
    missing = tmp_path / "later.json"
    with pytest.raises(InputError, match="--json would overwrite the trace"):
        refuse_outputs_over_inputs([("--json", tmp_path / "out" / ".." / "later.json")],
                                   [("trace", missing)])
    (tmp_path / "dangling").symlink_to(missing)
    with pytest.raises(InputError, match="--json would overwrite the trace"):
        refuse_outputs_over_inputs([("--json", tmp_path / "dangling")], [("trace", missing)])
    (tmp_path / "elsewhere").symlink_to(tmp_path / "out")
    with pytest.raises(InputError, match="--json would overwrite the trace"):
        refuse_outputs_over_inputs([("--json", tmp_path / "elsewhere" / "r.json")],
                                   [("trace", tmp_path / "out" / "r.json")])
    refuse_outputs_over_inputs([("--json", tmp_path / "out" / "r.json")],
                               [("trace", missing), ("gold file", tmp_path / "out")])
