"""Canonical JSON: one byte string per value, whatever the key order; NaN refused."""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.canonical import canonical_json, canonical_sha256, file_sha256
from toolscore_core.errors import CanonicalJSONError

scalars = st.none() | st.booleans() | st.integers() | st.text() | st.floats(
    allow_nan=False, allow_infinity=False)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _reorder(value: object, rng: random.Random) -> object:
    """The same value with every object's keys inserted in another order."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _reorder(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_reorder(v, rng) for v in value]
    return value


@given(values, st.integers(min_value=0, max_value=2**32))
def test_key_order_does_not_change_the_bytes(value: object, seed: int) -> None:
    shuffled = _reorder(value, random.Random(seed))
    assert canonical_json(shuffled) == canonical_json(value)
    assert canonical_sha256(shuffled) == canonical_sha256(value)


@given(values)
def test_canonical_json_round_trips_and_has_no_whitespace_separators(value: object) -> None:
    text = canonical_json(value)
    assert json.loads(text) == value
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"),
                              ensure_ascii=False)


@given(st.text(alphabet=st.characters(min_codepoint=0x80, exclude_categories=("Cs",)),
               min_size=1))
def test_unicode_is_kept_as_utf8_not_escaped(text: str) -> None:
    encoded = canonical_json({"k": text})
    assert "\\u" not in encoded or "\\u" in text
    assert text in encoded
    assert canonical_sha256({"k": text}) == hashlib.sha256(encoded.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@given(value=values)
def test_nan_and_infinities_are_refused_wherever_they_are(value: object, bad: float) -> None:
    with pytest.raises(CanonicalJSONError, match="NaN and infinities are refused"):
        canonical_json([value, {"deep": [bad]}])


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3_000_017])
def test_file_sha256_hashes_the_bytes_on_disk_in_chunks(tmp_path, size: int) -> None:
    data = random.Random(size).randbytes(size)
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert file_sha256(path) == (hashlib.sha256(data).hexdigest(), size)


def test_a_number_too_large_for_a_float_is_null_with_a_note_in_the_record(
        tmp_path: Path) -> None:
    import toolscore

    trace = tmp_path / "trace.json"
    trace.write_text('{"calls": [{"tool": "t", "args": {"x": 1e999}, "result": -1e999}]}')
    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "t", "args": {"x": 1}}]')
    evaluation = toolscore.evaluate_files(gold, trace)
    record = evaluation.to_dict()
    actual = record["calls"]["actual"][0]
    assert actual["args"] == {"x": None} and actual["result"] is None
    assert any("2 values too large for a number" in n for n in record["trace"]["notes"])
    assert evaluation.record_sha256 == toolscore.evaluate_files(gold, trace).record_sha256


def test_a_contract_number_too_large_for_a_float_is_bad_input_with_its_place(
        tmp_path: Path) -> None:
    import toolscore

    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "t",\n  "args": {"x": 1e999}}]')
    with pytest.raises(toolscore.InputError) as caught:
        toolscore.load_contract(gold)
    assert caught.value.place == "line 2 column 17"
    assert "1e999 is not a JSON number" in caught.value.problem
