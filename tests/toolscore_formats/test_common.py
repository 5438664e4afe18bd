"""The shared helpers: argument decoding, joining results to calls, outcomes."""

from __future__ import annotations

from toolscore_formats.common import CallTable, decode_args, outcome, text_of


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
