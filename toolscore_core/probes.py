"""The side-effect probes' parameters as records, read from a contract's ``side_effects``."""

from __future__ import annotations

from typing import Any

from attrs import field, frozen

from toolscore_core.patterns import PatternError, compile_pattern
from toolscore_core.structure import Refusal, at_least


def _filled(_: Any, attribute: Any, value: str) -> None:
    if not value.strip():
        raise Refusal(f'"{attribute.name}" must not be empty', f'add "{attribute.name}": "..."',
                      key=attribute.name)


def _pattern(_: Any, attribute: Any, value: str | None) -> None:
    try:
        compile_pattern(value or "")
    except PatternError as exc:
        raise Refusal(f"invalid regular expression ({exc})", "fix the pattern",
                      key=attribute.name) from None


def _http(_: Any, attribute: Any, value: str) -> None:
    if not value.startswith(("http://", "https://")):
        raise Refusal("the url must start with http:// or https://", key=attribute.name)


def _timeout(_: Any, attribute: Any, value: float | None) -> None:
    if value is not None and not 0 < value <= 300:
        raise Refusal('"timeout" must be seconds between 0 and 300', key=attribute.name)


@frozen
class FileExists:
    """A file that must exist (relative paths from the gold file's folder)."""

    path: str = field(validator=_filled)
    description: str | None = None


@frozen
class FileContains:
    """A file that must contain a text, or a match of a regular expression."""

    path: str = field(validator=_filled)
    text: str | None = None
    regex: str | None = field(default=None, validator=_pattern)
    description: str | None = None

    def __attrs_post_init__(self) -> None:
        if (self.text is None) == (self.regex is None):
            raise Refusal('a file_contains side effect needs exactly one of "text" or "regex"',
                          'add "text": "what the file must contain"')


@frozen
class HttpGet:
    """A URL that must answer a GET with a 2xx status (or ``status``)."""

    url: str = field(validator=[_filled, _http])
    status: int | None = field(default=None, validator=at_least(100))
    body_contains: str | None = None
    timeout: float | None = field(default=None, validator=_timeout)
    description: str | None = None


@frozen
class SqliteQuery:
    """A query on a SQLite database that must return rows (or ``rows`` of them)."""

    database: str = field(validator=_filled)
    query: str = field(validator=_filled)
    rows: int | None = field(default=None, validator=at_least(0))
    description: str | None = None


PROBE_SHAPES: dict[str, type] = {"file_exists": FileExists, "file_contains": FileContains,
                                 "http_get": HttpGet, "sqlite_query": SqliteQuery}
"""A side effect's ``type`` -> the record its probe's parameters are read into."""
