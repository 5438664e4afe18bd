import pytest

from toolscore_core.contracts import contract_json, load_contract, parse_contract
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate
from toolscore_core.matchers import Regex
from toolscore_core.models import ToolCall


def test_a_list_or_an_object(tmp_path) -> None:
    listed = parse_contract([{"tool": "a", "args": {"x": 1}}])
    wrapped = parse_contract({"expected": [{"tool": "a", "args": {"x": 1}}],
                              "forbidden": [{"tool": "rm", "reason": "destructive"}]})
    assert listed.expected == wrapped.expected
    assert wrapped.forbidden[0].reason == "destructive"


def test_yaml_with_matchers(tmp_path) -> None:
    path = tmp_path / "gold.yaml"
    path.write_text('expected:\n  - tool: search\n    args:\n      q: {"$regex": "^cat"}\n')
    contract = load_contract(path)
    assert contract.expected[0].args == {"q": Regex("^cat")}
    assert contract_json(contract) == [
        {"tool": "search", "required": True, "args": {"q": {"$regex": "^cat"}}}
    ]


@pytest.mark.parametrize(
    ("doc", "place", "words"),
    [
        ([{"tool": "a", "arguments": {}}], "$[0].arguments", "unknown key 'arguments'"),
        ({"expected": [], "extra": 1}, "$.extra", "unknown key 'extra'"),
        ({"forbidden": []}, "$", 'missing "expected"'),
        ([{"args": {}}], "$[0]", '"tool" must be a non-empty string'),
        ([{"tool": "a", "args": [1]}], "$[0].args", '"args" must be an object'),
        ([{"tool": "a", "args": {"x": {"$nope": 1}}}], "$[0].args.x", "unknown matcher"),
        ("text", "$", "a contract is a list"),
        # a matcher is an argument's value: as the whole arguments object it is refused
        # (it crashed the pairing, and the forbidden-calls check went unknown)
        ([{"tool": "a", "args": {"$contains": "x"}}], "$[0].args",
         "a matcher ($contains) stands for one argument's value"),
        ({"expected": [], "forbidden": [{"tool": "rm", "args": {"$any": True}}]},
         "$.forbidden[0].args", "a matcher ($any) stands for one argument's value"),
        # a judge decides an expected call's argument, never whether a call is forbidden
        ({"expected": [], "forbidden": [{"tool": "rm", "args": {"p": {"$judge": "a home"}}}]},
         "$.forbidden[0].args.p", '"$judge" takes what a whole argument of an expected call'),
        ([{"tool": "a", "args": {"$judge": "a city"}}], "$[0].args", '"$judge" takes'),
    ],
)
def test_bad_contracts_name_file_and_place(tmp_path, doc: object, place: str, words: str) -> None:
    import json

    path = tmp_path / "gold.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as info:
        load_contract(path)
    assert str(info.value).startswith(f"{path}: {place}: ")
    assert words in str(info.value)


def test_invalid_json_names_the_line(tmp_path) -> None:
    path = tmp_path / "gold.json"
    path.write_text('[\n  {"tool": "a",}\n]')
    with pytest.raises(InputError, match=r"gold.json: line 2 column \d+: invalid JSON"):
        load_contract(path)


def test_omitted_args_are_not_checked_but_empty_args_expect_none() -> None:
    call = ToolCall(tool="ping", args={"host": "x"}, result="ok", is_error=False)
    unchecked = evaluate([{"tool": "ping"}], [call])
    empty = evaluate([{"tool": "ping", "args": {}}], [call])
    assert unchecked.metrics["argument_f1"] is None
    assert "argument_f1" in unchecked.unscored
    assert unchecked.score == 1.0
    assert empty.metrics["argument_f1"] == 0.0
    assert empty.score < 1.0
    made_empty = ToolCall(tool="ping", args={}, result="ok", is_error=False)
    assert evaluate([{"tool": "ping", "args": {}}], [made_empty]).metrics["argument_f1"] == 1.0


def test_long_contracts_read_in_chunks_and_name_a_late_problem() -> None:
    items = [{"tool": f"t{i % 5}", "args": {"i": i}} for i in range(1_300)]
    items[700] = {"tool": "t0", "args": {"q": {"$regex": "^a"}}}
    contract = parse_contract(items)
    assert len(contract.expected) == 1_300
    assert isinstance(contract.expected[700].args["q"], Regex)
    assert contract.expected[1_299].args == {"i": 1_299}
    items[1_200] = {"tool": "t0", "args": {"i": 1}, "colour": "red"}
    with pytest.raises(InputError) as info:
        parse_contract(items)
    assert "$[1200]" in str(info.value) and "colour" in str(info.value)


def test_records_given_in_python_with_a_matcher_for_args_are_refused() -> None:
    from toolscore_core.matchers import ANY
    from toolscore_core.models import ExpectedCall, ForbiddenRule

    # refused where the record is built, before anything is evaluated
    with pytest.raises(TypeError, match=r"^ExpectedCall's args must be a dict of arguments"):
        ExpectedCall("a", args=ANY)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^ForbiddenRule's args must be a dict of arguments"):
        ForbiddenRule("a", args=ANY)  # type: ignore[arg-type]


def test_a_judged_argument_is_part_of_the_contract_hash() -> None:
    from toolscore_core.canonical import canonical_sha256
    from toolscore_core.matchers import Judged

    def contract(claim: str) -> list[dict]:
        return [{"tool": "hotels", "args": {"city": {"$judge": claim}}}]

    parsed = parse_contract(contract("same city as Paris"))
    assert parsed.expected[0].args == {"city": Judged("same city as Paris")}
    assert contract_json(parsed) == [{"tool": "hotels", "required": True,
                                      "args": {"city": {"$judge": "same city as Paris"}}}]
    assert (canonical_sha256(contract_json(parsed))
            != canonical_sha256(contract_json(parse_contract(contract("same city as Lyon")))))
