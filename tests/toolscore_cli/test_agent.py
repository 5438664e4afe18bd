"""``toolscore agent run`` end to end: a real agent command, parallel trials, Ctrl-C, resume,
then a regrade of its JSONL under a changed spec."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import read_rows, run_cli
from toolscore_cli.study_regrade import regrade_jsonl
from toolscore_core.canonical import canonical_sha256

TOOLSCORE = [sys.executable, "-m", "toolscore_cli"]


def _agent(study_dir: Path) -> str:
    return f"{sys.executable} {study_dir / 'plan_agent.py'}"


def _run(args: list[str], env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``toolscore`` in this process; ``env`` holds the variables it sets for the agents."""
    return run_cli(*args, env=env, cwd=cwd)


def test_agent_run_records_every_trial_in_parallel(study_dir: Path) -> None:
    out = study_dir / "runs.jsonl"
    result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
                   _agent(study_dir), "-o", str(out), "--trials", "3", "--jobs", "2",
                   "--timeout", "20", "--json", str(study_dir / "summary.json")])
    assert result.returncode == 0, result.stderr
    rows = read_rows(out)
    assert sorted((r["task_id"], r["trial"]) for r in rows) == sorted(
        (t, n) for t in ("weather", "book", "flaky") for n in (1, 2, 3))
    outcomes = {(r["task_id"], r["trial"]): r["outcome"] for r in rows}
    assert outcomes[("flaky", 2)] == "failed"
    assert sum(o == "passed" for o in outcomes.values()) == 8
    summary = json.loads((study_dir / "summary.json").read_text())
    flaky = next(t for t in summary["tasks"] if t["task_id"] == "flaky")
    assert flaky["pass_rate"] == round(2 / 3, 12) and flaky["pass_k"] == 0.0
    assert flaky["pass_hat_k"]["1"] == 2 / 3
    assert "Study plan-agent" in result.stdout and "88.9%" in result.stdout


def test_timeouts_and_crashes_are_recorded_not_dropped(study_dir: Path) -> None:
    out = study_dir / "runs.jsonl"
    env = {"PLAN_AGENT_MODE": "hang"}
    result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
                   _agent(study_dir), "-o", str(out), "--tasks", "weather,book", "--jobs", "2",
                   "--timeout", "1", "--no-progress"], env=env)
    assert result.returncode == 1, result.stderr  # every run is written, then exit 1
    assert f"2 runs of 2 ended in an error (see the error field of those rows in {out})" in (
        result.stderr)
    rows = read_rows(out)
    assert [r["outcome"] for r in rows] == ["error", "error"]
    assert {r["error"]["kind"] for r in rows} == {"timeout"}


@pytest.mark.process  # SIGINT to a running command
def test_interrupt_midway_then_resume(study_dir: Path) -> None:
    out = study_dir / "runs.jsonl"
    args = ["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
            _agent(study_dir), "-o", str(out), "--trials", "3", "--jobs", "2", "--no-progress"]
    env = {"PLAN_AGENT_DELAY": "0.6"}
    process = subprocess.Popen([*TOOLSCORE, *args], env={**os.environ, **env},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if out.exists() and len(out.read_bytes().splitlines()) >= 2:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "--resume" in stderr
    kept = out.read_bytes()
    first = [json.loads(line) for line in kept.splitlines()]
    assert 2 <= len(first) < 9
    result = _run([*args, "--resume"], env=env)
    assert result.returncode == 0, result.stderr
    assert f"resuming: {len(first)} runs already" in result.stderr
    assert out.read_bytes().startswith(kept)  # finished runs untouched
    rows = read_rows(out)
    assert sorted((r["task_id"], r["trial"]) for r in rows) == sorted(
        (t, n) for t in ("weather", "book", "flaky") for n in (1, 2, 3))


def test_an_existing_output_needs_resume_or_overwrite(study_dir: Path) -> None:
    out = study_dir / "runs.jsonl"
    out.write_text("{}\n")
    result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
                   _agent(study_dir), "-o", str(out)])
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "--resume" in result.stderr
    assert "Traceback" not in result.stderr


def test_regrade_the_runs_under_a_changed_spec(study_dir: Path, capsys: object) -> None:
    out = study_dir / "runs.jsonl"
    result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
                   _agent(study_dir), "-o", str(out), "--trials", "3", "--jobs", "2",
                   "--no-progress"])
    assert result.returncode == 0, result.stderr
    spec = (study_dir / "study.yaml").read_text()
    # v2: the weather task now wants Fahrenheit; the flaky task wants the wrong tool.
    v2 = spec.replace("unit: {$oneof: [celsius, metric]}", "unit: fahrenheit").replace(
        "- tool: lookup\n        args: {id: {$type: int}}", "- tool: wrong_tool")
    assert v2 != spec
    (study_dir / "study-v2.yaml").write_text(v2)
    regraded = study_dir / "runs.v2.jsonl"
    code = regrade_jsonl(str(out), output=str(regraded), spec=str(study_dir / "study-v2.yaml"),
                         gold=None, weights=None, jobs=2)
    assert code == 0
    old_lines = out.read_bytes().splitlines()
    new_rows = read_rows(regraded)
    assert len(new_rows) == len(old_lines)
    for line, new in zip(old_lines, new_rows, strict=True):
        old = json.loads(line)
        assert new["regraded"]["from_sha256"] == canonical_sha256(old)
        # the evidence is byte-identical: calls with results, and the final answer
        assert json.dumps(new["calls"], sort_keys=True).encode() == json.dumps(
            old["calls"], sort_keys=True).encode()
        assert new["final_answer"] == old["final_answer"]
        expected = {"weather": "failed", "book": "passed", "flaky": (
            "passed" if old["outcome"] == "failed" else "failed")}[old["task_id"]]
        assert new["outcome"] == expected, (old["task_id"], old["trial"])
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "Flipped: weather, flaky." in printed
    assert "9 rows: 9 regraded, 0 written through unchanged." in printed


def test_bad_options_are_refused_before_the_output_is_touched(study_dir: Path) -> None:
    out = study_dir / "runs.jsonl"
    for extra in (["--jobs", "0"], ["--trials", "0"], ["--timeout", "0"], ["--tasks", "nope"]):
        result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
                       _agent(study_dir), "-o", str(out), *extra])
        assert result.returncode == 2, extra
        assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
        assert not out.exists()


def test_an_agent_command_that_cannot_be_found_exits_2_before_any_run(
    study_dir: Path,
) -> None:
    out = study_dir / "runs.jsonl"
    for agent in ("pyhton3 agent.py", "./no-such-agent --fast"):
        result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
                       agent, "-o", str(out)], cwd=study_dir)
        assert result.returncode == 2
        name = agent.split()[0]
        assert result.stderr == (f"error: --agent: command {name!r} not found or not "
                                 "executable; check the name, or give its path\n")
        assert not out.exists()


def test_fail_under_gates_the_pass_rate_and_prints_it(study_dir: Path) -> None:
    """3 tasks x 2 trials: flaky's second trial fails, so 5 of 6 runs pass (83.3%)."""
    out = study_dir / "runs.jsonl"
    common = ["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
              _agent(study_dir), "-o", str(out), "--trials", "2", "--no-progress"]
    high = _run([*common, "--fail-under", "90%"])
    assert high.returncode == 1, high.stderr
    assert high.stdout.splitlines()[-1] == (
        "pass rate 83.3% (5 of 6 runs) is below --fail-under 90%")
    low = _run(["summary", str(out), "--fail-under", "0.8"])
    assert low.returncode == 0, low.stderr
    again = _run(["summary", str(out), "--fail-under", "0.9"])
    assert again.returncode == 1
    assert again.stdout.splitlines()[-1] == (
        "pass rate 83.3% (5 of 6 runs) is below --fail-under 0.9")
    grade = _run(["summary", str(out), "--fail-under", "B"])
    assert grade.returncode == 2
    assert grade.stderr.startswith("error: --fail-under: bad threshold 'B': a grade is not a "
                                   "pass rate")


def test_fail_under_on_an_empty_runs_file_is_not_a_pass(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text("", encoding="utf-8")
    result = _run(["summary", str(runs), "--fail-under", "50%"])
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == (
        "no runs, so the pass rate is unknown: not over --fail-under 50%")


def test_the_ray_engine_without_ray_is_one_line_naming_the_extra(
        study_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` does without [ray]
    out = study_dir / "runs.jsonl"
    result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"),
                   "--agent", _agent(study_dir), "-o", str(out), "--engine", "ray"])
    assert result.returncode == 2
    assert result.stderr == ("error: --engine: the ray engine needs Ray, which is not installed; "
                             "pip install 'toolscore[ray]', or leave --engine out for the local "
                             "engine\n")
    assert not out.exists()


def test_a_ray_address_without_the_ray_engine_is_refused(study_dir: Path) -> None:
    out = study_dir / "runs.jsonl"
    result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
                   _agent(study_dir), "-o", str(out), "--ray-address", "10.0.0.1:6379"])
    assert result.returncode == 2
    assert result.stderr == ("error: --ray-address: a Ray address is for the ray engine; add "
                             "--engine ray, or leave the address out\n")
    assert not out.exists()


def test_non_finite_seconds_are_refused(study_dir: Path) -> None:
    out = study_dir / "runs.jsonl"
    for extra in (["--timeout", "nan"], ["--timeout", "inf"], ["--judge-timeout", "nan"]):
        result = _run(["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
                       _agent(study_dir), "-o", str(out), *extra])
        assert result.returncode == 2, extra
        assert "finite number of seconds" in result.stderr and "Traceback" not in result.stderr
        assert not out.exists()


@pytest.mark.process  # two commands, one runs file: the lock between processes
def test_a_second_agent_run_on_the_same_runs_file_exits_2(study_dir: Path) -> None:
    out = study_dir / "runs.jsonl"
    args = ["agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
            _agent(study_dir), "-o", str(out), "--no-progress", "--resume"]
    first = subprocess.Popen([*TOOLSCORE, *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env={**os.environ, "PLAN_AGENT_DELAY": "3"})
    try:
        deadline = time.monotonic() + 30
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        second = _run(args)
        assert second.returncode == 2
        assert "another command is writing this runs file" in second.stderr
        assert second.stderr.count("\n") == 1
    finally:
        assert first.wait(timeout=60) == 0
    assert sorted((r["task_id"], r["trial"]) for r in read_rows(out)) == [
        ("book", 1), ("flaky", 1), ("weather", 1)]


@pytest.mark.process  # SIGKILL to the command: its agents die with it
def test_agents_die_with_a_sigkilled_agent_run(study_dir: Path, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    out = study_dir / "runs.jsonl"
    process = subprocess.Popen(
        [*TOOLSCORE, "agent", "run", "--spec", str(study_dir / "study.yaml"), "--agent",
         _agent(study_dir), "-o", str(out), "--jobs", "2", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PLAN_AGENT_DELAY": "120", "PLAN_AGENT_PID_DIR": str(pids)})
    deadline = time.monotonic() + 30
    while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    agents = [int(p.read_text()) for p in pids.iterdir()]
    assert len(agents) == 2
    process.kill()
    process.wait(timeout=10)

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    deadline = time.monotonic() + 10
    while any(map(alive, agents)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(alive, agents))
