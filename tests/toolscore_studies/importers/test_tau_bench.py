"""The τ-bench importer on real gpt-4o airline trajectories (examples/benchmarks/tau_bench)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES, read_rows
from tests.toolscore_studies.importers import assert_refused
from toolscore_studies.importing import import_runs
from toolscore_studies.summary import summarize_file

RESULTS = EXAMPLES / "benchmarks" / "tau_bench" / "gpt-4o-airline.json"


def test_each_result_is_a_run_with_its_calls_answer_and_reward(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    assert import_runs("tau_bench", str(RESULTS), str(out)) == 12
    rows = {(r["task_id"], r["trial"]): r for r in read_rows(out)}
    source = json.loads(RESULTS.read_text(encoding="utf-8"))
    first = next(e for e in source if e["task_id"] == 1 and e["trial"] == 1)
    row = rows[("1", 2)]  # τ-bench counts trials from 0
    assert row["outcome"] == "passed" and row["passed"] is True
    assert row["imported"]["verdict"] == {"passed": True, "reward": 1.0, "r_actions": 1.0}
    assert row["prompt"] == first["info"]["task"]["instruction"]
    cancel = [c for c in row["calls"] if c["tool"] == "cancel_reservation"]
    assert cancel and cancel[0]["args"] == first["info"]["task"]["actions"][0]["kwargs"]
    assert all(c["result"] is not None and c["is_error"] is False for c in row["calls"])
    replies = [m["content"] for m in first["traj"] if m["role"] == "assistant" and m["content"]]
    assert row["final_answer"] == replies[-1]
    assert row["evaluation"] is None and "evaluation" in row["unknown"]
    assert row["imported"]["source"] == "gpt-4o-airline.json"
    assert row["imported"]["plugin"]["name"] == "toolscore_studies.importers.tau_bench"
    assert rows[("1", 1)]["outcome"] == "failed"


def test_the_summary_gives_tau_bench_s_own_pass_k(tmp_path: Path) -> None:
    """Task 1 passes 1 of 4 trials, task 35 all 4, task 44 two: τ-bench's pass^k is the mean
    over tasks of C(c,k)/C(4,k)."""
    out = tmp_path / "runs.jsonl"
    import_runs("tau_bench", str(RESULTS), str(out))
    total = summarize_file(out).to_dict(4, extra_ks=[2])["total"]
    assert total["pass_hat_k"]["1"] == round((1 / 4 + 1 + 2 / 4) / 3, 12)
    assert total["pass_hat_k"]["2"] == round((0 + 1 + 1 / 6) / 3, 12)
    assert total["pass_hat_k"]["4"] == round(1 / 3, 12)


def test_importing_again_gives_the_same_bytes(tmp_path: Path) -> None:
    import_runs("tau_bench", str(RESULTS), str(tmp_path / "a.jsonl"))
    import_runs("tau_bench", str(RESULTS), str(tmp_path / "b.jsonl"))
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


@pytest.mark.parametrize(("document", "message"), [
    ({"task_id": 1}, r"bad\.json: \$: not a list of results; give a τ-bench results file"),
    ([{"task_id": 1, "reward": 1.0}], r"\$\[0\]\.traj: \"traj\" must be the run's list"),
    ([{"task_id": 1, "reward": 1.0, "trial": -1, "traj": []}], r"\$\[0\]\.trial: "),
    ([{"task_id": 1, "reward": 1.0, "traj": [{"role": "assistant", "tool_calls": "x"}]}],
     r"bad\.json: \$\[0\]\.traj"),
])
def test_a_bad_file_is_one_line_naming_the_place_and_nothing_is_written(
        tmp_path: Path, document: object, message: str) -> None:
    assert_refused(tmp_path, "tau_bench", document, message)


def test_a_run_that_crashed_keeps_its_error_in_the_verdict(tmp_path: Path) -> None:
    """τ-bench records a run that raised with reward 0, no trajectory and info.error."""
    crashed = tmp_path / "results.json"
    crashed.write_text(json.dumps([{"task_id": 3, "reward": 0.0, "trial": 0, "traj": [],
                                    "info": {"error": "RateLimitError", "traceback": "..."}}]))
    out = tmp_path / "runs.jsonl"
    import_runs("tau_bench", str(crashed), str(out))
    (row,) = read_rows(out)
    assert (row["outcome"], row["calls"], row["final_answer"]) == ("failed", [], None)
    assert row["imported"]["verdict"] == {"passed": False, "reward": 0.0,
                                          "error": "RateLimitError"}
