"""Many traces in one ``toolscore eval``: traces per second with ``--jobs``.

    python bench/bench_eval_many.py [--traces 10000] [--jobs 2] [--repeat 3]

Writes ``--traces`` distinct 10-call traces against one 10-call contract, then times the
whole command, ``toolscore eval GOLD TRACE... --jobs N --json out.json`` (start-up,
reading, evaluating, the JSON document and the table), best of ``--repeat``. Target: at
least 1,500 traces/s with ``--jobs 2`` at 10,000 traces.

Each trace is a run of an agent that follows the contract, with the noise of a real run
(bench/synthetic.py's ``agent_run``, a seed per trace: about 20% of calls with an argument
changed, 10% calling another tool, a few dropped, extra or retried) and what differs
between any two runs anyway: its own call ids and durations. So traces differ both in
what the contract accepts and in what it does not, as a folder of CI cases does. A trace
made against another contract (nothing of it paired as expected) would measure pairing's
worst case, not a batch of cases.

Each run prints its wall time with the machine's load average, and the CPU time per trace
of all the command's processes (user and system, the workers' included): on a shared
machine the wall time moves with other work, the CPU time far less.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import agent_run, make_case

TARGET = 1500.0
TOOLS = 5


def children_cpu() -> float:
    """CPU seconds of the ended child processes (and the processes they waited for)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        expected, _ = make_case(10, TOOLS, seed=0)
        (root / "gold.json").write_text(json.dumps(expected))
        tools = [f"tool_{i}" for i in range(TOOLS)]
        traces = []
        for n in range(options.traces):
            actual = agent_run(expected, tools, random.Random(n + 1))
            for i, call in enumerate(actual):
                call["id"] = f"call_{n}_{i}"
            path = root / f"t{n}.json"
            path.write_text(json.dumps({"calls": actual}))
            traces.append(path.name)
        command = [sys.executable, "-m", "toolscore_cli", "eval", "gold.json", *traces,
                   "--jobs", str(options.jobs), "--json", "out.json", "--no-progress"]
        best = None
        least_cpu = None
        for _ in range(options.repeat):
            began = time.perf_counter()
            cpu_began = children_cpu()
            done = subprocess.run(command, cwd=root, capture_output=True, text=True)
            took = time.perf_counter() - began
            cpu = children_cpu() - cpu_began
            if done.returncode not in (0, 1):
                sys.exit(f"toolscore eval failed: {done.stderr.strip()}")
            print(f"    {options.traces:,} traces in {took:.2f}s = {options.traces / took:,.0f} "
                  f"traces/s, CPU {cpu / options.traces * 1e6:,.0f} µs per trace (load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
            best = took if best is None else min(best, took)
            least_cpu = cpu if least_cpu is None else min(least_cpu, cpu)
        evaluations = json.loads((root / "out.json").read_text())["evaluations"]
        assert len(evaluations) == options.traces
        distinct = {json.dumps(e["record"]["calls"]["actual"], sort_keys=True)
                    for e in evaluations}
        assert len(distinct) == options.traces, "the traces are not distinct"
    assert best is not None and least_cpu is not None
    rate = options.traces / best
    verdict = "met" if rate >= TARGET else "NOT met"
    per_trace = least_cpu / options.traces
    print(f"eval of {options.traces:,} distinct 10-call traces, jobs={options.jobs}: best of "
          f"{options.repeat} {best:.2f}s = {rate:,.0f} traces/s (target >= {TARGET:,.0f}: "
          f"{verdict}); CPU {per_trace * 1e6:,.0f} µs per trace ({options.jobs / per_trace:,.0f}"
          f" traces/s on {options.jobs} CPUs of its own)")


if __name__ == "__main__":
    main()
