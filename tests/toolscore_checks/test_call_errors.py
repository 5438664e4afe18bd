"""call-errors: pass, fail, unknown when no call has a result or error."""

from __future__ import annotations

from tests.helpers import run_check


def test_pass_when_no_call_failed() -> None:
    trace = {"calls": [{"tool": "search", "args": {}, "result": "ok"}]}
    result = run_check("call-errors", [], trace)
    assert result is not None and result.status == "pass"


def test_fail_names_the_failed_call_and_its_error() -> None:
    trace = {"calls": [{"tool": "search", "args": {}, "result": "ok"},
                       {"tool": "deploy", "args": {}, "error": "Service unavailable"}]}
    result = run_check("call-errors", [], trace)
    assert result is not None and result.status == "fail"
    assert result.reason == "1 call failed: #2 deploy (Service unavailable)"
    assert result.details["failed"] == [{"call": 2, "tool": "deploy",
                                         "error": "Service unavailable"}]


def test_unknown_never_pass_for_a_trace_with_only_requests() -> None:
    trace = {"calls": [{"tool": "search", "args": {}}, {"tool": "deploy", "args": {}}]}
    result = run_check("call-errors", [], trace)
    assert result is not None and result.status == "unknown"
    assert result.details["results"] == "missing"
