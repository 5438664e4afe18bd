"""Canonical JSON: one byte string per value, whatever the key order; NaN refused."""

from __future__ import annotations

import hashlib
import json
import math
import random

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
