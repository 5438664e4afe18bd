"""JUnit XML: valid against the schema Jenkins validates with, one case per check or run,
failure/skipped/error as CI servers read them, hostile text escaped, credentials masked."""

from __future__ import annotations

import io
import json
import os
import tracemalloc
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import xmlschema

from tests.helpers import EXAMPLES, run_cli
from tests.toolscore_formats.reports.samples import SCRIPT, SECRET
from toolscore_core.context import Evaluation
from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall
from toolscore_formats.reports.junit import evaluation_junit
from toolscore_studies.junit import write_runs_junit

SCHEMA = xmlschema.XMLSchema(Path(__file__).parents[1] / "fixtures" / "junit" / "junit-10.xsd")
GOLD, TRACE = str(EXAMPLES / "gold.json"), str(EXAMPLES / "trace.json")


def valid(text: str) -> ET.Element:
    """The XML, after the schema has accepted it."""
    SCHEMA.validate(text)
    return ET.fromstring(text.encode("utf-8"))


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {case.attrib["name"]: case for case in root.iter("testcase")}


def test_each_check_is_a_case_fail_fails_and_unknown_is_skipped(
    example_evaluation: Evaluation,
) -> None:
    root = valid(evaluation_junit(example_evaluation))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.attrib["tests"], suite.attrib["failures"], suite.attrib["errors"],
            suite.attrib["skipped"]) == ("6", "2", "0", "1")
    found = cases(root)
    assert list(found) == [c.check for c in example_evaluation.evidence]
    failure = found["call-errors"].find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "1 call failed: #2 book_flight (Seat map unavailable)"
    skipped = found["claimed-success"].find("skipped")
    assert skipped is not None and skipped.attrib["message"].startswith(
        "the answer claims 1 action done")
    assert list(found["credentials"]) == []  # a pass is a bare test case
    properties = {p.attrib["name"]: p.attrib["value"] for p in root.iter("property")}
    assert properties["grade"] == "B"
    assert properties["record_sha256"] == example_evaluation.record_sha256


def test_hostile_text_is_escaped_masked_and_still_valid() -> None:
    nasty = f"{SCRIPT} ]]> \x1b[2J \x00 \ufffe key={SECRET} & \"quoted\"\n"
    evaluation = evaluate([{"tool": "deploy"}],
                          [ToolCall(tool="deploy", error=nasty, is_error=True)])
    text = evaluation_junit(evaluation)
    root = valid(text)
    assert SECRET not in text and "<script>" not in text and "\x1b" not in text
    message = cases(root)["call-errors"].find("failure")
    assert message is not None
    assert "</td><script>alert(1)</script>" in message.attrib["message"]  # shown as text
    assert "\\x1b[2J" in message.attrib["message"] and "\\ufffe" in message.attrib["message"]


def test_the_same_evaluation_writes_the_same_bytes(example_evaluation: Evaluation) -> None:
    assert evaluation_junit(example_evaluation) == evaluation_junit(example_evaluation)


def test_eval_writes_junit_to_a_file_or_stdout(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    run = run_cli("eval", GOLD, TRACE, "--junit", str(report))
    assert run.returncode == 0, run.stderr
    valid(report.read_text(encoding="utf-8"))
    piped = run_cli("eval", GOLD, TRACE, "--junit", "-")
    assert piped.stdout == report.read_text(encoding="utf-8")
    assert piped.stderr.startswith("Score 87.5% B")  # the verdict moves to stderr


def _row(task: str, trial: int, outcome: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "toolscore.agent_run", "study": "demo", "task_id": task, "trial": trial,
            "outcome": outcome, "passed": outcome == "passed", "pass_threshold": 0.9, **extra}


def test_a_study_is_a_case_per_run_named_by_task_and_trial(tmp_path: Path) -> None:
    evaluation = {"score": 0.5, "grade": "F", "evidence": {"checks": [
        {"check": "call-errors", "status": "fail"}, {"check": "disclosure", "status": "unknown"},
        {"check": "credentials", "status": "pass"}]}}
    rows = [_row("weather", 1, "passed", duration=0.25),
            _row("weather", 2, "failed", evaluation=evaluation),
            _row("book", 1, "error", error={"kind": "timeout", "message": "killed after 5 s"}),
            {"not": "a run"}]
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = io.StringIO()
    write_runs_junit(runs, out)
    root = valid(out.getvalue())
    assert (root.attrib["tests"], root.attrib["failures"], root.attrib["errors"]) == (
        "3", "1", "1")
    [suite] = root.iter("testsuite")
    assert suite.attrib["name"] == "demo"
    found = [(c.attrib["classname"], c.attrib["name"], c) for c in root.iter("testcase")]
    assert [(k, n) for k, n, _ in found] == [
        ("demo.weather", "trial 1"), ("demo.weather", "trial 2"), ("demo.book", "trial 1")]
    passed, failed, errored = (c for _, _, c in found)
    assert list(passed) == [] and passed.attrib["time"] == "0.250"  # as recorded
    failure = failed.find("failure")
    assert failure is not None and failure.attrib["message"] == (
        "score 50.0% F (pass threshold 90%); fail: call-errors; unknown: disclosure")
    error = errored.find("error")
    assert error is not None
    assert (error.attrib["type"], error.attrib["message"]) == ("timeout", "killed after 5 s")


def test_a_large_study_is_written_with_flat_memory(tmp_path: Path) -> None:
    """The runs file is read once and never held (the cases wait in a temporary file): 10x
    the runs, same peak."""
    peaks = []
    for n in (2_000, 20_000):
        runs = tmp_path / f"runs-{n}.jsonl"
        with runs.open("w", encoding="utf-8") as handle:
            for i in range(n):
                handle.write(json.dumps(_row(f"task{i % 7}", i, "passed")) + "\n")
        tracemalloc.start()
        with open(os.devnull, "w", encoding="utf-8") as sink:
            write_runs_junit(runs, sink)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < peaks[0] * 1.5, peaks


@pytest.mark.parametrize("command", ["summary", "regrade"])
def test_summary_and_runs_regrade_write_junit(command: str, tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(_row("weather", 1, "error", error={"message": "crashed"}))
                    + "\n", encoding="utf-8")
    report = tmp_path / "junit.xml"
    args = [str(runs), "--junit", str(report)]
    if command == "regrade":
        gold = tmp_path / "gold.json"
        gold.write_text('[{"tool": "get_weather"}]', encoding="utf-8")
        args += ["--gold", str(gold), "-o", str(tmp_path / "runs.v2.jsonl")]
    run = run_cli(command, *args)
    assert run.returncode == 0, run.stderr
    root = valid(report.read_text(encoding="utf-8"))
    assert root.attrib["errors"] == "1"
    folder = run_cli(command, *args[:1], "--junit", str(tmp_path), *args[3:])
    assert folder.returncode == 2 and folder.stderr.startswith(f"error: {tmp_path}: is a ")
    both = run_cli(command, *args[:1], "--junit", "-", "--json", "-", *args[3:])
    assert both.returncode == 2 and both.stdout == ""
    assert both.stderr == ("error: more than one report is going to stdout (-); write all "
                           "reports but one to files\n")
