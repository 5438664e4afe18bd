"""Canonical JSON and SHA-256: the one rule every toolscore hash follows."""

from __future__ import annotations

import json
import os
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
