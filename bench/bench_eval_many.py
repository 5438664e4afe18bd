"""Many traces in one ``toolscore eval``: traces per second with ``--jobs``.

    python bench/bench_eval_many.py [--traces 10000] [--jobs 2]

Writes ``--traces`` distinct 10-call traces (each its own calls, arguments and noise, from
bench/synthetic.py with a seed per trace) against one contract, then times the whole
command, ``toolscore eval GOLD TRACE... --jobs N --json out.json`` (start-up, reading,
evaluating, the JSON document and the table), best of ``--repeat``. Target: at least 1,500
traces/s with ``--jobs 2`` at 10,000 traces.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import make_case

TARGET = 1500.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        expected, _ = make_case(10, 5, seed=0)
        (root / "gold.json").write_text(json.dumps(expected))
        traces = []
        for n in range(options.traces):
            _, actual = make_case(10, 5, seed=n + 1)
            path = root / f"t{n}.json"
            path.write_text(json.dumps({"calls": actual}))
            traces.append(path.name)
        command = [sys.executable, "-m", "toolscore_cli", "eval", "gold.json", *traces,
                   "--jobs", str(options.jobs), "--json", "out.json", "--no-progress"]
        best = None
        for _ in range(options.repeat):
            began = time.perf_counter()
            done = subprocess.run(command, cwd=root, capture_output=True, text=True)
            took = time.perf_counter() - began
            if done.returncode not in (0, 1):
                sys.exit(f"toolscore eval failed: {done.stderr.strip()}")
            best = took if best is None else min(best, took)
        evaluations = json.loads((root / "out.json").read_text())["evaluations"]
        assert len(evaluations) == options.traces
        assert len({e["record"]["calls"]["actual"][0]["args"]["query"] for e in evaluations
                    if e["record"]["calls"]["actual"]}) > 100, "the traces are not distinct"
    assert best is not None
    rate = options.traces / best
    verdict = "met" if rate >= TARGET else "NOT met"
    print(f"eval of {options.traces:,} distinct 10-call traces, jobs={options.jobs}: best of "
          f"{options.repeat} {best:.2f}s = {rate:,.0f} traces/s (target >= {TARGET:,.0f}: "
          f"{verdict})")


if __name__ == "__main__":
    main()
