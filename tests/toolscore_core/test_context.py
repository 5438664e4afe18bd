"""EvaluationContext.made_exactly: as many expected calls made with their arguments as can be;
the record's expected calls."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

import toolscore
from toolscore_core.contracts import parse_contract
from toolscore_core.matchers import ANY, IsType
from toolscore_core.models import ExpectedCall, ToolCall
from toolscore_core.pairing import arguments_differ

VALUES = st.sampled_from([0, 1, 1.0, True])
EXPECTED = st.lists(st.tuples(
    st.sampled_from(["a", "b"]),
    st.one_of(st.none(), st.dictionaries(st.sampled_from(["p", "q"]), st.one_of(
        VALUES, st.just(ANY), st.just(IsType("int"))), max_size=2))), max_size=4)
ACTUAL = st.lists(st.tuples(st.sampled_from(["a", "b"]),
                            st.dictionaries(st.sampled_from(["p", "q"]), VALUES, max_size=2)),
                  max_size=5)


def most_made(expected: list[ExpectedCall], calls: list[ToolCall]) -> int:
    """The largest number of expected calls answered one to one by the calls that are them."""
    for k in range(min(len(expected), len(calls)), 0, -1):
        for rows in itertools.combinations(range(len(expected)), k):
            for cols in itertools.permutations(range(len(calls)), k):
                if all(expected[r].tool == calls[c].tool
                       and arguments_differ(expected[r], calls[c]) is None
                       for r, c in zip(rows, cols, strict=True)):
                    return k
    return 0


@settings(max_examples=250, deadline=None)
@given(EXPECTED, ACTUAL)
def test_made_exactly_answers_as_many_expected_calls_as_can_be(exp, act) -> None:
    expected = [ExpectedCall(tool=t, args=a) for t, a in exp]
    calls = [ToolCall(tool=t, args=a, is_error=False) for t, a in act]
    context = toolscore.evaluate(expected, calls).context
    made = context.made_exactly
    assert len(set(made.values())) == len(made)
    assert all(arguments_differ(expected[i], calls[j]) is None and
               expected[i].tool == calls[j].tool for i, j in made.items())
    assert len(made) == most_made(expected, calls)


def test_an_exact_call_the_f1_pairing_gave_away_is_taken_back() -> None:
    # identical calls pair first (x=1 with x=1), which leaves {"$type": "int"} with 1.0;
    # x=1.0 answers x=1 too, so both expected calls can be made exactly
    expected = [ExpectedCall(tool="f", args={"x": 1}),
                ExpectedCall(tool="f", args={"x": IsType("int")})]
    calls = [ToolCall(tool="f", args={"x": 1}), ToolCall(tool="f", args={"x": 1.0})]
    context = toolscore.evaluate(expected, calls).context
    assert context.paired == {0: 0, 1: 1}
    assert context.made_exactly == {0: 1, 1: 0}


def test_records_under_one_contract_show_its_expected_calls_each_their_own() -> None:
    contract = parse_contract([
        {"tool": "search", "args": {"q": {"$regex": "^w"}, "n": 3}},
        {"tool": "fetch", "args": {"url": {"$any": True}}, "required": False}])
    first = toolscore.evaluate(contract, [{"tool": "search", "args": {"q": "weather", "n": 3}}])
    expected = first.to_dict()["calls"]["expected"]
    expected[0]["tool"] = "changed by the caller"
    expected.append({"tool": "added by the caller"})
    second = toolscore.evaluate(contract, [{"tool": "fetch", "args": {"url": "x"}}])
    shown = second.to_dict()["calls"]["expected"]
    assert [call["tool"] for call in shown] == ["search", "fetch"]
    assert shown[0]["args"] == {"q": "Regex('^w')", "n": 3}
    assert shown[1]["required"] is False
    again = toolscore.evaluate(parse_contract(
        [{"tool": "search", "args": {"q": {"$regex": "^w"}, "n": 3}},
         {"tool": "fetch", "args": {"url": {"$any": True}}, "required": False}]),
        [{"tool": "fetch", "args": {"url": "x"}}])
    assert again.record_json == second.record_json
