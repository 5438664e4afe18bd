"""Regular expressions users write, run with a time limit (the ``regex`` package's timeout).

Python's ``re`` has no time limit: a pattern such as ``(a|aa)+$`` against a long string of
``a`` runs for minutes. Every pattern from a contract, a rule or a side effect is compiled
and searched here instead, so a search that runs past :data:`TIME_LIMIT` ends and says so
(``None``: undecided) rather than hang or pass or fail silently.
"""

from __future__ import annotations

import re
from typing import Any

TIME_LIMIT = 0.1
"""Seconds one search may run. Searches of tool arguments take microseconds; a pattern that
backtracks exponentially never ends in practice. The limit separates the two by far."""

TIMED_OUT = f"its regular expression ran past the time limit of {TIME_LIMIT:g} s per search"
"""Why a search is undecided, for reasons shown to the user."""


TIMEOUTS = [0]
"""How many searches in this process ran past the limit: while none has, nothing needs to
look for undecided arguments (the evaluation's hot path stays as it was)."""


class PatternError(ValueError):
    """A pattern the regular expression engine refuses (the message says why)."""


REPEAT_LIMIT = 1_000
"""How many pieces of pattern counted repeats may add (RE2's limit on a count, too). The
``regex`` package writes a repeat ``x{n}`` out n times when it compiles it, nested repeats
multiplied, at about a microsecond a piece: ``x{10**9}`` or ``((a{1000}){1000}){1000}``
would take minutes and gigabytes. Patterns are therefore measured first, on the syntax tree
of Python's own ``re`` parser: each piece counts as often as the minimum counts of the
repeats around it say, and the count may exceed the pieces written by at most this many,
so that even a 10 KB contract of nothing but such patterns compiles within a second.
``{0,n}`` and ``{m,}`` repeat without being written out past their minimum."""


def compile_pattern(pattern: str, *, multiline: bool = False) -> Any:
    """``pattern`` compiled by the ``regex`` package (in the syntax of Python's ``re``), or
    a :class:`PatternError`: invalid in ``re``'s syntax, or repeats that add more than
    REPEAT_LIMIT pieces."""
    import re._parser as re_parser  # the parser re.compile itself uses

    # Imported on use: most contracts have no pattern (the CLI's start-up is budgeted).
    import regex

    try:
        tree = re_parser.parse(pattern)
    except re.error as exc:
        raise PatternError(str(exc)) from None
    added = _pieces(tree, 1) - _pieces(tree, 1, counted=False)
    if added > REPEAT_LIMIT:
        raise PatternError(f"its counted repeats add {added:,} pieces of pattern, more than "
                           f"the {REPEAT_LIMIT:,} they may add; use smaller counts, or {{0,n}}")
    try:
        return regex.compile(pattern, regex.MULTILINE if multiline else 0)
    except regex.error as exc:
        raise PatternError(str(exc)) from None


def _pieces(tree: Any, factor: int, *, counted: bool = True) -> int:
    """The pieces (items of the syntax tree) of ``tree``, each counted ``factor`` times and,
    inside a repeat, times its minimum count as well (``counted``) or once."""
    from re._constants import MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT

    total = 0
    for op, arguments in tree:
        total += factor
        if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
            low, _, inner = arguments
            total += _pieces(inner, factor * max(low, 1) if counted else factor,
                             counted=counted)
            continue
        for part in arguments if isinstance(arguments, tuple | list) else (arguments,):
            if isinstance(part, tuple | list):  # a branch's alternatives
                for alternative in part:
                    if hasattr(alternative, "data"):
                        total += _pieces(alternative, factor, counted=counted)
            elif hasattr(part, "data"):  # a group's, an assertion's or a condition's tree
                total += _pieces(part, factor, counted=counted)
    return total


def search(compiled: Any, text: str) -> bool | None:
    """Whether ``compiled`` finds a match in ``text``; None when the search ran past
    :data:`TIME_LIMIT`."""
    try:
        return compiled.search(text, timeout=TIME_LIMIT) is not None
    except TimeoutError:
        TIMEOUTS[0] += 1
        return None
