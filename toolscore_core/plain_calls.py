"""Expected calls read in whole-list passes, for the common contract of plain calls.

A second reader beside the converter's (``toolscore_core.structure``), kept because of a
benchmark target: through cattrs, 1,000 plain expected calls take 2.3 ms against 0.9 ms
here, which puts ``evaluate()`` at 1,000 calls below 25x tool-scorer; and a gold file of
plain calls then needs no cattrs import at all (about 10 ms of a CLI run). It answers only
lists it can read whole (objects of the known keys, a tool name, arguments of plain
scalars under ordinary keys, no matcher) and None for anything else, which the converter
then reads and reports with its place. ``tests/toolscore_core/test_plain_calls.py`` holds
the two readers equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from typing import Any

from toolscore_core.batches import in_batches
from toolscore_core.models import ExpectedCall


def plain_calls(items: Sequence[Any]) -> tuple[ExpectedCall, ...] | None:
    """The expected calls of ``items`` when every one is plain, else None."""
    return in_batches(items, _batch)


_EXPECTED_KEYSET = frozenset(("tool", "args", "required", "description"))

_PLAIN = frozenset((str, int, float, bool, type(None)))
_STR = frozenset((str,))
_BOOL = frozenset((bool,))
_OPTIONAL_STR = frozenset((str, type(None)))
_OPTIONAL_DICT = frozenset((dict, type(None)))


def _batch(items: Sequence[Any]) -> tuple[ExpectedCall, ...] | None:
    """The common contract read in whole-list passes: objects of the known keys, a tool
    name, arguments of plain scalars under ordinary keys (no matcher to parse). None sends
    the list the long way, which reports the first problem with its place."""
    if not items or set(map(type, items)) != {dict}:
        return None
    if not all(map(_EXPECTED_KEYSET.issuperset, items)):
        return None
    get = dict.get
    tools = list(map(get, items, repeat("tool")))
    args = list(map(get, items, repeat("args")))
    required = list(map(get, items, repeat("required"), repeat(True)))
    descriptions = list(map(get, items, repeat("description")))
    if not (set(map(type, tools)) <= _STR and all(tools)
            and set(map(type, required)) <= _BOOL
            and set(map(type, descriptions)) <= _OPTIONAL_STR
            and set(map(type, args)) <= _OPTIONAL_DICT):
        return None
    given = [a for a in args if a is not None]
    try:
        if not set(map(type, chain.from_iterable(map(dict.values, given)))) <= _PLAIN:
            return None
        if "$" in "".join(chain.from_iterable(given)):
            return None
    except TypeError:  # a key that is not a string: the long way reports it
        return None
    copies = [None if a is None else a.copy() for a in args]
    return tuple(map(ExpectedCall, tools, copies, required, descriptions))  # type: ignore[arg-type]
