"""A block whose full pairs already pair its smaller side one to one is paired without the
solver: the same pairs, scores and counts as SciPy's assignment gives, in both modes."""

from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_core.matchers import ANY, IsType, Optional
from toolscore_core.models import ExpectedCall, ToolCall
from toolscore_core.pairing import Pair, _pair_evident, _solve

names = st.sampled_from(["q", "n", "flag"])
plain = st.sampled_from(["a", "b", "c", 0, 1, 2, 1.0, True, False, None])
expected_values = st.one_of(plain, st.sampled_from(
    [IsType("bool"), IsType("int"), ANY, Optional("a"), Optional(IsType("int"))]))


@st.composite
def blocks(draw):  # type: ignore[no-untyped-def]
    """Expected calls of one tool (literals, matchers, ``$optional``, no ``args``) and
    actual calls, many of them some expected call made (so that full pairs are common),
    with random outcomes and undecoded arguments."""
    expected = []
    for k in range(draw(st.integers(1, 4))):
        args = (None if draw(st.integers(0, 5)) == 0  # no args: full with every call
                else draw(st.dictionaries(names, expected_values, max_size=3)))
        if args is not None and draw(st.integers(0, 5)):
            args["id"] = k  # most expected calls tell themselves apart, as a contract's do
        expected.append(ExpectedCall(tool="t", required=draw(st.booleans()), args=args))
    sources = draw(st.permutations(expected))
    actual = []
    for k in range(draw(st.integers(1, 4))):
        args = draw(st.one_of(st.none(), st.dictionaries(names, plain, max_size=3)))
        if k < len(sources) and draw(st.integers(0, 5)):
            # an expected call made, matcher by matcher
            args = {name: value for name, value in (sources[k].args or {}).items()
                    if not isinstance(value, Optional) or draw(st.booleans())}
            for name, value in args.items():
                if isinstance(value, Optional):
                    value = value.value
                if value is ANY or isinstance(value, IsType):
                    value = draw(st.sampled_from([True, 1, "a"] if value is ANY
                                                 else [True, 0] if value.type_name == "bool"
                                                 else [2, False]))
                args[name] = value
        raw = draw(st.sampled_from([None, "{not json"])) if args is None else None
        actual.append(ToolCall(tool="t", args=args, raw_args=raw,
                               is_error=draw(st.sampled_from([False, None, True]))))
    return expected, actual


def solved(expected, actual, exact_first: bool) -> list[Pair]:  # type: ignore[no-untyped-def]
    pairs: list[Pair] = []
    _solve(expected, actual, list(range(len(expected))), list(range(len(actual))), pairs,
           exact_first=exact_first)
    return pairs


@settings(max_examples=600, deadline=None)
@given(blocks())
def test_an_evident_block_is_paired_as_the_solver_pairs_it(block) -> None:  # type: ignore[no-untyped-def]
    expected, actual = block
    pairs: list[Pair] = []
    if _pair_evident(expected, actual, list(range(len(expected))), list(range(len(actual))),
                     pairs):
        for exact_first in (False, True):
            assert pairs == solved(expected, actual, exact_first)
            assert [tuple(map(type, pair)) for pair in pairs] == [
                tuple(map(type, pair)) for pair in solved(expected, actual, exact_first)]
    else:
        assert pairs == []


def test_the_benchmark_blocks_are_evident() -> None:
    """The regrade benchmark's rows: literal arguments and a ``$type`` matcher, made in
    another order with a flag of either value."""
    expected = [ExpectedCall(tool="t", args={"q": f"value {j}", "n": j,
                                             "flag": IsType("bool")}) for j in (0, 4, 8)]
    actual = [ToolCall(tool="t", args={"q": f"value {j}", "n": j, "flag": j % 2 == 0},
                       is_error=False) for j in (8, 0, 4)]
    pairs: list[Pair] = []
    assert _pair_evident(expected, actual, [0, 1, 2], [0, 1, 2], pairs)
    assert pairs == [(0, 1, 3, 1.0, True), (1, 2, 3, 1.0, True), (2, 0, 3, 1.0, True)]
    for exact_first in (False, True):
        assert pairs == solved(expected, actual, exact_first)
    # one call made with a wrong "n" leaves its expected call without a full pair
    actual[0] = ToolCall(tool="t", args={"q": "value 8", "n": 9, "flag": True})
    assert not _pair_evident(expected, actual, [0, 1, 2], [0, 1, 2], [])


def test_an_expected_call_without_arguments_is_never_evident() -> None:
    expected = [ExpectedCall(tool="t"), ExpectedCall(tool="t", args={"q": "a"})]
    actual = [ToolCall(tool="t", args={"q": "a"}), ToolCall(tool="t", args={"q": "b"})]
    assert not _pair_evident(expected, actual, [0, 1], [0, 1], [])
