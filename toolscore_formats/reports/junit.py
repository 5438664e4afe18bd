"""JUnit XML: an evaluation's evidence checks as test cases CI servers show (and the
pieces toolscore_studies.junit writes runs with)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any, TextIO

from toolscore import Evaluation, ReportWriter, hookimpl, redact_text
from toolscore_formats.reports.text import score_text, visible


@cache
def _not_xml() -> re.Pattern[str]:
    """What XML 1.0 cannot hold at all (after visible() has written the C0 controls as
    \\xNN): lone surrogates and the two non-characters U+FFFE and U+FFFF. (Compiled on
    first use: it takes a few milliseconds, which every `toolscore eval` would pay.)"""
    return re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                            "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
STATUS_ELEMENT = {"fail": "failure", "unknown": "skipped"}


class Digest(str):
    """A SHA-256 in hex that toolscore computed (a record's hash): written as it is, as it
    can hold neither a credential nor a character XML cannot."""


def _clean(value: Any) -> str:
    """Untrusted text as XML can hold it: credentials masked, control characters shown.
    Numbers and digests are toolscore's own and written as they are."""
    if isinstance(value, int | float | Digest):
        return str(value)
    text = visible(redact_text(str(value)))
    return _not_xml().sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def attributes(**values: Any) -> str:
    """XML attributes from keyword arguments (None leaves one out), values cleaned."""
    return "".join(f' {name}="{_clean(value).translate(_ATTRIBUTE)}"'
                   for name, value in values.items() if value is not None)


def testcase(name: str, classname: str, verdict: str | None = None,
             message: str | None = None, kind: str | None = None, *,
             time: str | None = None) -> str:
    """One ``<testcase>``; ``verdict`` is ``failure``, ``error``, ``skipped`` or None (pass);
    ``time`` the seconds the run took, as recorded (never a clock read here)."""
    opening = f"    <testcase{attributes(name=name, classname=classname, time=time)}"
    if verdict is None:
        return opening + "/>\n"
    body = _clean(message or "").translate(_TEXT)
    return (f"{opening}>\n      <{verdict}{attributes(type=kind, message=message)}>{body}"
            f"</{verdict}>\n    </testcase>\n")


def testsuite(name: str, cases: list[tuple[str | None, str]],
              properties: Mapping[str, Any] | None = None) -> str:
    """A ``<testsuite>`` of ``(verdict, testcase XML)`` pairs, with its counts."""
    verdicts = [verdict for verdict, _ in cases]
    counts = attributes(name=name, tests=len(cases), failures=verdicts.count("failure"),
                    errors=verdicts.count("error"), skipped=verdicts.count("skipped"))
    head = f"  <testsuite{counts}>\n"
    props = ""
    if properties:
        props = ("    <properties>\n" + "".join(
            f"      <property{attributes(name=k, value='unknown' if v is None else v)}/>\n"
            for k, v in properties.items()) + "    </properties>\n")
    return head + props + "".join(xml for _, xml in cases) + "  </testsuite>\n"


def document(name: str, suites: list[str], cases: Iterable[str | None]) -> str:
    """The whole file: ``<testsuites>`` with the counts over every case."""
    verdicts = list(cases)
    counts = attributes(name=name, tests=len(verdicts), failures=verdicts.count("failure"),
                    errors=verdicts.count("error"))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<testsuites{counts}>\n" + "".join(suites) + "</testsuites>\n")


def evaluation_suite(evaluation: Evaluation, *, name: str | None = None,
                     gates: Sequence[tuple[str, str]] = ()) -> tuple[str, list[str | None]]:
    """The evaluation's ``<testsuite>`` and its cases' verdicts: one case per evidence check
    (``fail`` a failure, ``unknown`` skipped, each with the check's reason) and, for each
    CI gate the verdict failed, ``(flag, why)`` (``--fail-under``, ``--fail-on-evidence``),
    a failed case saying so: a job that exits 1 is never green in its JUnit file."""
    record = evaluation.to_dict()
    cases = []
    for check in record["evidence"]["checks"]:
        verdict = STATUS_ELEMENT.get(check["status"])
        cases.append((verdict, testcase(check["check"], "toolscore.evidence", verdict,
                                        check["reason"], check["status"])))
    for flag, why in gates:
        cases.append(("failure", testcase(flag, "toolscore.gate", "failure", why, "gate")))
    trace = record["trace"]["format"]
    properties: dict[str, Any] = {
        "score": record["score"], "grade": record["grade"],
        "score_text": score_text(record["score"], record["grade"]),
        "trace_format": trace, "record_sha256": Digest(evaluation.record_sha256)}
    properties.update((f"metric.{metric}", value) for metric, value in record["metrics"].items()
                      if isinstance(value, int | float) or value is None)
    suite = testsuite(name or f"toolscore eval ({trace or 'calls'})", cases, properties)
    return suite, [verdict for verdict, _ in cases]


def evaluation_junit(evaluation: Evaluation, gates: Sequence[tuple[str, str]] = ()) -> str:
    """The JUnit file of one evaluation (see :func:`evaluation_suite`)."""
    suite, verdicts = evaluation_suite(evaluation, gates=gates)
    return document("toolscore", [suite], verdicts)


def write(evaluation: Evaluation, stream: TextIO) -> None:
    stream.write(evaluation_junit(evaluation))


@hookimpl
def toolscore_register_report_writers() -> list[ReportWriter]:
    return [ReportWriter(id="junit", description="JUnit XML: one test case per evidence "
                         "check (failure = fail, skipped = unknown), for CI servers.",
                         write=write, suffix=".xml")]
