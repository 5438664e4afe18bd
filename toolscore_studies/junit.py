"""JUnit XML of a runs file: a test case per agent run, written with flat memory."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any

from toolscore_formats.reports.junit import attributes, testcase
from toolscore_formats.reports.text import score_text
from toolscore_studies.records import KIND
from toolscore_studies.summary import iter_lines


def run_case(row: Mapping[str, Any]) -> tuple[str | None, str]:
    """(verdict, testcase XML) of one agent-run row: a failed run is a failure saying its
    score and the checks that did not pass (an imported run not evaluated yet: the
    benchmark's verdict), an errored run an error with what went wrong."""
    name = f"trial {row.get('trial')}"
    classname = f"{row.get('study')}.{row.get('task_id')}"
    duration = row.get("duration")
    time = (f"{duration:.3f}" if isinstance(duration, int | float)
            and not isinstance(duration, bool) else None)
    outcome = row.get("outcome")
    if outcome == "passed":
        return None, testcase(name, classname, time=time)
    if outcome == "failed" and row.get("evaluation") is None and "imported" in row:
        verdict = _mapping(_mapping(row.get("imported")).get("verdict"))
        shown = ", ".join(f"{key} {json.dumps(value, ensure_ascii=False)}"
                          for key, value in sorted(verdict.items()) if key != "passed")
        message = "failed by the benchmark's own verdict" + (f" ({shown})" if shown else "")
        return "failure", testcase(name, classname, "failure", message, "failed", time=time)
    if outcome == "failed":
        evaluation = _mapping(row.get("evaluation"))
        checks = [c for c in _list(_mapping(evaluation.get("evidence")).get("checks"))
                  if isinstance(c, Mapping)]
        number = evaluation.get("score")
        score = (score_text(number, evaluation.get("grade"))
                 if isinstance(number, int | float) and not isinstance(number, bool)
                 else "unknown")
        threshold = row.get("pass_threshold")
        shown = (f"{threshold:.0%}" if isinstance(threshold, int | float)
                 and not isinstance(threshold, bool) else "unknown")
        parts = [f"score {score} (pass threshold {shown})"]
        for status in ("fail", "unknown"):
            named = [str(c.get("check")) for c in checks if c.get("status") == status]
            if named:
                parts.append(f"{status}: {', '.join(named)}")
        return "failure", testcase(name, classname, "failure", "; ".join(parts), "failed",
                                   time=time)
    error = _mapping(row.get("error"))
    message = str(error.get("message") or f"outcome {outcome!r}")
    return "error", testcase(name, classname, "error", message,
                             str(error.get("kind") or "error"), time=time)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _runs(path: str | os.PathLike[str]) -> Iterator[Mapping[str, Any]]:
    """The run rows of a runs file, one at a time (rows a regrade wrote through are not)."""
    for _, row, problem in iter_lines(path):
        if problem is None and isinstance(row, dict) and row.get("kind") == KIND:
            yield row


def study_properties(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The study's figures a CI server shows beside the runs: the pass rate of all runs and
    the study's pass^k for each k the summary gives (None is written ``unknown``)."""
    total = summary["total"]
    properties: dict[str, Any] = {"runs": total["runs"], "pass_rate": total["pass_rate"]}
    properties.update((f"pass^{k}", value) for k, value in total["pass_hat_k"].items())
    properties["k"] = summary["k"]
    return properties


def write_runs_junit(path: str | os.PathLike[str], stream: IO[str],
                     properties: Mapping[str, Any] | None = None,
                     gates: Sequence[tuple[str, str]] = ()) -> None:
    """The runs of a runs file as one test suite, one test case per run (classname
    ``study.task``, name ``trial N``), in file order, with ``properties`` (the study's
    figures, :func:`study_properties`) at its head, and a failed case per CI gate the study
    failed (``gates``: flag, why), so a job that exits 1 is never green in its JUnit file.
    The file is read once: the cases wait in a temporary file while the counts the opening
    tags carry are taken, so memory stays flat however many runs it holds."""
    verdicts: dict[str | None, int] = {"failure": len(gates)} if gates else {}
    studies: dict[str, None] = {}
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as cases:
        for row in _runs(path):
            verdict, case = run_case(row)
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            studies.setdefault(str(row.get("study")))
            cases.write(case)
        tests = sum(verdicts.values())
        failures, errors = verdicts.get("failure", 0), verdicts.get("error", 0)
        name = ", ".join(studies) or "no runs"
        counts = {"tests": tests, "failures": failures, "errors": errors}
        stream.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                     f"<testsuites{attributes(name='toolscore study', **counts)}>\n"
                     f"  <testsuite{attributes(name=name, **counts, skipped=0)}>\n")
        if properties:
            shown = {key: "unknown" if value is None else value
                     for key, value in properties.items()}
            stream.write("    <properties>\n" + "".join(
                f"      <property{attributes(name=key, value=value)}/>\n"
                for key, value in shown.items()) + "    </properties>\n")
        cases.seek(0)
        shutil.copyfileobj(cases, stream)
    for flag, why in gates:
        stream.write(testcase(flag, "toolscore.gate", "failure", why, "gate"))
    stream.write("  </testsuite>\n</testsuites>\n")
