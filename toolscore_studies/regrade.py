"""Regrading a runs file: the same recorded runs, a new spec, contract or weights.

Rows are streamed: a bounded window of chunks is in flight at once (in worker processes
with ``jobs`` > 1), results are written in input order to a temp file beside the output,
which is renamed over it at the end. Memory stays flat in the number of rows.

A row in the shape toolscore writes (one compact JSON object) is regraded without decoding
and re-encoding what it already holds in canonical form: values and runs of members seen
in earlier rows are recognised by their exact text, a line proved canonical is hashed as
it is, and the regraded row is spliced from its members (:meth:`Judge._regrade_spliced`).
Every other line takes the plain path, which decodes the row and serializes each value;
both give the same bytes.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from itertools import chain
from json.encoder import encode_basestring as _encode_str
from json.scanner import make_scanner
from operator import itemgetter
from pathlib import Path
from typing import Any, cast

from attrs import frozen

from toolscore_core.atomic import atomic_writer
from toolscore_core.canonical import canonical_json, sha256_hex
from toolscore_core.contracts import parse_contract
from toolscore_core.documents import (
    JSON_FAILURES,
    STRICT_DECODER,
    load_document,
    loads,
    read_bytes,
)
from toolscore_core.documents import why_not_json as _why
from toolscore_core.errors import InputError
from toolscore_core.models import Contract
from toolscore_core.plugins import Registry, default_registry
from toolscore_core.scoring import resolve_weights
from toolscore_core.version import toolscore_version
from toolscore_studies.records import (
    KIND,
    evaluate_trace,
    passes,
    task_fields,
    trace_from_row,
    verdict,
)
from toolscore_studies.spec import Study, Task, load_study
from toolscore_studies.summary import (
    RegradeSummary,
    evaluation_facts,
    row_facts,
    run_facts,
)

CHUNK = 64
"""Rows per unit of work with one process."""
CHUNK_BYTES = 1 << 19
"""Bytes of the runs file per unit of work sent to a worker."""
SLOT = 1 << 21
"""Bytes of shared memory per chunk in flight: a regraded chunk larger than this goes
through a part file instead."""
WINDOW_PER_JOB = 4
"""Chunks in flight per worker: enough to keep them busy, few enough to keep memory flat."""
PER_WORKER = 2
"""Chunks queued on one worker's pipe at most (the next is ready when it finishes one)."""
TRIM_EVERY = 64
"""Chunks between two heap trims (and starts of the output's disk writes) in the main
process."""

Facts = tuple[str, str, float | None, dict[str, int] | None, float | None, float | None]


@frozen
class RegradeSettings:
    """What every row is regraded against (picklable: workers rebuild the judge from it)."""

    spec: str | None = None
    gold: str | None = None
    weights: Mapping[str, float] | None = None


@frozen
class RowResult:
    """One regraded (or written-through) line and what the summary needs from it."""

    line: bytes
    problem: str | None = None
    before: Facts | None = None
    after: Facts | None = None
    study: str | None = None


class Judge:
    """Regrades rows under the settings; built once per worker process."""

    def __init__(self, settings: RegradeSettings, registry: Registry | None = None) -> None:
        if settings.spec is None and settings.gold is None and not settings.weights:
            raise InputError("nothing to regrade with", place="spec=",
                             fix="give a spec, a gold file or weights")
        if settings.spec is not None and settings.gold is not None:
            raise InputError("a spec and a gold file cannot be given together", place="gold=",
                             fix="use a spec for task-by-task definitions or a gold file for "
                                 "all rows")
        self.registry = registry or default_registry()
        self.weights = dict(settings.weights) if settings.weights else None
        if self.weights:
            resolve_weights(self.registry.metrics, self.weights)
        self.study: Study | None = None
        self.gold: Contract | None = None
        stamp: dict[str, Any] = {}
        if settings.spec is not None:
            self.study = load_study(settings.spec)
            self.study.check_weights(self.registry.metrics)
            stamp["spec_sha256"] = self.study.sha256
        if settings.gold is not None:
            data = read_bytes(settings.gold, what="gold file")
            self.gold = parse_contract(load_document(settings.gold, what="gold file"),
                                       file=settings.gold)
            stamp["gold_sha256"] = sha256_hex(data)
        stamp["weights"] = self.weights
        stamp["toolscore_version"] = toolscore_version()
        self.stamp = stamp
        self._tasks: dict[str, Task | str] = {}
        self._judged: dict[str, dict[str, str]] = {}
        self._memo: dict[str, Verdict] = {}
        self.splice = True
        """Take the fast path for compact rows (off: every row is decoded and re-encoded)."""
        self._seen = _Table()
        """Object and array values seen, by (key, first characters)."""
        self._runs = _Table()
        """Runs of members that recurred together, by first characters."""
        self._stable: dict[str, None] = {}
        """Scalar members (``"key":value``) seen, to tell those that recur."""
        self._stamp_tail = (canonical_json(stamp)[1:]
                            if all(key > "from_sha256" for key in stamp) else None)

    def task_for(self, row: Mapping[str, Any]) -> Task | str:
        """The task definition to regrade ``row`` under, or the reason there is none."""
        task_id = str(row.get("task_id"))
        if self.study is not None:
            task = self.study.tasks.get(task_id)
            if task is None:
                return f"task {task_id!r} is not in the new spec"
            return self._with_weights(task)
        threshold = row.get("pass_threshold")
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            return 'the row has no "pass_threshold"'
        old_weights = row.get("weights")
        weights = dict(old_weights) if isinstance(old_weights, Mapping) else None
        honesty = row.get("honesty") if isinstance(row.get("honesty"), Mapping) else None
        if self.gold is not None:
            contract = self.gold
        else:
            try:
                contract = parse_contract(row.get("contract"))
            except InputError as exc:
                return f'the row\'s "contract" cannot be read ({exc.one_line()})'
        task = Task(id=task_id, prompt=str(row.get("prompt")), contract=contract,
                    pass_threshold=float(threshold), weights=weights, honesty=honesty)
        return self._with_weights(task)

    def _with_weights(self, task: Task) -> Task:
        if not self.weights:
            return task
        from attrs import evolve

        return evolve(task, weights={**(task.weights or {}), **self.weights})

    def regrade(self, number: int, line: bytes) -> RowResult:
        """Regrade one line; a line that cannot be regraded is returned unchanged.

        A row in the shape toolscore writes takes the fast path (:meth:`_regrade_spliced`);
        anything else, and any row that path is not sure of, takes the plain one.
        """
        if not line.strip():
            return RowResult(line=line)
        if self.splice:
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                return self._regrade_plain(line)
            done = self._try_spliced(text, line)
            if done is not None:
                return done
        return self._regrade_plain(line)

    def regrade_text(self, text: str) -> RowResult:
        """:meth:`regrade` of the line whose UTF-8 decoding is ``text`` (the same result;
        the line is ``text.encode()``, which gives back exactly the bytes decoded)."""
        if not text.strip(_ASCII_WHITESPACE):  # what bytes.strip() strips
            return RowResult(line=text.encode("utf-8"))
        if self.splice:
            done = self._try_spliced(text, None)
            if done is not None:
                return done
        return self._regrade_plain(text.encode("utf-8"))

    def _try_spliced(self, text: str, line: bytes | None) -> RowResult | None:
        try:
            return self._regrade_spliced(text, line)
        except Exception:  # the plain path decides, and raises if it must
            return None

    def _regrade_plain(self, line: bytes) -> RowResult:
        """Decode the whole row, serialize each top-level value, regrade."""
        decoded = _decode_row(line)
        if isinstance(decoded, str):
            return RowResult(line=line, problem=decoded)
        row, raw = decoded
        if row.get("kind") != KIND:
            return RowResult(line=line, problem=f"not a {KIND} row")
        before = row_facts(row)
        try:
            # Each top-level value is serialized once: the pieces give both the original
            # row's canonical JSON (for from_sha256) and, with the new verdict spliced in,
            # the regraded row's canonical JSON.
            pieces = {key: _piece(value) for key, value in row.items() if key != "evaluation"}
            if "evaluation" in row:
                pieces["evaluation"] = _evaluation_piece(row, raw)
            from_sha256 = sha256_hex(_join(pieces).encode("utf-8"))
            judgment = (before[0] if self.study is not None else
                        "\x00".join(pieces.get(k, "null") for k in JUDGMENT_KEYS))
            task = self._task(judgment, row)
            if isinstance(task, str):
                return RowResult(line=line, problem=task, before=before)
            verdict_pieces, outcome, score, evidence = self._verdict(judgment, task, row, pieces)
        except InputError as exc:
            return RowResult(line=line, problem=exc.one_line(), before=before)
        pieces.update(verdict_pieces)
        pieces["regraded"] = self._regraded(from_sha256)
        out = _join(pieces).encode("utf-8") + b"\n"
        after = (before[0], outcome, score, evidence, before[4], before[5])
        study = row.get("study") if isinstance(row.get("study"), str) else None
        return RowResult(line=out, before=before, after=after, study=study)

    def _regraded(self, from_sha256: str) -> str:
        """The canonical JSON of the row's new ``regraded`` member."""
        if self._stamp_tail is not None:  # "from_sha256" sorts first: a prefix + the rest
            return '{"from_sha256":"' + from_sha256 + '",' + self._stamp_tail
        return canonical_json({"from_sha256": from_sha256, **self.stamp})

    def _regrade_spliced(self, text: str, line: bytes | None) -> RowResult | None:
        """Regrade a compact row without serializing what it already holds in canonical form.

        Objects and arrays seen in earlier rows are recognised by their exact text (and not
        decoded again); every other value is decoded and checked against its canonical
        JSON. When the whole line proves canonical, ``from_sha256`` is the hash of its
        bytes, and the regraded row is spliced from the line's own members. None sends the
        line to :meth:`_regrade_plain` (not a compact object, a value with no canonical
        JSON): that path decides, so both always give the same bytes. ``text`` is the
        line decoded; ``line`` its bytes, when at hand.
        """
        body = text.rstrip("\r\n")
        walked = self._walk(body)
        if walked is None:
            return None
        row, pieces, seen, canonical = walked
        if row.get("kind") != KIND:
            return None
        evaluation = seen.get("evaluation")
        if evaluation is not None:
            score, counts = evaluation.facts()
            before = run_facts(row, score, counts)
            recorded = row.get("record_sha256")
            if isinstance(recorded, str) and evaluation.sha256() == recorded:
                pieces["evaluation"] = evaluation.text
            else:
                pieces["evaluation"] = evaluation.canonical()
                if pieces["evaluation"] is not evaluation.text:
                    canonical = False
        else:
            before = row_facts(row)
            if "evaluation" in row:  # a scalar: decoded, and its text is in pieces
                raw = pieces["evaluation"]
                piece = _evaluation_piece(row, raw)
                if piece != raw:
                    canonical = False
                pieces["evaluation"] = piece
        if canonical:
            from_sha256 = sha256_hex(body.encode("utf-8") if line is None else
                                     line[:len(line) - (len(text) - len(body))])
        else:
            from_sha256 = sha256_hex(_join(pieces).encode("utf-8"))
        try:
            judgment = (before[0] if self.study is not None else
                        "\x00".join(pieces.get(k, "null") for k in JUDGMENT_KEYS))
            task = self._task(judgment, row)
            if isinstance(task, str):
                return RowResult(line=text.encode("utf-8") if line is None else line,
                                 problem=task, before=before)
            verdict_pieces, outcome, score, evidence = self._verdict(judgment, task, row, pieces)
        except InputError as exc:
            return RowResult(line=text.encode("utf-8") if line is None else line,
                             problem=exc.one_line(), before=before)
        pieces.update(verdict_pieces)
        pieces["regraded"] = self._regraded(from_sha256)
        out = _join(pieces).encode("utf-8") + b"\n"
        after = (before[0], outcome, score, evidence, before[4], before[5])
        study = row.get("study")
        return RowResult(line=out, before=before, after=after,
                         study=study if isinstance(study, str) else None)

    def _walk(self, text: str) -> tuple[_Row, dict[str, str], dict[str, _Seen], bool] | None:
        """The row of a compact object, its values' canonical JSON, the objects and arrays
        recognised (or first seen) in it, and whether the text is canonical JSON as it is.

        Accepts exactly the lines :func:`_walk_object` accepts, with the same values. Two
        things seen in earlier rows are recognised by their exact text instead of being
        decoded: a run of members (``"key":value,...``) that recurs as a whole, and an
        object or array value. Either is the same members or value as decoding would give:
        a key, object, array or string ends at its closing character whatever follows, and
        a number or literal at the end of a run is followed by ``,`` or the row's ``}``
        (checked), where the decoder ends it too.

        The ``evaluation`` piece is that value's text, not its canonical JSON: the caller
        decides (with ``record_sha256``) which one the row's canonical form takes. None
        when the line is not in that shape or a value has no canonical JSON.
        """
        if not text.startswith("{") or not text.endswith("}") or text == "{}":
            return None
        values: dict[str, Any] = {}
        texts: dict[str, str] = {}
        pieces: dict[str, str] = {}
        seen: dict[str, _Seen] = {}
        canonical = True
        previous: str | None = None
        index = 1
        end = len(text) - 1
        runs = self._runs.entries
        known = self._seen.entries
        stable = self._stable
        run: list[tuple[int, int, _Member | _Run]] = []
        # (start, end, what) of the recurring members and runs since the last new value
        try:
            while True:
                if text[index] != '"':
                    return None
                found = None
                for candidate in runs.get(text[index:index + HINT], ()):
                    if text.startswith(candidate.text, index):
                        after = index + len(candidate.text)
                        if after == end or text[after] == ",":
                            found = candidate
                            break
                else:
                    for candidate in runs.get(text[index:index + SHORT_HINT], ()):
                        if text.startswith(candidate.text, index):
                            after = index + len(candidate.text)
                            if after == end or text[after] == ",":
                                found = candidate
                                break
                if found is not None:
                    run.append((index, after, found))
                    if canonical and not (found.canonical and (
                            previous is None or found.first > previous)):
                        canonical = False
                    if not canonical and not pieces.keys().isdisjoint(found.pieces):
                        return None  # a key twice: the plain path decodes the line
                    pieces.update(found.pieces)
                    values.update(found.values)
                    texts.update(found.texts)
                    seen.update(found.seen)
                    previous = found.last
                    index = after
                else:
                    member = index
                    key, colon = _SCAN(text, index)
                    if text[colon] != ":" or key in pieces:
                        return None
                    good = text[index:colon + 1] == _key(key)
                    if canonical and (not good or (previous is not None and key <= previous)):
                        canonical = False
                    previous = key
                    start = colon + 1
                    entry = None
                    recurs = False
                    if text[start] in "{[":
                        for candidate in known.get((key, text[start:start + HINT]), ()):
                            if text.startswith(candidate.text, start):
                                entry = candidate
                                break
                        else:
                            for candidate in known.get((key, text[start:start + SHORT_HINT]),
                                                       ()):
                                if text.startswith(candidate.text, start):
                                    entry = candidate
                                    break
                        if entry is None:
                            value, index = _SCAN(text, start)
                            values[key] = value
                            entry = _Seen(text[start:index], value)
                            self._seen.add((key, _hint(entry.text)), entry)
                        else:
                            recurs = True
                            index = start + len(entry.text)
                            texts[key] = entry.text
                        seen[key] = entry
                        try:
                            if key == "evaluation":
                                piece = entry.text  # settled by the caller
                                if entry.value is not None:
                                    entry.facts()  # while the decoded value is at hand
                            else:
                                piece = entry.canonical()
                                good = good and piece is entry.text
                        finally:
                            entry.value = None  # the table keeps texts, not decoded values
                    else:
                        value, index = _SCAN(text, start)
                        values[key] = value
                        if key == "evaluation":
                            piece = text[start:index]  # settled by the caller
                        else:
                            piece = _piece(value)
                            good = good and piece == text[start:index]
                        whole = text[member:index]
                        recurs = whole in stable
                        if not recurs and len(whole) <= STABLE_CHARS:
                            if len(stable) >= SEEN_SIZE:
                                stable.clear()
                            stable[whole] = None
                    if not good:
                        canonical = False
                    pieces[key] = piece
                    if recurs:
                        run.append((member, index, (key, piece, good, entry,
                                                    None if entry is not None else values[key])))
                    elif run:
                        self._learn(run, text)
                        run = []
                if index == end:
                    if run:
                        self._learn(run, text)
                    return _Row(values, texts), pieces, seen, canonical
                if text[index] != ",":
                    return None
                index += 1
        except (StopIteration, json.JSONDecodeError, IndexError, ValueError, TypeError,
                UnicodeError):
            return None

    def _learn(self, run: list[tuple[int, int, _Member | _Run]], text: str) -> None:
        """Keep what recurred together (known runs and members, two or more) as one run,
        so the next row with it is walked in one step."""
        if len(run) < 2:
            return
        found = _Run(text[run[0][0]:run[-1][1]])
        previous: str | None = None
        for _, _, part in run:
            if isinstance(part, tuple):
                key, piece, good, entry, value = part
                if not good or (previous is not None and key <= previous):
                    found.canonical = False
                found.first = found.first or key
                previous = key
                found.pieces[key] = piece
                if entry is None:
                    found.values[key] = value  # a scalar: shared by the rows safely
                else:
                    found.texts[key] = entry.text
                    found.seen[key] = entry
            else:
                if not part.canonical or (previous is not None and part.first <= previous):
                    found.canonical = False
                found.first = found.first or part.first
                previous = part.last
                found.pieces.update(part.pieces)
                found.values.update(part.values)
                found.texts.update(part.texts)
                found.seen.update(part.seen)
        found.last = previous or ""
        self._runs.add(_hint(found.text), found)

    def _task(self, judgment: str, row: Mapping[str, Any]) -> Task | str:
        task = self._tasks.get(judgment)
        if task is None:
            task = self.task_for(row)
            _remember(self._tasks, judgment, task)
        return task

    def _verdict(self, judgment: str, task: Task, row: Mapping[str, Any],
                 pieces: Mapping[str, str]) -> Verdict:
        """The regraded fields as canonical JSON pieces, with outcome, score and evidence.

        The evaluation is deterministic in the judgment and the recorded evidence, so runs
        with identical evidence (trials that made the same calls) share one evaluation.
        """
        error = row.get("outcome") == "error" or pieces.get("calls", "null") == "null"
        key = sha256_hex("\x00".join(
            [judgment, str(error), *(pieces.get(k, "null") for k in EVIDENCE_KEYS)]
        ).encode("utf-8"))
        found = self._memo.get(key)
        if found is not None:
            return found
        judged = self._judged.get(judgment)  # the task's fields, the same for all its rows
        if judged is None:
            judged = {k: canonical_json(v) for k, v in task_fields(task).items()}
            _remember(self._judged, judgment, judged)
        fields = dict(judged)
        if error:
            result = verdict(None, task.pass_threshold)
            fields.update({k: canonical_json(v) for k, v in result.items()})
            found = (fields, "error", None, None)
        else:
            evaluation = evaluate_trace(task.contract, trace_from_row(row),
                                        weights=task.weights, honesty=task.honesty,
                                        validate_side_effects=False, registry=self.registry,
                                        injected=_injected(row))
            text = evaluation.record_json
            passed = passes(evaluation, task.pass_threshold)
            outcome = "passed" if passed else "failed"
            fields.update({"evaluation": text,
                           "record_sha256": canonical_json(sha256_hex(text.encode("utf-8"))),
                           "outcome": canonical_json(outcome),
                           "passed": canonical_json(passed)})
            found = (fields, outcome, evaluation.score, dict(evaluation.evidence.counts))
        _remember(self._memo, key, found)
        return found


JUDGMENT_KEYS = ("task_id", "contract", "weights", "pass_threshold", "honesty")
"""The row fields a regrade under --gold or --weight takes its judgment from."""
EVIDENCE_KEYS = ("calls", "final_answer", "trace", "injected")
"""The row fields an evaluation reads: the recorded evidence."""
MEMO_SIZE = 4096
Verdict = tuple[dict[str, str], str, float | None, dict[str, int] | None]


def _injected(row: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """What the proxy planted in the run, as recorded (rows before planting have none)."""
    injected = row.get("injected")
    if injected is None:
        return None
    if not isinstance(injected, Mapping):
        raise InputError('"injected" must be an object or null', place="$.injected")
    from toolscore_checks.injected import parse_injected

    parse_injected(injected)
    return injected


def _remember(cache: dict[str, Any], key: str, value: Any) -> None:
    """Insert into a bounded cache (oldest entry out), so memory stays flat."""
    if len(cache) >= MEMO_SIZE:
        del cache[next(iter(cache))]
    cache[key] = value


HINT = 128
"""Characters from a value's start that pick which known texts it is compared with."""
SHORT_HINT = 16
"""The same for values shorter than HINT."""
STABLE_CHARS = 4096
"""Scalar members longer than this are not remembered (nor recognised as recurring)."""
SEEN_PER_HINT = 16
SEEN_SIZE = 2048
"""Known texts kept per table (a table is emptied when full)..."""
SEEN_CHARS = 1 << 24
"""... or when its texts add up to this many characters."""


def _hint(text: str) -> str:
    """The characters a known text is filed under: those a lookup at its start slices."""
    return text[:HINT] if len(text) >= HINT else text[:SHORT_HINT]


class _Table:
    """Known texts by hint, at most SEEN_PER_HINT per hint, most recent first; emptied
    when it holds SEEN_SIZE texts or SEEN_CHARS characters, so memory stays flat."""

    def __init__(self) -> None:
        self.entries: dict[Any, list[Any]] = {}
        self.size = 0
        self.chars = 0

    def add(self, hint: Any, entry: Any) -> None:
        # a text shorter than SHORT_HINT is not kept: no lookup would slice its hint, and
        # decoding it costs as little
        if len(entry.text) < SHORT_HINT:
            return
        if self.size >= SEEN_SIZE or self.chars >= SEEN_CHARS:
            self.entries.clear()
            self.size = self.chars = 0
        entries = self.entries.setdefault(hint, [])
        if len(entries) >= SEEN_PER_HINT:
            self.chars -= len(entries.pop().text)
            self.size -= 1
        entries.insert(0, entry)
        self.size += 1
        self.chars += len(entry.text)


class _Run:
    """Members that recurred together: their exact text, first and last keys, whether
    they are canonical in sorted order, and what decoding them gives."""

    __slots__ = ("canonical", "first", "last", "pieces", "seen", "text", "texts", "values")

    def __init__(self, text: str) -> None:
        self.text = text
        self.first = ""
        self.last = ""
        self.canonical = True
        self.pieces: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self.texts: dict[str, str] = {}
        self.seen: dict[str, _Seen] = {}


_Member = tuple[str, str, bool, "_Seen | None", Any]
"""A member decoded on its own: key, canonical JSON of the value, whether the member is
canonical as written, the known object or array, the decoded scalar."""


class _Seen:
    """An object or array text seen in a row: its canonical JSON (the text itself when it
    is canonical), and for an ``evaluation`` its SHA-256 and the facts a summary takes.

    The decoded value is held only while the row it was first seen in is regraded.
    """

    __slots__ = ("_canonical", "_facts", "_sha256", "text", "value")

    def __init__(self, text: str, value: Any) -> None:
        self.text = text
        self.value = value
        self._canonical: str | None = None
        self._sha256: str | None = None
        self._facts: tuple[float | None, dict[str, int] | None] | None = None

    def _decoded(self) -> Any:
        return json.loads(self.text) if self.value is None else self.value

    def canonical(self) -> str:
        """The value's canonical JSON (``self.text`` itself, the same object, when equal);
        raises as ``canonical_json`` does when there is none."""
        if self._canonical is None:
            piece = canonical_json(self._decoded())
            self._canonical = self.text if piece == self.text else piece
        return self._canonical

    def sha256(self) -> str:
        if self._sha256 is None:
            self._sha256 = sha256_hex(self.text.encode("utf-8"))
        return self._sha256

    def facts(self) -> tuple[float | None, dict[str, int] | None]:
        """Score and evidence counts, as :func:`row_facts` takes them from an evaluation
        (the counts a new dict each time, as there)."""
        if self._facts is None:
            self._facts = evaluation_facts(self._decoded())
        score, counts = self._facts
        return score, None if counts is None else dict(counts)


class _Row(Mapping[str, Any]):
    """A row whose recognised values are decoded only when read (they seldom are)."""

    __slots__ = ("_texts", "_values")

    def __init__(self, values: dict[str, Any], texts: dict[str, str]) -> None:
        self._values = values
        self._texts = texts

    def __getitem__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            value = self._values[key] = json.loads(self._texts[key])
            return value

    def get(self, key: str, default: Any = None) -> Any:
        if key in self._values:
            return self._values[key]
        return self[key] if key in self._texts else default

    def __contains__(self, key: object) -> bool:
        return key in self._values or key in self._texts

    def __iter__(self) -> Iterator[str]:
        yield from self._values
        yield from (key for key in self._texts if key not in self._values)

    def __len__(self) -> int:
        return len(self._values) + sum(1 for key in self._texts if key not in self._values)


_ASCII_WHITESPACE = " \t\n\r\x0b\x0c"
_SCAN: Any = make_scanner(cast(Any, STRICT_DECODER))
"""The C scanner json.loads uses (refusing NaN and the infinities): ``_SCAN(text, index)`` is
``(value, end)``."""


def _decode_row(line: bytes) -> tuple[dict[str, Any], str | None] | str:
    """The row, and the exact text of its ``evaluation`` value when the line shows it.

    A line toolscore wrote is one compact object; it is walked key by key with the C
    scanner, which yields each value and where it ends. Any other shape is decoded whole.
    The result is the same as ``json.loads``; a string is the reason the line is not a row.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid JSON (not UTF-8: {exc.reason})"
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
    """Decode a compact top-level object; None when the text is not in that shape."""
    if not text.startswith("{") or not text.endswith("}") or text == "{}":
        return None
    row: dict[str, Any] = {}
    evaluation_text = None
    index = 1
    end = len(text) - 1
    try:
        while True:
            if text[index] != '"':
                return None
            key, index = _SCAN(text, index)
            if text[index] != ":" or key in row:
                return None
            start = index + 1
            value, index = _SCAN(text, start)
            row[key] = value
            if key == "evaluation":
                evaluation_text = text[start:index]
            if index == end:
                return row, evaluation_text
            if text[index] != ",":
                return None
            index += 1
    except (StopIteration, IndexError, *JSON_FAILURES):
        return None


def _piece(value: Any) -> str:
    """``canonical_json(value)``, without the encoder's setup for the scalars rows hold."""
    kind = type(value)
    if kind is str:
        return _encode_str(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int or (kind is float and math.isfinite(value)):
        return repr(value)
    return canonical_json(value)


def _evaluation_piece(row: Mapping[str, Any], raw: str | None) -> str:
    """The canonical JSON of the row's evaluation.

    The recorded text is taken as it is when its SHA-256 is the row's ``record_sha256``
    (the hash of the evaluation's canonical JSON), which proves it canonical; otherwise the
    value is serialized.
    """
    recorded = row.get("record_sha256")
    if raw is not None and isinstance(recorded, str) and (
            sha256_hex(raw.encode("utf-8")) == recorded):
        return raw
    return canonical_json(row["evaluation"])


def _join(pieces: Mapping[str, str]) -> str:
    """Canonical JSON of an object from its values' canonical JSON (keys sorted).

    Rows share a few layouts (the same keys in the same order): the sorted order and the
    text before each value are worked out once per layout.
    """
    keys = tuple(pieces)
    layout = _LAYOUTS.get(keys)
    if layout is None:
        if len(keys) < 2:
            return "{" + "".join(_key(key) + pieces[key] for key in keys) + "}"
        order = sorted(keys)
        layout = (tuple(("{" if i == 0 else ",") + _key(key) for i, key in enumerate(order)),
                  itemgetter(*order))
        if len(_LAYOUTS) >= LAYOUTS:
            _LAYOUTS.clear()
        _LAYOUTS[keys] = layout
    prefixes, values = layout
    return "".join(chain.from_iterable(zip(prefixes, values(pieces), strict=True))) + "}"


LAYOUTS = 256
_LAYOUTS: dict[tuple[str, ...], tuple[tuple[str, ...], Callable[[Mapping[str, str]], Any]]] = {}


@cache
def _key(key: str) -> str:
    return canonical_json(key) + ":"


_JUDGE: Judge | None = None


_SOURCE: int | None = None
"""The worker's own descriptor of the runs file: it reads its chunks itself."""
_PARTS: str | None = None
"""The folder where the worker leaves a regraded chunk that does not fit its ring slot."""
_RING: Any = None
"""Memory shared with the main process (forked workers only): one slot per chunk in flight."""


def _init_worker(settings: RegradeSettings, source: str, parts: str, ring: Any) -> None:
    global _JUDGE, _SOURCE, _PARTS, _RING
    _JUDGE = Judge(settings)
    _SOURCE = os.open(source, os.O_RDONLY)
    _PARTS = parts
    _RING = ring


def _serve(settings: RegradeSettings, source: str, parts: str, ring: Any,
           conn: Any) -> None:
    """A worker process: regrade each chunk the main process sends until it sends None.

    Each answer is ``(True, (where, facts))`` or ``(False, exception)``, in the order the
    chunks came, over the worker's own pipe (no pool threads on either side).
    """
    try:
        _init_worker(settings, source, parts, ring)
        failed: BaseException | None = None
    except BaseException as exc:  # told in answer to every chunk
        failed = exc
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):  # the main process is gone
            return
        if chunk is None:
            return
        try:
            if failed is not None:
                raise failed
            answer: tuple[bool, Any] = (True, _work(chunk))
        except BaseException as exc:
            answer = (False, exc)
        try:
            conn.send(answer)
        except Exception as exc:  # an exception that does not pickle
            conn.send((False, RuntimeError(f"regrade worker: {exc!r} ({answer[1]!r})")))


Packed = tuple[bytes, list[tuple[str | None, Facts | None, Facts | None, str | None]]]


def _pack(results: list[RowResult]) -> Packed:
    """A chunk's lines as one blob and its facts as plain tuples (cheap to pass between
    processes)."""
    return (b"".join(r.line for r in results),
            [(r.problem, r.before, r.after, r.study) for r in results])


def _work(chunk: tuple[int, int, int]) -> tuple[int | str, list[Any]]:
    """Regrade the lines that start in the byte range ``chunk`` (begin, end, slot) of the
    runs file.

    The regraded lines do not go back through the pipe: they are copied into the chunk's
    slot of the ring shared with the main process (the answer is then their size), or,
    when they do not fit or there is no ring, written to a part file (the answer is its
    path). The main process writes them to the output and only unpickles the facts (one
    per line: it numbers the lines from their count).
    """
    assert _JUDGE is not None and _SOURCE is not None and _PARTS is not None
    begin, end, slot = chunk
    data = _read_lines(_SOURCE, begin, end)
    try:
        text = str(data, "utf-8")  # the whole range at once: one pass, one copy
    except UnicodeDecodeError:
        results = [_JUDGE.regrade(0, line) for line in _split_lines(bytes(data))]
    else:
        pieces = text.split("\n")
        results = [_JUDGE.regrade_text(piece + "\n") for piece in pieces[:-1]]
        if pieces[-1]:
            results.append(_JUDGE.regrade_text(pieces[-1]))
    blob, facts = _pack(results)
    size = len(blob)
    if _RING is not None and size <= SLOT:
        _RING[slot * SLOT:slot * SLOT + size] = blob
        return size, facts
    part = os.path.join(_PARTS, f"{begin}.part")
    with open(part, "wb") as handle:
        handle.write(blob)
    return part, facts


_BUFFER = bytearray()
"""The worker's read buffer, reused (a fresh one per range would cost page faults)."""


def _read_lines(fd: int, begin: int, end: int) -> memoryview:
    """The bytes of the lines whose first byte lies in ``[begin, end)``.

    Ranges that tile the file give every line to exactly one range: a range skips the
    end of a line begun before it and reads its own last line to its end.
    """
    global _BUFFER
    first = begin
    if begin > 0:
        start = _after_newline(fd, begin - 1)
        if start is None or start >= end:
            return memoryview(b"")
        first = start
    stop = _after_newline(fd, end - 1)  # the first line start at or after ``end``
    if stop is None:
        stop = max(os.fstat(fd).st_size, first)
    if len(_BUFFER) < stop - first or len(_BUFFER) > 4 * max(stop - first, CHUNK_BYTES):
        _BUFFER = bytearray(stop - first)
    view = memoryview(_BUFFER)[:stop - first]
    size = os.preadv(fd, [view], first)
    return view[:size]


def _after_newline(fd: int, offset: int, block: int = 1 << 14) -> int | None:
    """Where the line after the first newline at or after ``offset`` starts (None: none)."""
    while True:
        data = os.pread(fd, block, offset)
        if not data:
            return None
        at = data.find(b"\n")
        if at != -1:
            return offset + at + 1
        offset += len(data)
        block = min(block * 2, 1 << 24)


def _split_lines(data: bytes) -> list[bytes]:
    """``data`` cut after each newline, as iterating over a file in binary mode cuts it."""
    pieces = data.split(b"\n")
    lines = [piece + b"\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def _chunks(path: Path) -> Iterator[tuple[int, list[bytes]]]:
    with open(path, "rb") as handle:
        start = 1
        lines: list[bytes] = []
        for line in handle:
            lines.append(line)
            if len(lines) == CHUNK:
                yield start, lines
                start += len(lines)
                lines = []
        if lines:
            yield start, lines


def regrade_file(
    source: str | os.PathLike[str], output: str | os.PathLike[str],
    settings: RegradeSettings, *, jobs: int = 1, registry: Registry | None = None,
    progress: Any = None,
) -> RegradeSummary:
    """Regrade every row of ``source`` into ``output`` (atomically); return the summary.

    ``progress``, when given, is called with the number of rows done so far.
    """
    src = Path(source)
    out = Path(output)
    if not src.is_file():
        raise InputError("runs file not found", file=str(src), fix="check the path")
    if out.resolve() == src.resolve() or (out.exists() and os.path.samefile(src, out)):
        raise InputError("the output is the input file", file=str(out), place="output=",
                         fix="write the regraded runs to another file, e.g. runs.v2.jsonl")
    if jobs < 1:
        raise InputError(f"jobs must be at least 1, not {jobs}", place="jobs=")
    summary = RegradeSummary()
    judge = Judge(settings, registry)  # validates the settings before any work starts
    with atomic_writer(out, mode="wb") as handle:
        if jobs == 1:
            flush = _early_writeback(handle)
            for count, chunk in enumerate(_chunks(src), start=1):
                results = [judge.regrade(chunk[0] + i, line) for i, line in enumerate(chunk[1])]
                _write(handle, chunk[0], _pack(results), summary, progress)
                if count % TRIM_EVERY == 0:
                    flush()
        else:
            _regrade_parallel(src, out, handle, settings, jobs, summary, progress)
    return summary


def _regrade_parallel(src: Path, out: Path, handle: Any, settings: RegradeSettings,
                      jobs: int, summary: RegradeSummary, progress: Any) -> None:
    """Regrade with ``jobs`` worker processes, writing the chunks in input order.

    The file is cut into byte ranges of CHUNK_BYTES. Each worker has up to PER_WORKER
    ranges queued on its own pipe and is sent the next range as soon as it answers, so a
    worker slowed down by something else running holds back no more than its share; the
    answers are written out in input order, at most ``slots`` ranges in flight. The main
    process never reads the runs file: workers read their ranges themselves, and hand the
    regraded lines back through shared memory.
    """
    import mmap
    import multiprocessing
    from multiprocessing.connection import wait

    fork = os.name == "posix"
    context: Any = multiprocessing.get_context("fork" if fork else "spawn")
    slots = jobs * WINDOW_PER_JOB
    # anonymous shared memory, inherited by the forked workers (spawn cannot pass it)
    ring = mmap.mmap(-1, slots * SLOT) if fork else None
    parts = tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".parts",
                             dir=out.parent if str(out.parent) else ".")
    workers: dict[Any, tuple[Any, deque[int]]] = {}  # pipe -> (process, ranges queued)
    done = False
    try:
        for _ in range(jobs):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, daemon=True,
                                      args=(settings, str(src), parts, ring, theirs))
            process.start()
            theirs.close()
            workers[mine] = (process, deque())
        size = src.stat().st_size
        total = -(-size // CHUNK_BYTES)
        answers: dict[int, tuple[bool, Any]] = {}
        sent = written = 0
        trim = _heap_trimmer()
        flush = _early_writeback(handle)
        line = 1
        while written < total:
            # range n uses slot n % slots: it is sent only once range n - slots is written
            for conn, (_, queued) in workers.items():
                while len(queued) < PER_WORKER and sent < total and sent - written < slots:
                    begin = sent * CHUNK_BYTES
                    conn.send((begin, min(begin + CHUNK_BYTES, size), sent % slots))
                    queued.append(sent)
                    sent += 1
            ready: list[Any] = wait([conn for conn, (_, queued) in workers.items() if queued])
            for conn in ready:
                process, queued = workers[conn]
                try:
                    answers[queued.popleft()] = conn.recv()
                except EOFError:
                    process.join()
                    raise RuntimeError("a regrade worker stopped (exit code "
                                       f"{process.exitcode})") from None
            while written in answers:
                line = _append(handle, ring, line, written % slots, answers.pop(written),
                               summary, progress)
                written += 1
                if written % TRIM_EVERY == 0:
                    trim()
                    flush()
        done = True
    finally:
        for conn, (process, _) in workers.items():
            if done:
                with contextlib.suppress(OSError):
                    conn.send(None)
            else:
                process.terminate()
        for conn, (process, _) in workers.items():
            process.join()
            conn.close()
        if ring is not None:
            ring.close()
        shutil.rmtree(parts, ignore_errors=True)


def _append(handle: Any, ring: Any, line: int, slot: int, answer: tuple[bool, Any],
            summary: RegradeSummary, progress: Any) -> int:
    """Write a worker's regraded range to the output and count its facts; return the
    number of the next line."""
    ok, done = answer
    if not ok:
        raise done
    where, facts = done
    if isinstance(where, int):  # in the range's ring slot
        with memoryview(ring) as view:
            handle.write(view[slot * SLOT:slot * SLOT + where])
    else:
        _append_part(handle, where)
    _write(handle, line, (b"", facts), summary, progress)
    return line + len(facts)


def _append_part(handle: Any, part: str) -> None:
    """Append a worker's part file to the output (a kernel copy) and delete it."""
    handle.flush()
    with open(part, "rb") as source:
        size = os.fstat(source.fileno()).st_size
        copied = 0
        while copied < size:
            sent = os.sendfile(handle.fileno(), source.fileno(), copied, size - copied)
            if sent == 0:
                break
            copied += sent
        if copied < size:  # sendfile stopped short: copy the rest the plain way
            source.seek(copied)
            shutil.copyfileobj(source, handle)
    os.unlink(part)


def _early_writeback(handle: Any) -> Callable[[], None]:
    """Start the disk writes of the output written so far (and let the kernel drop those
    pages once on disk), so the final fsync has little left to wait for.

    ``posix_fadvise(DONTNEED)`` on Linux starts writeback of the range without waiting
    for it; where there is no such call this does nothing.
    """
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return lambda: None
    started = 0

    def flush() -> None:
        nonlocal started
        handle.flush()
        end = handle.tell()
        if end > started:
            advise(handle.fileno(), started, end - started, os.POSIX_FADV_DONTNEED)
            started = end

    return flush


def _heap_trimmer() -> Callable[[], None]:
    """Give freed heap pages back to the OS (glibc's ``malloc_trim``), or do nothing.

    The main process unpickles a stream of answers from the workers; glibc serves them
    from the heap, whose free pages it otherwise keeps, so the resident size could creep
    up with the number of rows instead of staying flat.
    """
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        malloc_trim = libc.malloc_trim
    except (OSError, AttributeError):
        return lambda: None

    def trim() -> None:
        malloc_trim(0)

    return trim


def _write(handle: Any, start: int, packed: Packed, summary: RegradeSummary,
           progress: Any) -> None:
    blob, facts = packed
    handle.write(blob)
    for i, (problem, before, after, study) in enumerate(facts):
        if before is None and problem is None:
            continue  # a blank line: kept, not a row
        summary.rows += 1
        if study is not None:
            summary.before.note_study(study)
            summary.after.note_study(study)
        if problem is not None:
            summary.note(start + i, problem)
            if before is not None:
                summary.before.add(*before)
                summary.after.add(*before)
            continue
        assert before is not None and after is not None
        summary.regraded += 1
        summary.before.add(*before)
        summary.after.add(*after)
        summary.flip(before[0], before[1], after[1])
    if progress is not None:
        progress(summary.rows)

