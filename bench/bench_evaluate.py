"""Benchmark: toolscore.evaluate() against tool-scorer 1.10.0, and the CLI's start-up.

    python bench/bench_evaluate.py            # creates bench/.venv-peer on first run
    python bench/bench_evaluate.py --cli-only # only the CLI's wall time

Prints, for synthetic traces of 10, 1,000 and 100,000 calls over 1, 10 and 1,000 tools,
the best-of-N time of ``toolscore.evaluate(expected, actual)`` (lists of call dicts in,
the same inputs for both tools), the speed-up over tool-scorer (measured in the same run,
in its own venv and process; it is skipped at 100,000 calls, where it would take hours),
and the linearity ratio time(100,000) / time(1,000). Then the wall time of
``toolscore --help`` and ``toolscore eval`` on a small trace for both tools.

Targets: 1,000 calls over 10 tools (with the noise of bench/synthetic.py) at least 20x
faster than tool-scorer; 100,000 calls in no more than 150x the time of 1,000; toolscore's
own share of ``toolscore eval`` (its wall time minus the floor: what the libraries it is
built on cost before any toolscore code runs, bench/_floor.py) at most 0.35 of
tool-scorer's ``eval``; ``--help`` at most half of tool-scorer's.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PEER_VENV = HERE / ".venv-peer"
PEER = "tool-scorer==1.10.0"
SIZES = (10, 1_000, 100_000)
TOOLS = (1, 10, 1_000)


def repeat_for(n_calls: int) -> int:
    """Runs per case, the best one counts (the same for both tools). On a shared virtual
    machine the same evaluation takes up to twice as long for stretches of a second or
    more, so the best of few runs can miss every quiet moment."""
    return {10: 200, 1_000: 60}.get(n_calls, 3)


def peer_python() -> Path:
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {PEER_VENV} with {PEER} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PEER], check=True)
    return python


def env_for(command: list[str]) -> dict[str, str]:
    """The environment to run ``command`` in: the peer's runs without PYTHONPATH, which may
    point at a toolscore checkout whose ``toolscore`` package would shadow tool-scorer's."""
    env = dict(os.environ)
    if command[0].startswith(str(PEER_VENV)):
        env.pop("PYTHONPATH", None)
    return env


def time_evaluate(python: Path | str, cases: list[tuple[int, int, int]],
                  mode: str = "dicts") -> dict[str, float]:
    command = [str(python), str(HERE / "_time_evaluate.py"), json.dumps(cases), mode]
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd="/",
                         env=env_for(command))
    return json.loads(out.stdout.strip().splitlines()[-1])


def wall(commands: list[list[str]], runs: int = 15) -> list[float]:
    """Median wall time of each whole command (process start included), interleaved.

    The commands take turns, run after run, so a load that comes and goes on a shared
    machine falls on all of them alike; one untimed run of each first. All run in the same
    scratch folder (tool-scorer's eval writes a report file where it runs).
    """
    times: list[list[float]] = [[] for _ in commands]
    with tempfile.TemporaryDirectory() as scratch:
        envs = [env_for(command) for command in commands]
        for command, env in zip(commands, envs, strict=True):
            subprocess.run(command, check=False, capture_output=True, cwd=scratch, env=env)
        for _ in range(runs):
            for i, command in enumerate(commands):
                start = time.perf_counter()
                subprocess.run(command, check=False, capture_output=True, cwd=scratch,
                               env=envs[i])
                times[i].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def byte_compile_toolscore() -> None:
    """Write toolscore's ``.pyc`` files, as ``pip install .`` does for tool-scorer.

    An editable install compiles nothing, and with PYTHONDONTWRITEBYTECODE set every run
    would compile all of toolscore from source while tool-scorer loads its bytecode.
    """
    import compileall
    import importlib.util

    for package in ("toolscore", "toolscore_core", "toolscore_checks", "toolscore_formats",
                    "toolscore_cli", "toolscore_studies", "toolscore_mcp", "toolscore_secrets",
                    "toolscore_judge", "toolscore_pytest", "toolscore_otel"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin:
            compileall.compile_dir(str(Path(spec.origin).parent), quiet=1)


def main() -> None:
    peer = peer_python()
    if "--cli-only" not in sys.argv[1:]:
        evaluate_section(peer)
    cli_section()


def evaluate_section(peer: Path) -> None:
    ours_cases = [(n, t, repeat_for(n)) for n in SIZES for t in TOOLS]
    peer_cases = [(n, t, 1 if (n, t) == (1_000, 1) else repeat_for(n))
                  for n in SIZES if n <= 1_000 for t in TOOLS]
    ours = time_evaluate(sys.executable, ours_cases)
    ours_records = time_evaluate(sys.executable, ours_cases, "records")
    theirs = time_evaluate(peer, peer_cases)

    print(f"\nevaluate() — best of N, ms (python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
    print(f"{'calls x tools':>15} {'toolscore':>11} {'(records in)':>13} {'tool-scorer':>12} "
          f"{'speed-up':>9}")
    for n, t, _ in ours_cases:
        key = f"{n}x{t}"
        peer_ms = theirs.get(key)
        ratio = f"{peer_ms / ours[key]:.1f}x" if peer_ms else "-"
        peer_text = f"{peer_ms * 1e3:.1f}" if peer_ms else "-"
        print(f"{n:>8,} x {t:<4,} {ours[key] * 1e3:>11.2f} {ours_records[key] * 1e3:>13.2f} "
              f"{peer_text:>12} {ratio:>9}")
    target = theirs["1000x10"] / ours["1000x10"]
    print(f"\n1,000 calls x 10 tools: {target:.1f}x faster than tool-scorer (target >= 20x)")
    for t in TOOLS:
        linear = ours[f"100000x{t}"] / ours[f"1000x{t}"]
        print(f"linearity, {t:,} tools: time(100,000) / time(1,000) = {linear:.0f}x "
              "(target <= 150x)")


def cli_section() -> None:
    ours_cli = shutil.which("toolscore", path=str(Path(sys.executable).parent)) or "toolscore"
    peer_cli = str(PEER_VENV / "bin" / "tool-scorer")
    small = [str(HERE / "fixtures" / name) for name in ("small_gold.json", "small_trace.json")]
    example = [str(ROOT / "examples" / "gold.json"), str(ROOT / "examples" / "trace.json")]
    byte_compile_toolscore()
    print("\nCLI wall time, median of 15 interleaved runs, seconds (same files, same scratch "
          "folder, both byte-compiled)")
    help_ours, help_peer = wall([[ours_cli, "--help"], [peer_cli, "--help"]])
    print(f"{'--help':>15}: toolscore {help_ours:.3f}  tool-scorer {help_peer:.3f}  "
          f"ratio {help_ours / help_peer:.2f} (target <= 0.50)")
    # The floor and the README's example take turns with the small trace's two commands.
    ours, peer, floor, ours_example, peer_example = wall([
        [ours_cli, "eval", *small], [peer_cli, "eval", *small],
        [sys.executable, str(HERE / "_floor.py")],
        [ours_cli, "eval", *example], [peer_cli, "eval", *example]])
    print(f"{'eval (3 calls)':>15}: toolscore {ours:.3f}  tool-scorer {peer:.3f}  "
          f"ratio {ours / peer:.2f}")
    print(f"{'floor':>15}: {floor:.3f} s = {floor / peer:.2f} of tool-scorer's eval: Python "
          "importing click, attrs, cattrs, pluggy + entry points,\n"
          f"{'':>17}rapidfuzz, rich and printing one table (bench/_floor.py)")
    print(f"{'own code':>15}: toolscore {ours - floor:.3f} s = {(ours - floor) / peer:.2f} of "
          "tool-scorer's eval (target <= 0.35)")
    print(f"{'README example':>15}: toolscore {ours_example:.3f}  tool-scorer "
          f"{peer_example:.3f}  ratio {ours_example / peer_example:.2f} (no target: its final "
          "answer loads\n"
          f"{'':>17}the language model of claimed-success)")


if __name__ == "__main__":
    main()
