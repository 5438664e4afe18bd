"""``toolscore eval --judge``: the verdicts recorded beside the receipt, and ``verify
--recompute`` and ``regrade`` reproducing them with no model to ask."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES, run_cli
from tests.toolscore_judge.chat_server import ChatServer, Reply
from toolscore_core.regrade import regrade

KEY = "sk-test-judge-0123456789abcdef"
ENV = {"TOOLSCORE_JUDGE_API_KEY": KEY, "OPENAI_API_KEY": ""}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("gold.json", "trace.json"):
        shutil.copy(EXAMPLES / "judge" / name, tmp_path / name)
    return tmp_path


def judged_receipt(folder: Path) -> Path:
    script = [Reply("yes: the answer says the flight is booked."),
              Reply("no: the reference says the booking failed.")]
    with ChatServer(script).running() as server:
        out = run_cli("eval", "gold.json", "trace.json", "--judge", "judge-model-1",
                      "--judge-base-url", server.url, "--receipt", "run.receipt.json",
                      cwd=folder, env=ENV)
    assert out.returncode == 0, out.stderr
    assert "claimed-success: decided by the judge judge-model-1: the answer claims" in out.stdout
    assert KEY not in out.stdout + out.stderr
    return folder / "run.receipt.json"


def test_a_judged_receipt_reproduces_with_no_model_to_ask(folder: Path) -> None:
    path = judged_receipt(folder)
    receipt = json.loads(path.read_text())
    assert receipt["settings"]["judge_model"] == "judge-model-1"
    assert receipt["inputs"]["judgments"]["path"] == "run.judgments.jsonl"
    assert KEY not in path.read_text()
    # The server is gone: verify and regrade read the verdicts from the judgments file.
    out = run_cli("verify", "--recompute", "run.receipt.json", cwd=folder)
    assert out.returncode == 0, out.stdout
    assert "ok (receipt and 3 input files match)" in out.stdout
    assert f"reproduced: record_sha256 {receipt['result']['record_sha256']} matches" in out.stdout
    out = run_cli("regrade", "run.receipt.json", "--json", "-", cwd=folder)
    after = json.loads(out.stdout)["regrade"][0]["after"]
    assert after["record_sha256"] == receipt["result"]["record_sha256"]


def test_a_regrade_under_a_new_contract_reuses_the_verdicts(folder: Path) -> None:
    path = judged_receipt(folder)
    gold = json.loads((folder / "gold.json").read_text())
    gold["expected"].append({"tool": "send_email", "required": False})
    (folder / "new.json").write_text(json.dumps(gold))
    result = regrade(path, gold=folder / "new.json")
    claimed = result.result.evidence.get("claimed-success")
    assert claimed is not None and claimed.status == "fail"
    assert claimed.reason.startswith("decided by the judge judge-model-1:")
    assert result.receipt["inputs"]["judgments"] == json.loads(path.read_text())["inputs"][
        "judgments"]


def test_a_judgment_missing_from_the_file_is_unknown(folder: Path) -> None:
    judged_receipt(folder)
    (folder / "run.judgments.jsonl").write_text("")
    out = run_cli("verify", "--recompute", "run.receipt.json", cwd=folder)
    assert out.returncode == 1
    assert "input judgments (run.judgments.jsonl): size " in out.stdout
    out = run_cli("regrade", "--no-verify", "run.receipt.json", "--receipt-dir", "new",
                  cwd=folder)
    assert out.returncode == 0, out.stderr
    new = json.loads((folder / "new" / "run.receipt.json").read_text())
    assert new["settings"]["judge_model"] == "judge-model-1"
    out = run_cli("eval", "gold.json", "trace.json", cwd=folder)
    assert "unknown claimed-success: the final answer is not in English" in out.stdout


def test_judge_mistakes_are_one_line_and_exit_2(folder: Path) -> None:
    base = ("eval", "gold.json", "trace.json")
    cases = [
        ((*base, "--judge", "m"), ENV, "error: --judge: --judge needs somewhere to record its "
         "verdicts; add --judgments FILE or --receipt FILE"),
        ((*base, "--judge", "m", "--judgments", "j.jsonl"),
         {"TOOLSCORE_JUDGE_API_KEY": "", "OPENAI_API_KEY": ""},
         "error: --judge: --judge needs an API key in TOOLSCORE_JUDGE_API_KEY (or "
         "OPENAI_API_KEY); export TOOLSCORE_JUDGE_API_KEY=..."),
        ((*base, "--judgments", "j.jsonl"), ENV,
         "error: --judgments: --judgments needs --judge; add --judge MODEL, or leave it out"),
    ]
    for args, env, message in cases:
        out = run_cli(*args, cwd=folder, env=env)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.startswith(message) and out.stderr.count("\n") == 1
    assert not (folder / "j.jsonl").exists()


def test_without_the_judge_extra_the_error_names_it(folder: Path) -> None:
    # An openai package that cannot be imported stands for one that is not installed.
    shadow = folder / "shadow" / "openai"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named openai')\n")
    out = run_cli("eval", "gold.json", "trace.json", "--judge", "m", "--judgments", "j.jsonl",
                  cwd=folder, env={**ENV, "PYTHONPATH": str(folder / "shadow")})
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == ("error: --judge: --judge needs the openai SDK, which is not "
                          "installed; install the judge extra: pip install 'toolscore[judge]'\n")


def test_a_damaged_judgments_file_is_bad_input(folder: Path) -> None:
    path = judged_receipt(folder)
    judgments = folder / "run.judgments.jsonl"
    lines = judgments.read_text().splitlines()
    judgments.write_text(lines[0] + "\n" + lines[1][:40] + "\n")
    problem = ("run.judgments.jsonl: line 2: not a JSON line; give a judgments file written by "
               "`toolscore eval --judge` (one judgment a line)")
    out = run_cli("eval", "gold.json", "trace.json", "--judge", "judge-model-1",
                  "--judgments", "run.judgments.jsonl", cwd=folder, env=ENV)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"error: {problem}\n"
    # A regrade told to go on regardless cannot read the verdicts: unknown, never a pass.
    claimed = regrade(path, verify=False).result.evidence.get("claimed-success")
    assert claimed is not None and claimed.status == "unknown"
    assert claimed.reason == ("the final answer is not in English (detected fr); the success "
                              "words are English; the judgments file cannot be read (line 2: "
                              "not a JSON line)")
