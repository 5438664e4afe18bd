"""Argument matchers: Python objects, their JSON/YAML form, and strict value matching.

Matching is three-valued: a matcher decides ``True`` (matches), ``False`` (does not) or
``None`` (undecided: a ``$regex`` ran past its time limit). Composed matchers combine their
parts' decisions as Kleene's logic does: ``$all`` is false when one part is false, else
undecided when one is undecided; ``$anyof`` is true when one part is true, else undecided
when one is undecided; ``$not`` of undecided is undecided. Wherever a plain yes or no is
needed (pairing), undecided counts as no; the places that report, report it as unknown.
"""

from __future__ import annotations

import math
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.patterns import TIMEOUTS, PatternError, compile_pattern, search

MATCHER_KEYS = ("$any", "$regex", "$approx", "$contains", "$oneof", "$type", "$judge",
                "$optional", "$all", "$anyof", "$not", "$text", "$object", "$list")
_FIX = "a matcher is one of " + ", ".join(
    ['{"$any": true}', '{"$regex": "..."}', '{"$approx": 1.0, "rel": 0.01, "abs": 0}',
     '{"$contains": ...}', '{"$oneof": [...]}', '{"$type": "int"}', '{"$judge": "..."}',
     '{"$optional": ...}', '{"$all": [...]}', '{"$anyof": [...]}', '{"$not": ...}',
     '{"$text": "..."}', '{"$object": {...}}', '{"$list": [...]}']
)

Decision = bool | None
"""True (matches), False (does not), None (undecided)."""


class Matcher(ABC):
    """Base class: a matcher says whether an actual value is acceptable."""

    __slots__ = ()

    @abstractmethod
    def matches(self, value: Any) -> bool:
        """Whether ``value`` is acceptable (undecided counts as no)."""

    def decide(self, value: Any) -> Decision:
        """Whether ``value`` is acceptable, or None when the matcher cannot tell (a search
        past its time limit). A matcher that always can tell need not override this."""
        return self.matches(value)

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The matcher's JSON form, ``{"$name": ...}``."""

    def __eq__(self, other: object) -> bool:
        # a value of this matcher's own type is a Matcher: no isinstance against the ABC
        if type(self) is not type(other):
            return False
        return self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash(repr(self))


class _Decided(Matcher):
    """A matcher whose rule is :meth:`decide`; ``matches`` is its ``True``."""

    __slots__ = ()

    def matches(self, value: Any) -> bool:
        return self.decide(value) is True

    @abstractmethod
    def decide(self, value: Any) -> Decision:
        """Whether ``value`` is acceptable, or None when undecided."""


def all_of(decisions: Iterable[Decision]) -> Decision:
    """Kleene's AND: False if any is False, else None if any is None, else True."""
    result: Decision = True
    for decision in decisions:
        if decision is False:
            return False
        if decision is None:
            result = None
    return result


def any_of(decisions: Iterable[Decision]) -> Decision:
    """Kleene's OR: True if any is True, else None if any is None, else False."""
    result: Decision = False
    for decision in decisions:
        if decision is True:
            return True
        if decision is None:
            result = None
    return result


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


class Regex(_Decided):
    """Matches a string that the regular expression finds a match in (``search``), run by
    the ``regex`` package with a time limit: past it, undecided (docs/contracts.md)."""

    __slots__ = ("_compiled", "_timed_out", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            self._compiled = compile_pattern(pattern)
        except PatternError as exc:
            raise ValueError(f"invalid regular expression {pattern!r} ({exc})") from None
        # Values a search timed out on: pairing asks the same pair several times, and the
        # answer must stay the same (and not cost the time limit again).
        self._timed_out: set[str] = set()

    def decide(self, value: Any) -> Decision:
        if not isinstance(value, str):
            return False
        if value in self._timed_out:
            return None
        found = search(self._compiled, value)
        if found is None:
            self._timed_out.add(value)
        return found

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


class Contains(_Decided):
    """A substring of a string, an element of a list, or a sub-object of an object."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def decide(self, value: Any) -> Decision:
        if isinstance(value, str):
            return isinstance(self.value, str) and self.value in value
        if isinstance(value, list):
            return any_of(decide(self.value, item) for item in value)
        if isinstance(value, dict) and isinstance(self.value, dict):
            return members_decide(self.value, value)
        return False

    def to_json(self) -> dict[str, Any]:
        return {"$contains": to_json(self.value)}

    def __repr__(self) -> str:
        return f"Contains({self.value!r})"


class _Options(_Decided):
    """A matcher over a list of options (matchers or values), written ``{KEY: [...]}``."""

    __slots__ = ("options",)
    KEY = ""

    def __init__(self, options: Iterable[Any]) -> None:
        self.options = tuple(options)

    def to_json(self) -> dict[str, Any]:
        return {self.KEY: [to_json(option) for option in self.options]}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self.options)!r})"


class OneOf(_Options):
    """Matches a value equal to (or matched by) one of the options."""

    __slots__ = ()
    KEY = "$oneof"

    def decide(self, value: Any) -> Decision:
        return any_of(decide(option, value) for option in self.options)


class AnyOf(OneOf):
    """Matches a value that at least one of the matchers (or values) matches: ``$oneof``'s
    rule, named for composing matchers (``$anyof`` beside ``$all`` and ``$not``)."""

    __slots__ = ()
    KEY = "$anyof"


class AllOf(_Options):
    """Matches a value that every one of the matchers (or values) matches."""

    __slots__ = ()
    KEY = "$all"

    def decide(self, value: Any) -> Decision:
        return all_of(decide(option, value) for option in self.options)


class Not(_Decided):
    """Matches a value that the matcher (or value) does not match."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def decide(self, value: Any) -> Decision:
        decision = decide(self.value, value)
        return None if decision is None else not decision

    def to_json(self) -> dict[str, Any]:
        return {"$not": to_json(self.value)}

    def __repr__(self) -> str:
        return f"Not({self.value!r})"


class Optional(_Decided):
    """An argument or object key that may be absent; present, it must match ``value``.

    Absence is judged where arguments and object keys are compared (argument F1, plain
    objects, :class:`Object`); of a value that is there, the rule is ``value``'s."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def decide(self, value: Any) -> Decision:
        return decide(self.value, value)

    def to_json(self) -> dict[str, Any]:
        return {"$optional": to_json(self.value)}

    def __repr__(self) -> str:
        return f"Optional({self.value!r})"


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


WHITESPACE = ("collapse", "ignore", "exact")
QUOTES = ("'\"`\u00b4\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2032\u2033"
          "\u00ab\u00bb\u2039\u203a")
"""The quotation marks ``fold_quotes`` makes one: straight, typographic, primes, guillemets."""
_FOLD_QUOTES = str.maketrans(dict.fromkeys(QUOTES, '"'))


class Text(_Decided):
    """Matches a string equal to ``text`` once both are normalized (docs/contracts.md):
    NFKC, then quotation marks folded, case folded, punctuation removed, the characters of
    ``remove`` removed, whitespace collapsed or removed, each as its option says."""

    __slots__ = ("_normal", "_removed", "fold_quotes", "ignore_case", "ignore_punctuation",
                 "nfkc", "remove", "text", "whitespace")

    def __init__(self, text: str, *, ignore_case: bool = True, whitespace: str = "collapse",
                 ignore_punctuation: bool = False, fold_quotes: bool = True,
                 nfkc: bool = True, remove: str = "") -> None:
        if whitespace not in WHITESPACE:
            raise ValueError(f"whitespace is one of {', '.join(WHITESPACE)}, not {whitespace!r}")
        self.text = text
        self.ignore_case = ignore_case
        self.whitespace = whitespace
        self.ignore_punctuation = ignore_punctuation
        self.fold_quotes = fold_quotes
        self.nfkc = nfkc
        self.remove = remove
        self._removed = str.maketrans("", "", remove)
        self._normal = self.normalize(text)

    def normalize(self, text: str) -> str:
        """``text`` as this matcher compares it."""
        if self.nfkc:
            text = unicodedata.normalize("NFKC", text)
        if self.fold_quotes:
            text = text.translate(_FOLD_QUOTES)
        if self.ignore_case:
            text = text.casefold()
        if self.ignore_punctuation:
            text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
        if self.remove:
            text = text.translate(self._removed)
        if self.whitespace == "collapse":
            return " ".join(text.split())
        if self.whitespace == "ignore":
            return "".join(text.split())
        return text

    def decide(self, value: Any) -> Decision:
        return isinstance(value, str) and self.normalize(value) == self._normal

    def to_json(self) -> dict[str, Any]:
        data = {"$text": self.text, "ignore_case": self.ignore_case,
                "whitespace": self.whitespace, "ignore_punctuation": self.ignore_punctuation,
                "fold_quotes": self.fold_quotes, "nfkc": self.nfkc}
        if self.remove:  # only when given: the records of other contracts keep their bytes
            data["remove"] = self.remove
        return data

    def __repr__(self) -> str:
        removed = f", remove={self.remove!r}" if self.remove else ""
        return (f"Text({self.text!r}, ignore_case={self.ignore_case!r}, "
                f"whitespace={self.whitespace!r}, "
                f"ignore_punctuation={self.ignore_punctuation!r}, "
                f"fold_quotes={self.fold_quotes!r}, nfkc={self.nfkc!r}{removed})")


EXTRA = ("forbid", "allow")
ORDER = ("same", "any")


class Object(_Decided):
    """Matches an object holding every key of ``keys`` whose value is not
    :class:`Optional`, each key it holds matching its value or matcher; with
    ``extra="forbid"`` (the default) it holds no other key."""

    __slots__ = ("extra", "keys")

    def __init__(self, keys: Mapping[str, Any], *, extra: str = "forbid") -> None:
        if extra not in EXTRA:
            raise ValueError(f"extra is one of {', '.join(EXTRA)}, not {extra!r}")
        self.keys = dict(keys)
        self.extra = extra

    def decide(self, value: Any) -> Decision:
        if not isinstance(value, dict):
            return False
        if self.extra == "forbid" and not value.keys() <= self.keys.keys():
            return False
        return members_decide(self.keys, value)

    def to_json(self) -> dict[str, Any]:
        return {"$object": {k: to_json(v) for k, v in self.keys.items()}, "extra": self.extra}

    def __repr__(self) -> str:
        return f"Object({self.keys!r}, extra={self.extra!r})"


class List(_Decided):
    """Matches a list against ``items`` (docs/contracts.md): with ``order="same"`` item by
    item in order, with ``"any"`` each item paired with a different element; with
    ``extra="allow"`` the list may hold other elements too (contains at least the items);
    with ``each``, every element also matches ``each``."""

    __slots__ = ("each", "extra", "items", "order")

    def __init__(self, items: Iterable[Any] = (), *, order: str = "same",
                 extra: str = "forbid", each: Any = None) -> None:
        if order not in ORDER:
            raise ValueError(f"order is one of {', '.join(ORDER)}, not {order!r}")
        if extra not in EXTRA:
            raise ValueError(f"extra is one of {', '.join(EXTRA)}, not {extra!r}")
        self.items = tuple(items)
        self.order = order
        self.extra = extra
        self.each = each

    def decide(self, value: Any) -> Decision:
        if not isinstance(value, list | tuple):
            return False
        items = self.items
        if self.extra == "forbid" and len(value) != len(items):
            return False
        if len(value) < len(items):
            return False
        each: Decision = True
        if self.each is not None:
            each = all_of(decide(self.each, element) for element in value)
            if each is False:
                return False
        if self.order == "same" and self.extra == "forbid":
            return all_of([each, all_of(decide(i, v) for i, v in zip(items, value,
                                                                        strict=True))])
        cache: dict[tuple[int, int], Decision] = {}

        def edge(i: int, j: int) -> Decision:
            key = (i, j)
            if key not in cache:
                cache[key] = decide(items[i], value[j])
            return cache[key]

        fits = _in_order if self.order == "same" else _matched
        if fits(len(items), len(value), lambda i, j: edge(i, j) is True):
            return each
        if fits(len(items), len(value), lambda i, j: edge(i, j) is not False):
            return None  # it fits if what is undecided matches
        return False

    def to_json(self) -> dict[str, Any]:
        return {"$list": [to_json(item) for item in self.items], "order": self.order,
                "extra": self.extra, "each": to_json(self.each)}

    def __repr__(self) -> str:
        return (f"List({list(self.items)!r}, order={self.order!r}, extra={self.extra!r}, "
                f"each={self.each!r})")


Edge = Callable[[int, int], bool]


def _in_order(n_items: int, n_values: int, edge: Edge) -> bool:
    """Whether items 0..n-1 match values at increasing positions. Taking for each item the
    earliest value left that it matches never loses: a later one leaves fewer for the rest."""
    j = 0
    for i in range(n_items):
        while j < n_values and not edge(i, j):
            j += 1
        if j == n_values:
            return False
        j += 1
    return True


def _matched(n_items: int, n_values: int, edge: Edge) -> bool:
    """Whether every item can be paired with a different value it matches: a bipartite
    matching covering the items, grown one augmenting path (found breadth first) at a time."""
    owner = [-1] * n_values  # value -> its item
    partner = [-1] * n_items  # item -> its value
    for start in range(n_items):
        reached_from: dict[int, int] = {}  # value -> the item the search reached it from
        frontier = [start]
        free = -1
        while frontier and free < 0:
            following = []
            for i in frontier:
                for j in range(n_values):
                    if j in reached_from or not edge(i, j):
                        continue
                    reached_from[j] = i
                    if owner[j] < 0:
                        free = j
                        break
                    following.append(owner[j])
                if free >= 0:
                    break
            frontier = following
        if free < 0:
            return False
        j = free
        while j >= 0:  # along the path back to start, each item takes the value it reached
            i = reached_from[j]
            previous = partner[i]
            partner[i], owner[j] = j, i
            j = previous
    return True


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
    given = [expected[pair[0]].args for pair in pairs if pair[3] < 1.0]
    # the types of all their arguments' values, gathered in one pass
    return Judged in set(map(type, [v for args in given if args for v in args.values()]))


def undecided_in(expected: Sequence[Any], calls: Sequence[Any],
                 pairs: Iterable[tuple[Any, ...]]) -> bool:
    """Whether a pair of the pairing (``Pair`` tuples) has an argument no rule could decide
    (a ``$regex`` past its time limit, at any depth of the argument). Asked of every
    evaluation, so it looks only while some search has timed out, and only at the pairs
    that did not match fully (an undecided argument counts as unmatched there)."""
    if not TIMEOUTS[0]:
        return False
    return any(undecided_arguments(expected[pair[0]].args, calls[pair[1]].args)
               for pair in pairs if pair[3] < 1.0)


def undecided_arguments(expected: Mapping[str, Any] | None,
                        actual: Mapping[str, Any] | None) -> list[str]:
    """The names of the arguments ``actual`` gives whose match no rule could decide."""
    if not expected or not actual or not TIMEOUTS[0]:
        return []
    return [name for name, want in expected.items()
            if name in actual and type(want) is not Judged
            and decide(want, actual[name]) is None]


def decide(expected: Any, actual: Any) -> Decision:
    """Strict JSON equality, with matchers anywhere in ``expected``; None when a matcher in
    it is undecided.

    ``true`` never equals ``1``; ``1`` equals ``1.0``; objects need the same keys, except
    that a key whose expected value is :class:`Optional` may be absent.
    """
    kind = type(expected)
    if kind is type(actual) and kind in _SCALARS:  # most values: no isinstance against ABCs
        return expected == actual
    if isinstance(expected, Matcher):
        return expected.decide(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or not actual.keys() <= expected.keys():
            return False
        return members_decide(expected, actual)
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list | tuple) or len(expected) != len(actual):
            return False
        return all_of(decide(e, a) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, int | float):
        return isinstance(actual, int | float) and expected == actual
    return type(expected) is type(actual) and bool(expected == actual)


_SCALARS = frozenset((str, int, float, bool, type(None)))


def values_match(expected: Any, actual: Any) -> bool:
    """:func:`decide`, with undecided as no: for pairing, which needs a yes or a no."""
    return decide(expected, actual) is True


def member_decide(expected: Any, actual: Mapping[str, Any], name: str) -> Decision:
    """Whether ``actual``'s member ``name`` matches ``expected``: an absent member matches
    only an :class:`Optional`."""
    if name in actual:
        return decide(expected, actual[name])
    return type(expected) is Optional


def members_decide(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> Decision:
    """Whether each member ``expected`` names matches in ``actual`` (an absent one only if
    it is :class:`Optional`; other members of ``actual`` are not looked at)."""
    result: Decision = True
    for name, want in expected.items():
        if name in actual:
            decision = decide(want, actual[name])
            if decision is False:
                return False
            if decision is None:
                result = None
        elif type(want) is not Optional:
            return False
    return result


def absent_optional(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> int:
    """How many of ``expected``'s :class:`Optional` members ``actual`` leaves out: those
    count neither as expected nor as matched in an argument F1."""
    return sum(1 for name, want in expected.items()
               if type(want) is Optional and name not in actual)


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
              judge: bool = False, member: bool = False) -> Any:
    """Read matchers from their JSON form; an unknown ``$`` key or bad form is an InputError.
    ``$judge`` is read only as ``value`` (``judge``) or its values (``judged``: arguments);
    ``$optional`` only as ``value`` of a ``member`` (an argument or an object's key)."""
    if isinstance(value, dict):
        try:  # one C pass when every key is text: "$..." sorts before "%"
            may_hold_matcher = min(value) < "%"
        except (TypeError, ValueError):  # a key that is not text, or no key
            may_hold_matcher = True
        if may_hold_matcher:
            dollar = [k for k in value if isinstance(k, str) and k.startswith("$")]
            if dollar:
                return _parse_matcher(value, dollar, path, file, judge, member)
        for item in value.values():  # most arguments: plain values, copied whole
            if type(item) in _NESTED:
                break
        else:
            return {**value}
        return {
            k: from_json(v, path=f"{path}.{k}", file=file, judge=judged, member=True)
            if type(v) in _NESTED else v
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [from_json(v, path=f"{path}[{i}]", file=file) if type(v) in _NESTED else v
                for i, v in enumerate(value)]
    return value


_NESTED = frozenset((dict, list))
_OPTIONS: dict[str, tuple[str, ...]] = {
    "$approx": ("rel", "abs"),
    "$text": ("ignore_case", "whitespace", "ignore_punctuation", "fold_quotes", "nfkc",
              "remove"),
    "$object": ("extra",),
    "$list": ("order", "extra", "each"),
}
_EXAMPLES = {
    "$any": '{"$any": true}', "$regex": '{"$regex": "^pattern$"}',
    "$approx": '{"$approx": 3.14, "rel": 0.01}', "$oneof": '{"$oneof": ["a", "b"]}',
    "$anyof": '{"$anyof": [{"$type": "int"}, "none"]}',
    "$all": '{"$all": [{"$type": "int"}, 5]}', "$type": '{"$type": "int"}',
    "$text": '{"$text": "New York", "ignore_punctuation": true}',
    "$object": '{"$object": {"id": {"$type": "int"}}, "extra": "allow"}',
    "$list": '{"$list": [1, 2], "order": "any", "extra": "allow"}',
    "$optional": '"args": {"unit": {"$optional": "celsius"}}',
}


def _parse_matcher(
    value: dict[str, Any], dollar: list[str], path: str, file: str | None, judge: bool,
    member: bool,
) -> Any:
    def bad(problem: str, fix: str = _FIX) -> InputError:
        return InputError(problem, file=file, place=path, fix=fix)

    if len(dollar) > 1:
        raise bad(f"more than one matcher key ({', '.join(sorted(dollar))})")
    key = dollar[0]
    if key not in MATCHER_KEYS:
        raise bad(f"unknown matcher {key!r}")
    options = _OPTIONS.get(key, ())
    extra = set(value) - {key} - set(options)
    if extra:
        known = f"; {key} takes {', '.join(options)} beside it" if options else ""
        raise bad(f"unknown key {sorted(extra, key=str)[0]!r} beside {key!r}{known}",
                  "write " + _EXAMPLES.get(key, _FIX))
    arg = value[key]
    example = _EXAMPLES.get(key, "")

    def parse(item: Any, where: str, *, is_member: bool = False) -> Any:
        return from_json(item, path=f"{path}.{where}", file=file, member=is_member)

    def matchers(where: str) -> list[Any]:
        if not isinstance(arg, list) or not arg:
            raise bad(f'"{key}" takes a non-empty list', f"write {example}")
        parsed: list[Any] = parse(arg, where)
        return parsed

    def choice(option: str, allowed: tuple[str, ...], default: str) -> str:
        chosen = value.get(option, default)
        if chosen not in allowed:
            raise bad(f'"{option}" beside "{key}" is one of {", ".join(allowed)}, not '
                      f"{chosen!r}", f"write {example}")
        return str(chosen)

    def flag(option: str, default: bool) -> bool:
        chosen = value.get(option, default)
        if not isinstance(chosen, bool):
            raise bad(f'"{option}" beside "{key}" is true or false, not {chosen!r}',
                      f"write {example}")
        return chosen

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
            raise bad('"$regex" takes a string', f"write {example}")
        try:
            return Regex(arg)
        except ValueError as exc:
            raise bad(str(exc), "fix the pattern") from None
    if key == "$approx":
        numbers = [arg, value.get("rel", 1e-6), value.get("abs", 0.0)]
        if any(isinstance(n, bool) or not isinstance(n, int | float) for n in numbers):
            raise bad('"$approx", "rel" and "abs" take numbers', f"write {example}")
        return Approx(arg, rel=numbers[1], abs=numbers[2])
    if key == "$contains":
        return Contains(parse(arg, "$contains"))
    if key == "$oneof":
        return OneOf(matchers("$oneof"))
    if key == "$anyof":
        return AnyOf(matchers("$anyof"))
    if key == "$all":
        return AllOf(matchers("$all"))
    if key == "$not":
        return Not(parse(arg, "$not"))
    if key == "$optional":
        if not member:
            raise bad('"$optional" stands for an argument or an object\'s key that may be '
                      "absent, so it goes directly under a name",
                      f"write {example}")
        return Optional(parse(arg, "$optional"))
    if key == "$text":
        if not isinstance(arg, str):
            raise bad('"$text" takes a string', f"write {example}")
        remove = value.get("remove", "")
        if not isinstance(remove, str):
            raise bad(f'"remove" beside "$text" is a string of the characters to remove, not '
                      f"{remove!r}", 'write {"$text": "New York", "remove": ",.-"}')
        return Text(arg, ignore_case=flag("ignore_case", True),
                    whitespace=choice("whitespace", WHITESPACE, "collapse"),
                    ignore_punctuation=flag("ignore_punctuation", False),
                    fold_quotes=flag("fold_quotes", True), nfkc=flag("nfkc", True),
                    remove=remove)
    if key == "$object":
        if not isinstance(arg, dict):
            raise bad('"$object" takes an object of keys and their values or matchers',
                      f"write {example}")
        # The keys are names, even those starting with "$": the object is not a matcher.
        keys = {k: parse(v, f"$object.{k}", is_member=True) for k, v in arg.items()}
        return Object(keys, extra=choice("extra", EXTRA, "forbid"))
    if key == "$list":
        if not isinstance(arg, list):
            raise bad('"$list" takes a list of items (values or matchers)', f"write {example}")
        return List(parse(arg, "$list"), order=choice("order", ORDER, "same"),
                    extra=choice("extra", EXTRA, "forbid"), each=parse(value.get("each"), "each"))
    if not isinstance(arg, str):
        raise bad('"$type" takes a type name', f"write {example}")
    try:
        return IsType(arg)
    except ValueError as exc:
        raise bad(str(exc), f"write {example}") from None
