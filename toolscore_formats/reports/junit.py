"""JUnit XML: evidence checks (eval) or agent runs (studies) as test cases CI servers show."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any, TextIO

from toolscore_core.evaluation import Evaluation
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import ReportWriter
from toolscore_core.redaction import redact_text
from toolscore_formats.reports.text import score_text, visible

# What XML 1.0 cannot hold at all (after visible() has written the C0 controls as \xNN):
# lone surrogates and the two non-characters U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                            "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
STATUS_ELEMENT = {"fail": "failure", "unknown": "skipped"}


def _clean(value: Any) -> str:
    """Untrusted text as XML can hold it: credentials masked, control characters shown."""
    text = visible(redact_text(str(value)))
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _attrs(**values: Any) -> str:
    return "".join(f' {name}="{_clean(value).translate(_ATTRIBUTE)}"'
                   for name, value in values.items() if value is not None)


def testcase(name: str, classname: str, verdict: str | None = None,
             message: str | None = None, kind: str | None = None, *,
             time: str | None = None) -> str:
    """One ``<testcase>``; ``verdict`` is ``failure``, ``error``, ``skipped`` or None (pass);
    ``time`` the seconds the run took, as recorded (never a clock read here)."""
    opening = f"    <testcase{_attrs(name=name, classname=classname, time=time)}"
    if verdict is None:
        return opening + "/>\n"
    body = _clean(message or "").translate(_TEXT)
    return (f"{opening}>\n      <{verdict}{_attrs(type=kind, message=message)}>{body}"
            f"</{verdict}>\n    </testcase>\n")


def testsuite(name: str, cases: list[tuple[str | None, str]],
              properties: Mapping[str, Any] | None = None) -> str:
    """A ``<testsuite>`` of ``(verdict, testcase XML)`` pairs, with its counts."""
    verdicts = [verdict for verdict, _ in cases]
    counts = _attrs(name=name, tests=len(cases), failures=verdicts.count("failure"),
                    errors=verdicts.count("error"), skipped=verdicts.count("skipped"))
    head = f"  <testsuite{counts}>\n"
    props = ""
    if properties:
        props = ("    <properties>\n" + "".join(
            f"      <property{_attrs(name=k, value='unknown' if v is None else v)}/>\n"
            for k, v in properties.items()) + "    </properties>\n")
    return head + props + "".join(xml for _, xml in cases) + "  </testsuite>\n"


def document(name: str, suites: list[str], cases: Iterable[str | None]) -> str:
    """The whole file: ``<testsuites>`` with the counts over every case."""
    verdicts = list(cases)
    counts = _attrs(name=name, tests=len(verdicts), failures=verdicts.count("failure"),
                    errors=verdicts.count("error"))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<testsuites{counts}>\n" + "".join(suites) + "</testsuites>\n")


def evaluation_junit(evaluation: Evaluation) -> str:
    """One suite for the evaluation, one case per evidence check: ``fail`` is a failure,
    ``unknown`` is skipped (neither passed nor failed), each with the check's reason."""
    record = evaluation.to_dict()
    cases = []
    for check in record["evidence"]["checks"]:
        verdict = STATUS_ELEMENT.get(check["status"])
        cases.append((verdict, testcase(check["check"], "toolscore.evidence", verdict,
                                        check["reason"], check["status"])))
    trace = record["trace"]["format"]
    properties: dict[str, Any] = {
        "score": record["score"], "grade": record["grade"],
        "score_text": score_text(record["score"], record["grade"]),
        "trace_format": trace, "record_sha256": evaluation.record_sha256}
    properties.update((f"metric.{name}", value) for name, value in record["metrics"].items()
                      if isinstance(value, int | float) or value is None)
    suite = testsuite(f"toolscore eval ({trace or 'calls'})", cases, properties)
    return document("toolscore", [suite], (v for v, _ in cases))


def write(evaluation: Evaluation, stream: TextIO) -> None:
    stream.write(evaluation_junit(evaluation))


def run_case(row: Mapping[str, Any]) -> tuple[str | None, str]:
    """(verdict, testcase XML) of one agent-run row: a failed run is a failure saying its
    score and the checks that did not pass, an errored run an error with what went wrong."""
    name = f"trial {row.get('trial')}"
    classname = f"{row.get('study')}.{row.get('task_id')}"
    duration = row.get("duration")
    time = (f"{duration:.3f}" if isinstance(duration, int | float)
            and not isinstance(duration, bool) else None)
    outcome = row.get("outcome")
    if outcome == "passed":
        return None, testcase(name, classname, time=time)
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
    from toolscore_core.studies.records import KIND
    from toolscore_core.studies.summary import iter_lines

    for _, row, problem in iter_lines(path):
        if problem is None and isinstance(row, dict) and row.get("kind") == KIND:
            yield row


def write_runs_junit(path: str | os.PathLike[str], stream: IO[str]) -> None:
    """The runs of a runs file as one test suite, one test case per run (classname
    ``study.task``, name ``trial N``), in file order. The file is read twice, first for the
    counts the opening tags carry, so memory stays flat however many runs it holds."""
    verdicts: dict[str | None, int] = {}
    studies: dict[str, None] = {}
    for row in _runs(path):
        verdict = run_case(row)[0]
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        studies.setdefault(str(row.get("study")))
    tests = sum(verdicts.values())
    failures, errors = verdicts.get("failure", 0), verdicts.get("error", 0)
    name = ", ".join(studies) or "no runs"
    counts = {"tests": tests, "failures": failures, "errors": errors}
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                 f"<testsuites{_attrs(name='toolscore study', **counts)}>\n"
                 f"  <testsuite{_attrs(name=name, **counts, skipped=0)}>\n")
    for row in _runs(path):
        stream.write(run_case(row)[1])
    stream.write("  </testsuite>\n</testsuites>\n")


@hookimpl
def toolscore_register_report_writers() -> list[ReportWriter]:
    return [ReportWriter(id="junit", description="JUnit XML: one test case per evidence "
                         "check (failure = fail, skipped = unknown), for CI servers.",
                         write=write, suffix=".xml")]
