"""Finding credentials in text and redacting them in every output (``AKIA…LE``)."""

from __future__ import annotations

import re
from typing import Any

# Credential shapes with a recognisable prefix. Hashes, UUIDs and ordinary ids have none.
_PATTERNS = (
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{60,255}\b"),
    re.compile(r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{20,}"),
    re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    re.compile(r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----"),
    re.compile(r"\b(?:sk|rk)_live_[0-9a-zA-Z]{24,}\b"),
)
_PREFILTER = re.compile(r"AKIA|ASIA|gh[pousr]_|github_pat_|sk-|xox|AIza|PRIVATE KEY|_live_")


def find_secrets(text: str) -> list[str]:
    """The credentials found in ``text``, in order of appearance."""
    if not _PREFILTER.search(text):
        return []
    spans: list[tuple[int, int]] = []
    for pattern in _PATTERNS:
        spans.extend(m.span() for m in pattern.finditer(text))
    spans.sort()
    found: list[str] = []
    last_end = -1
    for start, end in spans:
        if start >= last_end:
            found.append(text[start:end])
            last_end = end
    return found


def mask(secret: str) -> str:
    """A credential as it may be shown: its first 4 and last 2 characters."""
    if len(secret) <= 8:
        return "…"
    return f"{secret[:4]}…{secret[-2:]}"


def redact_text(text: str) -> str:
    """``text`` with every credential masked."""
    for secret in find_secrets(text):
        text = text.replace(secret, mask(secret))
    return text


def redact(value: Any) -> Any:
    """A JSON value with every credential in every string (and key) masked."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {redact_text(k) if isinstance(k, str) else k: redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value
