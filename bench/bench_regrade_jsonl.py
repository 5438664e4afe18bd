"""Benchmark: regrading agent-run JSONL (rows of 10 calls each) against its targets.

    python bench/bench_regrade_jsonl.py                 # the whole benchmark
    python bench/bench_regrade_jsonl.py --quick         # smaller sizes, for a smoke run
    python bench/bench_regrade_jsonl.py --throughput-only
    python bench/bench_regrade_jsonl.py --repeat 5      # parts 1 and 2 five times

Prints (1) rows/s regrading 20,000 rows with --jobs 2 whose calls all differ (no two rows
share an evaluation, as in a study of a non-deterministic agent), each of ``--repeat`` runs
and the best, against the target of at least 4,000 rows/s, and beside it the floor: the CPU
per row of ``evaluate()`` of the rows' calls alone (no JSON read or written), and of that
with reading each line and writing its new record, in one process, against the CPU per row
the target allows on ``--jobs`` CPUs. The rows differ
where two runs of a working agent differ: each run's call ids, results, durations and
timestamps are its own, and so is the "flag" argument, which the contract matches by type
(``$type: bool``); every third run gets one argument wrong, so some runs fail. No call
carries an argument the contract does not name: a run whose every call did would be a
broken agent, and every such pair goes to pairing's assignment (a study's regrade costs
that only where calls really differ from the contract). (2) rows/s regrading 100,000
rows where trials repeat their evidence (100 distinct call sequences, as a deterministic
agent produces), against the target of at least 5,000 rows/s; (3) peak RSS regrading
10,000 vs 1,000,000 rows, each in a fresh process, and the ratio (main process and
workers) against the target of at most 1.2x. Each figure shows the machine's load average
when it was taken (other work on a small machine moves it) and the CPU time per row of
all the regrade's processes, which other work moves far less. Data goes to bench/data/
(git-ignored) and is deleted as soon as it has been used.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
TASKS = 5
CALLS = 10
TRIAL_SENTINEL = 987654321
TARGET_DISTINCT_ROWS_PER_S = 4_000
"""Rows per second regrading rows whose calls all differ, with --jobs 2."""
TARGET_ROWS_PER_S = 5_000
"""Rows per second regrading with --jobs 2, trials repeating their evidence."""
TARGET_RSS_RATIO = 1.2
"""Peak RSS at 1,000,000 rows over that at 10,000."""


def load() -> str:
    """The 1-minute load average: on a 2-CPU machine, above 2 means work was waiting."""
    return f"{os.getloadavg()[0]:.1f}"


def spec(threshold: float = 0.8) -> dict:
    return {"study": "bench", "version": "1", "defaults": {"pass_threshold": threshold},
            "tasks": {f"task{i}": {"prompt": f"Do task {i}", "expected": [
                {"tool": f"tool{j % 4}", "args": {"q": f"value {j}", "n": j,
                                                   "flag": {"$type": "bool"}}}
                for j in range(CALLS)]} for i in range(TASKS)}}


def make_agent(variant_of: dict[str, int]):  # type: ignore[no-untyped-def]
    from toolscore_core.models import ToolCall

    def agent(prompt: str) -> object:
        variant = variant_of.setdefault(prompt, 0)
        variant_of[prompt] += 1
        # every third variant gets its last call's "n" wrong, so some runs fail
        wrong = variant % 3 == 0
        # a run of its own: its call ids, results, durations and timestamps, and the
        # "flag" the contract matches by type, differ from every other variant's
        calls = [ToolCall(tool=f"tool{j % 4}",
                          args={"q": f"value {j}", "n": j + 1 if wrong and j == 9 else j,
                                "flag": (j + variant) % 2 == 0},
                          id=f"call_{variant}_{j}", result={"rows": [j, variant],
                                                             "text": "ok " * 5},
                          is_error=False, duration=round(0.01 * (j + 1) + variant / 1e6, 6),
                          timestamp=f"2026-12-02T10:{variant // 60 % 60:02d}:"
                                    f"{variant % 60:02d}.{j:03d}Z")
                 for j in range(CALLS)]
        return calls, f"Done with {prompt.lower()} (variant {variant})."

    return agent


def templates(variants: int) -> list[str]:
    """Genuine run records (run_study) with a sentinel trial, as canonical JSON lines."""
    from toolscore_core.canonical import canonical_json
    from toolscore_studies.runner import run_study

    records = run_study(spec(), make_agent({}), trials=variants)
    lines = []
    for record in records:
        record = dict(record, trial=TRIAL_SENTINEL,
                      run_id=f"bench:{record['task_id']}:{TRIAL_SENTINEL}")
        lines.append(canonical_json(record))
    return lines


def generate(path: Path, rows: int, lines: list[str]) -> None:
    """``rows`` rows cycling over ``lines``, each with its own trial and run id."""
    DATA.mkdir(exist_ok=True)
    sentinel = str(TRIAL_SENTINEL)
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(rows):
            handle.write(lines[i % len(lines)].replace(sentinel, str(i + 1)) + "\n")


def child(source: str, output: str, jobs: int, spec_path: str) -> None:
    from toolscore_studies.regrade import RegradeSettings, regrade_file

    began = time.perf_counter()
    cpu_began = _cpu_seconds()
    summary = regrade_file(source, output, RegradeSettings(spec=spec_path), jobs=jobs)
    seconds = time.perf_counter() - began
    print(json.dumps({
        "rows": summary.rows, "regraded": summary.regraded, "seconds": seconds,
        "cpu_seconds": _cpu_seconds() - cpu_began,
        "main_peak_kib": vm_hwm_kib(),
        "worker_peak_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }))


def floor(source: str, spec_path: str, rows: int) -> None:
    """Print (JSON) the least CPU a regrade of these rows can cost per row, in one process,
    best of three passes: ``evaluate()`` of a row's calls alone (its calls and contract
    already read, no JSON made), and that with what every regrade also does for each row,
    reading its line (``json.loads``) and writing its new record (``record_json``: the
    canonical JSON, credentials screened). Whatever else a regrade does, it evaluates every
    row whose evidence no other row shares."""
    import yaml

    from toolscore_core.contracts import parse_contract
    from toolscore_core.plugins import default_registry
    from toolscore_studies.records import evaluate_trace, trace_from_row

    with open(source, "rb") as lines:
        read = [lines.readline() for _ in range(rows)]
    decoded = [json.loads(line) for line in read]
    with open(spec_path, encoding="utf-8") as text:
        tasks = yaml.safe_load(text)["tasks"]
    contracts = {name: parse_contract({"expected": task["expected"]})
                 for name, task in tasks.items()}
    registry = default_registry()
    traces = [trace_from_row(row) for row in decoded]

    def evaluate(n: int):  # type: ignore[no-untyped-def]
        return evaluate_trace(contracts[decoded[n]["task_id"]], traces[n], weights=None,
                              honesty=None, validate_side_effects=False, registry=registry)

    def with_json(n: int) -> None:
        json.loads(read[n])
        evaluate(n).record_json  # noqa: B018  (made on first use)

    for n in range(min(rows, 100)):  # first use: imports, caches
        with_json(n)
    out = {}
    for name, work in (("evaluate_us", evaluate), ("with_json_us", with_json)):
        best = float("inf")
        for _ in range(3):
            began = time.process_time()
            for n in range(rows):
                work(n)
            best = min(best, (time.process_time() - began) / rows * 1e6)
        out[name] = best
    print(json.dumps(out))


def _cpu_seconds() -> float:
    """CPU seconds (user and system) of this process and of its ended children (the
    workers, once the pool is shut down): what the regrade cost, however crowded the
    machine was."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def vm_hwm_kib() -> int:
    """This process's peak RSS since exec (VmHWM).

    ru_maxrss of RUSAGE_SELF is not used here: Linux carries it over exec from the forking
    parent, so it would report the benchmark driver's size instead of the regrade's.
    """
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure(source: Path, jobs: int, spec_path: Path) -> dict:
    output = source.with_suffix(".out.jsonl")
    done = subprocess.run([sys.executable, __file__, "--child", str(source), str(output),
                           str(jobs), str(spec_path)], capture_output=True, text=True)
    output.unlink(missing_ok=True)
    if done.returncode != 0:
        sys.exit(f"the regrade failed (exit code {done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def _best_of(runs: int, source: Path, jobs: int, spec_path: Path) -> tuple[float, float]:
    """The best rows/s of ``runs`` regrades of ``source``, each printed as it ends, and the
    least CPU time per row (µs, all processes): the figure a crowded machine moves least."""
    rates = []
    cpu = []
    for _ in range(runs):
        result = measure(source, jobs, spec_path)
        rates.append(result["rows"] / result["seconds"])
        cpu.append(result["cpu_seconds"] / result["rows"] * 1e6)
        print(f"    {result['rows']:,} rows in {result['seconds']:.1f}s = {rates[-1]:,.0f} rows/s"
              f", CPU {cpu[-1]:,.0f} µs per row (load {load()})", flush=True)
    return max(rates), min(cpu)


def print_floor(source: Path, spec_path: Path, rows: int, jobs: int) -> None:
    """The least a row can cost (:func:`floor`, in a process of its own) beside what the
    target allows a row on ``jobs`` CPUs."""
    done = subprocess.run([sys.executable, __file__, "--floor", str(source), str(spec_path),
                           str(rows)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the floor failed (exit code {done.returncode}): {done.stderr.strip()}")
    found = json.loads(done.stdout)
    allowed = jobs * 1e6 / TARGET_DISTINCT_ROWS_PER_S
    print(f"    floor, {rows:,} of these rows in one process: evaluate() of a row's calls "
          f"alone {found['evaluate_us']:,.0f} µs of CPU per row, with reading its line and "
          f"writing its new record {found['with_json_us']:,.0f} µs; the target allows "
          f"{allowed:,.0f} µs per row on {jobs} CPUs (load {load()})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="Runs of parts [1] and [2].")
    parser.add_argument("--throughput-only", action="store_true",
                        help="Skip the memory part (which regrades 1,000,000 rows).")
    parser.add_argument("--child", nargs=4, metavar=("SRC", "OUT", "JOBS", "SPEC"))
    parser.add_argument("--floor", nargs=3, metavar=("SRC", "SPEC", "ROWS"))
    args = parser.parse_args()
    if args.floor:
        floor(args.floor[0], args.floor[1], int(args.floor[2]))
        return
    if args.child:
        source, output, jobs, spec_path = args.child
        child(source, output, int(jobs), spec_path)
        return
    import yaml

    throughput_rows, distinct_rows, small, big = (
        (5_000, 1_000, 2_000, 50_000) if args.quick else (100_000, 20_000, 10_000, 1_000_000))
    DATA.mkdir(exist_ok=True)
    spec_path = DATA / "study-v2.yaml"
    spec_path.write_text(yaml.safe_dump(spec(threshold=0.95), sort_keys=False))

    print(f"generating rows ({TASKS} tasks, {CALLS} calls per row) ...", flush=True)
    source = DATA / "runs.jsonl"
    distinct = templates(variants=distinct_rows // TASKS)  # every row its own calls
    generate(source, distinct_rows, distinct)
    del distinct
    size = source.stat().st_size
    print(f"  {distinct_rows:,} rows, {size / distinct_rows / 1024:.1f} KiB per row", flush=True)
    best, cpu = _best_of(args.repeat, source, args.jobs, spec_path)
    print(f"[1] regrade {distinct_rows:,} rows, every row's calls distinct, jobs={args.jobs}: "
          f"best of {args.repeat} {best:,.0f} rows/s (target >= "
          f"{TARGET_DISTINCT_ROWS_PER_S:,}); CPU {cpu:,.0f} µs per row ("
          f"{args.jobs * 1e6 / cpu:,.0f} rows/s on {args.jobs} CPUs of its own)", flush=True)
    print_floor(source, spec_path, min(distinct_rows, 2_000), args.jobs)

    repeated = templates(variants=20)  # 100 distinct evidence sets
    generate(source, throughput_rows, repeated)
    best, cpu = _best_of(args.repeat, source, args.jobs, spec_path)
    print(f"[2] regrade {throughput_rows:,} rows (100 distinct evidence sets), jobs="
          f"{args.jobs}: best of {args.repeat} {best:,.0f} rows/s (target >= "
          f"{TARGET_ROWS_PER_S:,}); CPU {cpu:,.0f} µs per row", flush=True)

    if args.throughput_only:
        source.unlink(missing_ok=True)
        return
    peaks = {}
    for rows in (small, big):
        print(f"memory: generating {rows:,} rows ...", flush=True)
        generate(source, rows, repeated)
        began = time.perf_counter()
        result = measure(source, args.jobs, spec_path)
        peaks[rows] = result
        print(f"  {rows:,} rows regraded in {time.perf_counter() - began:.1f}s "
              f"({result['rows'] / result['seconds']:,.0f} rows/s): main peak "
              f"{result['main_peak_kib'] / 1024:.1f} MiB, worker peak "
              f"{result['worker_peak_kib'] / 1024:.1f} MiB (load {load()})", flush=True)
    source.unlink(missing_ok=True)
    for key, name in (("main_peak_kib", "main process"), ("worker_peak_kib", "each worker")):
        ratio = peaks[big][key] / peaks[small][key]
        print(f"[3] peak RSS {name}: {big:,} rows / {small:,} rows = {ratio:.3f}x "
              f"(target <= {TARGET_RSS_RATIO}x)")


if __name__ == "__main__":
    main()
