"""``toolscore eval`` of many traces (GOLD TRACE... or --cases DIR) in one process."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

import toolscore
from tests.helpers import EXAMPLES
from toolscore_cli.app import cli

GOOD = [{"tool": "get_weather", "args": {"city": "Paris"}, "result": {"temp_c": 18}}]
WRONG = [{"tool": "get_weather", "args": {"city": "Lyon"}, "result": {"temp_c": 18}}]


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "gold.json").write_text(json.dumps([{"tool": "get_weather",
                                                     "args": {"city": "Paris"}}]))
    (tmp_path / "good.json").write_text(json.dumps({"calls": GOOD}))
    (tmp_path / "wrong.json").write_text(json.dumps({"calls": WRONG}))
    return tmp_path


def _eval(folder: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["eval", *args], catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_many_traces_one_table_one_json_one_junit_suite_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    folder = _folder(tmp_path)
    monkeypatch.chdir(folder)
    code, out = _eval(folder, "gold.json", "good.json", "wrong.json", "--jobs", jobs,
                      "--fail-under", "0.9", "--json", "out.json", "--junit", "j.xml",
                      "--receipt-dir", "receipts")
    assert code == 1
    rows = [line.split() for line in out.splitlines()]
    assert rows[0][:2] == ["Trace", "Score"]
    assert rows[2][:3] == ["good.json", "100.0%", "A"] and rows[2][-1] == "ok"
    assert rows[3][0] == "wrong.json" and rows[3][-1] == "--fail-under"
    assert "1 of 2 traces failed a gate: wrong.json" in out
    document = json.loads((folder / "out.json").read_text())
    assert [e["id"] for e in document["evaluations"]] == ["good.json", "wrong.json"]
    alone = toolscore.evaluate_files(folder / "gold.json", folder / "wrong.json")
    assert document["evaluations"][1]["record"] == alone.to_dict()
    assert document["evaluations"][1]["gates"] == [
        "score 70.0% C is below --fail-under 0.9"]
    suites = ET.parse(folder / "j.xml").getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == ["good.json", "wrong.json"]
    gate = suites[1].find("testcase[@classname='toolscore.gate']")
    assert gate is not None and gate.get("name") == "--fail-under"
    assert suites[0].find("testcase[@classname='toolscore.gate']") is None
    for name in ("good.json", "wrong.json"):
        assert toolscore.verify_receipt(folder / "receipts" / f"{name}.receipt.json").ok


def test_a_folder_of_cases_is_evaluated_case_by_case(tmp_path: Path) -> None:
    for name, calls in (("paris", GOOD), ("lyon", WRONG)):
        case = tmp_path / "cases" / name
        case.mkdir(parents=True)
        (case / "contract.json").write_text(json.dumps([{"tool": "get_weather",
                                                         "args": {"city": "Paris"}}]))
        (case / "trace.json").write_text(json.dumps({"calls": calls}))
    code, out = _eval(tmp_path, "--cases", str(tmp_path / "cases"), "--fail-on-evidence",
                      "call-errors")
    assert code == 0, out
    assert [line.split()[0] for line in out.splitlines()[2:4]] == ["lyon", "paris"]


def test_a_bad_trace_in_a_batch_is_one_line_and_nothing_written(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "bad.json").write_text("{not json")
    code, out = _eval(folder, str(folder / "gold.json"), str(folder / "good.json"),
                      str(folder / "bad.json"), "--json", str(folder / "out.json"))
    assert code == 2
    assert "bad.json: line 1 column 2: invalid JSON" in out
    assert not (folder / "out.json").exists()


def test_one_trace_options_are_refused_for_many(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with pytest.raises(toolscore.InputError, match="--markdown is for one trace"):
        _eval(folder, str(folder / "gold.json"), str(folder / "good.json"),
              str(folder / "wrong.json"), "--markdown", "r.md")


def test_a_failed_gate_is_a_failed_junit_case_for_one_trace_too(tmp_path: Path) -> None:
    junit = tmp_path / "j.xml"
    code, _ = _eval(tmp_path, str(EXAMPLES / "gold.json"), str(EXAMPLES / "trace.json"),
                      "--fail-under", "A", "--fail-on-evidence", "call-errors",
                      "--junit", str(junit))
    assert code == 1
    root = ET.parse(junit).getroot()
    gates = {c.get("name"): c.find("failure").get("message")  # type: ignore[union-attr]
             for c in root.iter("testcase") if c.get("classname") == "toolscore.gate"}
    assert gates == {"--fail-under": "score 87.5% B is below --fail-under A",
                     "--fail-on-evidence": "evidence: call-errors fail (--fail-on-evidence)"}
    assert root.get("failures") == "4"  # required-calls, call-errors and the two gates


def _refused(folder: Path, *args: str) -> str:
    from tests.helpers import run_cli

    result = run_cli("eval", *args, cwd=folder)
    assert result.returncode == 2 and result.stdout == "", result.stdout
    return result.stderr.strip()


def test_no_output_of_a_batch_overwrites_a_file_it_reads(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    kept = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert _refused(folder, "gold.json", "good.json", "wrong.json", "--json", "./good.json") \
        == ("error: ./good.json: --json: --json would overwrite the trace this command "
            "reads; write it to another path")
    (folder / "linked.xml").hardlink_to(folder / "gold.json")
    assert "--junit would overwrite the gold file" in _refused(
        folder, "gold.json", "good.json", "wrong.json", "--junit", "linked.xml")
    (folder / "rules").mkdir()
    rules = folder / "rules" / "wrong.json.receipt.json"  # the name wrong.json's receipt takes
    rules.write_text("[]")
    assert "--receipt-dir would overwrite the forbidden rules" in _refused(
        folder, "gold.json", "good.json", "wrong.json", "--forbidden", str(rules),
        "--receipt-dir", "rules", "--json", "out.json")
    assert not (folder / "rules" / "good.json.receipt.json").exists()
    assert not (folder / "out.json").exists()
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.name in kept} == kept


def test_no_receipt_of_a_case_overwrites_a_file_of_another_case(tmp_path: Path) -> None:
    for name in ("lyon", "paris"):
        case = tmp_path / "cases" / name
        case.mkdir(parents=True)
        (case / "contract.json").write_text(json.dumps([{"tool": "get_weather",
                                                         "args": {"city": "Paris"}}]))
        (case / "trace.json").write_text(json.dumps({"calls": GOOD}))
    answer = tmp_path / "cases" / "paris" / "final_answer.txt"
    answer.write_text("18 degrees in Paris.\n")
    (tmp_path / "receipts").mkdir()
    (tmp_path / "receipts" / "lyon.receipt.json").symlink_to(answer)
    assert "--receipt-dir would overwrite the final answer file" in _refused(
        tmp_path, "--cases", "cases", "--receipt-dir", "receipts")
    assert answer.read_text() == "18 degrees in Paris.\n"
    assert sorted(p.name for p in (tmp_path / "receipts").iterdir()) == ["lyon.receipt.json"]


def test_a_bar_on_a_terminal_and_none_with_no_progress(tmp_path: Path) -> None:
    from tests.helpers import run_cli

    folder = _folder(tmp_path)
    terminal = {"TTY_COMPATIBLE": "1"}  # rich's way to say stderr is a terminal
    args = ("eval", "gold.json", "good.json", "wrong.json")
    shown = run_cli(*args, cwd=folder, env=terminal)
    assert shown.returncode == 0 and "traces" in shown.stderr and "2/2" in shown.stderr
    assert "0 failing a gate" in shown.stderr
    hidden = run_cli(*args, "--no-progress", cwd=folder, env=terminal)
    assert hidden.returncode == 0 and hidden.stderr == ""
    assert run_cli(*args, cwd=folder).stderr == ""  # not a terminal: no bar
