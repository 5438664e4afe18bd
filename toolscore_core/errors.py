"""Errors users see: one line naming the file, the place in it and the fix."""

from __future__ import annotations


class ToolscoreError(Exception):
    """Base class of every error toolscore raises on purpose."""


class InputError(ToolscoreError):
    """Bad input: a file, the place in it (a JSON path or line), what is wrong and the fix."""

    def __init__(
        self, problem: str, *, file: str | None = None, place: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.problem = problem
        self.file = file
        self.place = place
        self.fix = fix
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """The message as one line: ``file: place: problem; fix``."""
        parts = [p for p in (self.file, self.place) if p]
        text = ": ".join([*parts, self.problem])
        if self.fix:
            text += f"; {self.fix}"
        return " ".join(text.split())

    def at(self, file: str) -> InputError:
        """The same error, naming ``file`` when it did not name one yet."""
        if self.file:
            return self
        return InputError(self.problem, file=file, place=self.place, fix=self.fix)


class PluginError(ToolscoreError):
    """A plugin broke a rule of the hook contract (duplicate id, wrong record, bad hookimpl)."""


class CanonicalJSONError(ToolscoreError, ValueError):
    """A value has no canonical JSON form (NaN, an infinity, a non-JSON type)."""
