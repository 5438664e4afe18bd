"""Study summaries: per task the trials, pass rate, pass^k, mean score, evidence, time, cost."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from attrs import define, field

from toolscore_core.documents import JSON_FAILURES, NotJSONNumber, loads
from toolscore_core.errors import InputError
from toolscore_core.inputs import open_input
from toolscore_core.models import STATUSES
from toolscore_secrets.redaction import redact


def why_not_json(exc: BaseException) -> str:
    """A short reason for one of ``JSON_FAILURES`` (toolscore_core.documents), for messages
    about a line of a runs file."""
    if isinstance(exc, NotJSONNumber):
        return f"{exc} is not a JSON number"
    if isinstance(exc, RecursionError):
        return "values nested too deeply"
    return str(exc)


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """The unbiased estimate of pass^k, C(c, k) / C(n, k): all k of k fresh trials pass.

    None when fewer than ``k`` trials were run (the estimate needs n >= k). Computed as the
    product of (c - i) / (n - i) for i below k, in time linear in k: the binomials
    themselves grow to thousands of digits (C(100000, 50000) takes a second).
    """
    if k < 1 or n < k:
        return None
    if c < k:
        return 0.0
    value = 1.0
    for i in range(k):
        value *= (c - i) / (n - i)
    return value


def study_pass_hat_k(tasks: Iterable[tuple[int, int]], k: int) -> float | None:
    """pass^k of a study, as τ-bench gives it: the mean over tasks of each task's estimate,
    from its (runs, passed). Unknown (None) when there are no tasks or a task has fewer
    than ``k`` runs: a mean over the other tasks would be a different study's."""
    values = [pass_hat_k(n, c, k) for n, c in tasks]
    if not values or any(v is None for v in values):
        return None
    return round(math.fsum(v for v in values if v is not None) / len(values), 12)


def summary_ks(k: int, extra: Iterable[int] = ()) -> list[int]:
    """The k's a summary gives pass^k for, sorted: 1 (the pass rate), the shown ``k`` and
    the ``extra`` ones (those a ``--fail-under pass^K=...`` gate reads)."""
    return sorted({1, k, *extra})


@define
class Measured:
    """A per-run quantity over runs: measured (every run), partial (some) or unknown (none)."""

    total: float = 0.0
    known: int = 0
    runs: int = 0

    def add(self, value: float | None) -> None:
        self.runs += 1
        if value is not None:
            self.total += value
            self.known += 1

    @property
    def status(self) -> str:
        if self.known == 0:
            return "unknown"
        return "measured" if self.known == self.runs else "partial"

    def to_dict(self) -> dict[str, Any]:
        known = self.known > 0
        return {
            "status": self.status,
            "total": round(self.total, 12) if known else None,
            "mean": round(self.total / self.known, 12) if known else None,
            "measured_runs": self.known, "runs": self.runs,
        }


@define
class TaskStats:
    """What the runs of one task add up to."""

    task_id: str
    runs: int = 0
    passed: int = 0
    errors: int = 0
    score_total: float = 0.0
    scored: int = 0
    evidence: dict[str, int] = field(factory=lambda: dict.fromkeys(STATUSES, 0))
    duration: Measured = field(factory=Measured)
    cost: Measured = field(factory=Measured)

    def add(self, outcome: str, score: float | None, evidence: Mapping[str, int] | None,
            duration: float | None, cost: float | None) -> None:
        self.runs += 1
        if outcome == "passed":
            self.passed += 1
        elif outcome == "error":
            self.errors += 1
        if score is not None:
            self.score_total += score
            self.scored += 1
        for status in STATUSES:
            self.evidence[status] += int((evidence or {}).get(status, 0))
        self.duration.add(duration)
        self.cost.add(cost)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.runs if self.runs else None

    @property
    def mean_score(self) -> float | None:
        return round(self.score_total / self.scored, 12) if self.scored else None

    def to_dict(self, ks: Iterable[int] = (1,)) -> dict[str, Any]:
        """The task's figures, with pass^k for each of ``ks`` only (each costs O(k))."""
        return {
            "task_id": self.task_id, "runs": self.runs, "passed": self.passed,
            "failed": self.runs - self.passed - self.errors, "errors": self.errors,
            "pass_rate": None if self.pass_rate is None else round(self.pass_rate, 12),
            "pass_hat_k": {str(k): pass_hat_k(self.runs, self.passed, k) for k in ks},
            "mean_score": self.mean_score, "scored_runs": self.scored,
            "evidence": dict(self.evidence),
            "duration": self.duration.to_dict(), "cost": self.cost.to_dict(),
        }


def evaluation_facts(evaluation: Any) -> tuple[float | None, dict[str, int] | None]:
    """(score, evidence counts) of a run record's evaluation."""
    score = None
    evidence = None
    if isinstance(evaluation, Mapping):
        score = _number(evaluation.get("score"))
        found = evaluation.get("evidence")
        counts = found.get("counts") if isinstance(found, Mapping) else None
        # counts a row does not hold as whole numbers are unknown, not guessed
        if isinstance(counts, Mapping) and all(
                type(counts.get(status, 0)) is int for status in STATUSES):
            evidence = {str(status): int(counts.get(status, 0)) for status in STATUSES}
    return score, evidence


CheckFlip = tuple[str, str | None, str | None]
"""A check whose status changed in a regrade: (check, before, after); null on the side where
it did not run."""


def check_statuses(evaluation: Any) -> dict[str, str] | None:
    """Each check's status in a run record's evaluation; null when the record holds no
    readable list of checks (then nothing is known to have flipped)."""
    found = evaluation.get("evidence") if isinstance(evaluation, Mapping) else None
    checks = found.get("checks") if isinstance(found, Mapping) else None
    if not isinstance(checks, list):
        return None
    statuses: dict[str, str] = {}
    for check in checks:
        if not isinstance(check, Mapping) or not isinstance(check.get("check"), str) \
                or check.get("status") not in STATUSES:
            return None
        statuses[check["check"]] = check["status"]
    return statuses


def check_flips(recorded: Any, after: Mapping[str, str] | None) -> tuple[CheckFlip, ...]:
    """The checks whose status differs between a row's recorded evaluation and the new
    statuses, in the new order then the recorded one; none when either side is unknown."""
    before = check_statuses(recorded)
    if before is None or after is None:
        return ()
    names = [*after, *(name for name in before if name not in after)]
    return tuple((name, before.get(name), after.get(name)) for name in names
                 if before.get(name) != after.get(name))


def _number(value: Any) -> float | None:
    """A recorded number as a float; null for anything else (true is not 1)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


def row_facts(row: Mapping[str, Any]) -> tuple[str, str, float | None, dict[str, int] | None,
                                               float | None, float | None]:
    """(task id, outcome, score, evidence counts, duration, cost) of a run record."""
    return run_facts(row, *evaluation_facts(row.get("evaluation")))


def run_facts(row: Mapping[str, Any], score: float | None,
              evidence: dict[str, int] | None) -> tuple[str, str, float | None,
                                                        dict[str, int] | None,
                                                        float | None, float | None]:
    """:func:`row_facts` given the score and evidence counts of the row's evaluation."""
    outcome = row.get("outcome")
    duration = row.get("duration")
    cost = row.get("cost")
    return (
        str(row.get("task_id")),
        outcome if outcome in ("passed", "failed", "error") else "error",
        score, evidence, _number(duration), _number(cost),
    )


@define
class StudySummary:
    """Per-task statistics of a file of runs, in the order tasks first appear."""

    tasks: dict[str, TaskStats] = field(factory=dict)
    studies: list[str] = field(factory=list)
    skipped: list[tuple[int, str]] = field(factory=list)
    """(line number, problem) of lines that are not run records, the first 200."""
    skipped_count: int = 0

    def skip(self, line: int, problem: str) -> None:
        self.skipped_count += 1
        if len(self.skipped) < 200:
            self.skipped.append((line, problem))

    def add(self, task_id: str, outcome: str, score: float | None,
            evidence: Mapping[str, int] | None, duration: float | None,
            cost: float | None) -> None:
        stats = self.tasks.get(task_id)
        if stats is None:
            stats = self.tasks[task_id] = TaskStats(task_id=task_id)
        stats.add(outcome, score, evidence, duration, cost)

    def add_row(self, row: Mapping[str, Any]) -> None:
        study = row.get("study")
        if isinstance(study, str):
            self.note_study(study)
        self.add(*row_facts(row))

    def note_study(self, study: str) -> None:
        if study not in self.studies:
            self.studies.append(study)

    @property
    def runs(self) -> int:
        return sum(t.runs for t in self.tasks.values())

    def default_k(self) -> int:
        """The largest k every task has enough trials for (1 when there are none)."""
        return max(1, min((t.runs for t in self.tasks.values()), default=1))

    def total(self) -> TaskStats:
        whole = TaskStats(task_id="(all)")
        for stats in self.tasks.values():
            whole.runs += stats.runs
            whole.passed += stats.passed
            whole.errors += stats.errors
            whole.score_total += stats.score_total
            whole.scored += stats.scored
            for status in STATUSES:
                whole.evidence[status] += stats.evidence[status]
            for mine, theirs in ((whole.duration, stats.duration), (whole.cost, stats.cost)):
                mine.total += theirs.total
                mine.known += theirs.known
                mine.runs += theirs.runs
        return whole

    def to_dict(self, k: int | None = None, extra_ks: Iterable[int] = ()) -> dict[str, Any]:
        """The summary as JSON data, as every rendering shows it (credentials in study names
        and task ids masked): per task and for the whole study (``total``), pass^k for ``k``
        (``pass_k``; default :meth:`default_k`) and in ``pass_hat_k`` for each of
        :func:`summary_ks` — the study's is the mean of the tasks' (τ-bench's pass^k)."""
        redacted: dict[str, Any] = redact(self._plain_dict(k, extra_ks))
        return redacted

    def _plain_dict(self, k: int | None = None, extra_ks: Iterable[int] = ()) -> dict[str, Any]:
        k = k or self.default_k()
        ks = summary_ks(k, extra_ks)
        total = self.total().to_dict(())
        counts = [(stats.runs, stats.passed) for stats in self.tasks.values()]
        total["pass_hat_k"] = {str(each): study_pass_hat_k(counts, each) for each in ks}
        total["pass_k"] = total["pass_hat_k"][str(k)]
        return {
            "kind": "toolscore.study_summary", "studies": list(self.studies), "k": k,
            "runs": self.runs, "skipped_lines": self.skipped_count,
            "tasks": [self._task_dict(stats, k, ks) for stats in self.tasks.values()],
            "total": total,
        }

    @staticmethod
    def _task_dict(stats: TaskStats, k: int, ks: list[int]) -> dict[str, Any]:
        data = stats.to_dict(ks)
        data["pass_k"] = data["pass_hat_k"][str(k)]
        return data


@define
class Flips:
    """Runs of one task whose outcome changed in a regrade."""

    to_pass: int = 0
    to_fail: int = 0


@define
class RegradeSummary:
    """Before vs after per task, the tasks that flipped, and the rows written through."""

    before: StudySummary = field(factory=StudySummary)
    after: StudySummary = field(factory=StudySummary)
    flips: dict[str, Flips] = field(factory=dict)
    rows: int = 0
    regraded: int = 0
    written_through: int = 0
    problems: list[tuple[int, str]] = field(factory=list)
    """(line number, problem) of rows written through unchanged, the first ``MAX_PROBLEMS``."""
    check_flips: dict[CheckFlip, int] = field(factory=dict)
    """Regraded rows per check whose status changed, by (check, before, after)."""

    MAX_PROBLEMS = 200

    def note(self, line: int, problem: str) -> None:
        self.written_through += 1
        if len(self.problems) < self.MAX_PROBLEMS:
            self.problems.append((line, problem))

    def flip(self, task_id: str, before: str, after: str) -> None:
        if (before == "passed") == (after == "passed"):
            return
        flips = self.flips.setdefault(task_id, Flips())
        if after == "passed":
            flips.to_pass += 1
        else:
            flips.to_fail += 1

    def to_dict(self, k: int | None = None, extra_ks: Iterable[int] = ()) -> dict[str, Any]:
        """The regrade's summary as JSON, credentials in study names and task ids masked."""
        redacted: dict[str, Any] = redact(self._plain_dict(k, extra_ks))
        return redacted

    def _plain_dict(self, k: int | None = None, extra_ks: Iterable[int] = ()) -> dict[str, Any]:
        k = k or self.after.default_k()
        before = self.before._plain_dict(k, extra_ks)
        after = self.after._plain_dict(k, extra_ks)
        before_by_id = {t["task_id"]: t for t in before["tasks"]}
        tasks = []
        for task in after["tasks"]:
            old = before_by_id.get(task["task_id"], {})
            flips = self.flips.get(task["task_id"], Flips())
            tasks.append({
                "task_id": task["task_id"], "runs": task["runs"],
                "pass_rate_before": old.get("pass_rate"), "pass_rate_after": task["pass_rate"],
                "mean_score_before": old.get("mean_score"),
                "mean_score_after": task["mean_score"],
                "flipped_to_pass": flips.to_pass, "flipped_to_fail": flips.to_fail,
            })
        return {
            "kind": "toolscore.regrade_summary", "k": k, "rows": self.rows,
            "regraded": self.regraded, "written_through": self.written_through,
            "problems": [{"line": line, "problem": text} for line, text in self.problems],
            "flipped_tasks": [t["task_id"] for t in tasks
                              if t["flipped_to_pass"] or t["flipped_to_fail"]],
            "check_flips": [{"check": check, "before": before, "after": after, "runs": runs}
                            for (check, before, after), runs in sorted(
                                self.check_flips.items(), key=_flip_order)],
            "tasks": tasks, "before": before, "after": after,
        }


_STATUS_ORDER = {"pass": 0, "fail": 1, "unknown": 2, None: 3}


def _flip_order(item: tuple[CheckFlip, int]) -> tuple[str, int, int]:
    (check, before, after), _ = item
    return check, _STATUS_ORDER[after], _STATUS_ORDER[before]


def iter_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, decoded row or None, problem) of a JSON Lines file; blank lines skipped."""
    with open_input(path, what="runs file") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = loads(line)
            except JSON_FAILURES as exc:
                yield number, None, f"not valid JSON ({why_not_json(exc)})"
                continue
            yield number, row, None


def summarize_file(path: str | os.PathLike[str]) -> StudySummary:
    """Summarize a runs file row by row (memory flat in the number of rows).

    Lines that are not run records (a regrade writes them through) are skipped and listed
    in ``skipped``; a file with no run record at all is an error.
    """
    from toolscore_studies.records import KIND

    summary = StudySummary()
    for number, row, problem in iter_lines(path):
        if problem is None and not (isinstance(row, dict) and row.get("kind") == KIND):
            problem = f"not a {KIND} row"
        if problem is not None:
            summary.skip(number, problem)
            continue
        summary.add_row(row)
    if not summary.tasks and summary.skipped_count:
        line, problem = summary.skipped[0]
        raise InputError(problem, file=str(path), place=f"line {line}",
                         fix="give a file written by toolscore agent run or regrade")
    return summary
