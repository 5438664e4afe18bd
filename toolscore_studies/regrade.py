"""Regrading a runs file: the same recorded runs, a new spec, contract or weights.

Each line is decoded, its run evaluated under the new judgment and the row written back as
canonical JSON. With ``jobs`` > 1, chunks of lines go to a process pool with a bounded
number in flight and come back in input order, so memory stays flat in the number of rows.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import frozen

from toolscore_core.atomic import atomic_writer
from toolscore_core.canonical import canonical_json, join_members, sha256_hex
from toolscore_core.components import toolscore_version
from toolscore_core.contracts import parse_contract
from toolscore_core.documents import (
    load_document,
    read_bytes,
)
from toolscore_core.errors import CanonicalJSONError, InputError
from toolscore_core.inputs import open_input
from toolscore_core.judging import Judging
from toolscore_core.models import Contract
from toolscore_core.plugins import Registry, default_registry
from toolscore_core.scoring import resolve_weights
from toolscore_studies.records import (
    KIND,
    evaluate_trace,
    judge_member,
    passes,
    task_fields,
    trace_from_row,
    verdict,
)
from toolscore_studies.row_json import decode_row, row_pieces
from toolscore_studies.spec import DEFAULT_PASS_THRESHOLD, Study, Task, load_study
from toolscore_studies.summary import CheckFlip, RegradeSummary, check_flips, row_facts

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

CHUNK_BYTES = 1 << 18
"""Bytes of lines per unit of work (a chunk holds at least one line)."""
WINDOW_PER_JOB = 4
"""Chunks in flight per worker: enough to keep it busy, few enough to keep memory flat."""
MEMO_SIZE = 1024
"""Evaluations a process remembers (the oldest goes first), so memory stays flat."""
JUDGMENT_KEYS = ("task_id", "contract", "weights", "pass_threshold", "honesty")
"""The row fields a regrade under --gold or --weight takes its judgment from."""
EVIDENCE_KEYS = ("calls", "final_answer", "trace", "injected", "judge")
"""The row fields an evaluation reads: the recorded evidence (the judge's verdicts too)."""

Facts = tuple[str, str, float | None, dict[str, int] | None, float | None, float | None]
Verdict = tuple[dict[str, str], str, float | None, dict[str, int] | None,
                dict[str, str] | None]
"""The regraded fields as canonical JSON, with the outcome, score, evidence counts and each
check's status (null for a run that errored: no check ran)."""
Packed = tuple[bytes, list[tuple[str | None, Facts | None, Facts | None, str | None,
                                 tuple[CheckFlip, ...]]], int]
"""A chunk's regraded lines as one blob, per line what the summary needs, and the bytes of
the chunk as read (for the progress of the whole file)."""
Progress = Callable[[int, int], None]
"""Told after each chunk is written: its lines and the bytes of the file they took."""


@frozen
class RegradeSettings:
    """What every row is regraded against (picklable: workers rebuild the regrader from it)."""

    spec: str | None = None
    gold: str | None = None
    weights: Mapping[str, float] | None = None
    judge: Any = None
    """The judge's client, asked what a row's stored judgments lack (its model then judges
    every row); None: each row's judgments alone, and no model is asked."""


@frozen
class RowResult:
    """One regraded (or written-through) line and what the summary needs from it."""

    line: bytes
    problem: str | None = None
    before: Facts | None = None
    after: Facts | None = None
    study: str | None = None
    flips: tuple[CheckFlip, ...] = ()
    """The checks whose status the regrade changed: (check, before, after)."""


class RowRegrader:
    """Regrades rows under the settings; built once per worker process."""

    def __init__(self, settings: RegradeSettings, registry: Registry | None = None) -> None:
        if (settings.spec is None and settings.gold is None and not settings.weights
                and settings.judge is None):
            raise InputError("nothing to regrade with", place="spec=",
                             fix="give a spec, a gold file, weights or a judge")
        if settings.spec is not None and settings.gold is not None:
            raise InputError("a spec and a gold file cannot be given together", place="gold=",
                             fix="use a spec for task-by-task definitions or a gold file for "
                                 "all rows")
        self.registry = registry or default_registry()
        self.judge = settings.judge
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
        # under a spec the task id alone picks the judgment; otherwise the row carries it
        self.judgment_keys = ("task_id",) if self.study is not None else JUDGMENT_KEYS
        self._memo: dict[str, Verdict | str] = {}
        self._judgments: dict[str, tuple[Task, dict[str, str]] | str] = {}

    def __getstate__(self) -> dict[str, Any]:
        # pickled whole to Ray workers (the spec and gold file are then not read there),
        # without the process's registry and memo
        return {k: v for k, v in self.__dict__.items()
                if k not in ("registry", "_memo", "_judgments")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, registry=default_registry(), _memo={}, _judgments={})

    def task_for(self, row: Mapping[str, Any]) -> Task | str:
        """The task definition to regrade ``row`` under, or the reason there is none."""
        task_id = str(row.get("task_id"))
        if self.study is not None:
            task = self.study.tasks.get(task_id)
            if task is None:
                return f"task {task_id!r} is not in the new spec"
            return self._with_weights(task)
        threshold = row.get("pass_threshold")
        if threshold is None:
            # a row never evaluated (an imported run, a hand-written one) has no threshold
            # of its own: it is evaluated at a spec's default, not turned away
            threshold = DEFAULT_PASS_THRESHOLD
        elif isinstance(threshold, bool) or not isinstance(threshold, int | float):
            return 'the row\'s "pass_threshold" is not a number'
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

    def regrade(self, line: bytes) -> RowResult:
        """Regrade one line; a line that cannot be regraded is returned unchanged."""
        if not line or line.isspace():  # a blank line (without copying a row to strip it)
            return RowResult(line=line)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return RowResult(line=line, problem=f"not valid JSON (not UTF-8: {exc.reason})")
        return self.regrade_text(text)

    def regrade_text(self, text: str) -> RowResult:
        """Regrade a line given as its UTF-8 text (not blank)."""
        line = text.encode("utf-8")
        decoded = decode_row(text)
        if isinstance(decoded, str):
            return RowResult(line=line, problem=decoded)
        row, shown = decoded
        if row.get("kind") != KIND:
            return RowResult(line=line, problem=f"not a {KIND} row")
        before = row_facts(row)
        try:
            # each top-level value is serialized once: the pieces give both the old row's
            # canonical JSON (for from_sha256) and, with the new verdict in, the new row's
            pieces = row_pieces(row, shown)
            from_sha256 = sha256_hex(join_members(pieces).encode("utf-8"))
            found = self._verdict(row, pieces)
        except InputError as exc:
            return RowResult(line=line, problem=exc.one_line(), before=before)
        except CanonicalJSONError:  # a number JSON cannot hold, e.g. 1E400 read as infinity
            return RowResult(line=line, problem="not valid JSON (a number out of range: only "
                             "finite numbers have canonical JSON)", before=before)
        if isinstance(found, str):
            return RowResult(line=line, problem=found, before=before)
        fields, outcome, score, evidence, statuses = found
        pieces.update(fields)
        pieces["regraded"] = canonical_json({"from_sha256": from_sha256, **self.stamp})
        after = (before[0], outcome, score, evidence, before[4], before[5])
        study = row.get("study")
        return RowResult(line=join_members(pieces).encode("utf-8") + b"\n", before=before,
                         after=after, study=study if isinstance(study, str) else None,
                         flips=check_flips(row.get("evaluation"), statuses))

    def _verdict(self, row: Mapping[str, Any], pieces: Mapping[str, str]) -> Verdict | str:
        """The row's regraded fields, or why it cannot be regraded.

        The evaluation is deterministic in the judgment and the recorded evidence, so runs
        with identical evidence (trials that made the same calls) share one evaluation:
        without that, a study's repeated trials would cost an evaluation each.
        """
        error = row.get("outcome") == "error" or pieces.get("calls", "null") == "null"
        judgment = "\x00".join(pieces.get(k, "null") for k in self.judgment_keys)
        key = sha256_hex("\x00".join(
            [str(error), judgment, *(pieces.get(k, "null") for k in EVIDENCE_KEYS)]
        ).encode("utf-8"))
        found = self._memo.get(key)
        if found is None:
            try:
                found = self._evaluate(row, error, judgment, pieces.get("calls"))
            except InputError as exc:
                found = exc.one_line()
            if len(self._memo) >= MEMO_SIZE:
                del self._memo[next(iter(self._memo))]
            self._memo[key] = found
        return found

    def _task(self, row: Mapping[str, Any], judgment: str) -> tuple[Task, dict[str, str]] | str:
        """The row's task and its stored fields as canonical JSON, or why there is none.

        Both follow from the row's judgment fields (``judgment``, their canonical JSON) and
        the regrade's settings, so the rows of one task share them: the contract is read
        and written once per task, not once per row.
        """
        found = self._judgments.get(judgment)
        if found is None:
            task = self.task_for(row)
            found = task if isinstance(task, str) else (
                task, {k: canonical_json(v) for k, v in task_fields(task).items()})
            if len(self._judgments) >= MEMO_SIZE:
                del self._judgments[next(iter(self._judgments))]
            self._judgments[judgment] = found
        return found

    def _evaluate(self, row: Mapping[str, Any], error: bool, judgment: str,
                  calls_json: str | None) -> Verdict | str:
        found = self._task(row, judgment)
        if isinstance(found, str):
            return found
        task, stored = found
        fields = dict(stored)
        if error:
            result = verdict(None, task.pass_threshold)
            fields.update({k: canonical_json(v) for k, v in result.items()})
            return fields, "error", None, None, None
        judge = self._judge_for(row)
        evaluation = evaluate_trace(task.contract, trace_from_row(row), weights=task.weights,
                                    honesty=task.honesty, validate_side_effects=False,
                                    registry=self.registry, injected=_injected(row), judge=judge,
                                    calls_json=None if calls_json is None else (
                                        row["calls"], calls_json))
        if judge is not None:
            fields["judge"] = canonical_json(judge_member(judge))
        text = evaluation.record_json
        passed = passes(evaluation, task.pass_threshold)
        outcome = "passed" if passed else "failed"
        fields.update({"evaluation": text,
                       "record_sha256": canonical_json(sha256_hex(text.encode("utf-8"))),
                       "outcome": canonical_json(outcome), "passed": canonical_json(passed)})
        return (fields, outcome, evaluation.score, dict(evaluation.evidence.counts),
                {c.check: c.status for c in evaluation.evidence.checks})

    def _judge_for(self, row: Mapping[str, Any]) -> Judging | None:
        """The judge of a row's evaluation: its stored judgments, under its judge's model
        (or the regrade's, which asks what they lack); None when neither has a judge."""
        member = row.get("judge")
        if member is None and self.judge is None:
            return None
        known = {}
        model = None if self.judge is None else self.judge.model
        if member is not None:
            if not isinstance(member, Mapping) or not isinstance(member.get("model"), str):
                raise InputError('"judge" must be an object with "model" and "judgments"',
                                 place="$.judge")
            from toolscore_judge.store import judgments_from_json

            known = judgments_from_json(member.get("judgments"), place="$.judge.judgments")
            model = model or member["model"]
        assert model is not None
        return Judging(model=model, judgments=known, client=self.judge)


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


def regrade_chunk(regrader: RowRegrader, lines: list[bytes]) -> Packed:
    """One chunk of lines regraded, on either engine."""
    results = [regrader.regrade(line) for line in lines]
    return (b"".join(r.line for r in results),
            [(r.problem, r.before, r.after, r.study, r.flips) for r in results],
            sum(map(len, lines)))


_REGRADER: RowRegrader | None = None
"""A worker process's regrader, built once by :func:`_start_worker`."""


def _start_worker(settings: RegradeSettings) -> None:
    global _REGRADER
    _REGRADER = RowRegrader(settings)


def _regrade_in_worker(lines: list[bytes]) -> Packed:
    assert _REGRADER is not None
    return regrade_chunk(_REGRADER, lines)


def _chunks(path: Path, size: int) -> Iterator[list[bytes]]:
    """The file's lines, each with its newline, in runs of at least ``size`` bytes."""
    with open_input(path, what="runs file") as handle:
        lines: list[bytes] = []
        taken = 0
        for line in handle:
            lines.append(line)
            taken += len(line)
            if taken >= size:
                yield lines
                lines = []
                taken = 0
        if lines:
            yield lines


def _in_order(pool: ProcessPoolExecutor, chunks: Iterable[list[bytes]],
              window: int) -> Iterator[Packed]:
    """The chunks regraded by the pool, in input order, at most ``window`` in flight."""
    pending: deque[Future[Packed]] = deque()
    for lines in chunks:
        pending.append(pool.submit(_regrade_in_worker, lines))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def regrade_file(
    source: str | os.PathLike[str], output: str | os.PathLike[str],
    settings: RegradeSettings, *, jobs: int = 1, registry: Registry | None = None,
    engine: str = "local", ray_address: str | None = None, progress: Progress | None = None,
) -> RegradeSummary:
    """Regrade every row of ``source`` into ``output`` (atomically); return the summary.
    ``progress`` is told the lines and bytes of each chunk once it is written.

    ``engine="ray"`` regrades chunks as Ray tasks (see ``toolscore_studies.ray_engine``),
    in the same order, into the same bytes.
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
    regrader = RowRegrader(settings, registry)  # validates the settings before any work starts
    from toolscore_studies.runner import check_engine

    check_engine(engine, ray_address)
    if engine == "ray":
        from toolscore_studies import ray_engine

        with ray_engine.connected(ray_address, jobs=jobs) as ray, \
                atomic_writer(out, mode="wb") as handle:
            chunks = _chunks(src, ray_engine.CHUNK_BYTES)
            _write(handle, ray_engine.regrade_chunks(ray, partial(regrade_chunk, regrader),
                                                     chunks, jobs=jobs), summary, progress)
        return summary
    with atomic_writer(out, mode="wb") as handle:
        if jobs == 1:
            _write(handle, (regrade_chunk(regrader, lines) for lines in _chunks(src, CHUNK_BYTES)),
                   summary, progress)
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            if multiprocessing.get_start_method() == "fork":
                # pairing's assignment (about 0.5 s of CPU to import): imported here once,
                # every forked worker inherits it instead of importing it again
                import scipy.optimize  # noqa: F401
            # each worker rebuilds the regrader from the settings (with the default registry)
            pool = ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(settings,))
            try:
                _write(handle, _in_order(pool, _chunks(src, CHUNK_BYTES), jobs * WINDOW_PER_JOB),
                       summary, progress)
            finally:
                pool.shutdown(cancel_futures=True)
    return summary


def _write(handle: Any, packs: Iterable[Packed], summary: RegradeSummary,
           progress: Progress | None) -> None:
    """Write the regraded chunks and count each line's facts into the summary."""
    number = 0
    for blob, facts, read in packs:
        handle.write(blob)
        if progress is not None:
            progress(len(facts), read)
        for problem, before, after, study, flips in facts:
            number += 1
            if before is None and problem is None:
                continue  # a blank line: kept, not a row
            summary.rows += 1
            if study is not None:
                summary.before.note_study(study)
                summary.after.note_study(study)
            if problem is not None:
                summary.note(number, problem)
                if before is not None:
                    summary.before.add(*before)
                    summary.after.add(*before)
                continue
            assert before is not None and after is not None
            summary.regraded += 1
            summary.before.add(*before)
            summary.after.add(*after)
            summary.flip(before[0], before[1], after[1])
            for flip in flips:
                summary.check_flips[flip] = summary.check_flips.get(flip, 0) + 1
