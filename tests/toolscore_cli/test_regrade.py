"""``toolscore regrade`` and ``toolscore eval --receipt`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import example_folder, flip_byte, read_json
from toolscore_cli.app import main
from toolscore_cli.regrade import NOTHING_RERUN


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as caught:
        main(args)
    out, err = capsys.readouterr()
    return int(caught.value.code or 0), out, err


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = example_folder(tmp_path)
    monkeypatch.chdir(folder)
    return folder


def _eval(capsys: pytest.CaptureFixture[str], *extra: str,
          receipt: str = "run.receipt.json") -> dict:
    code, _, err = run(["eval", "gold.json", "trace.json", "--receipt", receipt, *extra],
                       capsys)
    assert code == 0, err
    return read_json(Path(receipt))


def test_eval_receipt_binds_the_files_given(folder: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    receipt = _eval(capsys, "--forbidden", "forbidden.json", "--final-answer", "All done.",
                    "--weight", "required_call_recall=1", receipt="out/run.receipt.json")
    assert receipt["inputs"]["trace"]["path"] == "../trace.json"
    assert receipt["inputs"]["forbidden"]["path"] == "../forbidden.json"
    assert receipt["inputs"]["injected"] is None
    assert receipt["settings"]["final_answer_sha256"] is not None
    assert receipt["settings"]["weights"]["required_call_recall"] == pytest.approx(0.5)


def test_regrade_prints_the_table_and_the_note(folder: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    before = _eval(capsys)["result"]
    code, out, _ = run(["regrade", "run.receipt.json", "--gold", "contract.json"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].strip() == "Regrade"
    assert [c.strip() for c in lines[2].split("┃")[1:-1]] == [
        "Source", "Before", "After", "Change"]
    row = [c.strip() for c in lines[4].split("│")[1:-1]]
    assert row[0] == "run.receipt.json"
    assert row[1] == f"{before['score'] * 100:.1f}% {before['grade']}"
    assert row[2] == "100.0% A"
    assert row[3] == f"{(1.0 - before['score']) * 100:+.1f}%"
    assert lines[-1] == NOTHING_RERUN


def test_several_sources_one_row_each_and_json(folder: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys, receipt="receipts/a.receipt.json")
    _eval(capsys, "--weight", "redundant_rate=0", receipt="receipts/b.receipt.json")
    code, out, _ = run(["regrade", "receipts/a.receipt.json", "receipts/b.receipt.json",
                        "--gold", "contract.json", "--json", "table.json",
                        "--receipt-dir", "v2"], capsys)
    assert code == 0
    assert "receipts/a.receipt.json" in out and "receipts/b.receipt.json" in out
    table = read_json(Path("table.json"))
    assert [r["source"] for r in table["regrade"]] == ["receipts/a.receipt.json",
                                                        "receipts/b.receipt.json"]
    for row in table["regrade"]:
        assert row["after"]["grade"] == "A"
        assert row["change"] == pytest.approx(1.0 - row["before"]["score"])
        new = read_json(Path(row["receipt"]))
        assert new["settings"]["regraded_from"]["path"] == "../" + row["source"]
    b = read_json(Path("v2/b.receipt.json"))
    assert b["settings"]["weights"]["redundant_rate"] == 0.0


def test_json_to_stdout_is_pure_json(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys)
    code, out, err = run(["regrade", "run.receipt.json", "--json", "-"], capsys)
    assert code == 0
    assert json.loads(out)["regrade"][0]["change"] == 0.0
    assert "Regrade" in err and NOTHING_RERUN in err


def test_regrade_refuses_changed_evidence(folder: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys)
    flip_byte(folder / "trace.json")
    code, out, err = run(["regrade", "run.receipt.json", "--gold", "contract.json",
                          "--receipt-dir", "v2"], capsys)
    assert code == 1
    assert "run.receipt.json: input trace (trace.json): sha256 expected" in err
    assert "refused to regrade 1 of 1 source" in err
    assert "Regrade" not in out and not (folder / "v2").exists()


def test_no_verify_regrades_anyway_and_prints_the_problems(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys)
    trace = folder / "trace.json"
    trace.write_bytes(trace.read_bytes().replace(b'"limit": 5', b'"limit": 7'))
    code, out, err = run(["regrade", "run.receipt.json", "--gold", "contract.json",
                          "--no-verify"], capsys)
    assert code == 0
    assert "warning: input trace (trace.json): sha256 expected" in err
    assert "100.0% A" in out


def test_final_answer_must_be_given_again(folder: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys, "--final-answer", "I reset it.")
    code, _, err = run(["regrade", "run.receipt.json", "--no-verify"], capsys)
    assert code == 1 and "give the same answer again" in err
    code, out, _ = run(["regrade", "run.receipt.json", "--final-answer", "I reset it."],
                       capsys)
    assert code == 0 and "+0.0%" in out


def test_bare_trace(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["regrade", "trace.json"], capsys)
    assert code == 2 and out == ""
    assert err.strip() == ("error: trace.json: a bare trace needs --gold; give the contract "
                           "to grade it against: --gold GOLD (or regrade a receipt made with "
                           "`toolscore eval --receipt`)")
    code, out, _ = run(["regrade", "trace.json", "--gold", "contract.json"], capsys)
    assert code == 0 and "│ trace.json │      — │ 100.0% A │      — │" in out


def test_study_options_are_refused_for_receipts(folder: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys)
    code, _, err = run(["regrade", "run.receipt.json", "--spec", "study.yaml"], capsys)
    assert code == 2 and "--spec is for agent-run JSONL files" in err


def test_the_example_in_examples_contracts(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed example verifies, and its README shows the table regrade prints."""
    from tests.helpers import EXAMPLE

    monkeypatch.chdir(EXAMPLE)
    code, out, _ = run(["verify", "run.receipt.json"], capsys)
    assert code == 0, out
    recorded = read_json(EXAMPLE / "run.receipt.json")["result"]
    assert recorded["grade"] == "F"
    code, out, _ = run(["regrade", "run.receipt.json", "--gold", "contract.json"], capsys)
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("│ run.receipt.json"))
    assert f"{recorded['score'] * 100:.1f}% F" in row and "% A │" in row
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    assert row in readme


def test_an_edited_receipt_regraded_anyway_shows_its_fields_safely(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys)
    data = read_json(Path("run.receipt.json"))
    data["result"]["score"] = "0.9\x1b[2J"
    data["inputs"]["trace"]["sha256"] = "0" * 64
    Path("run.receipt.json").write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(["regrade", "run.receipt.json", "--no-verify"], capsys)
    assert code == 0, err
    assert "\x1b" not in out + err
    row = [c.strip() for c in out.splitlines()[4].split("│")[1:-1]]
    assert row[1] == "unknown"  # a recorded score that is not a number
    assert row[3] == "unknown"
    assert "warning: input trace (trace.json): sha256 expected 000" in err


def test_fail_under_gates_the_new_scores(folder: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys)
    code, out, _ = run(["regrade", "run.receipt.json", "--gold", "contract.json",
                        "--fail-under", "A"], capsys)
    assert code == 0, out
    code, out, _ = run(["regrade", "run.receipt.json", "--fail-under", "A"], capsys)
    assert code == 1
    assert out.splitlines()[-1] == "run.receipt.json: score 49.9% F is below --fail-under A"


QUEUED_IS_A_WARNING = "disclosure:\n  words: {warning_keys: [queued]}\n"
"""A config under which the example's queued email is a warning the answer leaves out."""


def test_a_receipt_binds_the_config_and_reproduces_from_it(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "config" not in _eval(capsys)["inputs"], "no --config: the receipt is as before"
    (folder / "toolscore.yaml").write_text(QUEUED_IS_A_WARNING, encoding="utf-8")
    receipt = _eval(capsys, "--config", "toolscore.yaml", receipt="out/run.receipt.json")
    assert receipt["inputs"]["config"]["path"] == "../toolscore.yaml"
    code, out, _ = run(["verify", "--recompute", "out/run.receipt.json"], capsys)
    assert code == 0 and "reproduced" in out
    (folder / "toolscore.yaml").write_text("disclosure: {}\n", encoding="utf-8")
    code, out, _ = run(["verify", "--recompute", "out/run.receipt.json"], capsys)
    assert code == 1
    assert "input config (../toolscore.yaml): size 46 -> 15 bytes (sha256 expected" in out
    assert "changed: input config (../toolscore.yaml)" in out


def test_regrade_under_a_new_config(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _eval(capsys)
    (folder / "toolscore.yaml").write_text(QUEUED_IS_A_WARNING, encoding="utf-8")
    code, _, err = run(["regrade", "run.receipt.json", "--config", "toolscore.yaml",
                        "--receipt-dir", "v2", "--json", "v2.json"], capsys)
    assert code == 0, err
    after = read_json(folder / "v2" / "run.receipt.json")
    assert after["inputs"]["config"]["path"] == "../toolscore.yaml"
    assert after["result"]["record_sha256"] != before["result"]["record_sha256"]
    # The new receipt holds its config: it reproduces, and regrades to itself.
    code, out, _ = run(["verify", "--recompute", "v2/run.receipt.json"], capsys)
    assert code == 0 and "reproduced" in out
    code, _, _ = run(["regrade", "v2/run.receipt.json", "--json", "v3.json"], capsys)
    assert code == 0
    assert read_json(folder / "v3.json")["regrade"][0]["after"]["record_sha256"] == \
        after["result"]["record_sha256"]


def test_a_bad_config_is_refused_before_anything_is_written(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _eval(capsys)
    (folder / "toolscore.yaml").write_text("disclosure:\n  word: {}\n", encoding="utf-8")
    code, out, err = run(["regrade", "run.receipt.json", "--config", "toolscore.yaml",
                          "--receipt-dir", "v2"], capsys)
    assert code == 2 and out == "" and not (folder / "v2").exists()
    assert err.strip() == ("error: toolscore.yaml: $.disclosure.word: unknown option 'word' "
                           "of disclosure; disclosure takes words, injected")


def test_the_table_and_json_show_what_changed(folder: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _eval(capsys)
    code, out, _ = run(["regrade", "run.receipt.json", "trace.json", "--gold", "contract.json",
                        "--json", "table.json"], capsys)
    assert code == 0
    lines = out.splitlines()
    at = lines.index("run.receipt.json:")
    assert lines[at + 1].startswith("  check required-calls fail → pass: ")
    assert "  metric argument_f1 0.146666666667 → 1.0" in lines
    assert ("trace.json: no before to compare with: a bare trace records no evaluation to "
            "compare with") in lines
    receipt_row, trace_row = read_json(Path("table.json"))["regrade"]
    assert [(c["check"], c["before"], c["after"]) for c in receipt_row["changes"]["checks"]] \
        == [("required-calls", "fail", "pass")]
    assert {"metric": "argument_f1", "before": 0.146666666667, "after": 1.0} in \
        receipt_row["changes"]["metrics"]
    assert trace_row["changes"] is None
