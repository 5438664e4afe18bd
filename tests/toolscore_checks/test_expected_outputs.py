"""expected-outputs: pass, fail naming the missing text, unknown without replies."""

from __future__ import annotations

from typing import Any

from tests.helpers import run_check


def _chat(*replies: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    for n, text in enumerate(replies):
        messages.append({"role": "assistant", "content": text, "tool_calls": [
            {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": "ok"})
    messages.append({"role": "assistant", "content": "Done."})
    return messages


def _gold(*outputs: str) -> dict[str, Any]:
    return {"expected": [], "expected_outputs": list(outputs)}


def test_does_not_apply_without_expected_outputs() -> None:
    assert run_check("expected-outputs", [], _chat("x")) is None


def test_pass_when_every_text_is_in_some_reply_case_and_commas_aside() -> None:
    result = run_check("expected-outputs", _gold("23553", "oslo"),
                       _chat("The total is 23,553.", "Flying to Oslo."))
    assert result is not None and result.status == "pass"
    assert result.reason == "all 2 expected outputs found: '23553' in reply #1, 'oslo' in " \
                            "reply #2"


def test_fail_names_the_missing_text() -> None:
    result = run_check("expected-outputs", _gold("23553", "refunded"), _chat("23553"))
    assert result is not None and result.status == "fail"
    assert result.reason == "1 expected output not in any reply of the agent: 'refunded'"
    assert result.details["missing"] == ["refunded"]


def test_unknown_when_the_trace_holds_no_final_answer_and_no_reply() -> None:
    trace = [{"role": "user", "content": "hi"},
             {"role": "assistant", "content": None, "tool_calls": [
                 {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]
    result = run_check("expected-outputs", _gold("x"), trace)
    assert result is not None and result.status == "unknown"
    assert result.reason == "no final answer and no reply of the agent in the trace to look in"


def test_a_format_without_replies_is_searched_in_its_final_answer_only() -> None:
    trace = {"calls": [], "final_answer": "The total is 23,553."}
    result = run_check("expected-outputs", _gold("23553"), trace)
    assert result is not None and result.status == "pass"
    result = run_check("expected-outputs", _gold("oslo"), trace)
    assert result is not None and result.status == "unknown"  # an earlier reply may hold it
    assert "keeps no other reply" in result.reason


def test_the_given_final_answer_is_searched_too() -> None:
    result = run_check("expected-outputs", _gold("oslo"), _chat("nothing"),
                       final_answer="It rains in Oslo.")
    assert result is not None and result.status == "pass"
    assert result.details["found"] == [{"output": "oslo", "in": "the final answer"}]
