"""A run's token usage: the sum of its model calls' counts, each call's added as it comes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class RunUsage:
    """The run's tokens, added one model call at a time (memory stays flat): unknown when
    some call has none, as a partial sum would pass for the run's total.

    ``carrier`` and ``calls`` name, in the note, what holds a call's counts and the calls
    (``usage_metadata`` on ... ``AI messages``).
    """

    __slots__ = ("calls", "carrier", "given", "seen", "total")

    def __init__(self, carrier: str, calls: str) -> None:
        self.carrier, self.calls = carrier, calls
        self.total: dict[str, Any] = {}
        self.seen = self.given = 0

    def add(self, usage: Any) -> None:
        """One model call's counts (a mapping), or None when the call gives none."""
        self.seen += 1
        if not isinstance(usage, Mapping):
            return
        self.given += 1
        _add(self.total, usage)

    def result(self, notes: list[str]) -> dict[str, Any] | None:
        """The sum; None (with a note) when some call gave no counts, None when none did."""
        if not self.given:
            return None
        if self.given < self.seen:
            notes.append(f"{self.carrier} on {self.given} of {self.seen} {self.calls}: the "
                         "run's token usage is unknown")
            return None
        return self.total


def _add(total: dict[str, Any], usage: Mapping[str, Any]) -> None:
    """Add one call's token counts into ``total`` (nested details key by key)."""
    for key, value in usage.items():
        if isinstance(value, Mapping):
            inner = total.setdefault(key, {})
            if isinstance(inner, dict):
                _add(inner, value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            before = total.get(key, 0)
            if isinstance(before, (int, float)) and not isinstance(before, bool):
                total[key] = before + value
