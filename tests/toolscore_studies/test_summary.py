from __future__ import annotations

import itertools
import math

from hypothesis import given
from hypothesis import strategies as st

from toolscore_studies.summary import Measured, StudySummary, pass_hat_k


def _brute_force(n: int, c: int, k: int) -> float:
    """The share of k-subsets of n trials (c of them passing) in which all k pass."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    return sum(all(s) for s in subsets) / len(subsets)


@given(st.integers(1, 9).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_hat_k_is_the_share_of_k_subsets_that_all_pass(case: tuple[int, int, int]) -> None:
    n, c, k = case
    assert math.isclose(pass_hat_k(n, c, k), _brute_force(n, c, k))  # type: ignore[arg-type]


def test_pass_hat_k_edges() -> None:
    assert pass_hat_k(3, 2, 1) == 2 / 3
    assert pass_hat_k(3, 2, 3) == 0.0
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(2, 2, 3) is None


def test_measured_partial_unknown() -> None:
    m = Measured()
    assert m.to_dict()["status"] == "unknown" and m.to_dict()["total"] is None
    m.add(None)
    assert m.to_dict() == {"status": "unknown", "total": None, "mean": None,
                           "measured_runs": 0, "runs": 1}
    m.add(0.0)
    assert m.to_dict()["status"] == "partial" and m.to_dict()["total"] == 0.0
    full = Measured()
    full.add(1.0)
    full.add(2.0)
    assert full.to_dict()["status"] == "measured" and full.to_dict()["mean"] == 1.5


def _row(task: str, outcome: str, score: float | None, cost: float | None = None) -> dict:
    evaluation = None if outcome == "error" else {
        "score": score, "evidence": {"counts": {"pass": 2, "fail": 0, "unknown": 1}}}
    return {"kind": "toolscore.agent_run", "study": "s", "task_id": task, "outcome": outcome,
            "evaluation": evaluation, "duration": 1.0, "cost": cost}


def test_summary_per_task_counts_errors_as_not_passed() -> None:
    summary = StudySummary()
    for row in [_row("a", "passed", 1.0, 0.1), _row("a", "failed", 0.5), _row("a", "error", None),
                _row("b", "passed", 0.9)]:
        summary.add_row(row)
    data = summary.to_dict()
    assert data["k"] == 1
    a, b = data["tasks"]
    assert (a["runs"], a["passed"], a["failed"], a["errors"]) == (3, 1, 1, 1)
    assert a["pass_rate"] == round(1 / 3, 12)
    assert a["pass_hat_k"] == {"1": 1 / 3, "2": 0.0, "3": 0.0}
    assert a["mean_score"] == 0.75 and a["scored_runs"] == 2
    assert a["evidence"] == {"pass": 4, "fail": 0, "unknown": 2}
    assert a["cost"]["status"] == "partial" and a["cost"]["total"] == 0.1
    assert b["cost"]["status"] == "unknown" and b["cost"]["total"] is None
    assert data["total"]["runs"] == 4 and data["total"]["passed"] == 2


def test_fields_a_row_does_not_hold_as_numbers_are_unknown_not_a_crash() -> None:
    """A hand-edited runs file: an evaluation that is text, counts that are not whole
    numbers, a score or a duration of true. Each is unknown (true is not 1), and the other
    rows still count."""
    summary = StudySummary()
    edited = [
        {**_row("a", "passed", 1.0), "evaluation": "looked fine"},
        {**_row("a", "passed", 1.0), "evaluation": {"score": True, "evidence": {
            "counts": {"pass": "2", "fail": 0, "unknown": 0}}}},
        {**_row("a", "failed", 0.5), "duration": True, "cost": "0.1"},
    ]
    for row in edited:
        summary.add_row(row)
    (a,) = summary.to_dict()["tasks"]
    assert (a["runs"], a["passed"], a["failed"]) == (3, 2, 1)
    assert a["mean_score"] == 0.5 and a["scored_runs"] == 1
    assert a["evidence"] == {"pass": 2, "fail": 0, "unknown": 1}  # the third row's alone
    assert a["duration"]["measured_runs"] == 2 and a["cost"]["status"] == "unknown"
