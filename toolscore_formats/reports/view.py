"""A report's content as plain strings, shared by the Markdown, HTML and third-party writers.

Everything here is unescaped text: each writer escapes it for its own format. Values come
from ``Evaluation.to_dict()`` (credentials redacted); expected arguments come from the
contract so matchers read as matchers, and are redacted too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import frozen

from toolscore import Evaluation, number, redact_text, toolscore_version
from toolscore_formats.reports.diagnosis import (
    UNDECIDED,
    UNRECORDED,
    WAITS,
    argument_differences,
    findings,
    judge_verdicts,
)
from toolscore_formats.reports.text import (
    args_text,
    clean,
    cost_text,
    count_text,
    coverage_text,
    failed_calls_text,
    json_text,
    latency_text,
    metric_rows,
    outcome_text,
    score_text,
    seconds_text,
    shorten,
    usd_text,
    value_text,
)

SUMMARY_LIMIT = 120
"""Characters of a call or result shown in a table cell."""
NOTHING_WRONG = "Nothing: no missing, failed, mismatched or unexpected call."
"""What the reports say when the findings list is empty."""
DETAIL_LIMIT = 4000
"""Characters of a result, error or check details shown in full views."""


def _text(value: str, limit: int | None = None) -> str:
    text = clean(redact_text(value))
    return text if limit is None else shorten(text, limit)


@frozen
class MetricRow:
    name: str
    value: str
    weight: str
    """Empty when the metric is not part of the composite score."""


@frozen
class CheckRow:
    """One evidence check: what the Markdown and HTML evidence tables show."""

    check: str
    status: str
    """``pass``, ``fail`` or ``unknown``."""
    reason: str
    details: str
    """The details as one line of JSON (cut at DETAIL_LIMIT)."""
    plugin: str
    """``name version`` of the plugin that ran the check."""


@frozen
class CallRow:
    """An expected call and the actual call paired with it; either side may be absent."""

    expected_number: int | None
    """The expected call's number in the contract (from 1); None for an unexpected call."""
    expected: str
    """``tool(arg=value, ...)``; empty for an unexpected call."""
    required: bool | None
    actual_number: int | None
    """The call's number in the trace (from 1); None for a missing call."""
    actual: str
    """``tool(arg=value, ...)``; empty for a missing call."""
    match: str
    """``match``, ``arguments differ``, ``waits for a judge`` (only ``$judge`` arguments the
    judge has not decided differ), ``undecided`` (only those and arguments whose ``$regex``
    ran past its time limit differ), ``missing`` or ``unexpected``."""
    outcome: str
    """``ok``, ``error``, ``unknown``, or empty for a missing call."""
    duration: str
    result: str
    """The error of a failed call, else its result (cut at SUMMARY_LIMIT)."""


@frozen
class CallDetail:
    """One actual call in full (long values cut at DETAIL_LIMIT)."""

    number: int
    """The call's number in the trace, counted from 1."""
    id: str | None
    tool: str
    args: str
    outcome: str
    result: str | None
    error: str | None
    duration: str
    cost: str
    timestamp: str | None


@frozen
class ReportView:
    """Everything a report shows, in the order the built-in reports show it."""

    score: str
    """``87.5% B`` or ``unknown``."""
    grade: str | None
    headline: str
    """``4 calls vs 3 expected, format toolscore``."""
    metrics: tuple[MetricRow, ...]
    latency: str
    cost: str
    failed_calls: str
    unscored: tuple[str, ...]
    findings: tuple[str, ...]
    evidence_summary: str
    """``Evidence: 1 pass, 1 fail, 0 unknown``."""
    evidence_counts: Mapping[str, int]
    checks: tuple[CheckRow, ...]
    coverage: str
    calls: tuple[CallRow, ...]
    call_details: tuple[CallDetail, ...]
    final_answer: str | None
    notes: tuple[str, ...]
    generator: str
    """``toolscore 0.1.0``."""


def _call_text(tool: str, args: Mapping[str, Any] | None, raw_args: str | None = None,
               *, expected: bool = False) -> str:
    if raw_args is not None:
        return f"{tool}(raw: {raw_args})"
    if args is None:
        return f"{tool} (arguments not checked)" if expected else f"{tool} (no arguments recorded)"
    return f"{tool}({args_text(args)})"


def _result_text(call: Mapping[str, Any], limit: int | None) -> str:
    if call["error"] is not None:
        return _text(call["error"], limit)
    if call["result"] is None:
        return ""
    return _text(value_text(call["result"]), limit)


def call_rows(evaluation: Evaluation, record: Mapping[str, Any]) -> tuple[CallRow, ...]:
    """Expected calls in contract order with their paired call, then the unexpected calls."""
    expected = evaluation.context.expected
    actual = record["calls"]["actual"]
    pairing = evaluation.context.pairing
    paired = {pair.expected: pair for pair in pairing.pairs}
    verdicts = judge_verdicts(evaluation)
    rows: list[CallRow] = []

    def actual_side(j: int) -> dict[str, Any]:
        call = actual[j]
        return {
            "actual_number": number(j),
            "actual": _text(_call_text(call["tool"], call["args"], call["raw_args"]),
                            SUMMARY_LIMIT),
            "outcome": outcome_text(call["is_error"]),
            "duration": seconds_text(call["duration"]),
            "result": _result_text(call, SUMMARY_LIMIT),
        }

    for i, want in enumerate(expected):
        shown = _text(_call_text(want.tool, want.args, expected=True), SUMMARY_LIMIT)
        pair = paired.get(i)
        if pair is None:
            rows.append(CallRow(expected_number=number(i), expected=shown, required=want.required,
                                actual_number=None, actual="",
                                match="missing" if want.required else "missing (optional)",
                                outcome="", duration="", result=""))
            continue
        diffs = argument_differences(evaluation, pair, verdicts)
        match = ("match" if not diffs else "arguments unknown" if diffs == [UNRECORDED]
                 else "waits for a judge"
                 if all(d.endswith(": " + WAITS) for d in diffs) else "undecided"
                 if all(d.endswith((": " + WAITS, ": " + UNDECIDED)) for d in diffs)
                 else "arguments differ")
        rows.append(CallRow(expected_number=number(i), expected=shown, required=want.required,
                            match=match, **actual_side(pair.actual)))
    for j in pairing.unpaired_actual:
        rows.append(CallRow(expected_number=None, expected="", required=None,
                            match="unexpected", **actual_side(j)))
    return tuple(rows)


def call_details(record: Mapping[str, Any]) -> tuple[CallDetail, ...]:
    details = []
    for j, call in enumerate(record["calls"]["actual"]):
        details.append(CallDetail(
            number=j + 1, id=None if call["id"] is None else _text(call["id"]),
            tool=_text(call["tool"]),
            args=_text(call["raw_args"] if call["raw_args"] is not None
                       else ("" if call["args"] is None else json_text(call["args"])),
                       DETAIL_LIMIT),
            outcome=outcome_text(call["is_error"]),
            result=None if call["result"] is None
            else _text(value_text(call["result"]), DETAIL_LIMIT),
            error=None if call["error"] is None else _text(call["error"], DETAIL_LIMIT),
            duration=seconds_text(call["duration"]), cost=usd_text(call["cost"]),
            timestamp=None if call["timestamp"] is None else _text(call["timestamp"]),
        ))
    return tuple(details)


def _plugin_text(plugin: Mapping[str, Any]) -> str:
    return " ".join(str(p) for p in (plugin.get("name"), plugin.get("version")) if p)


def build_view(evaluation: Evaluation) -> ReportView:
    """The content of a report on ``evaluation``, as unescaped strings."""
    record = evaluation.to_dict()
    metrics = record["metrics"]
    trace = record["trace"]
    headline = (f"{count_text(record['coverage']['calls'], 'call')} vs "
                f"{len(record['calls']['expected'])} expected")
    if trace["format"]:
        headline += f", format {trace['format']}"
    if trace["model"]:
        headline += f", model {trace['model']}"
    checks = tuple(
        CheckRow(check=_text(c["check"]), status=c["status"], reason=_text(c["reason"]),
                 details=_text(json_text(c["details"]), DETAIL_LIMIT),
                 plugin=_text(_plugin_text(c["plugin"])))
        for c in record["evidence"]["checks"]
    )
    answer = record["final_answer"]
    return ReportView(
        score=score_text(record["score"], record["grade"]), grade=record["grade"],
        headline=_text(headline),
        metrics=tuple(MetricRow(_text(n), _text(v), w) for n, v, w in metric_rows(record)),
        latency=latency_text(metrics), cost=cost_text(metrics),
        failed_calls=failed_calls_text(metrics),
        unscored=tuple(_text(name) for name in record["unscored"]),
        findings=tuple(_text(line) for line in findings(evaluation)),
        evidence_summary=evaluation.evidence.summary(),
        evidence_counts=dict(record["evidence"]["counts"]),
        checks=checks, coverage=coverage_text(record["coverage"]),
        calls=call_rows(evaluation, record), call_details=call_details(record),
        final_answer=None if answer is None else _text(answer),
        notes=tuple(_text(note) for note in trace["notes"]),
        generator=f"toolscore {toolscore_version()}",
    )
