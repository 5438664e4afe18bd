"""The one cattrs converter: documents people write into attrs records, errors as one line."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import Any, Literal, TypeVar, get_args, get_origin

import attrs

from toolscore_core.documents import type_name
from toolscore_core.errors import InputError

T = TypeVar("T")
Reader = Callable[..., Any]
Hook = Callable[[Any, Any], Any]


class Refusal(ValueError):
    """A value a document may not hold: what is wrong (``{key}`` stands for its key) and the
    fix. :func:`structure` adds the file and the place: the value's, the field ``key``'s
    below it (from a validator), or with ``up`` the place of the object holding it."""

    def __init__(self, problem: str, fix: str | None = None, *, key: str | None = None,
                 up: bool = False) -> None:
        super().__init__(problem)
        self.problem, self.fix, self.key, self.up = problem, fix, key, up


# cls -> (noun, example, field readers, whole-object reader, unknown keys refused), the
# readers as cattrs calls them
_SHAPES: dict[type, tuple[str, str, Mapping[str, Hook], Hook | None, bool]] = {}


def shape(cls: type, noun: str, example: str, *, read: Reader | None = None,
          closed: bool = True, **readers: Reader) -> None:
    """How ``cls`` reads from documents beyond its fields' types: ``noun`` and ``example``
    for a value that is no object (``an expected call is an object, not a list; write
    ...``); ``readers``, functions of the raw value for some fields (a missing key reads as
    null); or ``read``, a function of the whole object. ``closed=False`` ignores unknown
    keys. A reader may also take the field's type as a second argument, as cattrs calls its
    hooks: cattrs then calls it directly (one call less per value read)."""
    _SHAPES[cls] = (noun, example, {name: _hook(reader) for name, reader in readers.items()},
                    None if read is None else _hook(read), closed)


def structure(data: Any, cls: type[T], *, source: str | None = None, place: str = "$") -> T:
    """``data`` (decoded JSON/YAML) as ``cls``: an attrs record, or a tuple/mapping of them.

    A bad value raises an InputError naming ``source``, its place below ``place``, the
    problem and the fix.
    """
    try:
        return get_converter().structure(data, cls)
    except Exception as exc:
        raise _input_error(exc, data, source, place) from None


def at_least(low: float, high: float | None = None) -> Callable[[Any, Any, Any], None]:
    """An attrs validator: a number from ``low`` (to ``high``), or None."""
    def check(_: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is not None and not (low <= value and (high is None or value <= high)):
            bound = f"at least {low:g}" if high is None else f"from {low:g} to {high:g}"
            raise Refusal(f'"{attribute.name}" must be {bound}, not {value!r}',
                          key=attribute.name)
    return check


@cache
def get_converter() -> Any:
    """The converter, built once on first use (cattrs generates each record's hook when
    the record is first read). Scalars are strict (``"1"`` is not a number, ``1`` not a
    string), an absent list is an empty one, and every record refuses unknown keys."""
    import cattrs
    from cattrs.gen import make_dict_structure_fn, override

    converter = cattrs.Converter(forbid_extra_keys=True)
    for kind, wanted, accept in (
        (str, "a string", lambda v: isinstance(v, str)),
        (bool, "true or false", lambda v: isinstance(v, bool)),
        (int, "a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool)),
        (float, "a number", lambda v: isinstance(v, int | float) and not isinstance(v, bool)
         and v - v == 0),
    ):
        converter.register_structure_hook(kind, _scalar(kind, wanted, accept))
    converter.register_structure_hook(Any, lambda value, _: value)

    def literal(value: Any, kind: Any) -> Any:
        if value not in get_args(kind):
            raise Refusal(f"unknown {{key}} {value!r}", "use " + " or ".join(get_args(kind)))
        return value

    # a record's reader -> how it reads a dict: whether the dict's keys are all its fields'
    # (a C test), and what reads it then (a list of records reads its dicts so, one call
    # fewer each; a dict of other keys is left to the record's reader, which refuses it)
    from_dict: dict[Callable[[Any, Any], Any],
                    tuple[Callable[[Any], bool], Callable[[Any, Any], Any]]] = {}

    def record(cls: type) -> Callable[[Any, Any], Any]:
        noun, example, readers, whole, closed = _SHAPES.get(cls, ("", "", {}, None, True))
        overrides: dict[str, Any] = {name: override(struct_hook=reader)
                                     for name, reader in readers.items()}
        # unknown keys are refused before the fields are read, as cattrs refuses them
        # after (its test makes a set of each object's keys)
        read = make_dict_structure_fn(cls, converter, _cattrs_forbid_extra_keys=False,
                                      **overrides) if whole is None else whole
        known: Callable[[Any], bool] = (
            frozenset(field.name for field in attrs.fields(cls)).issuperset
            if whole is None and closed else _ANY_KEYS)

        def read_record(value: Any, _: Any) -> Any:
            if type(value) is dict:  # most documents: no isinstance against the ABC
                if not known(value):
                    raise _unknown_keys(cls, value)
                return read(value, cls)
            if isinstance(value, cls):  # built in Python already
                return value
            if not isinstance(value, Mapping):
                if noun:
                    raise Refusal(f"{noun} is an object, not {type_name(value)}", example)
                raise Refusal(f"must be an object, not {type_name(value)}")
            if not known(value):
                raise _unknown_keys(cls, value)
            return read(value, cls)
        from_dict[read_record] = (known, read)
        return read_record

    def sequence(kind: Any) -> Callable[[Any, Any], Any]:
        item, read_item = get_args(kind)[0], converter.get_structure_hook(get_args(kind)[0])
        known, read_dict = from_dict.get(read_item, (_NO_KEYS, read_item))

        def read(value: Any, _: Any) -> tuple[Any, ...]:
            if value is None:
                return ()
            if not isinstance(value, list | tuple):
                raise Refusal(f"must be a list, not {type_name(value)}")
            try:
                return tuple([read_dict(member, item) if type(member) is dict and known(member)
                              else read_item(member, item) for member in value])
            except Exception:  # read again, item by item, to name the one that fails
                return tuple(_each(read_item, item, enumerate(value), kind))
        return read

    def mapping(kind: Any) -> Callable[[Any, Any], Any]:
        item, read_item = get_args(kind)[1], converter.get_structure_hook(get_args(kind)[1])

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


_ANY_KEYS: Callable[[Any], bool] = frozenset().isdisjoint
"""Any keys will do (a record that reads unknown keys, or reads the object whole)."""
_NO_KEYS: Callable[[Any], bool] = frozenset().issuperset
"""No keys (but none) will do: an item that is no record is read by its own reader."""


def _unknown_keys(cls: type, value: Any) -> Exception:
    """The error cattrs raises for keys no field of ``cls`` has."""
    from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

    unknown = set(value) - {field.name for field in attrs.fields(cls)}
    return ClassValidationError(f"While structuring {cls.__name__}",
                                [ForbiddenExtraKeysError("", cls, unknown)], cls)


def _scalar(kind: type, wanted: str, accept: Callable[[Any], bool]) -> Callable[[Any, Any], Any]:
    exact = kind is not float  # a float must also be finite: always asked

    def read(value: Any, _: Any) -> Any:
        if exact and type(value) is kind:  # most values: one identity test
            return value
        if not accept(value):
            raise Refusal(f"must be {wanted}, not {type_name(value)}")
        return kind(value)
    return read


def _hook(reader: Reader) -> Hook:
    """``reader`` as cattrs calls hooks, with the value and the type: as it is when it takes
    both, else in a function that drops the type."""
    from inspect import signature

    try:
        signature(reader).bind(None, None)
    except (TypeError, ValueError):  # ValueError: a signature Python cannot tell
        return lambda value, _: reader(value)
    return reader


def _each(read: Callable[[Any, Any], Any], kind: Any, items: Iterable[tuple[Any, Any]],
          whole: Any) -> Iterator[Any]:
    """Each item read, or cattrs' error with the item's index (or key) as a note."""
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
            if isinstance(note, AttributeValidationNote | IterableValidationNote):
                steps.append(note.name if isinstance(note, AttributeValidationNote)
                             else note.index)
        if not isinstance(exc, BaseValidationError):
            break
        owner = exc.cl if isinstance(exc, ClassValidationError) else owner
        # unknown keys first: a misspelt key also looks like a missing one
        exc = min(exc.exceptions, key=lambda e: not isinstance(e, ForbiddenExtraKeysError))

    def at(path: list[str | int]) -> str:
        return place + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)

    if isinstance(exc, ForbiddenExtraKeysError):
        given = data
        for step in steps:
            given = given[step]
        key = next(k for k in given if k in exc.extra_fields)
        allowed = ", ".join(a.name for a in attrs.fields(exc.cl) if a.init)
        return InputError(f"unknown key {key!r}", file=source, place=at([*steps, key]),
                          fix=f"use only {allowed}")
    if isinstance(exc, KeyError) and steps:
        reader = _SHAPES.get(owner, ("", "", {}))[2].get(str(steps[-1]))
        try:
            if reader is None:  # a field of fixed values (attrs' in_) names them as the fix
                field = attrs.fields_dict(owner).get(str(steps[-1])) if attrs.has(owner) else None
                options = getattr(getattr(field, "validator", None), "options", None)
                raise Refusal(f'missing "{steps[-1]}"',
                              options and "use " + " or ".join(map(str, options)), up=True)
            reader(None, None)
        except Refusal as refusal:
            exc = refusal
    if isinstance(exc, InputError):  # a matcher's, placed below the value
        return InputError(exc.problem, file=source, place=at(steps) + (exc.place or "$")[1:],
                          fix=exc.fix)
    if isinstance(exc, ValueError) and len(exc.args) == 4 and isinstance(exc.args[1],
                                                                          attrs.Attribute):
        name, options, value = exc.args[1].name, exc.args[2], exc.args[3]  # attrs' in_()
        exc = Refusal(f"unknown {name} {value!r}", "use " + " or ".join(options), key=name)
    if not isinstance(exc, Refusal):
        return InputError(str(exc) or type(exc).__name__, file=source, place=at(steps))
    if exc.key is not None:
        steps.append(exc.key)
    # the key the problem is about: the last step, or the last part of the place given
    key = steps[-1] if steps else place.rpartition(".")[2]
    problem = exc.problem.replace("{key}", str(key))
    if problem.startswith("must ") and isinstance(key, str) and key.isidentifier():
        problem = f'"{key}" {problem}'
    return InputError(problem, file=source, place=at(steps[:-1] if exc.up else steps),
                      fix=exc.fix)
