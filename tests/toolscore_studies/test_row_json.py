"""Rows decoded member by member and encoded value by value equal the plain functions'."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.canonical import canonical_json, join_members, sha256_hex
from toolscore_studies.row_json import decode_row, evaluation_piece

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


@given(st.text(max_size=30))
def test_what_is_not_a_row_is_refused_as_json_loads_refuses_it(text: str) -> None:
    try:
        value = json.loads(text)
    except ValueError:
        assert isinstance(decode_row(text), str)
        return
    decoded = decode_row(text)
    assert isinstance(decoded, str) != isinstance(value, dict)


@given(rows, json_values)
def test_joined_values_are_the_canonical_json_of_the_row(row: dict[str, Any],
                                                          evaluation: Any) -> None:
    row = {**row, "evaluation": evaluation}
    text = canonical_json(row)
    decoded = decode_row(text)
    assert not isinstance(decoded, str)
    parsed, shown = decoded
    # the evaluation's text as written is reused only when it is the canonical one
    recorded = {**parsed, "record_sha256": sha256_hex(canonical_json(evaluation).encode())}
    pieces = {key: canonical_json(value) for key, value in parsed.items() if key != "evaluation"}
    pieces["evaluation"] = evaluation_piece(recorded, shown)
    assert join_members(pieces) == text
    stale = {**parsed, "record_sha256": "0" * 64}
    assert evaluation_piece(stale, json.dumps(evaluation, indent=2)) == canonical_json(evaluation)
