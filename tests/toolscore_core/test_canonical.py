import hashlib
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.canonical import (
    canonical_bytes,
    canonical_json,
    canonical_sha256,
    file_sha256,
)
from toolscore_core.errors import CanonicalJSONError

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children,
                                                                      max_size=4),
    max_leaves=20,
)


def test_sorted_keys_no_whitespace_utf8() -> None:
    assert canonical_json({"b": 1, "a": [1, 2], "é": "ü"}) == '{"a":[1,2],"b":1,"é":"ü"}'
    assert canonical_bytes({"é": "✓"}) == '{"é":"✓"}'.encode()


@given(st.dictionaries(st.text(), json_values, max_size=8))
def test_key_order_does_not_change_the_hash(value: dict) -> None:
    reversed_order = dict(reversed(list(value.items())))
    assert canonical_sha256(value) == canonical_sha256(reversed_order)


@given(json_values)
def test_round_trip(value: object) -> None:
    assert json.loads(canonical_json(value)) == value


@given(st.text())
def test_unicode_is_kept_not_escaped(text: str) -> None:
    encoded = canonical_json(text)
    assert json.loads(encoded) == text
    assert "\\u" not in encoded.replace("\\\\", "") or any(ord(c) < 32 for c in text)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, {"x": [1, math.nan]}])
def test_nan_and_infinity_are_refused(bad: object) -> None:
    with pytest.raises(CanonicalJSONError, match="NaN"):
        canonical_json(bad)


def test_file_hash_is_the_hash_of_the_bytes(tmp_path) -> None:
    data = b"x" * (3 * 1024 * 1024 + 17)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    assert file_sha256(path) == (hashlib.sha256(data).hexdigest(), len(data))
