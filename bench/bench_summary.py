"""Benchmark: `toolscore summary` of 100,000 runs over 10 tasks (10,000 trials each).

    python bench/bench_summary.py            # 100,000 runs
    python bench/bench_summary.py --quick    # 10,000 runs

Prints the seconds `toolscore summary runs.jsonl --json s.json` takes in a fresh process
(the default k is then 10,000: pass^k of every task and of the study) against the target
of a few seconds, then the same with `--fail-under pass^3=0.5`, and with `--junit` (which
reads the file once more, for the cases and the counts their opening tags carry). The rows are
genuine `run_study` records (one call each, about 2.7 KiB), cycled with their own trial
numbers. Data goes to bench/data/ (git-ignored) and is deleted after use.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
TASKS = 10
TRIAL_SENTINEL = 987654321
TARGET_SECONDS = 10.0
"""A summary of 100,000 runs takes seconds (not minutes, as computing pass^k for every k
up to 10,000 did)."""


def spec() -> dict:
    return {"study": "bench", "defaults": {"pass_threshold": 0.8}, "tasks": {
        f"task{i}": {"prompt": f"Do task {i}", "expected": [
            {"tool": "lookup", "args": {"q": f"value {i}"}}]} for i in range(TASKS)}}


def templates() -> list[str]:
    """Per task a passing and a failing genuine run record, as canonical JSON lines."""
    from toolscore_core.canonical import canonical_json
    from toolscore_core.models import ToolCall
    from toolscore_studies.runner import run_study

    def agent(prompt: str) -> object:
        task = prompt.split()[-1]
        wrong = agent.calls % 2  # type: ignore[attr-defined]
        agent.calls += 1  # type: ignore[attr-defined]
        return [ToolCall(tool="lookup", args={"q": f"value {task}" + (" x" if wrong else "")},
                         id="call_1", result={"rows": [1, 2, 3]}, is_error=False,
                         duration=0.2)], f"Found it for task {task}."

    agent.calls = 0  # type: ignore[attr-defined]
    records = run_study(spec(), agent, trials=2)
    return [canonical_json(dict(r, trial=TRIAL_SENTINEL,
                                run_id=f"bench:{r['task_id']}:{TRIAL_SENTINEL}"))
            for r in records]


def generate(path: Path, rows: int) -> None:
    """``rows`` runs, task by task; three runs in ten fail."""
    lines = templates()
    by_task: dict[str, list[str]] = {}
    for line in lines:
        task = line.split('"task_id":"', 1)[1].split('"', 1)[0]
        by_task.setdefault(task, []).append(line)
    assert len(by_task) == TASKS, by_task.keys()
    per_task = rows // TASKS
    DATA.mkdir(exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for passing, failing in by_task.values():
            for trial in range(1, per_task + 1):
                line = failing if trial % 10 in (3, 6, 9) else passing
                handle.write(line.replace(str(TRIAL_SENTINEL), str(trial)) + "\n")


def timed(args: list[str]) -> tuple[float, int]:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "toolscore_cli", *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr)
    return seconds, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 runs")
    rows = 10_000 if parser.parse_args().quick else 100_000
    runs = DATA / "summary-runs.jsonl"
    try:
        generate(runs, rows)
        size = runs.stat().st_size / 2**20
        print(f"{rows:,} runs over {TASKS} tasks ({size:.0f} MiB), load {os.getloadavg()[0]:.1f}")
        out = [DATA / "s.json", DATA / "j.xml"]
        seconds, _ = timed(["summary", str(runs), "--json", str(out[0])])
        print(f"  summary --json (default k = {rows // TASKS:,}): {seconds:.2f} s "
              f"(target: under {TARGET_SECONDS:.0f} s) "
              f"{'OK' if seconds < TARGET_SECONDS else 'MISSED'}")
        seconds, code = timed(["summary", str(runs), "--fail-under", "pass^3=0.5"])
        print(f"  summary --fail-under pass^3=0.5: {seconds:.2f} s (exit {code})")
        seconds, _ = timed(["summary", str(runs), "--junit", str(out[1])])
        print(f"  summary --junit: {seconds:.2f} s")
    finally:
        for path in (runs, DATA / "s.json", DATA / "j.xml"):
            path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
