"""The shared helpers: argument decoding, joining results to calls, outcomes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_formats.common import CallTable, TextCursor, decode_args, outcome, text_of


def test_reused_ids_are_answered_first_in_first_out() -> None:
    table = CallTable()
    table.add("inc", {"x": 1}, call_id=11)
    table.add("inc", None, call_id="11")
    assert table.answer(11, **outcome({"y": 2}, failed=None))
    assert table.answer("11", **outcome(None, failed=True, error={"message": "boom"}))
    assert not table.answer(11, **outcome("late", failed=None))
    first, second = table.calls()
    assert (first.id, first.result, first.is_error) == ("11", {"y": 2}, False)
    assert (second.args, second.is_error, second.error) == (None, True, "boom")


def test_positional_join_skips_answered_calls_and_matches_names() -> None:
    table = CallTable()
    table.add("a", "{}")
    table.add("b", "{}")
    table.add("a", "{}")
    assert table.answer_next("a", **outcome(0, failed=None))
    assert table.answer_next("a", **outcome(False, failed=None))
    assert not table.answer_next("c", **outcome("x", failed=None))
    assert [(c.tool, c.result, c.is_error) for c in table.calls()] == [
        ("a", 0, False), ("b", None, None), ("a", False, False)]


def test_malformed_arguments_are_kept_raw() -> None:
    assert decode_args('{"a": ') == (None, '{"a": ')
    assert decode_args("[1, 2]") == (None, "[1, 2]")
    assert decode_args("") == ({}, None)


def test_text_of_blocks_and_empty_text() -> None:
    assert text_of([{"type": "text", "text": "a"}, {"type": "image"},
                    {"type": "output_text", "text": "b"}]) == "ab"
    assert text_of("") is None and text_of(None) is None


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


@pytest.mark.parametrize("text", ['{"x": NaN}', '{"x": Infinity}', '{"x": ' + "[" * 5000
                                  + "]" * 5000 + "}", '{"x": ' + "1" * 5000 + "}"])
def test_arguments_only_javascript_reads_are_kept_raw(text: str) -> None:
    """NaN, an infinity, too deep, too long a number: malformed arguments, kept as given."""
    assert decode_args(text) == (None, text)
