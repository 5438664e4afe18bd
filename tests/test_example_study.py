"""examples/studies/ works from a fresh clone, with the commands docs/studies.md shows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import EXAMPLES, run_cli
from toolscore_core.canonical import canonical_sha256


def test_the_example_study_runs_and_regrades_as_documented(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "studies", tmp_path / "examples" / "studies")
    run = run_cli("agent", "run", "--spec", "examples/studies/study.yaml", "--agent",
                  "python examples/studies/agent.py", "-o", "runs.jsonl", "--trials", "3",
                  "--jobs", "2", "--no-progress", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    outcomes = {(r["task_id"], r["trial"]): r["outcome"] for r in rows}
    # v1's refund names no amount, and the agent gives one: not v1's required refund
    assert outcomes == {("weather", n): "failed" for n in (1, 2, 3)} | {
        ("book", n): "passed" for n in (1, 2, 3)} | {("refund", n): "failed" for n in (1, 2, 3)}
    assert all(r["cost"] == 0.00585 and r["cost_source"] == "pricing" for r in rows)
    assert "│ (all)   │    9 │      3 │" in run.stdout

    regrade = run_cli("regrade", "runs.jsonl", "--spec", "examples/studies/study-v2.yaml",
                      "-o", "runs.v2.jsonl", cwd=tmp_path)
    assert regrade.returncode == 0, regrade.stderr
    assert "9 rows: 9 regraded, 0 written through unchanged. Flipped: weather, refund." in (
        regrade.stdout)
    after = [json.loads(line) for line in (tmp_path / "runs.v2.jsonl").read_text().splitlines()]
    for old, new in zip(rows, after, strict=True):
        assert new["regraded"]["from_sha256"] == canonical_sha256(old)
        assert (new["calls"], new["final_answer"]) == (old["calls"], old["final_answer"])
    assert [r["outcome"] for r in after if r["task_id"] == "weather"] == ["passed"] * 3

    summary = run_cli("summary", "runs.v2.jsonl", "--json", "-", cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    tasks = {t["task_id"]: t for t in json.loads(summary.stdout)["tasks"]}
    assert tasks["weather"]["pass_rate"] == 1.0 and tasks["refund"]["passed"] == 2
