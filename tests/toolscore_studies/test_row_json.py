"""Rows decoded member by member and encoded value by value equal the plain functions'."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.canonical import canonical_json, join_members, sha256_hex
from toolscore_studies.row_json import decode_row, row_pieces

json_values = st.recursive(
    st.none() | st.booleans() | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
rows = st.dictionaries(st.text(), json_values, max_size=6)


@given(rows, st.sampled_from(["compact", "canonical", "indented", "spaced"]))
def test_rows_decode_exactly_as_json_loads(row: dict[str, Any], layout: str) -> None:
    text = {"compact": json.dumps(row, separators=(",", ":"), ensure_ascii=False),
            "canonical": canonical_json(row),
            "indented": json.dumps(row, indent=1),
            "spaced": json.dumps(row)}[layout]
    decoded = decode_row(text + "\n")
    assert not isinstance(decoded, str)
    assert decoded[0] == json.loads(text)
    assert repr(decoded[0]) == repr(json.loads(text))  # 1 and 1.0, True and 1 told apart


@given(json_values, rows, rows, rows, st.booleans())
def test_an_evaluation_holding_the_row_s_calls_decodes_as_json_loads_gives_it(
        calls: Any, inner: dict[str, Any], outer: dict[str, Any], rest: dict[str, Any],
        canonical: bool) -> None:
    evaluation = {"calls": {"actual": calls, **inner}, **outer}
    row = {"calls": calls, "evaluation": evaluation, **rest}
    text = canonical_json(row) if canonical else json.dumps(row, separators=(",", ":"))
    decoded = decode_row(text)
    assert not isinstance(decoded, str)
    assert decoded[0] == json.loads(text)
    assert repr(decoded[0]) == repr(json.loads(text))


def test_an_evaluation_repeating_a_key_decodes_as_json_loads_gives_it() -> None:
    for evaluation in ('{"calls":{"actual":[1],"actual":[2]}}',
                       '{"calls":{"actual":[1],"expected":[]},"calls":3}',
                       '{"calls":{"actual":[1]},"score":1,"score":2}'):
        text = f'{{"calls":[1],"evaluation":{evaluation},"x":1}}'
        decoded = decode_row(text)
        assert not isinstance(decoded, str)
        assert decoded[0] == json.loads(text)
    for broken in ('{"calls":{"actual":[1]]', '{"calls":{"actual":[1],}', '{"calls":{"actual":[1]'):
        assert isinstance(decode_row(f'{{"calls":[1],"evaluation":{broken}}}'), str)


big_values = st.one_of(
    st.lists(json_values, min_size=3, max_size=8),
    st.dictionaries(st.text(min_size=8), json_values, min_size=3, max_size=8),
)


@given(st.lists(st.tuples(st.sampled_from("abc"), big_values), min_size=1, max_size=6),
       st.lists(st.integers(0, 5), min_size=1, max_size=12))
def test_rows_repeating_values_decode_exactly_as_json_loads(
        members: list[tuple[str, Any]], order: list[int]) -> None:
    """Rows whose members repeat values decoded before (as a runs file's rows repeat a
    task's contract) decode as ``json.loads`` decodes each of them."""
    for n in order:
        row = dict(members[n % len(members):] + members[: n % len(members)])
        text = json.dumps(row, separators=(",", ":"), ensure_ascii=False)
        decoded = decode_row(text)
        assert not isinstance(decoded, str)
        assert repr(decoded[0]) == repr(json.loads(text))


def test_a_value_seen_before_is_taken_only_where_it_is_written_whole() -> None:
    contract = {"expected": [{"tool": "search", "args": {"q": "weather in Paris"}}] * 3}
    text = json.dumps(contract, separators=(",", ":"))
    first = decode_row(f'{{"contract":{text},"n":1}}')
    assert not isinstance(first, str)
    again = decode_row(f'{{"contract":{text},"n":2}}')
    assert not isinstance(again, str)
    assert again[0] == {"contract": contract, "n": 2}
    # the same text with one more element, and a longer text the kept one starts
    longer = text[:-2] + ',{"tool":"x"}]}'
    for changed in (text.replace("Paris", "Rome"), longer):
        decoded = decode_row(f'{{"contract":{changed},"n":3}}')
        assert not isinstance(decoded, str)
        assert decoded[0] == {"contract": json.loads(changed), "n": 3}
    # under another key the kept value is not looked at, and is decoded as written
    other = decode_row(f'{{"other":{text}}}')
    assert not isinstance(other, str)
    assert other[0] == {"other": contract}


@given(st.text(max_size=30))
def test_what_is_not_a_row_is_refused_as_json_loads_refuses_it(text: str) -> None:
    try:
        value = json.loads(text)
    except ValueError:
        assert isinstance(decode_row(text), str)
        return
    decoded = decode_row(text)
    assert isinstance(decoded, str) != isinstance(value, dict)


@given(rows, json_values, json_values, st.booleans())
def test_joined_values_are_the_canonical_json_of_the_row(row: dict[str, Any], evaluation: Any,
                                                          calls: Any, recorded: bool) -> None:
    if recorded:  # an evaluation record: its first member, the calls, starts with the actual
        evaluation = {"calls": {"actual": calls, "expected": []}, "score": evaluation}
    row = {**row, "calls": calls, "evaluation": evaluation}
    text = canonical_json(row)
    decoded = decode_row(text)
    assert not isinstance(decoded, str)
    parsed, shown = decoded
    assert join_members(row_pieces(parsed, shown)) == text
    # the evaluation's text as written is reused only when it is the canonical one
    right = {**parsed, "record_sha256": sha256_hex(canonical_json(evaluation).encode())}
    shown = {key: value for key, value in shown.items() if key != "record_sha256"}
    assert join_members(row_pieces(right, shown)) == canonical_json(right)
    stale = {**parsed, "record_sha256": "0" * 64}
    assert join_members(row_pieces(stale, shown)) == canonical_json(stale)
    # nor are the calls as written, unless that evaluation holds them as written
    spaced = {"calls": json.dumps(calls, indent=1), "evaluation": shown["evaluation"]}
    assert join_members(row_pieces(right, spaced)) == canonical_json(right)
    assert join_members(row_pieces(parsed, {})) == text


def test_calls_are_taken_from_the_evaluation_only_where_it_holds_them_whole() -> None:
    for calls, actual in ((1, 12), ("a", "a"), ([1], [1, 2])):
        evaluation = {"calls": {"actual": actual, "expected": []}}
        row = {"calls": calls, "evaluation": evaluation,
               "record_sha256": sha256_hex(canonical_json(evaluation).encode())}
        decoded = decode_row(canonical_json(row))
        assert not isinstance(decoded, str)
        assert join_members(row_pieces(*decoded)) == canonical_json(row)
    # calls written as -0 (canonical: 0) beside an evaluation whose actual calls are -0.5
    evaluation_text = '{"calls":{"actual":-0.5,"expected":[]}}'
    recorded = sha256_hex(evaluation_text.encode())
    decoded = decode_row(f'{{"calls":-0,"evaluation":{evaluation_text},'
                         f'"record_sha256":"{recorded}"}}')
    assert not isinstance(decoded, str)
    assert row_pieces(*decoded)["calls"] == "0"


@given(st.lists(st.sampled_from(["1", "1.0", "1E2", "-0", "-0.0", "[1,2.50]", "null", "true",
                                 '{"b":1,"a":[]}', '"\\u00e9"']), max_size=8))
def test_values_as_written_give_their_canonical_json_every_time(texts: list[str]) -> None:
    # the rows of a file repeat values, written alike or not: each is its own canonical JSON
    for text in texts * 2:
        decoded = decode_row(f'{{"a":{text}}}')
        assert not isinstance(decoded, str)
        assert row_pieces(*decoded) == {"a": canonical_json(json.loads(text))}
