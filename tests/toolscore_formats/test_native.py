"""The native format: every ToolCall field, nulls kept, detection."""

from __future__ import annotations

import pytest

from toolscore_core.errors import InputError
from toolscore_formats import native


def test_reads_every_field_and_keeps_absent_ones_null() -> None:
    trace = native.parse({"calls": [
        {"id": 7, "tool": "a", "args": '{"x": 1}', "result": 0, "duration": 1,
         "timestamp": 1704067200.5},
        {"tool": "b", "args": "not json", "error": "boom"},
        {"tool": "c"},
        {"tool": "d", "result": False},
        {"tool": "e", "result": ""},
    ], "final_answer": "ok", "run_cost": 0.25})
    a, b, c, d, e = trace.calls
    assert (a.id, a.args, a.result, a.is_error, a.duration) == ("7", {"x": 1}, 0, False, 1.0)
    assert a.timestamp == "2024-01-01T00:00:00.500000Z"
    assert a.cost is None
    assert (b.args, b.raw_args, b.is_error, b.error) == (None, "not json", True, "boom")
    assert (c.result, c.is_error, c.duration, c.timestamp) == (None, None, None, None)
    assert d.result is False and d.is_error is False
    assert e.result == "" and e.is_error is False
    assert trace.final_answer == "ok" and trace.run_cost == 0.25


def test_detection_is_specific() -> None:
    assert native.detect({"calls": [{"tool": "a"}]})
    assert native.detect([{"tool": "a", "args": {}}])
    assert native.detect([{"role": "assistant", "tool": "a"}]) is None
    assert native.detect({"calls": [{"tool": "a"}], "choices": []}) is None
    assert native.detect([]) is None


def test_unknown_keys_are_named() -> None:
    with pytest.raises(InputError, match=r"\$\.calls\[0\]\.name: unknown key 'name'"):
        native.parse({"calls": [{"tool": "a", "name": "x"}]})


def test_long_traces_read_in_chunks_keep_every_call_and_name_a_late_problem() -> None:
    calls = [{"tool": f"t{i % 7}", "args": {"i": i}, "result": "ok", "duration": i % 3}
             for i in range(1_300)]
    trace = native.parse({"calls": calls})
    assert [c.args["i"] for c in trace.calls] == list(range(1_300))
    assert trace.calls[1_299].is_error is False and trace.calls[4].duration == 1.0
    assert [c.timestamp for c in native.parse(
        [{"tool": "a", "timestamp": ""}] * 600).calls] == [None] * 600
    calls[1_100] = {"tool": "t1", "args": {"i": 1}, "colour": "red"}
    with pytest.raises(InputError) as info:
        native.parse({"calls": calls})
    assert "$.calls[1100]" in str(info.value) and "colour" in str(info.value)


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("duration", -5, '"duration" must be 0 or more, not -5'),
    ("cost", -1.0, '"cost" must be 0 or more, not -1.0'),
    ("duration", "fast", '"duration" must be a number of seconds or null, not a string'),
    ("cost", True, '"cost" must be a number (USD) or null, not a boolean'),
])
def test_a_negative_or_non_numeric_measure_is_bad_input_naming_the_call(
        field: str, value: object, problem: str) -> None:
    calls = [{"tool": "a", "args": {}, "duration": 1.0}, {"tool": "b", "args": {}, field: value}]
    for document in ({"calls": calls}, calls):
        with pytest.raises(InputError) as caught:
            native.parse(document)
        assert caught.value.place == f"$.calls[1].{field}"
        assert problem in caught.value.problem


def test_every_call_is_read_the_same_way_wherever_it_sits_in_the_list() -> None:
    """A call's fields mean the same in a short list, a long one and a list with one odd call:
    a non-finite measure is unknown, a numeric id is text, an empty timestamp is none."""
    call = {"tool": "a", "id": 7, "duration": float("inf"), "cost": 2, "timestamp": "",
            "error": "boom"}
    odd = {"tool": "b", "args": '{"x": 1}', "turn": 2}
    for calls in ([call], [call] * 1_300, [call, odd]):
        read = native.parse(calls).calls[0]
        assert (read.id, read.duration, read.cost, read.timestamp) == ("7", None, 2.0, None)
        assert (read.is_error, read.error) == (True, "boom")
    assert native.parse([call, odd]).calls[1].args == {"x": 1}
