"""The one cattrs converter: documents people write into attrs records, errors as one line."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Literal, TypeVar, get_args, get_origin

import attrs

from toolscore_core.documents import type_name
from toolscore_core.errors import InputError

T = TypeVar("T")


class Refusal(ValueError):
    """A value a document may not hold: what is wrong and the fix. :func:`structure` adds
    the file and the place: the value's, the field ``key``'s below it (from a validator),
    or with ``up`` the object's that holds it."""

    def __init__(self, problem: str, fix: str | None = None, *, key: str | None = None,
                 up: bool = False) -> None:
        super().__init__(problem)
        self.problem, self.fix, self.key, self.up = problem, fix, key, up


@attrs.frozen
class Shape:
    """How a record reads from a document beyond its fields' types."""

    noun: str
    """What the object is, for ``an expected call is an object, not a list``."""
    example: str
    """The fix for a value that is not an object."""
    readers: Mapping[str, Callable[[Any], Any]] = attrs.field(factory=dict)
    """Fields read by a function of the raw value instead of by their type (it raises
    Refusal); a missing key is reported as the function reports null."""
    read: Callable[[Mapping[str, Any]], Any] | None = None
    """Reads the whole object instead (a record whose fields are not its keys)."""
    closed: bool = True
    """Whether a key that is not a field is refused (else ignored)."""
    missing: tuple[str, str | None] = ('missing "{key}"', 'add "{key}"')
    """The problem and fix for a required key that is absent."""


_SHAPES: dict[type, Shape] = {}


def shape(cls: type, noun: str, example: str, *,
          read: Callable[[Mapping[str, Any]], Any] | None = None, closed: bool = True,
          missing: tuple[str, str | None] = ('missing "{key}"', 'add "{key}"'),
          **readers: Callable[[Any], Any]) -> None:
    """Declare how ``cls`` reads from documents (before its first :func:`structure`)."""
    _SHAPES[cls] = Shape(noun, example, readers, read, closed, missing)


def structure(data: Any, cls: type[T], *, source: str | None = None,
              place: str = "$") -> T:
    """``data`` (decoded JSON/YAML) as ``cls``: an attrs record, or a tuple/mapping of them.

    Unknown keys are refused; a bad value raises an InputError naming ``source``, the place
    below ``place`` and the fix.
    """
    try:
        return get_converter().structure(data, cls)
    except Exception as exc:
        raise _input_error(exc, data, source, place) from None


def one_of(values: tuple[str, ...]) -> Callable[[Any, attrs.Attribute[Any], Any], None]:
    """An attrs validator: the value is one of ``values``."""
    def check(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value not in values:
            raise Refusal(f"unknown {attribute.name} {value!r}", f"use {_choices(values)}",
                          key=attribute.name)
    return check


def _choices(values: tuple[str, ...]) -> str:
    return " or ".join(values) if len(values) < 3 else "one of " + ", ".join(values)


def at_least(low: float, high: float | None = None) -> Callable[[Any, Any, Any], None]:
    """An attrs validator: a number from ``low`` (to ``high``), when given."""
    def check(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is not None and not (low <= value and (high is None or value <= high)):
            bound = f"at least {low:g}" if high is None else f"from {low:g} to {high:g}"
            raise Refusal(f'"{attribute.name}" must be {bound}, not {value!r}',
                          key=attribute.name)
    return check


def _strict(kind: type, wanted: str, accept: Callable[[Any], bool]) -> Callable[[Any, Any], Any]:
    def read(value: Any, _: Any) -> Any:
        if not accept(value):
            raise Refusal(f"must be {wanted}, not {type_name(value)}")
        return kind(value)
    return read


def _number(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and value - value == 0)


@cache
def get_converter() -> Any:
    """Built on first use: ``toolscore eval`` on a plain contract never imports cattrs."""
    import cattrs
    from cattrs.gen import make_dict_structure_fn, override

    converter = cattrs.Converter(forbid_extra_keys=True)
    for kind, wanted, accept in (
        (str, "a string", lambda v: isinstance(v, str)),
        (bool, "true or false", lambda v: isinstance(v, bool)),
        (int, "a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool)),
        (float, "a number", _number),
    ):
        converter.register_structure_hook(kind, _strict(kind, wanted, accept))
    converter.register_structure_hook(Any, lambda value, _: value)

    def literal(value: Any, kind: Any) -> Any:
        if value not in get_args(kind):
            raise Refusal(f"unknown {{key}} {value!r}", f"use {_choices(get_args(kind))}")
        return value

    def record(cls: type) -> Callable[[Any, Any], Any]:
        found = _SHAPES.get(cls)
        read: Callable[[Any, Any], Any]
        if found and found.read:
            whole = found.read
            read = lambda value, _: whole(value)  # noqa: E731
        else:
            overrides: dict[str, Any] = {
                name: override(struct_hook=_field_hook(reader))
                for name, reader in (found.readers if found else {}).items()}
            read = make_dict_structure_fn(cls, converter, **overrides,
                                          _cattrs_forbid_extra_keys=not found or found.closed)

        def read_record(value: Any, _: Any) -> Any:
            if isinstance(value, cls):  # built in Python already
                return value
            if not isinstance(value, Mapping):
                if found:
                    raise Refusal(f"{found.noun} is an object, not {type_name(value)}",
                                  found.example)
                raise Refusal(f"must be an object, not {type_name(value)}")
            return read(value, cls)
        return read_record

    def sequence(kind: Any) -> Callable[[Any, Any], Any]:
        item = get_args(kind)[0]
        read_item = converter.get_structure_hook(item)

        def read(value: Any, _: Any) -> tuple[Any, ...]:
            if value is None:  # an absent list is an empty one
                return ()
            if not isinstance(value, list | tuple):
                raise Refusal(f"must be a list, not {type_name(value)}")
            return tuple(_each(read_item, item, enumerate(value), kind))
        return read

    def mapping(kind: Any) -> Callable[[Any, Any], Any]:
        item = get_args(kind)[1]
        read_item = converter.get_structure_hook(item)

        def read(value: Any, _: Any) -> dict[str, Any]:
            if not isinstance(value, Mapping):
                raise Refusal(f"must be an object, not {type_name(value)}")
            return dict(zip(map(str, value), _each(read_item, item, value.items(), kind),
                            strict=True))
        return read

    converter.register_structure_hook_func(lambda t: get_origin(t) is Literal, literal)
    converter.register_structure_hook_factory(attrs.has, record)
    converter.register_structure_hook_factory(lambda t: get_origin(t) is tuple, sequence)
    converter.register_structure_hook_factory(
        lambda t: get_origin(t) in (dict, Mapping) and get_args(t)[0] is str, mapping)
    return converter


def _field_hook(reader: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda value, _: reader(value)


def _each(read: Callable[[Any, Any], Any], kind: Any, items: Any, whole: Any) -> Any:
    from cattrs.errors import IterableValidationError, IterableValidationNote

    for index, value in items:
        try:
            yield read(value, kind)
        except Exception as exc:
            exc.add_note(IterableValidationNote(f"@ {index!r}", index, kind))
            raise IterableValidationError("", [exc], whole) from None


def _input_error(exc: Exception, data: Any, source: str | None, place: str) -> InputError:
    """The first problem in a cattrs error tree as one line, at its ``$.path``."""
    from cattrs.errors import (
        AttributeValidationNote,
        BaseValidationError,
        ClassValidationError,
        ForbiddenExtraKeysError,
        IterableValidationNote,
    )

    steps: list[str | int] = []
    owner: Any = None
    while True:
        for note in getattr(exc, "__notes__", ()):
            if isinstance(note, AttributeValidationNote):
                steps.append(note.name)
            elif isinstance(note, IterableValidationNote):
                steps.append(note.index)
        if not isinstance(exc, BaseValidationError):
            break
        if isinstance(exc, ClassValidationError):
            owner = exc.cl
        # unknown keys first: a misspelt key also looks like a missing one
        exc = min(exc.exceptions, key=lambda e: not isinstance(e, ForbiddenExtraKeysError))

    def at(path: list[str | int]) -> str:
        return place + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)

    if isinstance(exc, ForbiddenExtraKeysError):
        given = _descend(data, steps)
        key = next(k for k in given if k in exc.extra_fields)
        allowed = ", ".join(a.name for a in attrs.fields(exc.cl) if a.init)
        return InputError(f"unknown key {key!r}", file=source, place=at([*steps, key]),
                          fix=f"use only {allowed}")
    if isinstance(exc, KeyError) and steps:
        found = _SHAPES.get(owner, Shape("", ""))
        reader = found.readers.get(str(steps[-1]))
        try:
            if reader is None:
                problem, fix = (None if t is None else t.format(key=steps[-1])
                                for t in found.missing)
                raise Refusal(problem or "", fix, up=True)
            reader(None)
        except Refusal as refusal:
            exc = refusal
    if isinstance(exc, InputError):  # a matcher's, placed below the value
        return InputError(exc.problem, file=source, place=at(steps) + (exc.place or "$")[1:],
                          fix=exc.fix)
    if isinstance(exc, ValueError) and len(exc.args) == 4 and isinstance(exc.args[1],
                                                                          attrs.Attribute):
        name, options, value = exc.args[1].name, exc.args[2], exc.args[3]  # attrs' in_()
        exc = Refusal(f"unknown {name} {value!r}", f"use {_choices(options)}", key=name)
    if not isinstance(exc, Refusal):
        return InputError(str(exc) or type(exc).__name__, file=source, place=at(steps))
    if exc.key is not None:
        steps.append(exc.key)
    # the key a reader's problem is about: the last step, or the last of the place given
    key = steps[-1] if steps else place.rpartition(".")[2]
    problem = exc.problem.replace("{key}", str(key))
    if problem.startswith("must ") and isinstance(key, str) and key.isidentifier():
        problem = f'"{key}" {problem}'
    return InputError(problem, file=source, place=at(steps[:-1] if exc.up else steps),
                      fix=exc.fix)


def _descend(data: Any, steps: list[str | int]) -> Any:
    for step in steps:
        data = data[step]
    return data
