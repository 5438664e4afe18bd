import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_core.errors import InputError
from toolscore_core.matchers import (
    ANY,
    Approx,
    Contains,
    IsType,
    Judged,
    Matcher,
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


# --- Composed matchers, each property-tested against a plain reference written here. The
# matchers are written in their JSON form (what a contract holds), read by from_json, and
# compared with a reference that interprets the same JSON directly.

JSON_SCALARS = (st.none() | st.booleans() | st.integers(-3, 3)
                | st.sampled_from([0.0, 1.0, 2.5, -1.0]) | st.sampled_from(["", "a", "B", "ab"]))
json_values = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
    max_leaves=8,
)
PATTERNS = ["^a", "b$", "^$", "a|B", r"^\d"]
TYPES = ["int", "integer", "float", "number", "str", "bool", "list", "dict", "null"]


def ref_equal(expected: object, actual: object) -> bool:
    """Plain JSON equality: true is not 1, 1 is 1.0, objects need the same keys."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    numbers = (int, float)
    if isinstance(expected, numbers) and isinstance(actual, numbers):
        return expected == actual
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and set(expected) == set(actual)
                and all(ref_equal(expected[k], actual[k]) for k in expected))
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(ref_equal(e, a) for e, a in zip(expected, actual, strict=True)))
    return type(expected) is type(actual) and expected == actual


def ref_type(name: str, value: object) -> bool:
    kinds = {"int": (int,), "integer": (int,), "float": (float,), "number": (int, float),
             "str": (str,), "list": (list,), "dict": (dict,)}
    if name == "bool":
        return type(value) is bool
    if name == "null":
        return value is None
    return type(value) is not bool and isinstance(value, kinds[name])


def ref(spec: object, value: object) -> bool:
    """The reference: what each JSON matcher means, read straight off its JSON form."""
    if isinstance(spec, dict) and len(spec) >= 1 and next(iter(spec)).startswith("$"):
        key = next(iter(spec))
        arg = spec[key]
        if key == "$type":
            return ref_type(arg, value)
        if key == "$regex":
            import re

            return isinstance(value, str) and re.search(arg, value) is not None
        if key == "$all":
            return all(ref(part, value) for part in arg)
        if key in ("$anyof", "$oneof"):
            return any(ref(part, value) for part in arg)
        if key == "$not":
            return not ref(arg, value)
        if key == "$object":
            return ref_object(arg, spec.get("extra", "forbid"), value)
        if key == "$list":
            return ref_list(arg, spec.get("order", "same"), spec.get("extra", "forbid"),
                            spec.get("each"), value)
        raise AssertionError(key)
    if isinstance(spec, dict):
        return ref_object(spec, "forbid", value)
    if isinstance(spec, list):
        return (isinstance(value, list) and len(value) == len(spec)
                and all(ref(s, v) for s, v in zip(spec, value, strict=True)))
    return ref_equal(spec, value)


def ref_object(keys: dict, extra: str, value: object) -> bool:
    if not isinstance(value, dict):
        return False
    if extra == "forbid" and any(k not in keys for k in value):
        return False
    for name, want in keys.items():
        optional = isinstance(want, dict) and "$optional" in want
        if name not in value:
            if not optional:
                return False
        elif not ref(want["$optional"] if optional else want, value[name]):
            return False
    return True


def ref_list(items: list, order: str, extra: str, each: object, value: object) -> bool:
    """By brute force: every way of giving each item its own element."""
    from itertools import combinations, permutations

    if not isinstance(value, list):
        return False
    if each is not None and not all(ref(each, v) for v in value):
        return False
    if extra == "forbid" and len(value) != len(items):
        return False
    if order == "same":
        choices = combinations(range(len(value)), len(items))
    else:
        choices = permutations(range(len(value)), len(items))
    return any(all(ref(item, value[j]) for item, j in zip(items, chosen, strict=True))
               for chosen in choices)


leaves = (JSON_SCALARS
          | st.builds(lambda t: {"$type": t}, st.sampled_from(TYPES))
          | st.builds(lambda p: {"$regex": p}, st.sampled_from(PATTERNS)))


def _composed(inner: st.SearchStrategy) -> st.SearchStrategy:
    parts = st.lists(inner, min_size=1, max_size=3)
    return (st.builds(lambda p: {"$all": p}, parts)
            | st.builds(lambda p: {"$anyof": p}, parts)
            | st.builds(lambda p: {"$oneof": p}, parts)
            | st.builds(lambda m: {"$not": m}, inner))


composed = st.recursive(leaves, _composed, max_leaves=6)


@given(composed, json_values)
def test_composed_matchers_agree_with_the_reference(spec: object, value: object) -> None:
    assert values_match(from_json(spec), value) == ref(spec, value)


@given(composed)
def test_composed_matchers_round_trip_with_a_stable_repr(spec: object) -> None:
    parsed = from_json(spec)
    again = from_json(to_json(parsed))
    assert again == parsed
    assert repr(again) == repr(parsed)


@given(st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False) | st.booleans() | st.text())
def test_a_strict_integer_refuses_a_float_where_the_contract_says_so(value: object) -> None:
    strict = from_json({"$all": [{"$type": "integer"}, 5]})
    assert values_match(strict, value) == (type(value) is int and value == 5)
    # a plain 5 still equals 5.0: strictness is asked for, never the default
    assert values_match(5, value) == (type(value) in (int, float) and value == 5)


object_specs = st.builds(
    lambda keys, optional, extra: {
        "$object": {k: ({"$optional": v} if k in optional else v) for k, v in keys.items()},
        "extra": extra},
    st.dictionaries(st.sampled_from(["a", "b", "c"]), leaves | composed, max_size=3),
    st.sets(st.sampled_from(["a", "b", "c"])),
    st.sampled_from(["allow", "forbid"]),
)


@given(object_specs, json_values)
def test_object_agrees_with_the_reference(spec: dict, value: object) -> None:
    assert values_match(from_json(spec), value) == ref(spec, value)


@given(object_specs, st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), JSON_SCALARS))
def test_object_agrees_with_the_reference_on_objects(spec: dict, value: dict) -> None:
    assert values_match(from_json(spec), value) == ref(spec, value)


list_specs = st.builds(
    lambda items, order, extra, each: {"$list": items, "order": order, "extra": extra,
                                       "each": each},
    st.lists(leaves, max_size=3),
    st.sampled_from(["same", "any"]),
    st.sampled_from(["allow", "forbid"]),
    st.none() | leaves,
)


@given(list_specs, st.lists(JSON_SCALARS, max_size=5))
def test_list_agrees_with_the_reference(spec: dict, value: list) -> None:
    assert values_match(from_json(spec), value) == ref(spec, value)


SMALL_POOL = st.sampled_from([0, 1, 2.0, "a", "ab", "B", None, True])
overlapping_items = (SMALL_POOL | st.sampled_from(
    [{"$type": "int"}, {"$type": "number"}, {"$type": "str"}, {"$regex": "a"},
     {"$anyof": [1, "a"]}, {"$not": "a"}]))


@settings(max_examples=400)
@given(st.builds(lambda items, order, extra: {"$list": items, "order": order, "extra": extra},
                 st.lists(overlapping_items, max_size=4), st.sampled_from(["same", "any"]),
                 st.sampled_from(["allow", "forbid"])),
       st.lists(SMALL_POOL, max_size=5))
def test_list_agrees_with_the_reference_when_items_overlap(spec: dict, value: list) -> None:
    """Items that several elements match (where taking the first fit would go wrong)."""
    assert values_match(from_json(spec), value) == ref(spec, value)


def test_unordered_list_agrees_with_the_reference_on_every_small_case() -> None:
    """Every list of up to 3 items (some matched by several elements, where taking the first
    fit goes wrong) against every list of up to 3 elements: all of the small scope, not a
    sample of it."""
    from itertools import product

    pool = [0, 1, "a", {"$type": "int"}, {"$anyof": [0, "a"]}]
    items_lists = [list(p) for n in range(4) for p in product(pool, repeat=n)]
    values = [list(p) for n in range(4) for p in product([0, 1, "a"], repeat=n)]
    for items, extra, order in product(items_lists, ("allow", "forbid"), ("same", "any")):
        spec = {"$list": items, "order": order, "extra": extra}
        matcher = from_json(spec)
        for value in values:
            assert values_match(matcher, value) == ref(spec, value), (spec, value)


@given(list_specs, json_values)
def test_list_agrees_with_the_reference_on_any_value(spec: dict, value: object) -> None:
    assert values_match(from_json(spec), value) == ref(spec, value)


def test_unordered_list_needs_a_different_element_for_each_item() -> None:
    # greedy would give "a" to the first item and leave the second nothing
    spec = from_json({"$list": [{"$regex": "a"}, "a"], "order": "any"})
    assert values_match(spec, ["a", "ab"])
    assert values_match(spec, ["ab", "a"])
    assert not values_match(spec, ["ab", "ab"])
    at_least = from_json({"$list": [], "extra": "allow",
                          "each": {"$object": {"id": {"$type": "int"}}, "extra": "allow"}})
    assert values_match(at_least, [{"id": 1, "x": 2}, {"id": 2}])
    assert not values_match(at_least, [{"id": 1}, {"name": "no id"}])


def ref_normal(text: str, ignore_case: bool, whitespace: str, ignore_punctuation: bool,
               fold_quotes: bool, nfkc: bool, remove: str = "") -> str:
    """Character by character, in the documented order."""
    import unicodedata

    if nfkc:
        text = unicodedata.normalize("NFKC", text)
    out = []
    for char in text:
        if fold_quotes and char in "'\"`´‘’‚‛“”„‟′″«»‹›":
            char = '"'
        if ignore_case:
            char = char.casefold()
        if ignore_punctuation:
            char = "".join(c for c in char if unicodedata.category(c)[0] != "P")
        char = "".join(c for c in char if c not in remove)
        out.append(char)
    text = "".join(out)
    if whitespace == "exact":
        return text
    words = []
    word = ""
    for char in text:
        if char.isspace():
            if word:
                words.append(word)
            word = ""
        else:
            word += char
    if word:
        words.append(word)
    return (" " if whitespace == "collapse" else "").join(words)


TEXT = st.text(alphabet="aAbB ßẞﬁ\t\n.,!?-'\"‘’“”«»ＡＢａ１1\u00a0é\u0301", max_size=8)
text_options = st.fixed_dictionaries({
    "ignore_case": st.booleans(), "whitespace": st.sampled_from(["collapse", "ignore", "exact"]),
    "ignore_punctuation": st.booleans(), "fold_quotes": st.booleans(), "nfkc": st.booleans(),
    "remove": st.sampled_from(["", " ,./-_*^", "a'\"", "ß\t"])})


@given(TEXT, TEXT, text_options)
def test_text_agrees_with_the_reference(text: str, value: str, options: dict) -> None:
    matcher = from_json({"$text": text, **options})
    assert values_match(matcher, value) == (
        ref_normal(text, **options) == ref_normal(value, **options))
    assert not values_match(matcher, 1)


def test_text_defaults_ignore_case_spacing_quotes_and_width_but_not_punctuation() -> None:
    text = from_json({"$text": "New York's"})
    assert values_match(text, "  new   YORK’S ")
    assert values_match(text, "ＮＥＷ york's")  # full-width letters (NFKC)
    assert not values_match(text, "New York s")
    loose = from_json({"$text": "new-york", "ignore_punctuation": True, "whitespace": "ignore"})
    assert values_match(loose, "New York")
    assert repr(text) == ("Text(\"New York's\", ignore_case=True, whitespace='collapse', "
                          "ignore_punctuation=False, fold_quotes=True, nfkc=True)")


def test_text_removes_just_the_characters_it_is_given() -> None:
    # BFCL's string rule: lower case, without spaces and ",./-_*^", ' as "; parentheses kept
    bfcl = from_json({"$text": "Criminal Law Amendment Act", "remove": " ,./-_*^",
                      "whitespace": "exact"})
    assert values_match(bfcl, "criminal-law amendment_act.")
    assert not values_match(bfcl, "Criminal Law (Amendment) Act")
    quoted = from_json({"$text": "'San Jose'", "remove": " ,./-_*^", "whitespace": "exact"})
    assert values_match(quoted, '"san jose"')
    assert not values_match(quoted, "San Jose")
    assert repr(bfcl) == ("Text('Criminal Law Amendment Act', ignore_case=True, "
                          "whitespace='exact', ignore_punctuation=False, fold_quotes=True, "
                          "nfkc=True, remove=' ,./-_*^')")
    assert from_json(bfcl.to_json()) == bfcl


@given(st.dictionaries(st.sampled_from(["a", "b", "c"]), leaves, min_size=1, max_size=3),
       st.sets(st.sampled_from(["a", "b", "c"])),
       st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), JSON_SCALARS, max_size=4))
def test_optional_arguments_agree_with_the_reference_f1(
        args: dict, optional: set, actual: dict) -> None:
    """An optional argument left out counts on neither side of the F1; one given is
    compared by its inner value, as a required one is."""
    from toolscore_core.contracts import parse_contract
    from toolscore_core.models import ToolCall
    from toolscore_core.pairing import pair_score

    written = {k: ({"$optional": v} if k in optional else v) for k, v in args.items()}
    expected = parse_contract([{"tool": "t", "args": written}]).expected[0]
    counted = {k: v for k, v in args.items() if k not in optional or k in actual}
    matched = sum(1 for k, v in counted.items() if k in actual and ref(v, actual[k]))
    size = len(counted) + len(actual)
    assert pair_score(expected, ToolCall(tool="t", args=actual)) == (
        2.0 * matched / size if size else 1.0, matched)
    # the same rule for a plain object holding the arguments
    assert values_match(from_json({"o": written})["o"], actual) == ref_object(
        written, "forbid", actual)


def test_an_absent_optional_argument_is_a_match_in_the_evaluation() -> None:
    from toolscore_core.evaluation import evaluate
    from toolscore_formats.reports.diagnosis import findings

    contract = [{"tool": "weather", "args": {"city": "Paris",
                                             "unit": {"$optional": "celsius"}}}]
    for args, f1 in [({"city": "Paris"}, 1.0), ({"city": "Paris", "unit": "celsius"}, 1.0),
                     ({"city": "Paris", "unit": "kelvin"}, 0.5)]:
        result = evaluate(contract, [{"tool": "weather", "args": args}])
        assert result.metrics["argument_f1"] == f1
        differ = [f for f in findings(result) if "arguments differ" in f]
        assert bool(differ) == (f1 < 1.0), differ
    assert "unit: expected \"Optional('celsius')\", got 'kelvin'" in differ[0]
    assert "missing" not in differ[0]


@pytest.mark.parametrize(
    ("doc", "place", "words"),
    [
        ({"c": {"$text": "a", "case": True}}, "$.c", "unknown key 'case' beside '$text'; "
         "$text takes ignore_case, whitespace, ignore_punctuation, fold_quotes, nfkc, "
         "remove"),
        ({"c": {"$text": "a", "remove": ["-"]}}, "$.c",
         '"remove" beside "$text" is a string of the characters to remove'),
        ({"c": {"$text": "a", "whitespace": "squash"}}, "$.c",
         '"whitespace" beside "$text" is one of collapse, ignore, exact'),
        ({"c": {"$text": "a", "nfkc": "yes"}}, "$.c", '"nfkc" beside "$text" is true or false'),
        ({"c": {"$list": [1], "order": "random"}}, "$.c", '"order" beside "$list" is one of'),
        ({"c": {"$list": 1}}, "$.c", '"$list" takes a list'),
        ({"c": {"$list": [{"$regx": 1}]}}, "$.c.$list[0]", "unknown matcher '$regx'"),
        ({"c": {"$object": [], "extra": "allow"}}, "$.c", '"$object" takes an object'),
        ({"c": {"$object": {"k": {"$bad": 1}}}}, "$.c.$object.k", "unknown matcher '$bad'"),
        ({"c": {"$object": {}, "extra": "maybe"}}, "$.c", '"extra" beside "$object"'),
        ({"c": {"$all": []}}, "$.c", '"$all" takes a non-empty list'),
        ({"c": {"$anyof": "a"}}, "$.c", '"$anyof" takes a non-empty list'),
        ({"c": {"$all": [{"$optional": 1}]}}, "$.c.$all[0]", '"$optional" stands for'),
        ({"c": [{"$optional": 1}]}, "$.c[0]", '"$optional" stands for'),
        ({"c": {"$not": {"$optional": 1}}}, "$.c.$not", '"$optional" stands for'),
        ({"c": {"$optional": {"$judge": "x"}}}, "$.c.$optional", '"$judge" takes'),
    ],
)
def test_malformed_new_matchers_name_the_key_and_the_place(doc: dict, place: str,
                                                           words: str) -> None:
    with pytest.raises(InputError) as info:
        from_json(doc, file="gold.json", judged=True)
    message = str(info.value)
    assert message.startswith(f"gold.json: {place}: "), message
    assert words in message


def test_optional_goes_under_a_name_anywhere() -> None:
    parsed = from_json({"a": {"$optional": 1},
                        "b": {"inner": {"$optional": {"$type": "str"}}},
                        "c": {"$object": {"k": {"$optional": 2}}}})
    assert to_repr(parsed) == {"a": "Optional(1)", "b": {"inner": "Optional(IsType('str'))"},
                               "c": "Object({'k': Optional(2)}, extra='forbid')"}
    assert values_match(parsed["b"], {}) and values_match(parsed["b"], {"inner": "x"})
    assert not values_match(parsed["b"], {"inner": 1})


def test_the_new_matchers_are_public() -> None:
    import toolscore
    from toolscore_core import matchers

    for name in ("Optional", "AllOf", "AnyOf", "Not", "Text", "Object", "List"):
        assert getattr(toolscore, name) is getattr(matchers, name)
        assert name in toolscore.__all__
    value = toolscore.AllOf([toolscore.IsType("int"), toolscore.Not(3)])
    assert value.matches(4) and not value.matches(3) and not value.matches(4.0)
    assert repr(value) == "AllOf([IsType('int'), Not(3)])"
    assert repr(toolscore.List([1], order="any", extra="allow", each=toolscore.IsType("int"))) \
        == "List([1], order='any', extra='allow', each=IsType('int'))"


# --- Undecided: a $regex past its time limit. (a|aa)+$ backtracks exponentially on a run of
# "a" that ends in something else, even in the regex package.

SLOW = r"(a|aa)+$"
SLOW_VALUE = "a" * 60 + "b"


def test_a_regex_past_its_time_limit_is_undecided_and_stays_so() -> None:
    from toolscore_core.matchers import decide
    from toolscore_core.patterns import TIMEOUTS

    slow = Regex(SLOW)
    before = TIMEOUTS[0]
    assert decide(slow, SLOW_VALUE) is None
    assert not slow.matches(SLOW_VALUE)  # pairing's yes-or-no: no
    assert decide(slow, SLOW_VALUE) is None  # remembered: not searched again
    assert TIMEOUTS[0] == before + 1
    assert decide(slow, "aaaa") is True and decide(slow, "b") is False


def test_a_pattern_that_hangs_pythons_re_is_decided_at_once() -> None:
    # ^(a+)+$ on 40 "a" and a "b" runs for minutes in re; the regex package fails it at once
    assert values_match(Regex(r"^(a+)+$"), "a" * 40) and \
        not values_match(Regex(r"^(a+)+$"), "a" * 40 + "b")


class _Fixed(Matcher):
    """A leaf whose decision is given: True, False or None (undecided)."""

    def __init__(self, decision: bool | None) -> None:
        self.decision = decision

    def matches(self, value: object) -> bool:
        return self.decision is True

    def decide(self, value: object) -> bool | None:
        return self.decision

    def to_json(self) -> dict:
        return {"$fixed": self.decision}

    def __repr__(self) -> str:
        return f"_Fixed({self.decision!r})"


RANK = {False: 0, None: 1, True: 2}
BACK = {0: False, 1: None, 2: True}


def kleene(tree: tuple) -> bool | None:
    """The reference: Kleene's logic as the order false < undecided < true (AND is the
    least, OR the greatest, NOT turns the order around)."""
    kind, parts = tree
    if kind == "leaf":
        return parts
    if kind == "not":
        return BACK[2 - RANK[kleene(parts)]]
    ranks = [RANK[kleene(part)] for part in parts]
    return BACK[min(ranks) if kind == "all" else max(ranks)]


def build(tree: tuple) -> object:
    from toolscore_core.matchers import AllOf, AnyOf, Not

    kind, parts = tree
    if kind == "leaf":
        return _Fixed(parts)
    if kind == "not":
        return Not(build(parts))
    return (AllOf if kind == "all" else AnyOf)([build(part) for part in parts])


trees = st.recursive(
    st.tuples(st.just("leaf"), st.sampled_from([True, False, None])),
    lambda inner: st.tuples(st.just("not"), inner)
    | st.tuples(st.sampled_from(["all", "any"]), st.lists(inner, min_size=1, max_size=3)),
    max_leaves=8,
)


@given(trees)
def test_composed_decisions_follow_kleene_logic(tree: tuple) -> None:
    from toolscore_core.matchers import decide

    assert decide(build(tree), "value") is kleene(tree)


@given(st.lists(st.sampled_from([True, False, None]), max_size=3),
       st.lists(st.sampled_from([True, False, None]), max_size=4),
       st.sampled_from(["same", "any"]), st.sampled_from(["allow", "forbid"]))
def test_a_list_is_undecided_only_when_the_undecided_cells_could_go_either_way(
        items: list, cells: list, order: str, extra: str) -> None:
    """The reference settles each undecided element both ways: true if the list fits with
    every undecided cell false, false if it does not fit with every one true."""
    from toolscore_core.matchers import List, decide

    values = list(range(len(cells)))

    class Cell(_Fixed):
        def decide(self, value: object) -> bool | None:
            return cells[value] if self.decision else False  # type: ignore[index]

    def fits(as_bool: bool) -> bool:
        table = [[(as_bool if c is None else c) if want else False for c in cells]
                 for want in items]
        spec = {"$list": [{"$anyof": [j for j, ok in enumerate(row) if ok] or [-1]}
                          for row in table], "order": order, "extra": extra}
        return ref(spec, values)

    expected = True if fits(False) else (None if fits(True) else False)
    matcher = List([Cell(bool(want)) for want in items], order=order, extra=extra)
    assert decide(matcher, values) is expected


def test_an_undecided_argument_makes_argument_f1_unknown_with_its_reason() -> None:
    from toolscore_core.evaluation import evaluate
    from toolscore_formats.reports.diagnosis import findings

    contract = [{"tool": "t", "args": {"s": {"$regex": SLOW}, "n": 1}}]
    result = evaluate(contract, [{"tool": "t", "args": {"s": SLOW_VALUE, "n": 1}}])
    reason = ("1 argument undecided: s of call #1 t: its regular expression ran past the "
              "time limit of 0.1 s per search")
    assert result.metrics["argument_f1"] == {"unknown": reason}
    check = result.evidence.get("judged-arguments")
    assert (check.status, check.reason) == ("unknown", reason)
    assert check.details["arguments"][0]["claim"] == f"Regex({SLOW!r})"
    differ = [f for f in findings(result) if "differ" in f]
    assert differ == ["call #1 t arguments differ: s: undecided (its regular expression ran "
                      "past the time limit of 0.1 s per search)"]
    from toolscore_formats.reports.view import build_view

    assert [row.match for row in build_view(result).calls] == ["undecided"]
    # the same contract on a value the pattern decides is a plain verdict
    decided = evaluate(contract, [{"tool": "t", "args": {"s": "aaa", "n": 1}}])
    assert decided.metrics["argument_f1"] == 1.0
    assert decided.evidence.get("judged-arguments") is None


def test_a_forbidden_rule_past_its_time_limit_is_unknown_never_a_pass() -> None:
    from toolscore_core.evaluation import evaluate

    rules = [{"tool": "t", "args": {"s": {"$regex": SLOW}}, "reason": "no"}]
    calls = [{"tool": "t", "args": {"s": SLOW_VALUE}}, {"tool": "u", "args": {"s": "a"}}]
    check = evaluate([], calls, forbidden=rules).evidence.get("forbidden-calls")
    assert check.status == "unknown"
    assert check.reason == ("no call matched a forbidden rule, but 1 call could not be "
                            "judged: #1 t (rule 1): its regular expression ran past the time "
                            "limit of 0.1 s per search")
    assert check.details["undecided"] == [{"call": 1, "tool": "t", "rule": 1}]
    # a call that breaks another rule still fails the check
    rules.append({"tool": "u", "reason": "never u"})
    assert evaluate([], calls, forbidden=rules).evidence.get("forbidden-calls").status == "fail"


def test_every_new_matcher_round_trips_through_json_with_its_options() -> None:
    doc = {"o": {"$optional": {"$text": "Hi", "ignore_punctuation": True}},
           "b": {"$object": {"id": {"$type": "int"}, "$ref": {"$optional": "x"}},
                 "extra": "allow"},
           "l": {"$list": [{"$regex": "^a"}], "order": "any", "extra": "allow",
                 "each": {"$type": "str"}},
           "n": {"$not": {"$all": [1, {"$anyof": [2, 3]}]}}}
    parsed = from_json(doc)
    assert from_json(to_json(parsed)) == parsed
    assert to_json(parsed)["o"] == {"$optional": {
        "$text": "Hi", "ignore_case": True, "whitespace": "collapse",
        "ignore_punctuation": True, "fold_quotes": True, "nfkc": True}}
    # "$ref" inside $object is a key's name, not a matcher
    assert values_match(parsed["b"], {"id": 1, "other": 2})
    assert values_match(parsed["b"], {"id": 1, "$ref": "x"})
    assert not values_match(parsed["b"], {"id": 1, "$ref": "y"})
    assert to_repr(parsed)["n"] == "Not(AllOf([1, AnyOf([2, 3])]))"


@given(st.lists(st.tuples(st.dictionaries(st.sampled_from(["a", "b", "c"]),
                                          st.sampled_from([0, 1, "x"]), min_size=1),
                          st.sets(st.sampled_from(["a", "b", "c"]))), min_size=2, max_size=3),
       st.lists(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]),
                                st.sampled_from([0, 1, "x"])), min_size=2, max_size=3))
def test_pairing_many_calls_scores_optional_arguments_as_one_pair_does(
        wanted: list, given_args: list) -> None:
    """Blocks of several calls are scored through an index of values; each cell must be
    the F1 a single pair gets."""
    from toolscore_core.contracts import parse_contract
    from toolscore_core.models import ToolCall
    from toolscore_core.pairing import _block_scores, pair_score

    contract = parse_contract([{"tool": "t", "args": {
        k: ({"$optional": v} if k in optional else v) for k, v in args.items()}}
        for args, optional in wanted]).expected
    calls = [ToolCall(tool="t", args=args) for args in given_args]
    rows = list(range(len(contract)))
    cols = list(range(len(calls)))
    scores, matched = _block_scores(contract, calls, rows, cols)
    for r in rows:
        for c in cols:
            assert (scores[r][c], matched[r][c]) == pair_score(contract[r], calls[c])


BENCHMARK_RULES = """\
expected:
  - tool: calculate_area
    args:
      base: {$all: [{$type: integer}, 10]}
      height: {$all: [{$type: integer}, 5]}
      unit: {$optional: {$text: "units", ignore_punctuation: true, whitespace: ignore}}
  - tool: book_trip
    args:
      city: {$text: "New York"}
      travellers:
        $list: []
        extra: allow
        each: {$object: {name: {$type: str}, age: {$optional: {$type: int}}}}
"""


def test_the_benchmark_rules_of_docs_contracts_give_the_verdicts_it_shows() -> None:
    from pathlib import Path

    from toolscore_core.documents import parse_yaml
    from toolscore_core.evaluation import evaluate

    docs = (Path(__file__).resolve().parents[2] / "docs" / "contracts.md").read_text()
    assert BENCHMARK_RULES in docs
    contract = parse_yaml(BENCHMARK_RULES, file="gold.yaml")
    full = evaluate(contract, [
        {"tool": "calculate_area", "args": {"base": 10, "height": 5}},
        {"tool": "book_trip", "args": {"city": "new  york", "travellers": [
            {"name": "Ana"}, {"name": "Bo", "age": 7}]}}])
    assert full.metrics["argument_f1"] == 1.0
    partial = evaluate(contract, [
        {"tool": "calculate_area", "args": {"base": 10.0, "height": 5, "unit": "Units."}},
        {"tool": "book_trip", "args": {"city": "NEW YORK", "travellers": [
            {"name": "Ana", "seat": "12A"}]}}])
    assert partial.metrics["argument_f1"] == round((2 * 2 / 6 + 2 * 1 / 4) / 2, 12)


@given(st.dictionaries(st.text(max_size=3), st.integers(), max_size=4))
def test_an_object_reads_as_itself_unless_a_key_starts_with_a_dollar(
        doc: dict[str, int]) -> None:
    try:
        read = from_json(doc)
    except InputError:  # an unknown matcher, or a matcher's bad form
        read = None
    if any(k.startswith("$") for k in doc):
        assert read is None or isinstance(read, Matcher)
    else:
        assert read == doc and read is not doc


def test_keys_that_sort_before_a_matcher_key_are_plain_keys() -> None:
    assert from_json({}) == {}
    assert from_json({"": 1, "!": 2, "#a": {"$any": True}}) == {"": 1, "!": 2, "#a": ANY}
    assert from_json({1: "x", "a": [2]}) == {1: "x", "a": [2]}
