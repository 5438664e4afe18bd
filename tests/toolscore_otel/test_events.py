"""Verdicts as ``gen_ai.evaluation.result`` events: one per check, metric and the score."""

from __future__ import annotations

from typing import Any

from toolscore_core.spans import SpanRef
from toolscore_otel.events import record_events, run_events

RECORD: dict[str, Any] = {
    "score": None, "grade": None, "weights": {"selection_accuracy": 0.4, "argument_f1": 0.6},
    "unscored": ["argument_f1"],
    "metrics": {"selection_accuracy": 1.0, "argument_f1": None,
                "latency_metrics": {"status": "partial", "total_duration": 1.5}},
    "evidence": {"checks": [
        {"check": "required-calls", "status": "pass", "reason": "all made",
         "plugin": {"name": "p.required", "distribution": "toolscore", "version": "1"}},
        {"check": "claimed-success", "status": "unknown", "reason": "no final answer",
         "plugin": {"name": "p.claimed", "distribution": "toolscore", "version": "1"}},
        {"check": "credentials", "status": "fail",
         "reason": "a key in the arguments: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
         "plugin": {"name": "p.credentials", "distribution": "toolscore", "version": "1"}},
    ]},
    "plugins": [{"name": "m.selection", "distribution": "acme-metrics", "version": "2.0"}],
    "provenance": {"metrics": {"selection_accuracy": "m.selection"}},
}


def _by_name(events: list[Any]) -> dict[str, dict[str, Any]]:
    return {e.attributes["gen_ai.evaluation.name"]: dict(e.attributes) for e in events}


def test_one_event_per_check_and_metric_and_the_score() -> None:
    span = SpanRef(trace_id="ab" * 16, span_id="cd" * 8)
    events = record_events(RECORD, record_sha256="r" * 64, contract_sha256="c" * 64,
                           receipt_sha256="x" * 64, span=span, response_id="chatcmpl-1")
    by_name = _by_name(events)
    assert list(by_name) == ["score", "required-calls", "claimed-success", "credentials",
                             "selection_accuracy", "argument_f1", "latency_metrics"]
    assert all(e.span == span for e in events)
    passed = by_name["required-calls"]
    assert passed["gen_ai.evaluation.score.value"] == 1.0
    assert passed["gen_ai.evaluation.score.label"] == "pass"
    assert passed["gen_ai.evaluation.explanation"] == "all made"
    assert passed["gen_ai.response.id"] == "chatcmpl-1"
    assert passed["toolscore.record_sha256"] == "r" * 64
    assert passed["toolscore.receipt_sha256"] == "x" * 64
    assert passed["toolscore.contract_sha256"] == "c" * 64
    assert passed["toolscore.plugin.name"] == "p.required"
    assert passed["toolscore.plugin.version"] == "1"
    assert by_name["credentials"]["gen_ai.evaluation.score.value"] == 0.0
    assert by_name["selection_accuracy"]["toolscore.plugin.distribution"] == "acme-metrics"
    assert by_name["selection_accuracy"]["gen_ai.evaluation.score.label"] == "measured"
    assert by_name["latency_metrics"]["gen_ai.evaluation.score.label"] == "partial"
    assert by_name["latency_metrics"]["toolscore.metric.value"] == \
        '{"status":"partial","total_duration":1.5}'


def test_unknown_is_never_a_score_of_zero() -> None:
    by_name = _by_name(record_events(RECORD, record_sha256=None, contract_sha256=None))
    for name in ("score", "claimed-success", "argument_f1"):
        assert "gen_ai.evaluation.score.value" not in by_name[name], name
        assert by_name[name]["gen_ai.evaluation.score.label"] == "unknown"
    assert "left out of the composite score" in by_name["argument_f1"][
        "gen_ai.evaluation.explanation"]
    assert "toolscore.receipt_sha256" not in by_name["score"]
    assert "gen_ai.response.id" not in by_name["score"]


def test_credentials_are_redacted_in_the_events() -> None:
    text = str([e.attributes for e in record_events(RECORD, record_sha256=None,
                                                    contract_sha256=None)])
    assert "sk-proj-abcdefghijklmnopqrstuvwxyz" not in text
    assert "a key in the arguments: " in text


def test_runs_name_their_run_and_error_rows_have_no_event() -> None:
    rows = [{"evaluation": RECORD, "record_sha256": "r" * 64, "study": "demo",
             "task_id": "t1", "trial": 2, "run_id": "demo/t1/2",
             "contract": {"expected": [{"tool": "say", "required": True}]}},
            {"evaluation": None, "record_sha256": None, "task_id": "t2"}]
    events = list(run_events(rows))
    assert len(events) == 7
    first = events[0].attributes
    assert first["toolscore.task_id"] == "t1" and first["toolscore.trial"] == 2
    assert first["toolscore.run_id"] == "demo/t1/2"
    assert len(first["toolscore.contract_sha256"]) == 64
    assert all(e.span is None for e in events)
