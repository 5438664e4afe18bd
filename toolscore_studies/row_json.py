"""A runs file's rows as JSON text: decoded member by member, encoded value by value.

The regrade's one path decodes each row, evaluates it and encodes it again. Two shortcuts
of that path live here, for the regrade's target of 5,000 rows/s with ``--jobs 2``
(docs/benchmarks.md): a compact row (the shape toolscore writes) is decoded member by
member with ``json``'s own C scanner (the actual calls of its recorded evaluation, when
written as the row's calls are, are not decoded twice), which keeps the exact text of each
value, so that its two largest, the evaluation and the calls, are not encoded again when
known to be canonical: the evaluation when its hash is the row's ``record_sha256``, the
calls when that evaluation shows the same text as its actual calls; and a row is encoded
as the canonical JSON of each top-level value joined in key order, so that the old row's
hash and the new row share the values the regrade did not change. The larger values the
rows repeat (a task's contract, the evaluation's expected calls and plugins) are decoded
once and taken again where the same text stands under the same key (:func:`_value`).
Plain ``json.loads`` and ``canonical_json`` of the whole row cost about a third more CPU
per row (272 against 207 µs), which would put the target at its edge.
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


def decode_row(text: str) -> tuple[dict[str, Any], dict[str, str]] | str:
    """The row, and the exact text of each of its values when the line shows it; or why
    the line is not a row. The row is what ``json.loads`` gives."""
    walked = _walk_object(text.rstrip("\r\n"))
    if walked is not None:
        return walked
    try:
        row = loads(text)
    except JSON_FAILURES as exc:
        return f"not valid JSON ({_why(exc)})"
    if not isinstance(row, dict):
        return f"not a {KIND} row"
    return row, {}


def _walk_object(text: str) -> tuple[dict[str, Any], dict[str, str]] | None:
    """Decode a compact object (the shape toolscore writes) member by member, keeping the
    text of each value; None when the text is not in that shape.

    The scanner tells where each value ends, which ``json.loads`` does not; the values are
    the ones it gives. A recorded evaluation whose actual calls are written as the row's
    calls are (the same text: the same value) holds the row's calls themselves there, so
    that the largest part of a row is decoded once (:func:`_evaluation`).
    """
    if not text.startswith("{") or not text.endswith("}"):
        return None
    row: dict[str, Any] = {}
    shown: dict[str, str] = {}
    try:
        if _members(text, 1, row, shown) != len(text):
            return None
    except _NotCompact:
        return None
    return row, shown


class _NotCompact(Exception):
    """The text is not in the compact shape :func:`_members` reads."""


_FAILURES = (StopIteration, IndexError, *JSON_FAILURES)


def _members(text: str, index: int, into: dict[str, Any], shown: dict[str, str] | None,
             ) -> int:
    """Decode the members of an object from ``index`` (where its first one starts) into
    ``into``, the text of each value into ``shown``; the index after its closing brace."""
    try:
        while True:
            if text[index] != '"':
                raise _NotCompact
            key, index = _SCAN(text, index)
            if text[index] != ":" or key in into:
                raise _NotCompact  # json.loads keeps the last of a repeated key
            start = index + 1
            if key == "evaluation" and shown is not None and "calls" in into:
                into[key], index = _evaluation(text, start, into["calls"], shown["calls"])
            else:
                into[key], index = _value(text, start, key)
            if shown is not None:
                shown[key] = text[start:index]
            if text[index] == "}":
                return index + 1
            if text[index] != ",":
                raise _NotCompact
            index += 1
    except _FAILURES:
        raise _NotCompact from None


_SEEN: dict[str, list[tuple[str, Any]]] = {}
"""By member key, the objects and arrays decoded there last, with their text, most recent
first (see :func:`_value`)."""
_SEEN_PER_KEY = 4
_SEEN_KEYS = 64
_SEEN_SIZES = range(64, (1 << 14) + 1)


def _value(text: str, index: int, key: str) -> tuple[Any, int]:
    """The value of member ``key`` at ``index`` and the index after it.

    The rows of a runs file repeat most of their larger values (a task's contract, its
    expected calls, the plugins and settings of the evaluation record), so for each member
    key the last four objects or arrays of 64 B to 16 KiB decoded there are kept with their
    text: an object or array whose text starts at ``index`` is exactly the value a kept
    text decodes to, and is shared (a regrade only reads the rows it decodes). At most 64
    keys are kept, so memory stays flat.
    """
    seen = _SEEN.get(key)
    if seen is not None and text[index] in "{[":
        for n, (written, value) in enumerate(seen):
            if text.startswith(written, index):
                if n:
                    seen.insert(0, seen.pop(n))
                return value, index + len(written)
    value, end = _SCAN(text, index)
    if end - index in _SEEN_SIZES and text[index] in "{[":
        if seen is None:
            if len(_SEEN) >= _SEEN_KEYS:
                _SEEN.clear()
            seen = _SEEN[key] = []
        seen.insert(0, (text[index:end], value))
        del seen[_SEEN_PER_KEY:]
    return value, end


def _evaluation(text: str, index: int, calls: Any, written: str) -> tuple[Any, int]:
    """The value at ``index`` and the index after it; an evaluation record whose actual
    calls are ``written`` (the row's calls, decoded as ``calls``) holds ``calls`` there."""
    if not _shows_calls(text, index, written):
        return _SCAN(text, index)
    after = index + len(_ACTUAL) + len(written)
    held = {"actual": calls}
    evaluation = {"calls": held}
    index = _members(text, after + 1, held, None)
    if text[index] == ",":
        index = _members(text, index + 1, evaluation, None)
    elif text[index] == "}":
        index += 1
    else:
        raise _NotCompact
    return evaluation, index


_ACTUAL = '{"calls":{"actual":'
"""How the canonical JSON of an evaluation record starts: its first member is ``calls``,
whose first is the actual calls."""


def _shows_calls(text: str, index: int, calls: str) -> bool:
    """Whether the evaluation record written at ``index`` of ``text`` has ``calls`` (a
    text) as its actual calls, followed by another member of its ``calls``."""
    return (text.startswith(_ACTUAL, index) and text.startswith(calls, index + len(_ACTUAL))
            and text.startswith(",", index + len(_ACTUAL) + len(calls)))


def row_pieces(row: Mapping[str, Any], shown: Mapping[str, str]) -> dict[str, str]:
    """The canonical JSON of each of the row's values, by key.

    The evaluation's text as written (``shown``, by :func:`decode_row`) is its canonical
    JSON when it hashes to the row's ``record_sha256`` (the hash of the evaluation's
    canonical JSON); the calls' text as written is theirs when that evaluation shows the
    same text as its actual calls (a value's part of its canonical JSON is the canonical
    JSON of that part). This spares serializing the two largest values of a row again.
    The other values' canonical JSON is remembered by their text as written
    (:func:`_canonical`).
    """
    pieces = {key: _canonical(value, shown.get(key)) for key, value in row.items()
              if key not in ("calls", "evaluation")}
    if "calls" in row and "evaluation" not in row:
        pieces["calls"] = canonical_json(row["calls"])
    if "evaluation" not in row:
        return pieces
    text = shown.get("evaluation")
    recorded = row.get("record_sha256")
    if text is None or not isinstance(recorded, str) or (
            sha256_hex(text.encode("utf-8")) != recorded):
        text = canonical_json(row["evaluation"])
    pieces["evaluation"] = text
    if "calls" in row:
        calls = shown.get("calls")
        if calls is None or not _shows_calls(text, 0, calls):
            calls = canonical_json(row["calls"])
        pieces["calls"] = calls
    return pieces



_WRITTEN: dict[str, str] = {}
"""The canonical JSON of values by their text as written (see :func:`_canonical`)."""
_WRITTEN_KEPT = 256
_WRITTEN_SIZE = 1 << 14


def _canonical(value: Any, text: str | None) -> str:
    """The canonical JSON of ``value``, decoded from ``text`` when it is not None.

    A value's canonical JSON follows from the text it was decoded from, and the rows of a
    runs file repeat most of theirs (a task's contract, the nulls, the settings), so it is
    remembered by that text: the last 256 values other than strings (a string's costs no
    more than looking it up) of up to 16 KiB each, so memory stays flat.
    """
    if text is None or text.startswith('"') or len(text) > _WRITTEN_SIZE:
        return canonical_json(value)
    found = _WRITTEN.get(text)
    if found is None:
        found = canonical_json(value)
        if len(_WRITTEN) >= _WRITTEN_KEPT:
            _WRITTEN.clear()  # a study has a few tasks: no order to keep
        _WRITTEN[text] = found
    return found
