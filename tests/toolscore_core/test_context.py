"""EvaluationContext.made_exactly: as many expected calls made with their arguments as can be;
the record's expected calls."""

from __future__ import annotations

import itertools
import json

from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

import toolscore
from toolscore_core.canonical import canonical_json
from toolscore_core.context import EvaluationContext, Options, call_dict
from toolscore_core.contracts import parse_contract
from toolscore_core.evaluation import run_evaluation
from toolscore_core.matchers import ANY, IsType
from toolscore_core.models import Contract, ExpectedCall, ToolCall, Trace
from toolscore_core.pairing import arguments_differ, pair_calls
from toolscore_core.plugins import default_registry

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


# arguments equal across types (1, 1.0, true; [1], [1.0]): calls of one key and other
# types abound. More expected calls than calls, over tools the calls may lack: the in-order
# walk loses its way and leaves calls to the hash pass, which gives back those of other types
TWIN_ARGS = [{}, {"p": 1}, {"p": 1.0}, {"p": True}, {"p": [1]}, {"p": [1.0]}, {"p": "x"}]
TWIN_EXPECTED = st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(
    [None, *TWIN_ARGS, {"p": ANY}, {"p": IsType("int")}])), max_size=12)
TWIN_ACTUAL = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([None, *TWIN_ARGS]),
                                 st.sampled_from([False, True, None])), max_size=6)


@settings(max_examples=400, deadline=None)
@given(TWIN_EXPECTED, TWIN_ACTUAL)
def test_made_exactly_is_the_same_without_the_pairings_twinless_marks(exp, act) -> None:
    """The repair search passes over the expected calls the pairing marks ``twinless``
    without looking for a free call of their key: it finds what it finds asking of each."""
    expected = [ExpectedCall(tool=t, args=a) for t, a in exp]
    calls = [ToolCall(tool=t, args=a, is_error=e) for t, a, e in act]
    pairing = pair_calls(expected, calls)
    told, untold = (EvaluationContext(contract=Contract(expected=tuple(expected)),
                                      trace=Trace(calls=tuple(calls)), final_answer=None,
                                      pairing=p)
                    for p in (pairing, evolve(pairing, twinless=b"")))
    assert told.made_exactly == untold.made_exactly
    assert len(pairing.twinless) == len(expected)
    assert not any(pairing.twinless[i] and pairing.identical[i] for i in range(len(expected)))


def test_a_call_given_back_for_other_types_is_not_twinless() -> None:
    # past the in-order walk's reach, {"p": 1.0} takes the call {"p": 1} by hash and gives
    # it back (1.0 is not 1 by type); {"p": 1} then finds its key empty, but the call given
    # back is still one of it, and answers it
    others = [ExpectedCall(tool="b", args={"n": n}) for n in range(5)]
    expected = [ExpectedCall(tool="a", args={"p": 1.0}), *others,
                ExpectedCall(tool="a", args={"p": 1}), ExpectedCall(tool="a", args={"p": 2})]
    calls = [ToolCall(tool="a", args={"p": 1})]
    pairing = pair_calls(expected, calls)
    assert not any(pairing.identical)
    assert list(pairing.twinless) == [0, 1, 1, 1, 1, 1, 0, 1]
    context = toolscore.evaluate(expected, calls).context
    assert context.made_exactly in ({0: 0}, {6: 0})


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


def _row_calls() -> list[dict[str, object]]:
    return [call_dict(ToolCall(tool="search", args={"q": "weather"}, id="c1",
                               result="Error: quota", is_error=False, duration=0.5)),
            call_dict(ToolCall(tool="fetch", args={"url": "x"}, id="c2", result={"ok": 1},
                               is_error=False))]


def _evaluated(contract: object, calls: list[dict[str, object]],
               calls_json: tuple[list[dict[str, object]], str] | None) -> toolscore.Evaluation:
    trace = Trace(calls=tuple(ToolCall(**call) for call in calls))  # type: ignore[arg-type]
    return run_evaluation(parse_contract(contract), trace, options=Options(), weights=None,
                          final_answer=None, choice=None, registry=default_registry(),
                          calls_json=calls_json)


def test_a_record_reuses_the_calls_json_it_is_given_byte_for_byte() -> None:
    calls = _row_calls()
    contract = [{"tool": "search", "args": {"q": "weather"}}, {"tool": "fetch"}]
    plain = _evaluated(contract, calls, None)
    reused = _evaluated(contract, calls, (calls, canonical_json(calls)))
    assert reused.record_json == plain.record_json
    assert reused.record_sha256 == plain.record_sha256


def test_calls_an_error_rule_changed_are_written_as_changed_not_as_given() -> None:
    calls = _row_calls()
    contract = {"expected": [{"tool": "search", "args": {"q": "weather"}}],
                "error_when": [{"result": "^Error:"}]}
    given = (calls, canonical_json(calls))
    record = json.loads(_evaluated(contract, calls, given).record_json)
    assert record["calls"]["actual"][0]["is_error"] is True
    assert record["calls"]["actual"][0]["error_rule"]
    assert _evaluated(contract, calls, given).record_json == _evaluated(
        contract, calls, None).record_json
