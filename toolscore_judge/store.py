"""The judgments file: every exchange with the judge, one JSON line each, by content address."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from attrs import frozen

from toolscore import (
    JSON_FAILURES,
    InputError,
    canonical_json,
    canonical_sha256,
    loads,
    write_text_atomic,
)
from toolscore_judge.client import ANSWER_LIMIT

Verdict = Literal["yes", "no"]
KIND = "toolscore.judgment"


@frozen
class Judgment:
    """One question put to the judge and what came back."""

    sha256: str
    """The content address: the hash of the request and the template (``request_sha256``)."""
    model: str
    template: str
    """The template's id."""
    template_sha256: str
    request: Mapping[str, Any]
    """What was sent: model, messages, temperature (never the API key)."""
    response: str | None
    """The model's answer as text; null when none came."""
    verdict: Verdict | None
    """Read from the response; null when the judge gave none."""
    why: str
    """The judge's one-sentence reason, or why there is no verdict."""

    def to_dict(self) -> dict[str, Any]:
        entry = {"kind": KIND, "sha256": self.sha256, "model": self.model,
                 "template": self.template, "template_sha256": self.template_sha256,
                 "request": dict(self.request), "response": self.response,
                 "verdict": self.verdict, "why": self.why}
        return {**entry, "entry_sha256": canonical_sha256(entry)}


def request_sha256(request: Mapping[str, Any], template_sha256: str) -> str:
    """The content address of a question: the same request under the same template is the
    same judgment, whoever asks and whenever."""
    return canonical_sha256({"request": dict(request), "template_sha256": template_sha256})


_READ: dict[str, tuple[bytes, dict[str, Judgment]]] = {}
"""The judgments file read or written last in this process, by path: its bytes, its judgments."""


def read_judgments(path: str | os.PathLike[str]) -> dict[str, Judgment]:
    """The judgments in a file, by content address (an absent file holds none).

    An evaluation asks the file once for each judged question: each judgment is parsed and
    its hashes checked only when the file's bytes are not those read (or written) last. A
    last line cut off mid-write (no newline, not JSON) is left out, as a runs file's is;
    the next judgment recorded rewrites the file without it.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InputError(f"cannot read the judgments file ({exc.strerror})", file=str(path),
                         fix="give a judgments file written by `toolscore eval --judge`") from None
    read = _READ.get(os.fspath(path))
    if read is not None and read[0] == data:
        return dict(read[1])
    found: dict[str, Judgment] = {}
    lines = data.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        torn = number == len(lines)  # the file does not end with a newline
        judgment = _judgment(line, str(path), number, torn=torn)
        if judgment is not None:
            found[judgment.sha256] = judgment
    _remember(path, data, found)
    return dict(found)


def _judgment(line: bytes, file: str, number: int, *, torn: bool) -> Judgment | None:
    try:
        data = loads(line)
    except JSON_FAILURES:
        if torn:
            return None
        raise InputError("not a JSON line", file=file, place=f"line {number}",
                         fix=FILE_FIX) from None
    return parse_judgment(data, file=file, place=f"line {number}", fix=FILE_FIX)


FILE_FIX = "give a judgments file written by `toolscore eval --judge` (one judgment a line)"
_KEYS = ("sha256", "model", "template", "template_sha256", "request", "response", "verdict",
         "why")
_EDITED = ("give the judgments file as `toolscore eval --judge` wrote it (or delete the "
           "judgment's line to ask again)")


def parse_judgment(data: Any, *, file: str | None = None, place: str, fix: str) -> Judgment:
    """A judgment from its decoded JSON; an InputError at ``place`` when it is not one, its
    ``sha256`` does not match its request, its ``entry_sha256`` does not match the rest (a
    response, verdict or reason edited by hand) or its response is longer than an answer
    can be."""
    if (not isinstance(data, dict) or data.get("kind") != KIND
            or any(k not in data for k in _KEYS)):
        raise InputError("not a judgment", file=file, place=place, fix=fix)
    if data["verdict"] not in ("yes", "no", None) or not isinstance(data["request"], dict):
        raise InputError(f"bad verdict {data['verdict']!r}", file=file, place=place, fix=fix)
    response = data["response"]
    if response is not None and (not isinstance(response, str) or len(response) > ANSWER_LIMIT):
        size = f"{len(response):,} characters" if isinstance(response, str) else "not text"
        raise InputError(f"the judgment's response is {size}, over the {ANSWER_LIMIT:,} an "
                         "answer may have", file=file, place=place, fix=fix)
    judgment = Judgment(**{k: data[k] for k in _KEYS})
    if request_sha256(judgment.request, judgment.template_sha256) != judgment.sha256:
        raise InputError("the judgment's sha256 does not match its request (edited?)",
                         file=file, place=place, fix=_EDITED)
    if "entry_sha256" not in data:
        raise InputError("the judgment has no entry_sha256 (written by an older toolscore, "
                         "whose questions are asked anew)", file=file, place=place,
                         fix="delete the file (or the run's judgments) and judge again")
    if judgment.to_dict()["entry_sha256"] != data["entry_sha256"] or len(data) > len(_KEYS) + 2:
        raise InputError("the judgment's entry_sha256 does not match it: its response, "
                         "verdict or reason was edited", file=file, place=place, fix=_EDITED)
    return judgment


def judgments_json(judgments: Mapping[str, Judgment]) -> list[dict[str, Any]]:
    """Judgments as a JSON list, by content address (the order a run record keeps)."""
    return [judgments[address].to_dict() for address in sorted(judgments)]


def judgments_from_json(items: Any, *, place: str) -> dict[str, Judgment]:
    """The judgments of a JSON list (``judgments_json``), by content address."""
    fix = "keep the judgments a run record was written with"
    if not isinstance(items, list):
        raise InputError('"judgments" must be a list', place=place, fix=fix)
    found = (parse_judgment(item, place=f"{place}[{i}]", fix=fix) for i, item in enumerate(items))
    return {judgment.sha256: judgment for judgment in found}


def record(judgment: Judgment, path: str | os.PathLike[str]) -> None:
    """Add ``judgment`` to the file at ``path`` (replacing one with the same address), by
    rewriting the whole file atomically."""
    known = read_judgments(path)
    known[judgment.sha256] = judgment
    text = "".join(canonical_json(j.to_dict()) + "\n" for j in known.values())
    write_text_atomic(path, text)
    _remember(path, text.encode(), known)


def _remember(path: str | os.PathLike[str], data: bytes, judgments: dict[str, Judgment]) -> None:
    _READ.clear()
    _READ[os.fspath(path)] = (data, judgments)
