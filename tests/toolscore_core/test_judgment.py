"""error_when rules mark calls failed by their result; judge_tools/ignore_tools leave calls out."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolscore
from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.judgment import apply_error_rules, judged, result_text
from toolscore_core.models import Contract, ErrorRule, ToolCall, Trace

RULE = ErrorRule(result="^Error:")


def test_a_result_matching_a_rule_is_a_failure_with_the_rule_named() -> None:
    trace = Trace(calls=(ToolCall("book", {"id": 1}, result="Error: sold out", is_error=False),
                         ToolCall("book", {"id": 2}, result="Booked. Error: none")))
    marked = apply_error_rules(trace, [RULE]).calls
    assert (marked[0].is_error, marked[0].error, marked[0].error_rule) == (
        True, "Error: sold out", "result ~ /^Error:/")
    assert marked[1] == trace.calls[1]  # the pattern is searched as written: ^ anchors


def test_a_rule_for_a_tool_leaves_other_tools_alone() -> None:
    trace = Trace(calls=(ToolCall("a", result="Error: x", is_error=False),
                         ToolCall("b", result="Error: x", is_error=False)))
    marked = apply_error_rules(trace, [ErrorRule(result="Error", tool="b")]).calls
    assert [c.is_error for c in marked] == [False, True]
    assert marked[1].error_rule == "result ~ /Error/ (tool b)"


def test_an_object_result_is_read_as_its_json_and_a_failure_keeps_its_own_error() -> None:
    assert result_text({"status": "error", "code": 7}) == '{"code": 7, "status": "error"}'
    trace = Trace(calls=(
        ToolCall("a", result={"status": "error"}, is_error=False),
        ToolCall("a", result="Error: x", is_error=True, error="HTTP 500"),
        ToolCall("a")))
    marked = apply_error_rules(trace, [ErrorRule(result='"status": "error"')]).calls
    assert marked[0].is_error is True and marked[0].error == '{"status": "error"}'
    assert marked[1] == trace.calls[1]
    assert marked[2] == trace.calls[2]  # no result: nothing to read, the outcome stays unknown


def test_the_contract_rule_fails_the_call_in_checks_and_records() -> None:
    gold = {"expected": [{"tool": "book", "args": {"id": 1}}],
            "error_when": [{"result": "^Error:"}]}
    trace = {"calls": [{"tool": "book", "args": {"id": 1}, "result": "Error: sold out"}]}
    evaluation = toolscore.evaluate(gold, trace)
    errors = evaluation.evidence.get("call-errors")
    assert errors is not None and errors.status == "fail"
    assert errors.reason == ("1 call failed: #1 book (Error: sold out) "
                             "[error_when result ~ /^Error:/]")
    required = evaluation.evidence.get("required-calls")
    assert required is not None and required.reason == "failed: book"
    call = evaluation.to_dict()["calls"]["actual"][0]
    assert (call["is_error"], call["error_rule"]) == (True, "result ~ /^Error:/")
    assert evaluation.to_dict()["judgment"]["error_when"] == [{"result": "^Error:"}]


def test_config_rules_come_after_the_contract_s(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", {"expected": [{"tool": "book"}]})
    trace = write_json(tmp_path / "trace.json", {"calls": [
        {"tool": "book", "args": {}, "result": "FAILED: no seats"}]})
    config = tmp_path / "toolscore.yaml"
    config.write_text("calls:\n  error_when:\n    - {tool: book, result: '^FAILED'}\n")
    evaluation = toolscore.evaluate_files(gold, trace, config_path=config)
    assert evaluation.to_dict()["calls"]["actual"][0]["error_rule"] == \
        "result ~ /^FAILED/ (tool book)"
    assert toolscore.evaluate_files(gold, trace).to_dict()["calls"]["actual"][0][
        "is_error"] is False


def test_a_bad_rule_in_the_config_is_one_line_and_exit_2(tmp_path: Path) -> None:
    write_json(tmp_path / "gold.json", [{"tool": "book"}])
    write_json(tmp_path / "trace.json", {"calls": [{"tool": "book", "args": {}}]})
    (tmp_path / "toolscore.yaml").write_text("calls:\n  error_when: [{result: '(oops'}]\n")
    out = run_cli("eval", "gold.json", "trace.json", "--config", "toolscore.yaml",
                  cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith(
        "error: toolscore.yaml: $.calls.error_when[0].result: invalid regular expression")


def test_a_bad_rule_in_the_contract_names_its_place() -> None:
    with pytest.raises(InputError) as caught:
        toolscore.evaluate({"expected": [], "error_when": [{"tool": "a"}]}, [])
    assert caught.value.place == "$.error_when[0]"


def test_judged_keeps_the_named_tools_and_the_places_of_the_others() -> None:
    calls = (ToolCall("read"), ToolCall("write"), ToolCall("read"))
    kept, left = judged(Trace(calls=calls), Contract(judge_tools=("write",)))
    assert kept.calls == (calls[1],) and left == ((0, calls[0]), (2, calls[2]))
    kept, left = judged(Trace(calls=calls), Contract(ignore_tools=("write",)))
    assert kept.calls == (calls[0], calls[2]) and left == ((1, calls[1]),)
    assert judged(Trace(calls=calls), Contract()) == (Trace(calls=calls), ())
