"""trajectory: each match mode against a plain reference, judged tools, closed tools."""

from __future__ import annotations

import json
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolscore
from tests.helpers import run_check, run_cli
from toolscore import ToolCall
from toolscore_core.errors import InputError
from toolscore_core.matchers import ANY, OneOf, values_match

MODES = ("strict", "in_order", "unordered", "subset", "superset")


def _ok(**args: Any) -> dict[str, Any]:
    return {"args": args, "result": "ok"}


def _trace(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"calls": [{"tool": tool, "args": args, "result": "ok"} for tool, args in calls]}


def test_no_verdict_without_a_mode() -> None:
    assert run_check("trajectory", [{"tool": "a"}], _trace(("a", {}))) is None


@pytest.mark.parametrize(("mode", "status"), [
    ("strict", "fail"), ("in_order", "pass"), ("unordered", "fail"), ("subset", "fail"),
    ("superset", "pass"),
])
def test_an_extra_call_in_each_mode(mode: str, status: str) -> None:
    gold = {"match": mode, "expected": [{"tool": "search", "args": {"q": "x"}},
                                        {"tool": "book", "args": {"id": 1}}]}
    trace = _trace(("search", {"q": "x"}), ("weather", {}), ("book", {"id": 1}))
    result = run_check("trajectory", gold, trace)
    assert result is not None and result.status == status
    if status == "fail":
        assert "1 extra call: #2 weather" in result.reason


@pytest.mark.parametrize(("mode", "status"), [
    ("strict", "fail"), ("in_order", "fail"), ("unordered", "pass"), ("subset", "pass"),
    ("superset", "pass"),
])
def test_the_expected_calls_in_another_order(mode: str, status: str) -> None:
    gold = {"match": mode, "expected": [{"tool": "search", "args": {"q": "x"}},
                                        {"tool": "book", "args": {"id": 1}}]}
    result = run_check("trajectory", gold, _trace(("book", {"id": 1}), ("search", {"q": "x"})))
    assert result is not None and result.status == status
    if status == "fail":
        assert "out of order" in result.reason
        assert result.details["out_of_order"]


@pytest.mark.parametrize(("mode", "status"), [
    ("strict", "fail"), ("in_order", "fail"), ("unordered", "fail"), ("subset", "fail"),
    ("superset", "fail"),
])
def test_a_call_with_a_wrong_argument_names_it(mode: str, status: str) -> None:
    gold = {"match": mode, "expected": [{"tool": "book", "args": {"id": 1, "seat": "4A"}}]}
    result = run_check("trajectory", gold, _trace(("book", {"id": 1, "seat": "9C"})))
    assert result is not None and result.status == status
    if mode != "subset":
        assert "#1 book (call #1: argument 'seat' differs)" in result.reason
    else:  # subset forgives the unmade call, not the call nobody expected
        assert "1 extra call: #1 book" in result.reason


@pytest.mark.parametrize("mode", MODES)
def test_an_optional_call_may_be_left_out_and_never_takes_a_required_one_s_call(
    mode: str
) -> None:
    gold = {"match": mode, "expected": [
        {"tool": "search", "args": {"q": {"$any": True}}, "required": False},
        {"tool": "search", "args": {"q": "flights"}}]}
    result = run_check("trajectory", gold, _trace(("search", {"q": "flights"})))
    assert result is not None and result.status == "pass", result.reason
    assert result.details["skipped"] == [{"expected": 1, "tool": "search"}]


def test_nothing_expected_and_nothing_judged_made_passes() -> None:
    gold = {"match": "strict", "judge_tools": ["cancel"], "expected": []}
    result = run_check("trajectory", gold, _trace(("lookup", {"id": 3})))
    assert result is not None and result.status == "pass"
    assert result.reason == "no call was expected and none was made (strict)"


def test_judge_tools_leave_the_other_calls_out_of_metrics_and_checks() -> None:
    gold = {"match": "unordered", "judge_tools": ["book"],
            "expected": [{"tool": "book", "args": {"id": 1}}]}
    trace = _trace(("lookup", {"id": 1}), ("book", {"id": 1}), ("lookup", {"id": 2}))
    evaluation = toolscore.evaluate(gold, trace)
    assert evaluation.evidence.get("trajectory").status == "pass"  # type: ignore[union-attr]
    assert evaluation.metrics["selection_accuracy"] == 1.0
    assert evaluation.metrics["redundant_rate"] == 0.0
    assert evaluation.score == 1.0
    record = evaluation.to_dict()
    assert [c["tool"] for c in record["calls"]["actual"]] == ["book"]
    assert [(c["position"], c["tool"]) for c in record["calls"]["ignored"]] == [
        (1, "lookup"), (3, "lookup")]
    assert record["judgment"] == {"match": "unordered", "judge_tools": ["book"]}


def test_ignore_tools_leave_only_those_out() -> None:
    gold = {"ignore_tools": ["lookup"], "expected": [{"tool": "book", "args": {"id": 1}}]}
    evaluation = toolscore.evaluate(gold, _trace(("lookup", {}), ("book", {"id": 1})))
    assert evaluation.score == 1.0
    assert evaluation.to_dict()["calls"]["ignored"][0]["tool"] == "lookup"


def test_a_run_with_no_calls_and_no_expected_write_scores_as_what_it_is() -> None:
    gold = {"judge_tools": ["cancel"], "expected": []}
    evaluation = toolscore.evaluate(gold, _trace(("lookup", {})))
    assert evaluation.score == 1.0  # nothing expected, nothing judged made: not a 0


@pytest.mark.parametrize("mode", ["in_order", "superset"])
def test_closed_contract_fails_any_other_call_of_a_judged_tool(mode: str) -> None:
    gold = {"match": mode, "closed": True, "judge_tools": ["book"],
            "expected": [{"tool": "book", "args": {"id": 1}}]}
    trace = _trace(("lookup", {}), ("book", {"id": 1}), ("book", {"id": 2}))
    result = run_check("trajectory", gold, trace)
    assert result is not None and result.status == "fail"
    assert "1 extra call: #2 book (closed tool)" in result.reason


def test_closed_expected_call_closes_its_tool_only() -> None:
    gold = {"match": "superset", "expected": [
        {"tool": "book", "args": {"id": 1}, "closed": True}, {"tool": "lookup"}]}
    open_extra = _trace(("lookup", {}), ("book", {"id": 1}), ("lookup", {"q": 2}))
    result = run_check("trajectory", gold, open_extra)
    assert result is not None and result.status == "pass"
    closed_extra = _trace(("lookup", {}), ("book", {"id": 1}), ("book", {"id": 1}))
    result = run_check("trajectory", gold, closed_extra)
    assert result is not None and result.status == "fail"
    assert result.details["extra"] == [{"call": 3, "tool": "book", "closed": True}]


def test_undecoded_arguments_make_a_failure_unknown() -> None:
    gold = {"match": "superset", "expected": [{"tool": "book", "args": {"id": 1}}]}
    trace = {"calls": [{"tool": "book", "args": "{id: 1", "result": "ok"}]}
    result = run_check("trajectory", gold, trace)
    assert result is not None and result.status == "unknown"
    assert "call #1 (book) did not decode" in result.reason


def test_arguments_not_in_the_trace_make_a_failure_unknown() -> None:
    gold = {"match": "superset", "expected": [{"tool": "book", "args": {"id": 1}}]}
    trace = {"calls": [{"tool": "book", "result": "ok"}]}
    result = run_check("trajectory", gold, trace)
    assert result is not None and result.status == "unknown"
    assert result.reason.endswith("but the arguments of call #1 (book) are not in the trace")


def test_a_judged_argument_makes_a_failure_unknown() -> None:
    gold = {"match": "superset", "expected": [
        {"tool": "email", "args": {"body": {"$judge": "apologises"}}}]}
    result = run_check("trajectory", gold, _trace(("email", {"body": "sorry"})))
    assert result is not None and result.status == "unknown"
    assert "$judge" in result.reason


@pytest.mark.parametrize(("gold", "place"), [
    ({"expected": [], "match": "exact"}, "$.match"),
    ({"expected": [], "judge_tools": ["a"], "ignore_tools": ["b"]}, "$.ignore_tools"),
    ({"expected": [{"tool": "b"}], "judge_tools": ["a"]}, "$.expected[0].tool"),
    ({"expected": [], "closed": True}, "$.closed"),
    ({"expected": [{"tool": "a", "closed": True}]}, "$.expected[0].closed"),
])
def test_contract_keys_that_cannot_mean_anything_are_refused(
    gold: dict[str, Any], place: str
) -> None:
    with pytest.raises(InputError) as caught:
        toolscore.evaluate(gold, _trace())
    assert caught.value.place == place


def test_a_forbidden_rule_for_a_tool_left_out_is_refused_not_silently_dead(
    tmp_path: Path,
) -> None:
    gold = {"expected": [], "judge_tools": ["book"], "forbidden": [{"tool": "delete_user"}]}
    with pytest.raises(InputError) as caught:
        toolscore.evaluate(gold, _trace())
    assert caught.value.place == "$.forbidden[0].tool"
    assert "could never fire" in caught.value.problem
    (tmp_path / "gold.json").write_text(json.dumps({"expected": [], "judge_tools": ["book"]}))
    (tmp_path / "rules.json").write_text(json.dumps([{"tool": "delete_user"}]))
    (tmp_path / "trace.json").write_text(json.dumps(_trace()))
    out = run_cli("eval", "gold.json", "trace.json", "--forbidden", "rules.json", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("error: --forbidden: a forbidden rule for 'delete_user'")
    # a rule over names (a matcher) may reach judged tools: it stays
    gold["forbidden"] = [{"tool": {"$regex": "^delete_"}}]
    assert toolscore.evaluate(gold, _trace()).evidence.get("forbidden-calls") is not None


def test_contracts_without_the_new_keys_keep_their_record() -> None:
    gold = [{"tool": "book", "args": {"id": 1}}]
    record = toolscore.evaluate(gold, _trace(("book", {"id": 1}))).to_dict()
    assert "judgment" not in record and "ignored" not in record["calls"]
    assert all(c["check"] != "trajectory" for c in record["evidence"]["checks"])


# --- every mode against a plain reference ------------------------------------------------

VALUES = st.sampled_from([0, 1, 2])
EXPECTED_VALUES = st.one_of(VALUES, st.just(ANY), st.just(OneOf([1, 2])))
TOOLS = st.sampled_from(["a", "b"])
EXPECTED = st.lists(st.tuples(TOOLS, st.one_of(st.none(), EXPECTED_VALUES)), max_size=4)
ACTUAL = st.lists(st.tuples(TOOLS, VALUES), max_size=5)


def _matches(want: tuple[str, Any], got: tuple[str, Any]) -> bool:
    """The reference's rule: same tool, and the one argument matches (None: any)."""
    return want[0] == got[0] and (want[1] is None or values_match(want[1], got[1]))


def _covers(rows: list[Any], cols: list[Any], fits: Any) -> bool:
    """Whether every row gets a distinct column it fits, tried in every order."""
    return len(rows) <= len(cols) and any(
        all(fits(r, cols[c]) for r, c in zip(rows, chosen, strict=False))
        for chosen in permutations(range(len(cols)), len(rows)))


def _in_order(want: list[Any], got: list[Any]) -> bool:
    j = 0
    for item in want:
        while j < len(got) and not _matches(item, got[j]):
            j += 1
        if j == len(got):
            return False
        j += 1
    return True


def reference(mode: str, want: list[Any], got: list[Any]) -> bool:
    if mode == "strict":
        return len(want) == len(got) and all(map(_matches, want, got))
    if mode == "in_order":
        return _in_order(want, got)
    superset = _covers(want, got, _matches)
    subset = _covers(got, want, lambda g, w: _matches(w, g))
    return {"unordered": superset and subset, "subset": subset, "superset": superset}[mode]


@settings(max_examples=150, deadline=None)
@given(mode=st.sampled_from(MODES), want=EXPECTED, got=ACTUAL)
def test_every_mode_agrees_with_the_reference(
    mode: str, want: list[tuple[str, Any]], got: list[tuple[str, int]]
) -> None:
    gold = {"match": mode, "expected": [
        {"tool": tool} if value is None else {"tool": tool, "args": {"x": value}}
        for tool, value in want]}
    calls = [ToolCall(tool=tool, args={"x": value}, is_error=False) for tool, value in got]
    result = toolscore.evaluate(gold, calls).evidence.get("trajectory")
    assert result is not None
    assert (result.status == "pass") == reference(mode, want, got), result.reason


def closed_reference(mode: str, want: list[Any], got: list[Any]) -> bool:
    """``closed: true``: the mode's rule, and no call of a judged tool beyond the expected
    ones (every call answers an expected call: a full pairing uses as many calls of each
    tool as there are expected calls of it)."""
    if not reference(mode, want, got):
        return False
    tools = {tool for tool, _ in got}
    return all(sum(t == tool for t, _ in got) == sum(t == tool for t, _ in want)
               for tool in tools) or mode == "subset"


@settings(max_examples=150, deadline=None)
@given(mode=st.sampled_from(MODES), want=EXPECTED, got=st.lists(
    st.tuples(st.sampled_from(["a", "b", "read"]), VALUES), max_size=6),
    closed=st.booleans())
def test_judge_tools_and_closed_agree_with_the_reference(
    mode: str, want: list[tuple[str, Any]], got: list[tuple[str, int]], closed: bool
) -> None:
    gold = {"match": mode, "judge_tools": ["a", "b"], "closed": closed, "expected": [
        {"tool": tool} if value is None else {"tool": tool, "args": {"x": value}}
        for tool, value in want]}
    calls = [ToolCall(tool=tool, args={"x": value}, is_error=False) for tool, value in got]
    result = toolscore.evaluate(gold, calls).evidence.get("trajectory")
    assert result is not None
    judged = [call for call in got if call[0] != "read"]
    rule = closed_reference if closed else reference
    assert (result.status == "pass") == rule(mode, want, judged), result.reason


def matching_reference(mode: str, want: list[Any], got: list[Any]) -> bool:
    """Every pairing tried (one to one, in order for strict and in_order): the mode passes
    when one answers each required expected call (the third item: required), and for
    strict, unordered and subset also every call made."""
    ordered = mode in ("strict", "in_order")
    required = {i for i, item in enumerate(want) if item[2]}
    for k in range(min(len(want), len(got)) + 1):
        for rows in combinations(range(len(want)), k):
            options = combinations(range(len(got)), k) if ordered \
                else permutations(range(len(got)), k)
            for cols in options:
                if not all(_matches(want[r][:2], got[c]) for r, c in zip(rows, cols,
                                                                          strict=True)):
                    continue
                covers_required = required <= set(rows)
                covers_calls = k == len(got)
                if {"strict": covers_required and covers_calls,
                    "in_order": covers_required,
                    "unordered": covers_required and covers_calls,
                    "subset": covers_calls,
                    "superset": covers_required}[mode]:
                    return True
    return False


@settings(max_examples=200, deadline=None)
@given(mode=st.sampled_from(MODES),
       want=st.lists(st.tuples(TOOLS, st.one_of(st.none(), EXPECTED_VALUES), st.booleans()),
                     max_size=4),
       got=ACTUAL)
def test_optional_calls_agree_with_a_brute_force_reference(
    mode: str, want: list[tuple[str, Any, bool]], got: list[tuple[str, int]]
) -> None:
    gold = {"match": mode, "expected": [
        {"tool": tool, "required": needed,
         **({} if value is None else {"args": {"x": value}})}
        for tool, value, needed in want]}
    calls = [ToolCall(tool=tool, args={"x": value}, is_error=False) for tool, value in got]
    result = toolscore.evaluate(gold, calls).evidence.get("trajectory")
    assert result is not None
    assert (result.status == "pass") == matching_reference(mode, want, got), result.reason
