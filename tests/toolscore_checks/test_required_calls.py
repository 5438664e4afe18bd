"""required-calls: pass, fail (missing / failed), unknown (nothing required / no outcomes)."""

from __future__ import annotations

import toolscore
from tests.helpers import run_check

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


def test_a_required_call_made_with_other_arguments_is_not_made() -> None:
    trace = {"calls": [{"tool": "search", "args": {"q": "flights"}, "result": ["UA1"]},
                       {"tool": "book", "args": {"id": "DL9"}, "result": "ok"}]}
    result = run_check("required-calls", GOLD, trace)
    assert result is not None and result.status == "fail"
    assert result.reason == "not made: book (call #2: argument 'id' differs)"
    assert result.details["missing"] == [
        {"expected": 2, "tool": "book", "call": 2, "why": "argument 'id' differs"}]


def test_an_argument_the_contract_does_not_name_is_another_call() -> None:
    trace = {"calls": [{"tool": "search", "args": {"q": "flights", "limit": 5}, "result": []},
                       {"tool": "book", "args": {"id": "UA1"}, "result": "ok"}]}
    result = run_check("required-calls", GOLD, trace)
    assert result is not None and result.status == "fail"
    assert result.reason == "not made: search (call #1: argument 'limit' was not expected)"
    assert toolscore.evaluate(GOLD, trace).required_call_recall == 0.5


def test_the_call_with_the_arguments_is_found_whatever_the_f1_pairing_chose() -> None:
    # The F1 pairing keeps identical calls together (x=1 with x=1), which leaves the
    # {"$type": "int"} call with 1.0; with x=1.0 answering x=1 both are made exactly.
    gold = [{"tool": "f", "args": {"x": 1}}, {"tool": "f", "args": {"x": {"$type": "int"}}}]
    trace = {"calls": [{"tool": "f", "args": {"x": 1}, "result": "ok"},
                       {"tool": "f", "args": {"x": 1.0}, "result": "ok"}]}
    result = run_check("required-calls", gold, trace)
    assert result is not None and result.status == "pass", result.reason
    assert toolscore.evaluate(gold, trace).required_call_recall == 1.0


def test_omitted_arguments_accept_any() -> None:
    gold = [{"tool": "search"}]
    trace = {"calls": [{"tool": "search", "args": {"q": "anything"}, "result": []}]}
    result = run_check("required-calls", gold, trace)
    assert result is not None and result.status == "pass"
