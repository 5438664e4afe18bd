"""A record's JSON written from members already encoded is its canonical JSON."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.canonical import canonical_json, join_members, object_json

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                                                                   allow_infinity=False) | st.text()
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8)


@given(st.dictionaries(st.text(max_size=6), _VALUES, max_size=8), st.data())
def test_an_object_with_any_members_given_as_json_is_its_canonical_json(
        value: dict[str, Any], data: st.DataObject) -> None:
    chosen = data.draw(st.sets(st.sampled_from(sorted(value))) if value else st.just(set()))
    known = {key: canonical_json(value[key]) for key in chosen}
    assert object_json(value, known) == canonical_json(value)


@given(st.dictionaries(st.text(max_size=6), _VALUES, max_size=6))
def test_members_joined_are_the_canonical_json_of_their_object(value: dict[str, Any]) -> None:
    assert join_members({k: canonical_json(v) for k, v in value.items()}) == canonical_json(value)
