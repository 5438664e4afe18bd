import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_core.matchers import ANY, IsType
from toolscore_core.models import ExpectedCall, ToolCall
from toolscore_core.pairing import (
    arguments_differ,
    pair_calls,
    pair_exact_first,
    pair_in_order,
    pair_score,
)

tools = st.sampled_from(["a", "b"])
values = st.sampled_from([1, 2, 1.0, True, "x", "y", None])
arg_dicts = st.dictionaries(st.sampled_from(["p", "q", "r"]), values, max_size=3)


def identical(e, a) -> bool:
    return e.args is not None and a.args is not None and e.tool == a.tool and (
        json.dumps(e.args, sort_keys=True) == json.dumps(a.args, sort_keys=True))


def brute_force(expected, actual):
    """The best (pairs, identical pairs, total F1), trying every assignment."""
    best = (0, 0, 0.0)
    n, m = len(expected), len(actual)
    for k in range(min(n, m), -1, -1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.permutations(range(m), k):
                chosen = list(zip(rows, cols, strict=True))
                if any(expected[r].tool != actual[c].tool for r, c in chosen):
                    continue
                same = sum(identical(expected[r], actual[c]) for r, c in chosen)
                total = sum(pair_score(expected[r], actual[c])[0] for r, c in chosen)
                best = max(best, (k, same, round(total, 9)))
    return best


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(tools, arg_dicts), max_size=5),
       st.lists(st.tuples(tools, arg_dicts), max_size=5))
def test_pairing_is_optimal(exp, act) -> None:
    expected = [ExpectedCall(tool=t, args=a) for t, a in exp]
    actual = [ToolCall(tool=t, args=a) for t, a in act]
    pairing = pair_calls(expected, actual)
    total = round(sum(p.score for p in pairing.pairs), 9)
    same = sum(identical(expected[p.expected], actual[p.actual]) for p in pairing.pairs)
    assert (len(pairing.pairs), same, total) == brute_force(expected, actual)
    assert len({p.actual for p in pairing.pairs}) == len(pairing.pairs)
    assert list(pairing.pairs) == sorted(pairing.pairs)  # sorted by expected call, one pair each
    assert len({p.expected for p in pairing.pairs}) == len(pairing.pairs)
    assert all(expected[p.expected].tool == actual[p.actual].tool for p in pairing.pairs)
    assert pairing.unpaired_expected == tuple(
        sorted(set(range(len(expected))) - {p.expected for p in pairing.pairs}))
    assert pairing.unpaired_actual == tuple(
        sorted(set(range(len(actual))) - {p.actual for p in pairing.pairs}))
    # the pairs it marks identical are of identical calls, and exact (made_exactly takes them
    # without asking)
    assert len(pairing.identical) == len(expected)
    for p in pairing.pairs:
        if pairing.identical[p.expected]:
            assert identical(expected[p.expected], actual[p.actual]) and p.score == 1.0
    assert not any(pairing.identical[i] for i in pairing.unpaired_expected)


def test_a_successful_retry_is_preferred_over_the_failed_attempt() -> None:
    expected = [ExpectedCall(tool="deploy", args={"env": "prod"})]
    actual = [ToolCall(tool="deploy", args={"env": "prod"}, is_error=True, error="503"),
              ToolCall(tool="deploy", args={"env": "prod"}, result="ok", is_error=False)]
    assert pair_calls(expected, actual).pairs[0].actual == 1


def test_identical_calls_are_never_split_up_for_partial_matches() -> None:
    # pairing (x,y)-(x,y) and (x)-(y) totals 1.0; crossing them would total 1.33,
    # but an exact call is the answer to its expected call
    expected = [ExpectedCall(tool="t", args={"x": 1, "y": 2}), ExpectedCall(tool="t",
                                                                          args={"x": 1})]
    actual = [ToolCall(tool="t", args={"y": 2}), ToolCall(tool="t", args={"x": 1, "y": 2})]
    pairs = {(p.expected, p.actual) for p in pair_calls(expected, actual).pairs}
    assert pairs == {(0, 1), (1, 0)}


def test_arguments_not_in_the_trace_are_neither_a_match_nor_a_difference() -> None:
    from toolscore_core.pairing import ARGUMENTS_UNKNOWN, arguments_differ, arguments_unknown

    want = ExpectedCall(tool="list", args={})
    unread = ToolCall(tool="list")  # args and raw_args null: the trace does not record them
    garbled = ToolCall(tool="list", raw_args="{oops")
    assert arguments_unknown(want, unread) and not arguments_unknown(want, garbled)
    assert arguments_differ(want, unread) == ARGUMENTS_UNKNOWN
    assert arguments_differ(want, garbled) == "the arguments did not decode"
    # nothing matched (never the 1.0 of "both empty"), so never an exact pair
    assert pair_score(want, unread) == (0.0, 0) == pair_score(want, garbled)
    # a contract that does not check arguments is not asking
    assert not arguments_unknown(ExpectedCall(tool="list"), unread)
    assert arguments_differ(ExpectedCall(tool="list"), unread) is None


def test_true_is_not_paired_as_identical_to_one() -> None:
    expected = [ExpectedCall(tool="set", args={"v": True})]
    actual = [ToolCall(tool="set", args={"v": 1})]
    pair = pair_calls(expected, actual).pairs[0]
    assert pair.score == 0.0


def _mixed_values():  # type: ignore[no-untyped-def]
    from toolscore_core.matchers import ANY, Approx, IsType, OneOf, Regex

    plain = st.sampled_from([1, 2, 1.0, True, False, "x", "xy", None, [1], {"k": 1}])
    matchers = st.sampled_from([ANY, IsType("int"), IsType("bool"), Regex("^x"), Approx(1.0),
                                OneOf([1, "x"])])
    return plain, matchers


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_block_scores_with_matchers_equal_pair_score(data) -> None:  # type: ignore[no-untyped-def]
    """A block whose expected arguments hold matchers or nested values is scored from the
    index of plain values plus one matcher question per call: the same floats and counts
    as pair_score gives pair by pair."""
    from toolscore_core.pairing import _block_scores

    plain, matchers = _mixed_values()
    names = st.sampled_from(["p", "q", "r"])
    expected = [ExpectedCall(tool="a", args=data.draw(st.one_of(st.none(), st.dictionaries(
        names, st.one_of(plain, matchers), max_size=3)))) for _ in range(data.draw(
            st.integers(1, 4)))]
    actual = [ToolCall(tool="a", args=data.draw(st.one_of(st.none(), st.dictionaries(
        names, plain, max_size=3)))) for _ in range(data.draw(st.integers(1, 4)))]
    scores, matched = _block_scores(expected, actual, list(range(len(expected))),
                                    list(range(len(actual))))
    for r, want in enumerate(expected):
        for c, got in enumerate(actual):
            assert (scores[r][c], matched[r][c]) == pair_score(want, got)


# --- the trajectory modes' pairings --------------------------------------------------------

mode_values = st.sampled_from([0, 1])
mode_expected_values = st.one_of(mode_values, st.just(ANY), st.just(IsType("int")))
mode_expected = st.lists(st.tuples(tools, st.dictionaries(st.sampled_from(["p", "q", "r"]),
                                                          mode_expected_values, max_size=3),
                                   st.booleans()), max_size=4)
mode_actual = st.lists(st.tuples(tools, st.dictionaries(st.sampled_from(["p", "q", "r"]),
                                                        mode_values, max_size=3)), max_size=5)


def exact(e, a) -> bool:
    return e.tool == a.tool and arguments_differ(e, a) is None


def brute_force_modes(expected, actual, ordered: bool):
    """The best (exact pairs of required calls, exact pairs, pairs, total F1) over every
    pairing (in order when ``ordered``)."""
    best = (0, 0, 0, 0.0)
    n, m = len(expected), len(actual)
    for k in range(min(n, m), -1, -1):
        for rows in itertools.combinations(range(n), k):
            cols_options = (itertools.combinations(range(m), k) if ordered
                            else itertools.permutations(range(m), k))
            for cols in cols_options:
                chosen = list(zip(rows, cols, strict=True))
                if any(expected[r].tool != actual[c].tool for r, c in chosen):
                    continue
                hits = [exact(expected[r], actual[c]) for r, c in chosen]
                needed = sum(h for h, (r, _) in zip(hits, chosen, strict=True)
                             if expected[r].required)
                total = sum(pair_score(expected[r], actual[c])[0] for r, c in chosen)
                best = max(best, (needed, sum(hits), k, round(total, 9)))
    return best


def _achieved(pairing, expected, actual):
    hits = [exact(expected[p.expected], actual[p.actual]) for p in pairing.pairs]
    needed = sum(h for h, p in zip(hits, pairing.pairs, strict=True)
                 if expected[p.expected].required)
    return (needed, sum(hits), len(pairing.pairs),
            round(sum(p.score for p in pairing.pairs), 9))


@settings(max_examples=200, deadline=None)
@given(mode_expected, mode_actual)
def test_exact_first_pairing_is_optimal(exp, act) -> None:
    expected = [ExpectedCall(tool=t, args=a, required=r) for t, a, r in exp]
    actual = [ToolCall(tool=t, args=a) for t, a in act]
    pairing = pair_exact_first(expected, actual)
    assert list(pairing.pairs) == sorted(pairing.pairs)
    assert _achieved(pairing, expected, actual) == brute_force_modes(expected, actual, False)


@settings(max_examples=200, deadline=None)
@given(mode_expected, mode_actual)
def test_in_order_pairing_is_optimal_and_keeps_order(exp, act) -> None:
    expected = [ExpectedCall(tool=t, args=a, required=r) for t, a, r in exp]
    actual = [ToolCall(tool=t, args=a) for t, a in act]
    pairing = pair_in_order(expected, actual)
    made = [p.actual for p in pairing.pairs]
    assert made == sorted(made)
    assert list(pairing.pairs) == sorted(pairing.pairs)
    assert _achieved(pairing, expected, actual) == brute_force_modes(expected, actual, True)


def test_arguments_differ_names_the_argument() -> None:
    want = ExpectedCall(tool="a", args={"p": 1, "q": ANY})
    assert arguments_differ(want, ToolCall(tool="a", args={"p": 1, "q": 3})) is None
    assert arguments_differ(want, ToolCall(tool="a", args={"p": 2, "q": 3})) == \
        "argument 'p' differs"
    assert arguments_differ(want, ToolCall(tool="a", args={"p": 1})) == \
        "argument 'q' is missing"
    assert arguments_differ(want, ToolCall(tool="a", args={"p": 1, "q": 0, "r": 0})) == \
        "argument 'r' was not expected"
    assert arguments_differ(want, ToolCall(tool="a", raw_args="{p:")) == \
        "the arguments did not decode"
    assert arguments_differ(ExpectedCall(tool="a"), ToolCall(tool="a", args={"z": 1})) is None
