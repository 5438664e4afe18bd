"""How verdicts number and count things for people: calls from 1, "1 call", "2 calls"."""

from __future__ import annotations


def number(index: int | None) -> int | None:
    """The number a person reads for the call (or expected call) at 0-based ``index``:
    the first call of a trace is 1, in reasons, details and reports alike."""
    return None if index is None else index + 1


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 call``, ``2 calls``, ``0 calls``; ``plural`` for nouns not made with ``s``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
