"""Reading input files: JSON that only JavaScript reads is refused with its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscore_core.documents import loads, parse_json
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate
from toolscore_core.traces import load_trace


def error_of(text: str | bytes) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_json(text, file="t.json")
    return caught.value


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_the_infinities_are_refused_where_they_are(constant: str) -> None:
    error = error_of('{"calls": [\n  {"tool": "a", "note": "NaN Infinity",\n'
                     f'   "duration": {constant}}}]}}')
    assert error.one_line() == (f"t.json: line 3 column 16: {constant} is not a JSON number; "
                                "write null, or the number as a string")


def test_values_nested_past_pythons_reader_are_refused_with_their_depth() -> None:
    error = error_of('{"a": "[[[", "b": ' + "[" * 5000 + "]" * 5000 + "}")
    assert error.problem == "values nested 5,001 levels deep, more than Python's JSON reader takes"
    assert error.place == "line 1 column 5018"


def test_a_number_longer_than_python_reads_is_refused_with_its_place() -> None:
    error = error_of('{"id": "' + "7" * 5000 + '",\n "n": ' + "9" * 4301 + "}")
    assert error.place == "line 2 column 7"
    assert "4,300 digits" in error.problem and "as a string" in (error.fix or "")


json_documents = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=25,
)


@given(json_documents, st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "str"]))
def test_loads_reads_every_json_document_as_json_loads_does(value, encoding: str) -> None:
    text = json.dumps(value, ensure_ascii=False)
    data: str | bytes = text if encoding == "str" else text.encode(encoding)
    assert loads(data) == json.loads(data)


def test_a_trace_reads_nan_and_infinities_as_null_with_a_note(tmp_path: Path) -> None:
    """A trace is a program's output, and Python's json writes NaN: unknown, never a number."""
    from toolscore_core.traces import load_trace

    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"tool": "a", "args": {}, "duration": NaN, "result": 1}\n\n'
                     '{"tool": "b", "args": {"x": -Infinity}, "cost": Infinity}\n')
    loaded, _ = load_trace(trace)
    assert [(c.duration, c.args, c.cost) for c in loaded.calls] == [
        (None, {}, None), (None, {"x": None}, None)]
    assert loaded.notes == ("3 values written as -Infinity, Infinity, NaN (numbers JSON does "
                            "not have, as Python's json writes them) were read as null: "
                            "unknown, not a measurement",)


def test_a_trace_nested_too_deeply_is_one_error_line(tmp_path: Path) -> None:
    from toolscore_core.traces import load_trace

    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"tool": "a", "args": {}}\n\n{"tool": "b", "args": {"x": '
                     + "[" * 5000 + "]" * 5000 + "}}\n")
    with pytest.raises(InputError) as caught:
        load_trace(trace)
    assert caught.value.one_line() == (f"{trace}: line 3 (line 1 column 5028): values nested "
                                       "5,002 levels deep, more than Python's JSON reader "
                                       "takes; flatten the document")


def test_yaml_nan_and_infinities_are_refused_with_their_json_path() -> None:
    from toolscore_core.documents import parse_yaml

    with pytest.raises(InputError) as caught:
        parse_yaml("expected:\n  - tool: a\n    args: {x: 1.5, y: [1, -.inf]}\n", file="g.yaml")
    assert caught.value.place == "$.expected[0].args.y[1]"
    assert "not JSON numbers" in caught.value.problem
    assert parse_yaml("a: [1.5, {b: 2.5}]\n", file="g.yaml") == {"a": [1.5, {"b": 2.5}]}
    with pytest.raises(InputError, match="cannot take"):
        parse_yaml("n: " + "9" * 5000 + "\n", file="g.yaml")


def test_a_key_given_twice_in_a_contract_is_refused_with_its_place(tmp_path: Path) -> None:
    """The second "args" would silently win: files people write are read strictly."""
    from toolscore_core.contracts import load_contract

    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "a", "args": {"x": 1, "y": {"x": 2}}},\n'
                    ' {"tool": "b", "args": {"x": 1}, "args": {"x": 2}}]')
    with pytest.raises(InputError) as caught:
        load_contract(gold)
    assert caught.value.one_line() == (
        f"{gold}: line 2 column 34: the key 'args' is given twice in one object; keep one "
        "of them (JSON readers silently keep the last)")
    yaml_gold = tmp_path / "gold.yaml"
    yaml_gold.write_text("expected:\n  - tool: a\n    args: {x: 1, x: 2}\n")
    with pytest.raises(InputError) as caught:
        load_contract(yaml_gold)
    assert caught.value.place == "line 3 column 18" and "'x' is given twice" in str(caught.value)
    yaml_gold.write_text("expected:\n  - tool: a\n    args: &b {x: 1}\n"
                         "  - tool: b\n    args: {<<: *b, y: 2}\n")  # a merge key is no repeat
    assert load_contract(yaml_gold).expected[1].args == {"x": 1, "y": 2}


def test_traces_keep_json_s_last_key_wins() -> None:
    """A trace is what a program wrote: it is read as Python's json reads it."""
    assert loads('{"a": 1, "a": 2}') == {"a": 2}


@pytest.mark.parametrize("size", [1, 20_000])  # read whole, and streamed (over 1 MB)
def test_a_lone_surrogate_in_a_trace_is_read_as_a_replacement_with_a_note(
    tmp_path: Path, size: int
) -> None:
    """JSON lets "\\ud800" through; no UTF-8 output or hash can carry it. It once ended
    `toolscore eval` in a traceback."""
    calls = [{"id": str(i), "tool": "t", "args": {"q": "x" * 40}, "result": "ok"}
             for i in range(size)]
    calls[-1] = {"id": "last", "tool": "t", "args": {"q": "\\ud800 stays"},
                 "error": "bad \ud800 text", "is_error": True}
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"calls": calls}), encoding="utf-8")
    loaded, _ = load_trace(trace)
    last = loaded.calls[-1]
    assert last.error == "bad \ufffd text" and last.args == {"q": "\\ud800 stays"}
    assert loaded.notes[-1] == ("1 string held a lone UTF-16 surrogate (not Unicode text), "
                                "shown as U+FFFD")
    result = evaluate([{"tool": "t"}], list(loaded.calls))
    assert len(result.record_sha256) == 64
