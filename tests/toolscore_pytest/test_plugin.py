"""The pytest plugin as its users meet it: pytest runs (pytester) of test files that use it."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import toolscore
from toolscore_pytest import TraceAssertionError, assert_trace

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "examples" / "gold.json"
TRACE = ROOT / "examples" / "trace.json"


def test_assert_trace_returns_the_evaluation_when_it_is_good_enough() -> None:
    evaluation = assert_trace(GOLD, TRACE, min_score="B", checks=("credentials",))
    assert evaluation.grade == "B"
    assert evaluation.record_sha256 == toolscore.evaluate_files(GOLD, TRACE).record_sha256


def test_a_failure_shows_the_calls_side_by_side_and_the_checks_with_their_reasons() -> None:
    with pytest.raises(TraceAssertionError) as caught:
        assert_trace(GOLD, TRACE, min_score=0.9, strict_unknown=True)
    message = str(caught.value)
    assert "score 87.5% B is below min_score 90.0%" in message
    assert "check call-errors is fail: 1 call failed" in message
    assert "check claimed-success is unknown" in message
    table = message.split("\n\n")[2].splitlines()
    assert table[0].split() == ["#", "expected", "#", "actual"]
    assert any("arguments differ" in row and "book_flight(" in row for row in table)
    assert any(row.rstrip().endswith("unexpected") for row in table)
    assert "What went wrong" in message
    assert caught.value.evaluation.score == 0.875


def test_documents_and_objects_are_taken_as_well_as_files() -> None:
    trace = json.loads(TRACE.read_text())
    contract = json.loads(GOLD.read_text())
    by_objects = assert_trace(contract, trace, checks=())
    assert by_objects.score == toolscore.evaluate_files(GOLD, TRACE).score
    with pytest.raises(ValueError, match="not a grade"):
        assert_trace(GOLD, TRACE, min_score="E")


def test_the_fixture_fails_a_test_readably_and_reports_its_verdict_in_junit(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        def test_booking(toolscore):
            toolscore.assert_trace({str(GOLD)!r}, {str(TRACE)!r}, min_score="A", checks=())

        def test_booking_b(toolscore):
            toolscore.assert_trace({str(GOLD)!r}, {str(TRACE)!r}, min_score="B", checks=())
    """)
    result = pytester.runpytest("--junitxml=junit.xml")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*score 87.5% B is below min_score 90.0%*",
                                 "*expected*actual*", "*Evidence: 3 pass, 2 fail, 1 unknown*"])
    assert "toolscore_pytest/" not in result.stdout.str()  # the traceback stops at the test
    cases = ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    properties = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")}
                  for c in cases}
    for name in ("test_booking", "test_booking_b"):
        assert properties[name]["toolscore_score"] == "0.875"
        assert properties[name]["toolscore_grade"] == "B"
        assert len(properties[name]["toolscore_record_sha256"]) == 64


def test_receipts_are_written_per_test_and_verify(pytester: pytest.Pytester) -> None:
    gold = str(shutil.copy(GOLD, pytester.path / "gold.json"))
    trace = str(shutil.copy(TRACE, pytester.path / "trace.json"))
    pytester.makepyfile(f"""
        def test_one(toolscore):
            toolscore.assert_trace({gold!r}, {trace!r}, checks=())
    """)
    pytester.runpytest("--toolscore-receipts", "receipts").assert_outcomes(passed=1)
    [receipt] = sorted((pytester.path / "receipts").iterdir())
    assert receipt.name == "test_receipts_are_written_per_test_and_verify.py__test_one" \
        ".receipt.json"
    assert toolscore.verify_receipt(receipt).ok
    assert json.loads(receipt.read_text())["result"]["grade"] == "B"


def _case(folder: Path, *, calls: list[dict], answer: str | None = None) -> None:
    folder.mkdir(parents=True)
    (folder / "contract.json").write_text(json.dumps(
        [{"tool": "get_weather", "args": {"city": "Paris"}}]))
    (folder / "trace.json").write_text(json.dumps({"calls": calls}))
    if answer is not None:
        (folder / "final_answer.txt").write_text(answer + "\n")


def test_case_folders_become_one_test_each_named_by_their_folder(
        pytester: pytest.Pytester) -> None:
    good = [{"tool": "get_weather", "args": {"city": "Paris"}, "result": {"temp_c": 18}}]
    _case(pytester.path / "cases" / "paris", calls=good, answer="It is 18°C in Paris.")
    _case(pytester.path / "cases" / "wrong-city",
          calls=[{"tool": "get_weather", "args": {"city": "Lyon"}, "result": {"temp_c": 18}}])
    pytester.makepyfile("""
        import pytest

        @pytest.mark.toolscore_cases("cases")
        def test_case(toolscore, case):
            toolscore.assert_case(case, min_score=1.0)
    """)
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_case?paris? PASSED*", "*test_case?wrong-city? FAILED*",
                                 "*city: expected 'Paris', got 'Lyon'*"])
    assert [c.id for c in toolscore.cases(pytester.path / "cases")] == ["paris", "wrong-city"]


def test_a_case_folder_missing_its_trace_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "cases" / "half").mkdir(parents=True)
    (tmp_path / "cases" / "half" / "contract.json").write_text("[]")
    with pytest.raises(toolscore.InputError, match="a contract but no trace"):
        toolscore.cases(tmp_path / "cases")
    (tmp_path / "empty").mkdir()
    with pytest.raises(toolscore.InputError, match="no case folder"):
        toolscore.cases(tmp_path / "empty")


def test_trials_record_live_then_replay_and_require_pass_k(pytester: pytest.Pytester) -> None:
    (pytester.path / "gold.json").write_text(json.dumps([{"tool": "lookup", "args": {"id": 7}}]))
    pytester.makepyfile("""
        import json, os, pytest

        def agent():
            count = int(open("count").read()) if os.path.exists("count") else 0
            open("count", "w").write(str(count + 1))
            wrong = count in json.loads(os.environ.get("AGENT_FAILS", "[]"))
            return {"calls": [{"tool": "lookup", "args": {"id": 8 if wrong else 7},
                               "result": "seven"}]}, "Item 7 is seven."

        @pytest.mark.toolscore(trials=4, k=2)
        def test_agent(toolscore):
            toolscore.trials(agent, "gold.json", checks=())
    """)
    replay = pytester.runpytest()
    replay.assert_outcomes(failed=1)
    replay.stdout.fnmatch_lines(["*0 recorded trace(s) in *, 4 needed: run the test once "
                                 "with --toolscore-live*"])
    pytester.runpytest("--toolscore-live").assert_outcomes(passed=1)
    assert (pytester.path / "count").read_text() == "4"
    recorded = sorted((pytester.path / "toolscore-recordings").rglob("trial-*.json"))
    assert len(recorded) == 4
    assert json.loads(recorded[0].read_text())["final_answer"] == "Item 7 is seven."
    pytester.runpytest().assert_outcomes(passed=1)  # replayed: the agent is not run
    assert (pytester.path / "count").read_text() == "4"
    (pytester.path / "count").unlink()
    monkey = pytest.MonkeyPatch()
    monkey.setenv("AGENT_FAILS", "[1]")
    try:
        failed = pytester.runpytest("--toolscore-live")
    finally:
        monkey.undo()
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*pass^2 0.500 is below 1: 3 of 4 trials passed*",
                                 "*trial 2: score 70.0% C is below min_score 100.0%*"])


@pytest.mark.process  # what a fresh pytest process imports
def test_the_plugin_loads_nothing_of_toolscore_until_used(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import sys

        def test_nothing_loaded():
            assert "toolscore_pytest.plugin" in sys.modules
            assert not [m for m in sys.modules if m.startswith("toolscore_core")]
    """)
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
