from __future__ import annotations

import itertools
import math

from hypothesis import given
from hypothesis import strategies as st

from toolscore_studies.summary import Measured, StudySummary, pass_hat_k, study_pass_hat_k


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
    assert a["pass_hat_k"] == {"1": 1 / 3}  # k = 1 (b has one run): only the k shown
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


def test_pass_hat_k_of_many_trials_matches_the_binomials() -> None:
    """The product form gives C(c,k)/C(n,k) for large n and k, to a few ulps."""
    for n, c, k in [(10_000, 9_000, 8), (10_000, 5_000, 5_000), (2_000, 1_999, 1_000)]:
        exact = math.comb(c, k) / math.comb(n, k)
        assert math.isclose(pass_hat_k(n, c, k), exact, rel_tol=1e-9)  # type: ignore[arg-type]


@given(st.lists(st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
                min_size=1, max_size=5), st.integers(1, 6))
def test_study_pass_hat_k_is_the_mean_of_the_tasks(tasks: list[tuple[int, int]], k: int) -> None:
    value = study_pass_hat_k(tasks, k)
    if any(n < k for n, _ in tasks):
        assert value is None  # a task without k trials: unknown, not left out
    else:
        brute = sum(_brute_force(n, c, k) for n, c in tasks) / len(tasks)
        assert value is not None and math.isclose(value, brute, abs_tol=1e-11)


def test_summary_gives_pass_k_for_the_study_and_only_the_ks_asked() -> None:
    summary = StudySummary()
    for task, outcomes in (("a", "PPPF"), ("b", "PPPP"), ("c", "FPFP")):
        for o in outcomes:
            summary.add_row(_row(task, "passed" if o == "P" else "failed", 1.0))
    data = summary.to_dict(2, extra_ks=[3])
    a, b, c = data["tasks"]
    assert a["pass_hat_k"] == {"1": 0.75, "2": 0.5, "3": 0.25} and a["pass_k"] == 0.5
    assert b["pass_k"] == 1.0 and c["pass_k"] == 1 / 6
    total = data["total"]
    assert total["pass_k"] == round((0.5 + 1.0 + 1 / 6) / 3, 12)
    assert total["pass_hat_k"] == {"1": 0.75, "2": total["pass_k"],
                                   "3": round((0.25 + 1.0 + 0.0) / 3, 12)}
    assert summary.to_dict(5)["total"]["pass_k"] is None  # no task has 5 trials


def test_summary_of_a_hundred_thousand_runs_computes_no_more_than_it_shows() -> None:
    """10 tasks of 10,000 trials: the default k is 10,000 and only k = 1 and 10,000 are
    computed (every k up to n was 10,000 binomials of thousands of digits per task)."""
    summary = StudySummary()
    for task in range(10):
        for trial in range(10_000):
            summary.add(f"t{task}", "passed" if trial % 10 else "failed", 1.0, None, None,
                        None)
    data = summary.to_dict()
    assert data["k"] == 10_000
    assert data["total"]["pass_hat_k"] == {"1": 0.9, "10000": 0.0}
    assert data["tasks"][0]["pass_hat_k"] == {"1": 0.9, "10000": 0.0}


def _evaluation(**statuses: str) -> dict:
    return {"evidence": {"checks": [{"check": c, "status": s, "reason": "r"}
                                    for c, s in statuses.items()]}}


def test_check_flips_name_each_changed_status_and_never_guess_a_before() -> None:
    from toolscore_studies.summary import check_flips

    after = {"a": "pass", "b": "unknown", "c": "fail"}
    assert check_flips(_evaluation(a="pass", b="pass", d="fail"), after) == (
        ("b", "pass", "unknown"), ("c", None, "fail"), ("d", "fail", None))
    # a row without a readable list of checks has no before: nothing is said to have flipped
    assert check_flips({"score": 1.0}, after) == ()
    assert check_flips(_evaluation(a="maybe"), after) == ()
    assert check_flips(None, after) == ()
    assert check_flips(_evaluation(a="pass"), None) == ()
