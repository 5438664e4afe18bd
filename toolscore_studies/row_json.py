"""A runs file's rows as JSON text: decoded member by member, encoded value by value.

The regrade's one path decodes each row, evaluates it and encodes it again. Two shortcuts
of that path live here, for the regrade's target of 5,000 rows/s with ``--jobs 2``
(docs/benchmarks.md): a compact row (the shape toolscore writes) is decoded member by
member with ``json``'s own C scanner, which keeps the exact text of its largest value, the
evaluation, so that it is not encoded again when its hash is the row's ``record_sha256``;
and a row is encoded as the canonical JSON of each top-level value joined in key order, so
that the old row's hash and the new row share the values the regrade did not change. Plain
``json.loads`` and ``canonical_json`` of the whole row cost about a third more CPU per row
(272 against 207 µs), which would put the target at its edge.
``tests/toolscore_studies/test_row_json.py`` holds both equal to the plain functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from json.scanner import make_scanner
from typing import Any, cast

from toolscore_core.canonical import canonical_json, sha256_hex
from toolscore_core.documents import JSON_FAILURES, STRICT_DECODER, loads
from toolscore_studies.records import KIND
from toolscore_studies.summary import why_not_json as _why

_SCAN: Any = make_scanner(cast(Any, STRICT_DECODER))
"""The C scanner of ``json.loads`` (refusing NaN and the infinities): ``_SCAN(text, index)``
is ``(value, end)``."""


def decode_row(text: str) -> tuple[dict[str, Any], str | None] | str:
    """The row, and the exact text of its ``evaluation`` when the line shows it; or why the
    line is not a row. The row is what ``json.loads`` gives."""
    walked = _walk_object(text.rstrip("\r\n"))
    if walked is not None:
        return walked
    try:
        row = loads(text)
    except JSON_FAILURES as exc:
        return f"not valid JSON ({_why(exc)})"
    if not isinstance(row, dict):
        return f"not a {KIND} row"
    return row, None


def _walk_object(text: str) -> tuple[dict[str, Any], str | None] | None:
    """Decode a compact object (the shape toolscore writes) member by member, keeping the
    text of its evaluation; None when the text is not in that shape.

    The scanner tells where each value ends, which ``json.loads`` does not; the values are
    the ones it gives.
    """
    if not text.startswith("{") or not text.endswith("}"):
        return None
    row: dict[str, Any] = {}
    evaluation = None
    index = 1
    end = len(text) - 1
    try:
        while True:
            if text[index] != '"':
                return None
            key, index = _SCAN(text, index)
            if text[index] != ":" or key in row:
                return None  # json.loads keeps the last of a repeated key
            start = index + 1
            row[key], index = _SCAN(text, start)
            if key == "evaluation":
                evaluation = text[start:index]
            if index == end:
                return row, evaluation
            if text[index] != ",":
                return None
            index += 1
    except (StopIteration, IndexError, *JSON_FAILURES):
        return None


def evaluation_piece(row: Mapping[str, Any], text: str | None) -> str:
    """The canonical JSON of the row's evaluation: its text as written when that hashes to
    the row's ``record_sha256`` (the hash of the evaluation's canonical JSON), which spares
    serializing the largest value of a row again."""
    recorded = row.get("record_sha256")
    if text is not None and isinstance(recorded, str) and (
            sha256_hex(text.encode("utf-8")) == recorded):
        return text
    return canonical_json(row["evaluation"])

