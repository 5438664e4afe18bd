"""Canonical JSON and SHA-256: the one rule every toolscore hash follows."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from functools import cache
from typing import Any

from toolscore_core.errors import CanonicalJSONError

_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
"""What ``json.dumps`` builds from these options on every call (it keeps no state between
calls): built once, as a regrade serializes a few dozen values per row."""


def canonical_json(value: Any) -> str:
    """Sorted keys, separators ``,`` and ``:``, UTF-8 characters kept, NaN/infinity refused."""
    try:
        return _ENCODER.encode(value)
    except ValueError as exc:
        raise CanonicalJSONError(
            f"no canonical JSON for this value ({exc}); NaN and infinities are refused"
        ) from None
    except TypeError as exc:
        raise CanonicalJSONError(f"no canonical JSON for this value ({exc})") from None


def without_non_finite(value: Any) -> tuple[Any, int]:
    """``value`` with every NaN and infinity (a number too large for a float, like
    ``1e999``, is read as one) replaced by None, and how many were: a copy where any was."""
    if isinstance(value, float):
        return (value, 0) if math.isfinite(value) else (None, 1)
    if isinstance(value, dict):
        out, replaced = {}, 0
        for key, item in value.items():
            out[key], n = without_non_finite(item)
            replaced += n
        return (out, replaced) if replaced else (value, 0)
    if isinstance(value, list | tuple):
        pairs = [without_non_finite(item) for item in value]
        replaced = sum(n for _, n in pairs)
        return ([item for item, _ in pairs], replaced) if replaced else (value, 0)
    return value, 0


def non_finite_note(replaced: int) -> str:
    """The note a record carries when its evidence held numbers no JSON can."""
    values = "1 value" if replaced == 1 else f"{replaced:,} values"
    return (f"{values} too large for a number or not a number (such as 1e999, read as an "
            "infinity) recorded as null: unknown, not a measurement")


def sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data`` in lowercase hex."""
    import hashlib  # here: loading OpenSSL costs ~2 ms, and a console verdict hashes nothing

    return hashlib.sha256(data).hexdigest()


def canonical_sha256(value: Any) -> str:
    """SHA-256 of the canonical JSON of ``value``."""
    return sha256_hex(canonical_json(value).encode("utf-8"))


def file_sha256(path: str | os.PathLike[str], *, what: str = "input file") -> tuple[str, int]:
    """SHA-256 and size of a regular file's bytes on disk (``hashlib.file_digest``, read in
    chunks); anything else is an InputError (``toolscore_core.inputs.open_input``)."""
    import hashlib

    from toolscore_core.inputs import open_input

    with open_input(path, what=what) as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest(), handle.tell()


def object_json(value: Mapping[str, Any], known: Mapping[str, str]) -> str:
    """The canonical JSON of the object ``value``, the members named in ``known`` written
    as the canonical JSON given there, the others encoded together between them."""
    parts = []
    group: dict[str, Any] = {}
    for key in sorted(value):
        if key in known:
            if group:
                parts.append(canonical_json(group)[1:-1])
                group = {}
            parts.append(_member_key(key) + known[key])
        else:
            group[key] = value[key]
    if group:
        parts.append(canonical_json(group)[1:-1])
    return "{" + ",".join(parts) + "}"


def join_members(members: Mapping[str, str]) -> str:
    """The canonical JSON of an object given its members' canonical JSON (keys sorted)."""
    return "{" + ",".join(_member_key(key) + members[key] for key in sorted(members)) + "}"


@cache
def _member_key(key: str) -> str:
    return canonical_json(key) + ":"
