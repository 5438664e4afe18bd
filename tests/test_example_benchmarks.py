"""examples/benchmarks/: the commands its README shows give the verdicts it states."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLES
from toolscore_studies.importing import import_runs
from toolscore_studies.regrade import RegradeSettings, regrade_file

HERE = EXAMPLES / "benchmarks"


def _outcomes(path: Path) -> dict[tuple[str, int], str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {(r["task_id"], r["trial"]): r["outcome"] for r in rows}


def test_bfcl_differs_only_where_a_rule_is_not_statable_today(tmp_path: Path) -> None:
    bfcl = HERE / "bfcl"
    flips = {}
    for category in ("simple_python", "multiple", "parallel"):
        runs = tmp_path / f"{category}.jsonl"
        import_runs("bfcl", str(bfcl / "result" / f"BFCL_v4_{category}_result.json"), str(runs),
                    inputs={"score": str(bfcl / "score" / f"BFCL_v4_{category}_score.json"),
                            "questions": str(bfcl / f"BFCL_v4_{category}.json")})
        summary = regrade_file(runs, tmp_path / f"{category}.v2.jsonl",
                               RegradeSettings(spec=str(bfcl / "study.yaml")))
        assert summary.written_through == 0
        flips.update({task: (f.to_pass, f.to_fail) for task, f in summary.flips.items()})
    # the float interval answered as integers: BFCL fails it, equality takes 1 == 1.0
    assert flips == {"simple_python_13": (1, 0)}


def test_tau_bench_agrees_on_the_write_task_and_cannot_pass_the_others(tmp_path: Path) -> None:
    runs = tmp_path / "tau.jsonl"
    import_runs("tau_bench", str(HERE / "tau_bench" / "gpt-4o-airline.json"), str(runs))
    before = _outcomes(runs)
    regrade_file(runs, tmp_path / "tau.v2.jsonl",
                 RegradeSettings(spec=str(HERE / "tau_bench" / "study.yaml")))
    after = _outcomes(tmp_path / "tau.v2.jsonl")
    assert {k: v for k, v in after.items() if k[0] == "1"} == {
        k: v for k, v in before.items() if k[0] == "1"}
    assert before[("1", 2)] == "passed"
    assert {v for k, v in after.items() if k[0] in ("35", "44")} == {"failed"}
