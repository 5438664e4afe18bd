"""Argument matchers: Python objects, their JSON/YAML form, and strict value matching."""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any

from toolscore_core.errors import InputError

MATCHER_KEYS = ("$any", "$regex", "$approx", "$contains", "$oneof", "$type", "$judge")
_FIX = "a matcher is one of " + ", ".join(
    ['{"$any": true}', '{"$regex": "..."}', '{"$approx": 1.0, "rel": 0.01, "abs": 0}',
     '{"$contains": ...}', '{"$oneof": [...]}', '{"$type": "int"}', '{"$judge": "..."}']
)


class Matcher(ABC):
    """Base class: a matcher says whether an actual value is acceptable."""

    __slots__ = ()

    @abstractmethod
    def matches(self, value: Any) -> bool:
        """Whether ``value`` is acceptable."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The matcher's JSON form, ``{"$name": ...}``."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Matcher) or type(self) is not type(other):
            return False
        return self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(repr(self))


class _Any(Matcher):
    __slots__ = ()

    def matches(self, value: Any) -> bool:
        return True

    def to_json(self) -> dict[str, Any]:
        return {"$any": True}

    def __repr__(self) -> str:
        return "ANY"


ANY = _Any()
"""Matches any value, including null."""


class Regex(Matcher):
    """Matches a string that the regular expression finds a match in (``re.search``)."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled = re.compile(pattern)

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and self._compiled.search(value) is not None

    def to_json(self) -> dict[str, Any]:
        return {"$regex": self.pattern}

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


class Approx(Matcher):
    """Matches a number within ``rel`` (relative) or ``abs`` (absolute) tolerance."""

    __slots__ = ("abs", "rel", "value")

    def __init__(self, value: float, rel: float = 1e-6, abs: float = 0.0) -> None:
        self.value = value
        self.rel = rel
        self.abs = abs

    def matches(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return math.isclose(value, self.value, rel_tol=self.rel, abs_tol=self.abs)

    def to_json(self) -> dict[str, Any]:
        return {"$approx": self.value, "rel": self.rel, "abs": self.abs}

    def __repr__(self) -> str:
        return f"Approx({self.value!r}, rel={self.rel!r}, abs={self.abs!r})"


class Contains(Matcher):
    """A substring of a string, an element of a list, or a sub-object of an object."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def matches(self, value: Any) -> bool:
        if isinstance(value, str):
            return isinstance(self.value, str) and self.value in value
        if isinstance(value, list):
            return any(values_match(self.value, item) for item in value)
        if isinstance(value, dict) and isinstance(self.value, dict):
            return all(k in value and values_match(v, value[k]) for k, v in self.value.items())
        return False

    def to_json(self) -> dict[str, Any]:
        return {"$contains": to_json(self.value)}

    def __repr__(self) -> str:
        return f"Contains({self.value!r})"


class OneOf(Matcher):
    """Matches a value equal to (or matched by) one of the options."""

    __slots__ = ("options",)

    def __init__(self, options: Iterable[Any]) -> None:
        self.options = tuple(options)

    def matches(self, value: Any) -> bool:
        return any(values_match(option, value) for option in self.options)

    def to_json(self) -> dict[str, Any]:
        return {"$oneof": [to_json(option) for option in self.options]}

    def __repr__(self) -> str:
        return f"OneOf({list(self.options)!r})"


_TYPES: dict[str, Any] = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, float),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}
_TYPE_ALIASES = {"string": "str", "integer": "int", "boolean": "bool", "array": "list",
                 "object": "dict", "none": "null"}


class IsType(Matcher):
    """Matches a value of a JSON type: int, float, number, str, bool, list, dict, null."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        name = _TYPE_ALIASES.get(type_name, type_name)
        if name not in _TYPES:
            raise ValueError(f"unknown type {type_name!r}; use one of {', '.join(_TYPES)}")
        self.type_name = name

    def matches(self, value: Any) -> bool:
        return bool(_TYPES[self.type_name](value))

    def to_json(self) -> dict[str, Any]:
        return {"$type": self.type_name}

    def __repr__(self) -> str:
        return f"IsType({self.type_name!r})"


class Judged(Matcher):
    """A value an LLM judge says meets ``claim``. No rule can tell, so here it matches nothing
    (pairing goes by the other arguments); argument_f1 asks the judge (docs/judge.md)."""

    __slots__ = ("claim",)

    def __init__(self, claim: str) -> None:
        self.claim = claim

    def matches(self, value: Any) -> bool:
        return False

    def to_json(self) -> dict[str, Any]:
        return {"$judge": self.claim}

    def __repr__(self) -> str:
        return f"Judged({self.claim!r})"


def judged_in(expected: Sequence[Any], pairs: Iterable[tuple[Any, ...]]) -> bool:
    """Whether a pair of the pairing (``Pair`` tuples) has a ``$judge`` argument to decide.
    Asked of every evaluation, so only the pairs that did not match fully are looked at: a
    judged argument matches nothing by rule, so its pair always scores below 1."""
    return any(Judged in set(map(type, (expected[pair[0]].args or {}).values()))
               for pair in pairs if pair[3] < 1.0)


def values_match(expected: Any, actual: Any) -> bool:
    """Strict JSON equality, with matchers anywhere in ``expected``.

    ``true`` never equals ``1``; ``1`` equals ``1.0``; objects need the same keys.
    """
    if isinstance(expected, Matcher):
        return expected.matches(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(values_match(v, actual[k]) for k, v in expected.items())
        )
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(expected) == len(actual)
            and all(values_match(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if isinstance(expected, int | float):
        return isinstance(actual, int | float) and expected == actual
    return type(expected) is type(actual) and bool(expected == actual)


def to_json(value: Any) -> Any:
    """The JSON form of a value that may hold matchers (matchers as ``{"$...": ...}``)."""
    if isinstance(value, Matcher):
        return value.to_json()
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value


def to_repr(value: Any) -> Any:
    """A value for records: matchers as their repr, everything else as JSON."""
    if isinstance(value, Matcher):
        return repr(value)
    if isinstance(value, dict):
        return {k: to_repr(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_repr(v) for v in value]
    return value


def from_json(value: Any, *, path: str = "$", file: str | None = None, judged: bool = False,
              judge: bool = False) -> Any:
    """Read matchers from their JSON form; an unknown ``$`` key or bad form is an InputError.
    ``$judge`` is read only as ``value`` (``judge``) or its values (``judged``: arguments)."""
    if isinstance(value, dict):
        dollar = [k for k in value if isinstance(k, str) and k.startswith("$")]
        if dollar:
            return _parse_matcher(value, dollar, path, file, judge)
        return {
            k: from_json(v, path=f"{path}.{k}", file=file, judge=judged)
            if type(v) in _NESTED else v
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [from_json(v, path=f"{path}[{i}]", file=file) if type(v) in _NESTED else v
                for i, v in enumerate(value)]
    return value


_NESTED = frozenset((dict, list))


def _parse_matcher(
    value: dict[str, Any], dollar: list[str], path: str, file: str | None, judge: bool
) -> Any:
    def bad(problem: str, fix: str = _FIX) -> InputError:
        return InputError(problem, file=file, place=path, fix=fix)

    if len(dollar) > 1:
        raise bad(f"more than one matcher key ({', '.join(sorted(dollar))})")
    key = dollar[0]
    extra = set(value) - {key} - ({"rel", "abs"} if key == "$approx" else set())
    if key not in MATCHER_KEYS:
        raise bad(f"unknown matcher {key!r}")
    if extra:
        raise bad(f"unknown key {sorted(extra)[0]!r} beside {key!r}")
    arg = value[key]
    if key == "$judge":
        if not judge or not isinstance(arg, str) or not arg.strip():
            raise bad('"$judge" takes what a whole argument of an expected call should be, '
                      "in words", 'write "args": {"city": {"$judge": "same city as Paris"}}')
        return Judged(arg)
    if key == "$any":
        if arg is not True:
            raise bad('"$any" takes true', 'write {"$any": true}')
        return ANY
    if key == "$regex":
        if not isinstance(arg, str):
            raise bad('"$regex" takes a string', 'write {"$regex": "^pattern$"}')
        try:
            return Regex(arg)
        except re.error as exc:
            raise bad(f"invalid regular expression {arg!r} ({exc})", "fix the pattern") from None
    if key == "$approx":
        numbers = [arg, value.get("rel", 1e-6), value.get("abs", 0.0)]
        if any(isinstance(n, bool) or not isinstance(n, int | float) for n in numbers):
            raise bad('"$approx", "rel" and "abs" take numbers',
                      'write {"$approx": 3.14, "rel": 0.01}')
        return Approx(arg, rel=numbers[1], abs=numbers[2])
    if key == "$contains":
        return Contains(from_json(arg, path=f"{path}.$contains", file=file))
    if key == "$oneof":
        if not isinstance(arg, list) or not arg:
            raise bad('"$oneof" takes a non-empty list', 'write {"$oneof": ["a", "b"]}')
        return OneOf(from_json(arg, path=f"{path}.$oneof", file=file))
    if not isinstance(arg, str):
        raise bad('"$type" takes a type name', 'write {"$type": "int"}')
    try:
        return IsType(arg)
    except ValueError as exc:
        raise bad(str(exc), 'write {"$type": "int"}') from None
