"""Regular expressions users write, run with a time limit (the ``regex`` package's timeout).

Python's ``re`` has no time limit: a pattern such as ``(a|aa)+$`` against a long string of
``a`` runs for minutes. Every pattern from a contract, a rule or a side effect is compiled
and searched here instead, so a search that runs past :data:`TIME_LIMIT` ends and says so
(``None``: undecided) rather than hang or pass or fail silently.
"""

from __future__ import annotations

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


def compile_pattern(pattern: str, *, multiline: bool = False) -> Any:
    """``pattern`` compiled by the ``regex`` package (its ``re``-compatible syntax), or a
    :class:`PatternError`."""
    # Imported on use: most contracts have no pattern (the CLI's start-up is budgeted).
    import regex

    try:
        return regex.compile(pattern, regex.MULTILINE if multiline else 0)
    except regex.error as exc:
        raise PatternError(str(exc)) from None


def search(compiled: Any, text: str) -> bool | None:
    """Whether ``compiled`` finds a match in ``text``; None when the search ran past
    :data:`TIME_LIMIT`."""
    try:
        return compiled.search(text, timeout=TIME_LIMIT) is not None
    except TimeoutError:
        TIMEOUTS[0] += 1
        return None
