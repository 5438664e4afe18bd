"""required-calls: pass, fail (missing / failed), unknown (nothing required / no outcomes)."""

from __future__ import annotations

from tests.toolscore_checks.checks_helpers import run_check

GOLD = [{"tool": "search", "args": {"q": "flights"}}, {"tool": "book", "args": {"id": "UA1"}}]


def test_pass_when_every_required_call_was_made_and_succeeded() -> None:
    trace = {"calls": [{"tool": "search", "args": {"q": "flights"}, "result": ["UA1"]},
                       {"tool": "book", "args": {"id": "UA1"}, "result": "ok"}]}
    result = run_check("required-calls", GOLD, trace)
    assert result is not None and result.status == "pass"
    assert result.details["missing"] == [] and result.details["failed"] == []


def test_fail_when_a_required_call_is_missing() -> None:
    trace = {"calls": [{"tool": "search", "args": {"q": "flights"}, "result": ["UA1"]}]}
    result = run_check("required-calls", GOLD, trace)
    assert result is not None and result.status == "fail"
    assert "not made: book" in result.reason
    assert result.details["missing"] == [{"expected": 2, "tool": "book"}]


def test_fail_when_a_required_call_failed() -> None:
    trace = {"calls": [{"tool": "search", "args": {"q": "flights"}, "result": ["UA1"]},
                       {"tool": "book", "args": {"id": "UA1"}, "error": "sold out"}]}
    result = run_check("required-calls", GOLD, trace)
    assert result is not None and result.status == "fail"
    assert result.details["failed"] == [{"expected": 2, "call": 2, "tool": "book"}]


def test_unknown_when_nothing_was_required() -> None:
    gold = [{"tool": "search", "required": False}]
    trace = {"calls": [{"tool": "search", "args": {}, "result": []}]}
    result = run_check("required-calls", gold, trace)
    assert result is not None and result.status == "unknown"
    assert "nothing was required" in result.reason


def test_unknown_never_pass_for_a_trace_with_only_requests() -> None:
    trace = {"calls": [{"tool": "search", "args": {"q": "flights"}},
                       {"tool": "book", "args": {"id": "UA1"}}]}
    result = run_check("required-calls", GOLD, trace)
    assert result is not None and result.status == "unknown"
    assert result.details["results"] == "missing"
    assert "no result or error" in result.reason
