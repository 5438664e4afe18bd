"""Benchmark: bench_evaluate.py's targets counted in CPU instructions, not seconds.

    python bench/bench_instructions.py     # needs valgrind (apt-get install valgrind)

On a shared virtual machine the same work takes up to twice as long for stretches of a
second or more, so wall-clock ratios move by a third from run to run. The number of
instructions a process executes does not: valgrind's cachegrind counts them, and with
the hash seed fixed and one BLAS thread (an idle BLAS thread spins) the counts repeat to
within a few thousand. They leave out what instructions do not show (waiting on the disk,
cache misses), so they complement the wall-clock figures of bench_evaluate.py, they do not
replace them.

Prints, for toolscore and tool-scorer 1.10.0 (bench/.venv-peer, made by bench_evaluate.py):
instructions per ``evaluate()`` of 1,000 calls over 10 tools, as the difference between a
process that evaluates k + n times and one that evaluates k times (imports and warm-up
cancel out), and toolscore's at 100,000 calls (linearity); and the instructions of a whole
``eval`` command on a small trace, beside Python doing nothing and the floor of
bench/_floor.py (toolscore's modules byte-compiled first, as ``pip install`` compiles
tool-scorer's). Each line gives its ratio to the target.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEER_VENV = HERE / ".venv-peer"
ENV = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1",
       "OMP_NUM_THREADS": "1"}

EVALUATE = """
import sys
sys.path.insert(0, sys.argv[1])
from synthetic import make_case
import toolscore
expected, actual = make_case(int(sys.argv[3]), 10)
toolscore.evaluate(expected, actual)
for _ in range(int(sys.argv[2])):
    toolscore.evaluate(expected, actual)
"""


def instructions(command: list[str], cwd: str | None = None) -> int:
    """Instructions the whole process executed (cachegrind's ``I refs``). The peer runs
    without PYTHONPATH, which may point at a toolscore checkout whose ``toolscore`` package
    would shadow tool-scorer's."""
    env = ENV
    if command[0].startswith(str(PEER_VENV)):
        env = {k: v for k, v in ENV.items() if k != "PYTHONPATH"}
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null", *command],
                          capture_output=True, text=True, env=env, cwd=cwd, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind: {done.stderr[-500:]}")
    return int(found.group(1).replace(",", ""))


def per_evaluate(python: str, script: str, first: int, last: int, calls: int = 1000) -> float:
    """Instructions of one evaluate(): (process with ``last`` more) - (with ``first``)."""
    fewer = instructions([python, script, str(HERE), str(first), str(calls)], cwd="/")
    more = instructions([python, script, str(HERE), str(last), str(calls)], cwd="/")
    return (more - fewer) / (last - first)


def main() -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    ours_python = sys.executable
    peer_python = str(PEER_VENV / "bin" / "python")
    if not Path(peer_python).exists():
        raise SystemExit(f"{PEER_VENV} is missing: run python bench/bench_evaluate.py once")
    sys.path.insert(0, str(HERE))
    from bench_evaluate import byte_compile_toolscore

    byte_compile_toolscore()  # as pip install compiles tool-scorer's modules
    with tempfile.TemporaryDirectory() as scratch:
        script = os.path.join(scratch, "evaluate.py")
        Path(script).write_text(EVALUATE)
        ours = per_evaluate(ours_python, script, 2, 12)
        theirs = per_evaluate(peer_python, script, 1, 3)
        print("evaluate(), 1,000 calls x 10 tools, instructions per call of evaluate()")
        print(f"  toolscore   {ours / 1e6:10.1f} M")
        print(f"  tool-scorer {theirs / 1e6:10.1f} M")
        print(f"  tool-scorer / toolscore = {theirs / ours:.1f}x (target >= 20x, as in time)")
        large = per_evaluate(ours_python, script, 0, 1, calls=100_000)
        print(f"  toolscore at 100,000 calls {large / 1e6:.1f} M = {large / ours:.0f}x the "
              "instructions of 1,000 (target <= 150x in time; instructions leave out the\n"
              "  cache misses and collector passes that grow with the trace)")

        gold, trace = str(HERE / "fixtures" / "small_gold.json"), str(HERE / "fixtures" /
                                                                       "small_trace.json")
        bin_ours = str(Path(ours_python).parent / "toolscore")
        bin_peer = str(PEER_VENV / "bin" / "tool-scorer")
        commands = {
            "python -c pass": [ours_python, "-c", "pass"],
            "floor (bench/_floor.py)": [ours_python, str(HERE / "_floor.py")],
            "toolscore eval": [bin_ours, "eval", gold, trace],
            "tool-scorer eval": [bin_peer, "eval", gold, trace],
        }
        counts = {label: instructions(command, cwd=scratch) for label, command in
                  commands.items()}
    peer_eval = counts["tool-scorer eval"]
    print("\nCLI on a small trace (3 calls), instructions of the whole process")
    for label, count in counts.items():
        print(f"  {label:<24} {count / 1e6:8.1f} M  = {count / peer_eval:.2f} of tool-scorer's "
              "eval")
    own = (counts["toolscore eval"] - counts["floor (bench/_floor.py)"]) / peer_eval
    print(f"  toolscore's own share (eval - floor) = {own:.2f} of tool-scorer's eval "
          "(target <= 0.35)")


if __name__ == "__main__":
    main()
