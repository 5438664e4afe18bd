"""``toolscore verify`` as a user runs it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import example_folder, flip_byte, read_json, write_json
from tests.toolscore_cli.test_regrade import run


@pytest.fixture
def receipt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> Path:
    folder = example_folder(tmp_path)
    monkeypatch.chdir(folder)
    code, _, err = run(["eval", "gold.json", "trace.json", "--receipt", "run.receipt.json",
                        "--forbidden", "forbidden.json"], capsys)
    assert code == 0, err
    return folder / "run.receipt.json"


def test_ok(receipt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["verify", "run.receipt.json"], capsys)
    assert code == 0
    assert out == "run.receipt.json: ok (receipt and 3 input files match)\n"


def test_recompute_reproduces(receipt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["verify", "--recompute", "run.receipt.json"], capsys)
    digest = read_json(receipt)["result"]["record_sha256"]
    assert code == 0
    assert f"run.receipt.json: reproduced: record_sha256 {digest} matches" in out


def test_each_problem_is_one_line_and_exit_1(receipt: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    flip_byte(receipt.parent / "gold.json")
    (receipt.parent / "forbidden.json").unlink()
    code, out, _ = run(["verify", "run.receipt.json"], capsys)
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("run.receipt.json: input gold (gold.json): sha256 expected ")
    assert lines[1].startswith("run.receipt.json: input forbidden (forbidden.json): missing")


def test_edited_receipt(receipt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = read_json(receipt)
    data["settings"]["weights"]["argument_f1"] = 0.5
    write_json(receipt, data, indent=2)
    code, out, _ = run(["verify", "run.receipt.json", "--json", "-"], capsys)
    assert code == 1
    report = json.loads(out)
    subjects = [p["subject"] for p in report["receipts"][0]["problems"]]
    assert subjects == ["receipt_sha256", "settings.weights"]


def test_a_moved_folder_verifies(receipt: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    moved = tmp_path / "archive.d"
    shutil.copytree(receipt.parent, moved)
    shutil.rmtree(receipt.parent)
    code, out, _ = run(["verify", "--recompute", str(moved / "run.receipt.json")], capsys)
    assert code == 0, out
    assert "reproduced" in out


def test_not_a_receipt_is_bad_input(receipt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["verify", "trace.json"], capsys)
    assert code == 2
    assert err.startswith("error: trace.json: $.kind: not a toolscore receipt")


def test_a_receipt_cannot_drive_the_terminal(receipt: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # A receipt may come from someone else: the paths it names are printed in problems.
    data = read_json(receipt)
    data["inputs"]["trace"]["path"] = "trace\x1b]0;owned\x07\x1b[2J.json"
    write_json(receipt, data, indent=2)
    code, out, _ = run(["verify", "run.receipt.json"], capsys)
    assert code == 1
    assert "\x1b" not in out and "\x07" not in out
    assert "trace\\x1b]0;owned\\x07\\x1b[2J.json" in out


def test_recompute_names_each_forged_field_with_both_values(
        receipt: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from toolscore_core.receipts import seal

    data = read_json(receipt)
    recorded = data["result"]["score"]
    data["result"].update(score=0.95, grade="A")
    write_json(receipt, seal(data), indent=2)
    code, out, _ = run(["verify", "--recompute", "run.receipt.json"], capsys)
    assert code == 1
    assert f"run.receipt.json: result.score: receipt 0.95, recomputed {recorded}\n" in out
    assert 'run.receipt.json: result.grade: receipt "A", recomputed "F"\n' in out


def test_chain_names_a_missing_parent(receipt: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["regrade", "run.receipt.json", "--gold", "contract.json",
                        "--receipt-dir", "v2"], capsys)
    assert code == 0, err
    code, out, _ = run(["verify", "--chain", "v2/run.receipt.json"], capsys)
    assert code == 0, out
    assert out.splitlines()[-2:] == ["v2/run.receipt.json: parent run.receipt.json: ok",
                                     "v2/run.receipt.json: chain: 2 receipts back to the "
                                     "first evaluation"]
    receipt.unlink()
    code, out, _ = run(["verify", "--chain", "v2/run.receipt.json", "--json", "-"], capsys)
    assert code == 1
    chain = json.loads(out)["chains"][0]
    assert chain["ok"] is False
    assert chain["problems"][0]["kind"] == "parent_missing"
    assert "the parent receipt ../run.receipt.json" in chain["problems"][0]["message"]
