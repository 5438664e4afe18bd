"""``toolscore runs import``: a benchmark's results in, a runs file out, one line on bad input."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.helpers import EXAMPLES, run_cli
from toolscore_cli.app import cli

TAU = EXAMPLES / "benchmarks" / "tau_bench" / "gpt-4o-airline.json"
BFCL = EXAMPLES / "benchmarks" / "bfcl"


def test_import_prints_the_benchmark_s_own_summary(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(cli, ["runs", "import", "tau_bench", str(TAU), "-o", str(out),
                                      "--study", "airline"])
    assert result.exit_code == 0, result.output
    assert "Study airline" in result.output and "pass^4" in result.output
    all_row = next(line for line in result.output.splitlines() if "(all)" in line)
    assert "58.3%" in all_row and "0.333" in all_row
    assert result.output.rstrip().endswith(
        "outcomes are the benchmark's own verdicts (imported.verdict).")
    assert json.loads(out.read_text().splitlines()[0])["study"] == "airline"
    summary = CliRunner().invoke(cli, ["summary", str(out), "--fail-under", "pass^2=0.4"])
    assert summary.exit_code == 1  # (0 + 1 + 1/6) / 3 = 0.389


def test_import_with_a_gold_file_evaluates_each_run(tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "transfer_to_human_agents"}]')
    out = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(cli, ["runs", "import", "bfcl", str(
        BFCL / "result" / "BFCL_v4_multiple_result.json"), "-o", str(out), "--gold", str(gold)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["evaluation"] is not None and "regraded" in r for r in rows)
    assert all(r["imported"]["verdict"] == {"passed": None} for r in rows)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    for args, expected in [
        (["runs", "import", "tau", str(TAU), "-o", str(out)],
         "error: FORMAT: unknown results format 'tau'; use one of agentdojo, bfcl, inspect_ai, "
         "tau2_bench, tau_bench"),
        (["runs", "import", "bfcl", str(TAU), "-o", str(out), "--input", "score"],
         "error: --input: bad input 'score'; write NAME=PATH"),
        (["runs", "import", "bfcl", str(TAU), "-o", str(out)],
         f"error: {TAU}: line 1: not valid JSON"),
    ]:
        done = run_cli(*args)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(expected) and done.stderr.count("\n") == 1
        assert done.stdout == "" and not out.exists()


def test_junit_of_imported_runs_says_the_benchmark_failed_them(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    CliRunner().invoke(cli, ["runs", "import", "tau_bench", str(TAU), "-o", str(out)])
    result = CliRunner().invoke(cli, ["summary", str(out), "--junit", str(tmp_path / "j.xml")])
    assert result.exit_code == 0, result.output
    junit = (tmp_path / "j.xml").read_text()
    assert 'tests="12" failures="5"' in junit
    assert ('message="failed by the benchmark\'s own verdict (r_actions 0.0, reward 0.0)"'
            in junit)
