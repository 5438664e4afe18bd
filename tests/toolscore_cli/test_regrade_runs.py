"""``toolscore regrade runs.jsonl`` through the real CLI, on runs a real ``toolscore agent run``
recorded, then ``toolscore summary`` of the regraded file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import AGENTS, read_rows, run_cli
from toolscore_core.canonical import canonical_json, canonical_sha256


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs")
    for name in ("study.yaml", "study-v2.yaml"):
        (folder / name).write_bytes((AGENTS / name).read_bytes())
    result = run_cli("agent", "run", "--spec", str(folder / "study.yaml"), "--agent",
                     f"{sys.executable} {AGENTS / 'plan_agent.py'}", "-o",
                     str(folder / "runs.jsonl"), "--trials", "2", "--jobs", "2", "--no-progress")
    assert result.returncode == 0, result.stderr
    return folder


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def _evidence_kept(before: bytes, after: bytes) -> None:
    """The calls and the final answer are byte for byte the ones recorded."""
    old = json.loads(before)
    for key in ("calls", "final_answer", "prompt", "trace", "started_at", "duration"):
        piece = f'"{key}":{canonical_json(old[key])}'.encode()
        assert piece in before and piece in after, key


def test_regrade_under_a_new_spec(recorded: Path, tmp_path: Path) -> None:
    runs = recorded / "runs.jsonl"
    original = runs.read_bytes()
    out = tmp_path / "runs.v2.jsonl"
    result = run_cli("regrade", str(runs), "--spec", str(recorded / "study-v2.yaml"),
                     "-o", str(out), "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert runs.read_bytes() == original
    assert "6 rows: 4 regraded, 2 written through unchanged. Flipped: weather." in result.stdout
    # `agent run --jobs 2` appends runs as they end, so where the flaky runs sit varies
    flaky = [n for n, line in enumerate(_lines(runs), start=1)
             if json.loads(line)["task_id"] == "flaky"]
    assert len(flaky) == 2
    for n in flaky:
        assert f"line {n}: task 'flaky' is not in the new spec (written through unchanged)" in (
            result.stderr)
    for before, after in zip(_lines(runs), _lines(out), strict=True):
        old, new = json.loads(before), json.loads(after)
        assert (old["task_id"], old["trial"]) == (new["task_id"], new["trial"])
        if old["task_id"] == "flaky":
            assert after == before  # not in v2: written through untouched
            continue
        _evidence_kept(before, after)
        assert new["regraded"]["from_sha256"] == canonical_sha256(old)
        assert new["regraded"]["spec_sha256"] is not None
        assert (new["contract"] != old["contract"]) == (old["task_id"] == "weather")
        # v1 accepted celsius; v2 wants fahrenheit: weather flips, book does not.
        expected = "failed" if old["task_id"] == "weather" else old["outcome"]
        assert (old["outcome"], new["outcome"]) == ("passed", expected)
        assert new["record_sha256"] == canonical_sha256(new["evaluation"])


def test_regrade_with_gold_weights_and_jobs(recorded: Path, tmp_path: Path) -> None:
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps([{"tool": "get_weather", "args": {"city": "Paris"}}]))
    out = tmp_path / "runs.gold.jsonl"
    table = tmp_path / "regrade.json"
    result = run_cli("regrade", str(recorded / "runs.jsonl"), "--gold", str(gold), "--weight",
                     "argument_f1=0.9", "--weight", "selection_accuracy=0.1", "-o", str(out),
                     "--jobs", "2", "--json", str(table))
    assert result.returncode == 0, result.stderr
    for before, after in zip(_lines(recorded / "runs.jsonl"), _lines(out), strict=True):
        _evidence_kept(before, after)
        old, new = json.loads(before), json.loads(after)
        assert new["regraded"]["from_sha256"] == canonical_sha256(old)
        assert new["regraded"]["weights"] == {"argument_f1": 0.9, "selection_accuracy": 0.1}
        assert new["contract"]["expected"] == [
            {"tool": "get_weather", "args": {"city": "Paris"}, "required": True}]
        weights = new["evaluation"]["weights"]
        # The overrides replace those two weights; the others keep their defaults.
        assert weights["argument_f1"] == pytest.approx(9 * weights["selection_accuracy"])
        assert sum(weights.values()) == pytest.approx(1.0)
        assert new["pass_threshold"] == old["pass_threshold"] == 0.9
        if old["task_id"] == "weather":
            # One of two arguments matched (the unit was never asked for): below 0.9.
            assert new["evaluation"]["score"] < 0.9 and new["outcome"] == "failed"
        else:
            assert new["evaluation"]["score"] == 0.0 and new["outcome"] == "failed"
    data = json.loads(table.read_text())
    assert data["flipped_tasks"] == ["weather", "book", "flaky"]
    assert data["after"]["runs"] == 6 and data["written_through"] == 0


def test_regrade_refuses_what_it_cannot_do_in_one_line(recorded: Path, tmp_path: Path) -> None:
    runs = recorded / "runs.jsonl"
    original = runs.read_bytes()
    receipt = tmp_path / "r.receipt.json"
    examples = Path(__file__).resolve().parents[2] / "examples"
    made = run_cli("eval", str(examples / "gold.json"), str(examples / "trace.json"),
                   "--receipt", str(receipt))
    assert receipt.exists(), made.stderr
    spec = str(recorded / "study-v2.yaml")
    cases = {
        "-o would overwrite the runs file this command reads": [
            "regrade", str(runs), "--spec", spec, "-o", str(runs)],
        "cannot be regraded with receipts or traces": [
            "regrade", str(runs), str(receipt), "--spec", spec, "-o", str(tmp_path / "x.jsonl")],
        "--forbidden is for receipts and traces": [
            "regrade", str(runs), "--forbidden", str(receipt), "--spec", spec, "-o",
            str(tmp_path / "y.jsonl")],
        "--config is for receipts and traces": [
            "regrade", str(runs), "--config", str(receipt), "--spec", spec, "-o",
            str(tmp_path / "y.jsonl")],
        "a runs file is regraded into a new file": ["regrade", str(runs), "--spec", spec],
        "--spec is for agent-run JSONL files": ["regrade", str(receipt), "--spec", spec],
    }
    for words, args in cases.items():
        result = run_cli(*args)
        assert result.returncode == 2, (words, result.stderr)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, (
            result.stderr)
        assert words in result.stderr and "Traceback" not in result.stderr
    assert runs.read_bytes() == original
    assert not (tmp_path / "x.jsonl").exists() and not (tmp_path / "y.jsonl").exists()


def test_summary_of_the_regraded_runs(recorded: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs.v2.jsonl"
    assert run_cli("regrade", str(recorded / "runs.jsonl"), "--spec",
                   str(recorded / "study-v2.yaml"), "-o", str(out)).returncode == 0
    console = run_cli("summary", str(out))
    assert console.returncode == 0, console.stderr
    assert "Study plan-agent" in console.stdout
    weather_line = next(line for line in console.stdout.splitlines() if "weather" in line)
    assert "0.0%" in weather_line and "85.0% (2/2 runs)" in weather_line
    as_json = run_cli("summary", str(out), "--json", "-")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert "Study plan-agent" in as_json.stderr  # the table moves to stderr
    tasks = {t["task_id"]: t for t in data["tasks"]}
    assert (tasks["weather"]["pass_rate"], tasks["weather"]["mean_score"]) == (0.0, 0.85)
    assert tasks["book"]["pass_rate"] == 1.0 and tasks["book"]["cost"]["total"] == 0.012
    assert tasks["flaky"]["passed"] == 1 and data["runs"] == 6


def test_an_mcp_session_named_jsonl_is_regraded_as_a_trace(recorded: Path,
                                                           tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from tests.mcp_support import record_command, sdk_stdio

    session = tmp_path / "session.jsonl"
    sdk_stdio(record_command(session), [("add", {"a": 2, "b": 3})])
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "add", "args": {"a": 2, "b": 3}}]))
    result = run_cli("regrade", str(session), "--gold", str(gold), "--json", "-")
    assert result.returncode == 0, result.stderr
    [row] = json.loads(result.stdout)["regrade"]
    assert (row["kind"], row["after"]["score"]) == ("trace", 1.0)
    mixed = run_cli("regrade", str(session), str(recorded / "runs.jsonl"), "--gold", str(gold),
                    "-o", str(tmp_path / "x.jsonl"))
    assert mixed.returncode == 2 and "cannot be regraded with receipts or traces" in (
        mixed.stderr)


def test_fail_under_gates_the_regraded_pass_rate(recorded: Path, tmp_path: Path) -> None:
    """Under v2, weather fails and flaky is written through: 3 of the 6 runs pass."""
    out = tmp_path / "runs.v2.jsonl"
    result = run_cli("regrade", str(recorded / "runs.jsonl"), "--spec",
                     str(recorded / "study-v2.yaml"), "-o", str(out), "--fail-under", "60%")
    assert result.returncode == 1, result.stderr
    last = result.stdout.splitlines()[-1]
    assert last.startswith("pass rate ") and last.endswith(" is below --fail-under 60%")
    assert out.exists()  # the regraded file is written all the same


def test_fail_under_gates_the_regraded_study_pass_k(recorded: Path, tmp_path: Path) -> None:
    """The gate reads the study's pass^K of the regraded file, computed for that K beside
    the k the table shows."""
    out = tmp_path / "runs.v2.jsonl"
    result = run_cli("regrade", str(recorded / "runs.jsonl"), "--spec",
                     str(recorded / "study-v2.yaml"), "-o", str(out),
                     "--fail-under", "pass^2=0.9", "--json", str(tmp_path / "r.json"))
    after = json.loads((tmp_path / "r.json").read_text())["after"]
    value = after["total"]["pass_hat_k"]["2"]
    assert value is not None and value < 0.9
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[-1] == (
        f"pass^2 {value:.3f} (the mean over tasks of C(c,2)/C(n,2)) is below --fail-under "
        "pass^2=0.9")


def test_a_regrade_on_ray_without_ray_is_one_line_and_writes_nothing(
        recorded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` does without [ray]
    out = tmp_path / "v2.jsonl"
    result = run_cli("regrade", str(recorded / "runs.jsonl"), "--spec",
                     str(recorded / "study-v2.yaml"), "-o", str(out), "--engine", "ray")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "pip install 'toolscore[ray]'" in result.stderr
    assert not out.exists()


def test_the_ray_engine_is_refused_for_receipts(examples: Path) -> None:
    result = run_cli("regrade", str(examples / "trace.json"), "--gold",
                     str(examples / "gold.json"), "--engine", "ray")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --engine ray: --engine ray is for agent-run JSONL")


def _statuses(row: dict[str, Any]) -> dict[str, str]:
    return {c["check"]: c["status"] for c in row["evaluation"]["evidence"]["checks"]}


def test_the_summary_counts_the_flips_of_each_check(recorded: Path, tmp_path: Path) -> None:
    runs, out, table = recorded / "runs.jsonl", tmp_path / "runs.v3.jsonl", tmp_path / "t.json"
    # v3: booking is now forbidden, and weather wants a tool the agent never calls
    spec = tmp_path / "study-v3.yaml"
    spec.write_text((recorded / "study-v2.yaml").read_text()
                    .replace("tool: delete_everything", "tool: book_flight")
                    .replace("tool: get_weather", "tool: get_forecast"))
    result = run_cli("regrade", str(runs), "--spec", str(spec), "-o", str(out),
                     "--json", str(table))
    assert result.returncode == 0, result.stderr
    counted: dict[tuple[str, str | None, str | None], int] = {}
    for old, new in zip(read_rows(runs), read_rows(out), strict=True):
        if "regraded" not in new:
            continue
        before, after = _statuses(old), _statuses(new)
        for check in {*before, *after}:
            if before.get(check) != after.get(check):
                key = (check, before.get(check), after.get(check))
                counted[key] = counted.get(key, 0) + 1
    assert {check for check, _, _ in counted} >= {"required-calls", "forbidden-calls"}
    flips = json.loads(table.read_text())["check_flips"]
    assert {(f["check"], f["before"], f["after"]): f["runs"] for f in flips} == counted
    assert "Checks that flipped" in result.stdout
    for (check, before, after), runs_flipped in counted.items():
        cells = [check, before or "(not run)", after or "(not run)", str(runs_flipped)]
        assert any(all(cell in line for cell in cells) for line in result.stdout.splitlines())


def test_a_bar_shows_the_rows_done_on_a_terminal(recorded: Path, tmp_path: Path) -> None:
    runs = recorded / "runs.jsonl"
    terminal = {"TTY_COMPATIBLE": "1"}  # rich's way to say stderr is a terminal
    shown = run_cli("regrade", str(runs), "--spec", str(recorded / "study-v2.yaml"),
                    "-o", str(tmp_path / "a.jsonl"), env=terminal)
    assert shown.returncode == 0, shown.stderr
    assert "rows" in shown.stderr and "6 done" in shown.stderr
    hidden = run_cli("regrade", str(runs), "--spec", str(recorded / "study-v2.yaml"),
                     "-o", str(tmp_path / "b.jsonl"), "--no-progress", env=terminal)
    assert hidden.returncode == 0 and "done" not in hidden.stderr
    piped = run_cli("regrade", str(runs), "--spec", str(recorded / "study-v2.yaml"),
                    "-o", str(tmp_path / "c.jsonl"))
    assert "done" not in piped.stderr
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes() \
        == (tmp_path / "c.jsonl").read_bytes()
