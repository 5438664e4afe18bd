"""The call table: calls joined to their results by id or by position, and outcomes."""

from __future__ import annotations

from toolscore_formats.calls import CallTable, outcome


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


def test_a_call_answered_one_way_is_not_answered_again_another_way() -> None:
    table = CallTable()
    table.add("a", "{}", call_id="x")
    table.add("a", "{}", call_id="y")
    table.add("b", "{}", call_id="x")
    assert table.answer_next("a", **outcome(1, failed=None))  # the first call (id x)
    assert table.answer("x", **outcome(2, failed=None))  # the next open call with id x
    assert table.answer_next(**outcome(3, failed=None))  # the only open call left (id y)
    assert not table.answer("y", **outcome(4, failed=None))
    assert not table.answer_next(**outcome(5, failed=None))
    assert [(c.tool, c.id, c.result) for c in table.calls()] == [
        ("a", "x", 1), ("a", "y", 3), ("b", "x", 2)]
