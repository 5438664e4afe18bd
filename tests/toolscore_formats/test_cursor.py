"""The windowed cursor streaming readers walk a large file with."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_formats.cursor import TextCursor

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON_VALUES, max_size=8), st.integers(16, 64), st.booleans())
def test_the_windowed_cursor_decodes_every_element_whatever_the_window(
        items: list[Any], window: int, spaced: bool) -> None:
    """Windows cut through multibyte characters, numbers and strings: nothing is cut short."""
    text = json.dumps({"a": 1, "messages": items, "z": "é" * 9}, ensure_ascii=False,
                      indent=1 if spaced else None)
    cursor = TextCursor(text.encode("utf-8"), window=window)
    seen: dict[str, Any] = {}
    for key in cursor.members():
        seen[key] = list(cursor.values()) if key == "messages" else cursor.value()
    assert cursor.at_end()
    assert seen == json.loads(text)


def test_the_cursor_refuses_bad_json_and_bad_utf8() -> None:
    with pytest.raises(ValueError):
        list(TextCursor(b'[{"a": 1}, {"b": ]', window=16).values())
    with pytest.raises(ValueError):
        list(TextCursor(b'["\xff\xfe"]').values())


def test_a_number_cut_by_the_window_edge_is_read_whole() -> None:
    cursor = TextCursor(b"[1, 234567890123456789, 7]", window=16)
    assert list(cursor.values()) == [1, 234567890123456789, 7]
