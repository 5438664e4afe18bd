"""forbidden-calls: only with rules; pass, fail naming call/rule/reason; --fail-on-violations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from click.testing import CliRunner

from tests.helpers import run_check
from toolscore_cli.app import cli

TRACE = {"calls": [
    {"id": "1", "tool": "git", "args": {"command": "status"}, "result": "clean"},
    {"id": "2", "tool": "delete_branch", "args": {"name": "main", "force": True},
     "error": "protected"},
    {"id": "3", "tool": "delete_branch", "args": {"name": "feature/x"}, "result": "deleted"},
]}
RULES = [{"tool": "delete_branch", "args": {"name": {"$regex": "^(main|master)$"}},
          "reason": "never delete the default branch"}]


def test_does_not_apply_without_rules() -> None:
    assert run_check("forbidden-calls", [], TRACE) is None


def test_pass_when_no_call_matches_a_rule() -> None:
    rules = [{"tool": "drop_table", "reason": "no DDL"}]
    result = run_check("forbidden-calls", [], TRACE, forbidden=rules)
    assert result is not None and result.status == "pass"
    assert result.details["violations"] == []


def test_fail_names_call_index_rule_and_reason() -> None:
    result = run_check("forbidden-calls", [], TRACE, forbidden=RULES)
    assert result is not None and result.status == "fail"
    assert result.reason == ("1 forbidden call: #2 delete_branch "
                             "(rule 1: never delete the default branch)")
    [violation] = result.details["violations"]
    assert violation["call"] == 2 and violation["id"] == "2" and violation["rule"] == 1
    assert violation["args"] == {"name": {"$regex": "^(main|master)$"}}
    assert violation["is_error"] is True  # a refused attempt is still a violation


def test_rule_without_args_forbids_the_tool_with_any_arguments() -> None:
    result = run_check("forbidden-calls", [], TRACE, forbidden=[{"tool": "delete_branch"}])
    assert result is not None and result.status == "fail"
    assert [v["call"] for v in result.details["violations"]] == [2, 3]
    assert result.details["violations"][0]["args"] is None


def test_rule_tool_may_be_a_matcher_and_rules_may_come_from_the_gold_file() -> None:
    gold = {"expected": [], "forbidden": [{"tool": {"$regex": "^delete_"}, "reason": "no deletes"}]}
    result = run_check("forbidden-calls", gold, TRACE)
    assert result is not None and result.status == "fail"
    assert [(v["tool"], v["rule_tool"]) for v in result.details["violations"]] == [
        ("delete_branch", "Regex('^delete_')")] * 2


def _cli(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_fail_on_violations_exits_1(write_json: Callable[[str, Any], str]) -> None:
    gold, trace = write_json("gold.json", []), write_json("trace.json", TRACE)
    rules = write_json("rules.json", RULES)
    result = _cli("eval", gold, trace, "--forbidden", rules, "--fail-on-violations")
    assert result.exit_code == 1
    assert "forbidden-calls: 1 forbidden call: #2 delete_branch" in result.output
    assert "forbidden calls were made (--fail-on-violations)" in result.output
    assert _cli("eval", gold, trace, "--forbidden", rules).exit_code == 0


def test_cli_fail_on_violations_exits_0_when_clean(
    write_json: Callable[[str, Any], str],
) -> None:
    gold, trace = write_json("gold.json", []), write_json("trace.json", TRACE)
    rules = write_json("rules.json", [{"tool": "drop_table"}])
    result = _cli("eval", gold, trace, "--forbidden", rules, "--fail-on-violations")
    assert result.exit_code == 0, result.output


def test_cli_bad_rule_file_is_one_line_and_exit_2(
    write_json: Callable[[str, Any], str], capsys: Any,
) -> None:
    from toolscore_cli.app import main

    gold, trace = write_json("gold.json", []), write_json("trace.json", TRACE)
    rules = write_json("rules.json", [{"tool": "x", "because": "typo"}])
    try:
        main(["eval", gold, trace, "--forbidden", rules])
    except SystemExit as exc:
        assert exc.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rules.json: $[0].because: unknown key 'because'" in err


def test_count_failed_false_leaves_refused_attempts_out() -> None:
    rules = [{"tool": "cancel", "reason": "never cancel", "count_failed": False}]
    trace = {"calls": [{"tool": "cancel", "args": {"id": 1}, "result": "Error: not allowed"},
                       {"tool": "cancel", "args": {"id": 2}, "error": "refused"},
                       {"tool": "cancel", "args": {"id": 3}}]}
    gold = {"expected": [], "error_when": [{"result": "^Error:"}]}
    result = run_check("forbidden-calls", gold, trace, forbidden=rules)
    assert result is not None and result.status == "fail"  # call 3: outcome unknown, counts
    assert [v["call"] for v in result.details["violations"]] == [3]
    assert result.details["refused"] == [{"call": 1, "tool": "cancel", "rule": 1},
                                         {"call": 2, "tool": "cancel", "rule": 1}]
    assert result.details["rules"][0]["count_failed"] is False
    only_refused = {"calls": trace["calls"][:2]}
    result = run_check("forbidden-calls", gold, only_refused, forbidden=rules)
    assert result is not None and result.status == "pass"
    assert result.reason.endswith("2 failed attempts left out by count_failed: false: "
                                  "#1 cancel (rule 1), #2 cancel (rule 1)")


def test_by_default_a_refused_attempt_still_breaks_the_rule() -> None:
    trace = {"calls": [{"tool": "cancel", "args": {}, "error": "refused"}]}
    result = run_check("forbidden-calls", [], trace, forbidden=[{"tool": "cancel"}])
    assert result is not None and result.status == "fail"
    assert "count_failed" not in result.details["rules"][0]


def test_a_call_whose_arguments_are_not_in_the_trace_is_not_matched_against_argument_rules(
) -> None:
    # The check never answers unknown; its pass says which calls it could not match.
    trace = {"calls": [{"tool": "delete_file", "result": "ok"}]}
    forbidden = [{"tool": "delete_file", "args": {"path": {"$regex": "^/etc"}}}]
    result = run_check("forbidden-calls", [], trace, forbidden=forbidden)
    assert result is not None and result.status == "pass"
    assert result.reason == ("no call matched any of 1 forbidden rule; 1 call whose arguments "
                             "are not in the trace could not be matched against argument rules")
    assert result.details["unchecked"] == [{"call": 1, "tool": "delete_file", "rule": 1}]
