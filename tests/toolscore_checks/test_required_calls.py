"""required-calls: pass, fail (missing / failed), unknown (nothing required / no outcomes /
arguments not in the trace)."""

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


def test_unknown_when_the_trace_does_not_record_the_calls_arguments() -> None:
    # An export without message content gives the calls' tools and outcomes, not their
    # arguments: whether they were the expected ones is unknown, never "not made".
    trace = {"calls": [{"tool": "search", "args": {"q": "flights"}, "result": ["UA1"]},
                       {"tool": "book", "result": "ok"}]}
    result = run_check("required-calls", GOLD, trace)
    assert result is not None and result.status == "unknown"
    assert result.reason == ("1 required call made, but the trace does not record the "
                             "arguments, so whether with the expected ones is unknown: "
                             "book (call #2)")
    assert result.details["arguments"] == "missing"
    assert result.details["missing"] == []


def test_a_failed_call_without_recorded_arguments_fails_either_way() -> None:
    # Made with the expected arguments, it failed; with others, book was not made.
    trace = {"calls": [{"tool": "search", "args": {"q": "flights"}, "result": ["UA1"]},
                       {"tool": "book", "error": "sold out"}]}
    result = run_check("required-calls", GOLD, trace)
    assert result is not None and result.status == "fail"
    assert result.reason == "failed: book"


def test_an_expected_call_of_no_arguments_is_not_made_by_a_call_of_unknown_ones() -> None:
    gold = [{"tool": "list_files", "args": {}}]
    unknown = run_check("required-calls", gold, {"calls": [{"tool": "list_files",
                                                            "result": []}]})
    made = run_check("required-calls", gold, {"calls": [{"tool": "list_files", "args": {},
                                                         "result": []}]})
    assert unknown is not None and unknown.status == "unknown"
    assert made is not None and made.status == "pass"


def test_the_real_autogen_export_without_arguments_is_unknown_not_failed() -> None:
    # AutoGen's tool spans record neither arguments nor results (see its fixture's notes).
    from tests.helpers import ROOT

    trace, _ = toolscore.load_trace(
        ROOT / "tests/toolscore_formats/fixtures/autogen_otel_agent.json")
    gold = [{"tool": "get_weather", "args": {"city": "Paris"}},
            {"tool": "get_time", "args": {"city": "Tokyo"}}]
    evaluation = toolscore.evaluate(gold, trace)
    check = evaluation.evidence.get("required-calls")
    assert check is not None and check.status == "unknown"
    assert evaluation.metrics["argument_f1"] == {
        "unknown": "the arguments of 2 calls paired with an expected call are not in the trace"}
    assert evaluation.metrics["required_call_recall"] == {
        "unknown": "2 required calls made with arguments the trace does not record"}
    assert evaluation.to_dict()["unscored"] == ["argument_f1"]
