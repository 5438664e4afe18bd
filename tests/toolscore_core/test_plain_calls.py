"""The whole-list reader of plain expected calls answers exactly as the converter does."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore_core.errors import InputError
from toolscore_core.models import ExpectedCall
from toolscore_core.plain_calls import plain_calls
from toolscore_core.structure import structure

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False),
                    st.text(max_size=4), st.sampled_from(["$regex", "$any", "a$"]))
values = st.one_of(scalars, st.lists(scalars, max_size=2),
                   st.dictionaries(st.sampled_from(["$regex", "$type", "k"]), scalars,
                                   max_size=1))
keys = st.one_of(st.text(max_size=3), st.sampled_from(["$regex", "$contains", "q", "id"]))
calls = st.fixed_dictionaries(
    {"tool": st.one_of(st.sampled_from(["search", "book"]), st.just(""), scalars)},
    optional={"args": st.one_of(st.none(), st.dictionaries(keys, values, max_size=3), scalars),
              "required": st.one_of(st.booleans(), scalars),
              "description": st.one_of(st.none(), st.text(max_size=3), scalars),
              "extra": scalars})


def _exact(read: tuple[ExpectedCall, ...]) -> str:
    """Every field with its type: 1, 1.0 and true are told apart."""
    return repr([(c.tool, c.args, c.required, c.description) for c in read])


def _converter(items: list[Any]) -> tuple[ExpectedCall, ...] | InputError:
    try:
        return structure(items, tuple[ExpectedCall, ...], place="$")
    except InputError as exc:
        return exc


@settings(max_examples=400, deadline=None)
@given(st.lists(calls, max_size=6))
def test_plain_calls_read_what_the_converter_reads(items: list[dict[str, Any]]) -> None:
    plain = plain_calls(items)
    if plain is None:
        return  # the converter reads it, and reports its problems
    read = _converter(items)
    assert not isinstance(read, InputError), read
    assert _exact(plain) == _exact(read)
    assert all(a.args is not b.get("args") for a, b in zip(plain, items, strict=True)
               if a.args is not None)  # a copy: changing the document changes no record


@given(st.lists(st.fixed_dictionaries({"tool": st.sampled_from(["a", "b"]),
                                       "args": st.dictionaries(st.sampled_from("xyz"),
                                                               st.integers(), max_size=2)}),
                min_size=1, max_size=4))
def test_plain_contracts_take_the_plain_reader(items: list[dict[str, Any]]) -> None:
    """The contracts it exists for (tool and literal arguments) never go the long way,
    however long (read in batches)."""
    plain = plain_calls(items * 300)
    assert plain is not None
    assert _exact(plain) == _exact(structure(items * 300, tuple[ExpectedCall, ...]))
