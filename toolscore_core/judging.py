"""The LLM judge as the core carries it: only judged evaluations load it."""

from __future__ import annotations

from collections.abc import MutableMapping
from os import PathLike
from typing import Any

from attrs import frozen


@frozen
class Judging:
    """An LLM judge taking part: its model, the judgments its verdicts are read from and
    added to, and the client asking what they lack (None: the judgments alone, as a regrade
    does). ``toolscore_judge`` asks it; the core only carries it."""

    model: str
    judgments: str | PathLike[str] | MutableMapping[str, Any] | None
    """A judgments file, or judgments by content address held in memory (a run record's)."""
    client: Any = None

    @property
    def file(self) -> str | PathLike[str] | None:
        """The judgments file (None when the judgments are held in memory)."""
        return None if isinstance(self.judgments, MutableMapping) else self.judgments
