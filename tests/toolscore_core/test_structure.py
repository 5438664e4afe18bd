from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import pytest
from attrs import field, frozen, validators

from toolscore_core.errors import InputError
from toolscore_core.structure import Refusal, at_least, shape, structure


@frozen
class Part:
    name: str
    count: int = field(default=1, validator=at_least(1))
    kind: Literal["a", "b"] = "a"


@frozen
class Whole:
    parts: tuple[Part, ...] = ()
    labels: Mapping[str, float] | None = None
    tool: str = "x"


def _tool(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise Refusal('"tool" must be a non-empty string', 'add "tool": "<tool name>"', up=True)
    return value


shape(Part, "a part", 'write {"name": "..."}')
shape(Whole, "a whole", 'write {"parts": [...]}', tool=_tool)


def _error(data: object) -> str:
    with pytest.raises(InputError) as info:
        structure(data, Whole, source="w.json")
    return str(info.value)


def test_a_document_reads_into_records() -> None:
    whole = structure({"parts": [{"name": "p", "count": 2, "kind": "b"}],
                       "labels": {"x": 1}}, Whole)
    assert whole == Whole(parts=(Part("p", 2, "b"),), labels={"x": 1.0})
    assert structure({"parts": None}, Whole).parts == ()  # an absent list is an empty one
    made = Part("q")
    assert structure({"parts": [made]}, Whole).parts[0] is made  # records pass as they are


@pytest.mark.parametrize(("data", "line"), [
    ({"parts": [{"name": "p", "colour": 1, "size": 2}]},
     "w.json: $.parts[0].colour: unknown key 'colour'; use only name, count, kind"),
    ({"parts": [{}]}, 'w.json: $.parts[0]: missing "name"'),
    ({"parts": [{"name": 5}]}, 'w.json: $.parts[0].name: "name" must be a string, not a number'),
    ({"parts": [{"name": "p", "count": True}]},
     'w.json: $.parts[0].count: "count" must be a whole number, not a boolean'),
    ({"parts": [{"name": "p", "count": 0}]},
     'w.json: $.parts[0].count: "count" must be at least 1, not 0'),
    ({"parts": [{"name": "p", "kind": "c"}]},
     "w.json: $.parts[0].kind: unknown kind 'c'; use a or b"),
    ({"parts": ["p"]},
     'w.json: $.parts[0]: a part is an object, not a string; write {"name": "..."}'),
    ({"parts": {}}, 'w.json: $.parts: "parts" must be a list, not an object'),
    ({"labels": {"x": "1"}}, 'w.json: $.labels.x: "x" must be a number, not a string'),
    ({"tool": None}, 'w.json: $: "tool" must be a non-empty string; add "tool": "<tool name>"'),
    ([], 'w.json: $: a whole is an object, not a list; write {"parts": [...]}'),
    # unknown keys come first: beside a bad field of the same object, below a bad field of
    # the object holding it, in the record's own place
    ({"parts": [{"name": 5, "colour": 1}]},
     "w.json: $.parts[0].colour: unknown key 'colour'; use only name, count, kind"),
    ({"tool": None, "parts": [{"name": "p", "colour": 1}]},
     "w.json: $.parts[0].colour: unknown key 'colour'; use only name, count, kind"),
    ({"parts": [{"name": "p", "colour": 1}], "shape": 2},
     "w.json: $.shape: unknown key 'shape'; use only parts, labels, tool"),
    ({"parts": [{"name": "p"}, {"name": "q", "colour": 1}]},
     "w.json: $.parts[1].colour: unknown key 'colour'; use only name, count, kind"),
])
def test_the_first_problem_is_one_line_with_its_place_and_fix(data: object, line: str) -> None:
    assert _error(data) == line


@frozen
class Switch:
    mode: str = field(validator=validators.in_(("on", "off")))


def test_a_missing_field_of_fixed_values_names_them() -> None:
    with pytest.raises(InputError) as info:
        structure({}, Switch, source="s.json")
    assert str(info.value) == 's.json: $: missing "mode"; use on or off'


def test_a_place_given_prefixes_the_path() -> None:
    with pytest.raises(InputError, match=r"^\$\.tasks\.t\.parts\[1\]\.name: "):
        structure({"parts": [{"name": "a"}, {"name": 1}]}, Whole, place="$.tasks.t")


@frozen
class Named:
    name: str
    alias: str | None = None


def _name(value: object, kind: type) -> str:
    if not isinstance(value, str) or not value:
        raise Refusal('"name" must be a non-empty string', 'add "name": "<name>"', up=True)
    return f"{value}: {kind.__name__}"  # cattrs passes the field's type


shape(Named, "a named thing", 'write {"name": "..."}', name=_name,
      alias=lambda value: None if value is None else value.upper())


def test_readers_of_the_value_alone_or_of_the_value_and_the_type_read_alike() -> None:
    assert structure({"name": "n", "alias": "a"}, Named) == Named("n: str", "A")
    with pytest.raises(InputError) as info:
        structure({}, Named, source="n.json")
    assert str(info.value) == 'n.json: $: "name" must be a non-empty string; add "name": "<name>"'
