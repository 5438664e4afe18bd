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


# --- YAML aliases: bounded. Each alias stands for the whole value its anchor names, so a few
# hundred bytes can stand for billions of values ("billion laughs").

LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
    for i in range(9))
MERGE_LAUGHS = "a: &a {k0: 0, k1: 1, k2: 2, k3: 3}\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} {{<<: [" + ", ".join([f"*{chr(97 + i)}"] * 8) + "]}\n"
    for i in range(9))


def _constructions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the values the YAML constructor builds (the work after composing)."""
    import yaml

    built = [0]
    construct = yaml.constructor.BaseConstructor.construct_object

    def counted(self: object, node: object, deep: bool = False) -> object:
        built[0] += 1
        return construct(self, node, deep)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml.constructor.BaseConstructor, "construct_object", counted)
    return built


def _values(document: object) -> int:
    if isinstance(document, dict):
        return 1 + sum(1 + _values(v) for v in document.values())
    if isinstance(document, list):
        return 1 + sum(_values(v) for v in document)
    return 1


@pytest.mark.parametrize("text", [LAUGHS, MERGE_LAUGHS], ids=["lists", "merge-keys"])
def test_a_billion_laughs_is_refused_before_anything_is_built(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_core.documents import ALIAS_LIMIT, parse_yaml

    assert len(text.encode()) <= 1024
    built = _constructions(monkeypatch)
    with pytest.raises(InputError) as info:
        parse_yaml(text, file="gold.yaml", unique_keys=True)
    message = info.value.one_line()
    assert message.startswith("gold.yaml: aliases expand the document by ")
    assert f"more than the {ALIAS_LIMIT:,} aliases may add; write the repeated parts out" \
        in message
    assert "\n" not in message
    assert built[0] == 0  # refused from the nodes written, before any value is built


def test_aliases_below_the_limit_load_and_cost_what_they_add(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A large expansion a document may have: its values are bounded by what is written plus
    the limit, and the constructor's work by what is written (an alias is one step: it
    shares the value built for its anchor)."""
    import yaml

    from toolscore_core.documents import ALIAS_LIMIT, alias_expansion, parse_yaml

    text = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n"
        for i in range(4))  # 9**5 leaves in e: about 73,000 values added
    written, expanded = alias_expansion(yaml.compose(text, Loader=yaml.SafeLoader))
    assert 0 < expanded - written <= ALIAS_LIMIT
    built = _constructions(monkeypatch)
    document = parse_yaml(text, file="gold.yaml", unique_keys=True)
    assert _values(document) <= written + ALIAS_LIMIT
    assert built[0] <= len(list(yaml.parse(text)))  # nodes and aliases, as written
    assert len(document["e"]) == 9 and document["e"][8][8][8][8] == ["x"] * 9


@pytest.mark.parametrize(("text", "place", "alias"), [
    ("a: &a [1, *a]\n", "line 1 column 11", "a"),
    ("a: &x\n  b: &y [1, *x]\n", "line 2 column 13", "x"),
    ("top: &t\n  - {inner: *t}\n", "line 2 column 13", "t"),
])
def test_a_recursive_alias_is_one_line(text: str, place: str, alias: str) -> None:
    from toolscore_core.documents import parse_yaml

    with pytest.raises(InputError) as info:
        parse_yaml(text, file="spec.yaml")
    assert info.value.one_line() == (
        f"spec.yaml: {place}: the alias *{alias} refers to the value it stands in; write the "
        f"value out instead of *{alias}")


def test_aliases_that_are_not_recursive_still_load() -> None:
    from toolscore_core.documents import parse_yaml

    assert parse_yaml("a: &a {x: 1}\nb: {<<: *a, y: 2}\nc: [*a, *a]\n", file="c.yaml",
                      unique_keys=True) == {"a": {"x": 1}, "b": {"x": 1, "y": 2},
                                            "c": [{"x": 1}, {"x": 1}]}


@pytest.mark.parametrize("loader", ["contract", "study", "config", "honesty-config"])
def test_every_yaml_the_project_reads_is_bounded(loader: str, tmp_path: Path) -> None:
    from toolscore_core.config import load_config, load_shorthand
    from toolscore_core.contracts import load_contract
    from toolscore_studies.spec import load_study

    read = {"contract": load_contract, "study": load_study, "config": load_config,
            "honesty-config": lambda p: load_shorthand("honesty_config", p, {})}[loader]
    for text, words in [(LAUGHS, "aliases expand the document by"),
                        ("a: &a [1, *a]\n", "refers to the value it stands in")]:
        path = tmp_path / f"{loader}.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as info:
            read(path)
        assert info.value.one_line().startswith(f"{path}: ")
        assert words in info.value.one_line()


def test_a_recursive_alias_in_a_contract_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tests.helpers import EXAMPLES, run_cli

    gold = tmp_path / "gold.yaml"
    gold.write_text("expected: &e\n  - {tool: t, args: {x: *e}}\n", encoding="utf-8")
    out = run_cli("eval", str(gold), str(EXAMPLES / "contracts" / "trace.json"))
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"error: {gold}: line 2 column 25: the alias *e refers to the value it stands in; "
        "write the value out instead of *e"]


@pytest.mark.parametrize("text", ["x: " + "[" * 4000 + "]" * 4000 + "\n",
                                  "x: " + "{a: " * 2000 + "1" + "}" * 2000 + "\n"])
def test_brackets_nested_past_the_limit_are_refused_at_the_first_one_too_deep(
        text: str) -> None:
    """The YAML scanner looks at every open bracket for each one it reads; it is stopped at
    the first bracket past the limit, so the work is bounded by the limit, not the text."""
    from toolscore_core.documents import BRACKETS_LIMIT, parse_yaml

    opened = text.index("[" if "[" in text else "{")
    step = 1 if "[" in text else 4
    with pytest.raises(InputError) as info:
        parse_yaml(text, file="gold.yaml")
    assert info.value.one_line() == (
        f"gold.yaml: line 1 column {opened + step * BRACKETS_LIMIT + 1}: brackets nested more "
        f"than {BRACKETS_LIMIT} levels deep; flatten the document")
    depth = BRACKETS_LIMIT
    assert parse_yaml("x: " + "[" * depth + "]" * depth, file="gold.yaml") is not None


def test_arguments_nested_deeper_than_the_matcher_reader_goes_are_one_line(
        tmp_path: Path) -> None:
    from toolscore_core.contracts import load_contract

    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "t", "args": {"x": ' + "[" * 900 + "]" * 900 + "}}]",
                    encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_contract(gold)
    assert info.value.one_line() == (f"{gold}: $[0].args: values nested too deeply to read; "
                                     "flatten the arguments")
