import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.errors import InputError
from toolscore_core.matchers import (
    ANY,
    Approx,
    Contains,
    IsType,
    Judged,
    OneOf,
    Regex,
    from_json,
    to_json,
    to_repr,
    values_match,
)

scalars = st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False)


@given(scalars)
def test_any_matches_everything(value: object) -> None:
    assert ANY.matches(value)


@given(scalars)
def test_a_value_matches_itself(value: object) -> None:
    assert values_match(value, value)


def test_true_is_not_one_but_one_is_one_point_zero() -> None:
    assert not values_match(True, 1)
    assert not values_match(1, True)
    assert values_match(1, 1.0)
    assert not values_match("1", 1)
    assert not values_match({"a": 1}, {"a": 1, "b": 2})
    assert values_match({"a": [1, {"b": ANY}]}, {"a": [1, {"b": None}]})


@pytest.mark.parametrize(
    ("matcher", "good", "bad"),
    [
        (Regex(r"^2026-\d\d$"), "2026-12", "2025-12"),
        (Approx(3.14, rel=0.01), 3.15, 3.3),
        (Contains("lo"), "hello", "help"),
        (Contains(2), [1, 2, 3], [1, 3]),
        (Contains({"a": 1}), {"a": 1, "b": 2}, {"a": 2}),
        (OneOf(["a", "b"]), "b", "c"),
        (IsType("int"), 3, 3.0),
        (IsType("number"), 3.5, True),
    ],
)
def test_matchers(matcher: object, good: object, bad: object) -> None:
    assert values_match(matcher, good)
    assert not values_match(matcher, bad)


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_approx_is_symmetric_within_tolerance(x: float) -> None:
    assert Approx(x, rel=1e-6).matches(x * (1 + 1e-8))


def test_json_forms_round_trip() -> None:
    doc = {"a": {"$regex": "^x"}, "b": [{"$approx": 1.5, "rel": 0.1, "abs": 0}],
           "c": {"$oneof": [1, {"$type": "str"}]}, "d": {"$any": True},
           "e": {"$contains": "z"}}
    parsed = from_json(doc)
    assert to_json(parsed) == {**doc, "b": [{"$approx": 1.5, "rel": 0.1, "abs": 0}]}
    assert to_repr(parsed)["a"] == "Regex('^x')"
    assert to_repr(parsed)["d"] == "ANY"


@pytest.mark.parametrize(
    ("doc", "place", "words"),
    [
        ({"city": {"$regx": "x"}}, "$.city", "unknown matcher '$regx'"),
        ({"n": {"$approx": "3"}}, "$.n", "take numbers"),
        ({"s": {"$regex": "("}}, "$.s", "invalid regular expression"),
        ({"t": {"$type": "integr"}}, "$.t", "unknown type"),
        ({"o": {"$oneof": []}}, "$.o", "non-empty list"),
        ({"a": {"$any": True, "extra": 1}}, "$.a", "unknown key 'extra'"),
        ({"l": [{"$bogus": 1}]}, "$.l[0]", "unknown matcher"),
        # $judge stands only for a whole argument of an expected call (contracts)
        ({"city": {"$judge": "Paris"}}, "$.city", '"$judge" takes what a whole argument'),
    ],
)
def test_malformed_matchers_name_the_place(doc: dict, place: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        from_json(doc, file="gold.json")
    message = str(info.value)
    assert message.startswith(f"gold.json: {place}: ")
    assert words in message


def test_a_judged_matcher_round_trips_and_matches_nothing_by_rule() -> None:
    parsed = from_json({"city": {"$judge": "same city as Paris"}, "n": 1}, judged=True)
    assert parsed == {"city": Judged("same city as Paris"), "n": 1}
    assert to_json(parsed) == {"city": {"$judge": "same city as Paris"}, "n": 1}
    assert to_repr(parsed)["city"] == "Judged('same city as Paris')"
    assert Judged("a") != Judged("b") and hash(Judged("a")) == hash(Judged("a"))
    # Only a judge can say yes: the rules match nothing, Paris itself included.
    assert not values_match(Judged("same city as Paris"), "Paris")


@pytest.mark.parametrize(
    ("doc", "place"),
    [
        ({"c": {"$judge": ""}}, "$.c"),
        ({"c": {"$judge": 3}}, "$.c"),
        ({"c": {"$oneof": [{"$judge": "Paris"}]}}, "$.c.$oneof[0]"),
        ({"c": {"$contains": {"$judge": "Paris"}}}, "$.c.$contains"),
        ({"c": {"where": {"$judge": "Paris"}}}, "$.c.where"),
        ({"c": [{"$judge": "Paris"}]}, "$.c[0]"),
    ],
)
def test_a_judged_matcher_stands_only_for_a_whole_argument(doc: dict, place: str) -> None:
    with pytest.raises(InputError) as info:
        from_json(doc, file="gold.json", judged=True)
    assert str(info.value).startswith(f'gold.json: {place}: "$judge" takes what a whole '
                                      "argument of an expected call should be, in words")


def test_judged_in_finds_a_judged_argument_in_a_pair_that_did_not_match_fully() -> None:
    from types import MappingProxyType

    from toolscore_core.contracts import parse_contract
    from toolscore_core.matchers import judged_in
    from toolscore_core.models import ExpectedCall, ToolCall
    from toolscore_core.pairing import pair_calls

    calls = [ToolCall(tool="a", args={"x": 1}), ToolCall(tool="b", args={"city": "Paname"})]
    plain = parse_contract([{"tool": "a", "args": {"x": 1}}, {"tool": "b"}]).expected
    judged = parse_contract([{"tool": "a", "args": {"x": 1}},
                             {"tool": "b", "args": {"city": {"$judge": "Paris"}}}]).expected
    assert not judged_in(plain, pair_calls(plain, calls).pairs)
    assert judged_in(judged, pair_calls(judged, calls).pairs)
    assert not judged_in(judged, pair_calls(judged, calls[:1]).pairs)  # nothing to judge
    by_hand = [ExpectedCall(tool="b", args=MappingProxyType({"city": Judged("Paris")}))]
    assert judged_in(by_hand, pair_calls(by_hand, calls).pairs)
