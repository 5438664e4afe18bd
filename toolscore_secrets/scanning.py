"""Detection behind the credential scanner (toolscore_secrets.redaction): detect-secrets'
plugins and ours, located in the original text, and the credentials of a nested value.
Imported when the prefilter finds text suspect, or arguments are walked for credentials."""

from __future__ import annotations

import base64
import binascii
import threading
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from attrs import frozen

from toolscore_secrets.redaction import (
    _ASSIGNED,
    _BASIC,
    _BEARER,
    _CONTEXT_KINDS,
    _HEX,
    _PLAIN_WORD,
    _PRIVATE_KEY_BLOCK,
    _TOKEN_CHAR,
    DETECT_SECRETS_PLUGINS,
    _normal_view,
    _pattern,
    find_credentials,
    mask,
    secret_key,
    trivial_value,
)


@frozen
class Finding:
    """One credential: where it is and what kind it is."""

    kind: str
    """The detector's name for it (``AWS Access Key``, ``Secret-named argument``, ...)."""
    start: int
    end: int
    """Its span in the scanned text."""
    secret: str
    """The credential itself; never print it, print :func:`mask` of it."""


@frozen
class ValueFinding:
    """A credential inside a nested value: its JSON path, kind and mask."""

    path: str
    kind: str
    masked: str


def find_in_value(value: Any, path: str = "$") -> list[ValueFinding]:
    """Every credential in a nested JSON value (strings, keys, secret-named keys)."""
    return list(_walk(value, path))


def _walk(value: Any, path: str) -> Iterator[ValueFinding]:
    if isinstance(value, str):
        for finding in find_credentials(value):
            yield ValueFinding(path=path, kind=finding.kind, masked=mask(finding.secret))
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if isinstance(key, str) and key.isidentifier() \
                else f"{path}[{key!r}]"
            if isinstance(key, str):
                for finding in find_credentials(key):
                    yield ValueFinding(path=where, kind=finding.kind, masked=mask(finding.secret))
                if secret_key(key) and isinstance(item, str) and not trivial_value(item):
                    own = find_credentials(item)
                    kind = own[0].kind if own else "Secret-named argument"
                    yield ValueFinding(path=where, kind=kind, masked=mask(item))
                    continue
            yield from _walk(item, where)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")


_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _settings() -> dict[str, Any]:
    return {"plugins_used": [{"name": name} for name in DETECT_SECRETS_PLUGINS]}


@lru_cache(maxsize=4096)
def scan(text: str) -> tuple[Finding, ...]:
    """Every credential in ``text``, in order, without overlaps: detection without the
    prefilter."""
    spans = _spans(text)
    view = _normal_view(text)
    if view is not None:
        plain, starts, ends = view
        spans.extend((starts[s], ends[e - 1], kind) for s, e, kind in _spans(plain) if e > s)
    spans.sort(key=lambda s: (s[0], -s[1]))
    found: list[Finding] = []
    for start, end, kind in spans:
        if found and start < found[-1].end:
            if end > found[-1].end:
                last = found[-1]
                found[-1] = Finding(kind=last.kind, start=last.start, end=end,
                                    secret=text[last.start:end])
            continue
        found.append(Finding(kind=kind, start=start, end=end, secret=text[start:end]))
    return tuple(found)


def _spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every detector's finding in ``text``, overlaps and all."""
    spans: list[tuple[int, int, str]] = []
    for kind, value in _detect_secrets(text):
        spans.extend((s, e, kind) for s, e in _locate(text, value, kind)
                     if kind in _CONTEXT_KINDS or not _pattern(_HEX).fullmatch(text[s:e]))
    from toolscore_secrets.detectors import own_patterns

    for kind, pattern in own_patterns():
        spans.extend((m.start(), m.end(), kind) for m in pattern.finditer(text))
    for match in _pattern(_BEARER).finditer(text):
        spans.append((match.start(1), match.end(1), "Bearer token"))
    for match in _pattern(_BASIC).finditer(text):
        if _user_and_password(match.group(1)):
            spans.append((match.start(1), match.end(1), "Basic Auth Credentials"))
    at = 0
    while (assigned := _pattern(_ASSIGNED).search(text, at)) is not None:
        value = assigned.group(4)
        if not (assigned.group(2) == ":" and (
                len(value) < 6 or _pattern(_PLAIN_WORD).fullmatch(value))) \
                and secret_key(assigned.group(1)) and not trivial_value(value):
            spans.append((assigned.start(4), assigned.end(4), "Secret-named argument"))
            at = assigned.end()
        else:
            # The value may itself be an assignment: ``note: password=…``, ``x: --token=…``.
            at = assigned.start(4)
    return spans


def _user_and_password(token: str) -> bool:
    """Whether base64 ``token`` decodes to ``user:password`` text."""
    try:
        text = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in text and text.isprintable()


def _detect_secrets(text: str) -> list[tuple[str, str]]:
    """(kind, value) pairs detect-secrets reports for the lines of a text."""
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    out: list[tuple[str, str]] = []
    # detect-secrets keeps its settings in a process global; one scan at a time.
    with _LOCK, transient_settings(_settings()):
        for line in text.splitlines() or [text]:
            out.extend((s.type, s.secret_value) for s in scan_line(line)
                       if s.secret_value)
    return out


def _locate(text: str, value: str, kind: str) -> Iterator[tuple[int, int]]:
    """Spans of ``value`` in ``text``, widened to the whole token (or private-key block)."""
    if kind == "Private Key":
        for match in _pattern(_PRIVATE_KEY_BLOCK).finditer(text):
            yield match.span()
        return
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        while start > 0 and _pattern(_TOKEN_CHAR).match(text[start - 1]):
            start -= 1
        while end < len(text) and _pattern(_TOKEN_CHAR).match(text[end]):
            end += 1
        while end > start + len(value) and text[end - 1] == ".":  # a sentence's full stop
            end -= 1
        yield start, end
        start = text.find(value, end)
