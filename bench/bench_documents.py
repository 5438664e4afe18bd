"""Loading hostile documents: the worst contracts, study specs and configs of under 10 KB.

Run from the repository root::

    python bench/bench_documents.py

Writes each document below into a temporary folder and times its load, best of 3 (the
``regex`` package's cache of compiled patterns emptied before each), through
the function the CLI uses for that kind of file (``load_contract``, ``load_study``,
``load_config``), each in this one process. A refused document counts as loaded when it is
refused: the time is the time to the error line. Then the search of a pattern that
backtracks exponentially, which must end at the time limit.

Target: every document under 10 KB loads (or is refused) within one second; the search
ends within twice its time limit, which the ``regex`` package counts in processor time (on
a busy machine the wall time is longer by the share of the processor the process gets).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolscore_core.config import load_config
from toolscore_core.contracts import load_contract
from toolscore_core.errors import InputError
from toolscore_core.patterns import TIME_LIMIT, compile_pattern, search
from toolscore_studies.spec import load_study

LIMIT_BYTES = 10 * 1024
TARGET = 1.0


def laughs(levels: int, width: int) -> str:
    lines = ["defs:", "  l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def contract_laughs() -> str:
    return "expected:\n  - tool: t\n    args:\n      x: " + "\n".join(
        ["&a0 [" + ", ".join(["lol"] * 10) + "]"]) + "\n" + "".join(
        f"      x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 10))


def merge_laughs() -> str:
    return "expected: []\nname: x\ndescription: &d0 {k0: 0, k1: 1, k2: 2, k3: 3}\n" + "".join(
        f"x{i}: &d{i} {{<<: [" + ", ".join([f"*d{i - 1}"] * 8) + "]}\n" for i in range(1, 10))


def largest_expansion() -> str:
    lines = ["expected:", "  - tool: t", "    args: {n: 1, defs: [&l0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"      , &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 5)]
    lines += ["      ]}", "  - {tool: u, args: {big: [*l3, *l3, *l3]}}"]
    return "\n".join(lines) + "\n"


def many_repeats() -> str:
    """As many distinct patterns as fit, each adding the most pieces a pattern may."""
    items = []
    size = len("- tool: t\n  args:\n")
    for i in range(10_000):
        item = f"    a{i}: {{$regex: '{chr(97 + i % 26)}{{{1000 - i // 26}}}'}}\n"
        if size + len(item) > LIMIT_BYTES - 64:
            break
        items.append(item)
        size += len(item)
    return "- tool: t\n  args:\n" + "".join(items)


def one_long_alternation() -> str:
    words = []
    size = 40
    i = 0
    while size < LIMIT_BYTES - 200:
        words.append(f"word{i}")
        size += len(words[-1]) + 1
        i += 1
    return "- tool: t\n  args: {q: {$regex: '^(?:" + "|".join(words) + ")$'}}\n"


def nested_repeats() -> str:
    return "- tool: t\n  args: {q: {$regex: '((a{1000}){1000}){1000}'}}\n"


def deep_nesting() -> str:
    return "- {tool: t, args: {x: " + "[" * 4000 + "]" * 4000 + "}}\n"


def study_laughs() -> str:
    return laughs(10, 9) + "tasks: {}\n"


def config_laughs() -> str:
    return laughs(10, 9)


def recursive() -> str:
    return "expected: &e\n  - {tool: t, args: {x: *e}}\n"


CASES: list[tuple[str, str, Callable[[Path], Any], Callable[[], str]]] = [
    ("contract: billion laughs (lists)", "gold.yaml", load_contract, contract_laughs),
    ("contract: billion laughs (merge keys)", "gold.yaml", load_contract, merge_laughs),
    ("contract: largest alias expansion taken", "gold.yaml", load_contract,
     largest_expansion),
    ("contract: recursive alias", "gold.yaml", load_contract, recursive),
    ("contract: patterns with the most repeats", "gold.yaml", load_contract, many_repeats),
    ("contract: one 10 KB alternation", "gold.yaml", load_contract, one_long_alternation),
    ("contract: nested repeats", "gold.yaml", load_contract, nested_repeats),
    ("contract: brackets nested 4,000 deep", "gold.yaml", load_contract, deep_nesting),
    ("study spec: billion laughs", "study.yaml", load_study, study_laughs),
    ("config: billion laughs", "config.yaml", load_config, config_laughs),
]


def timed(load: Callable[[Path], Any], path: Path) -> tuple[float, float, str]:
    """Best wall time, best processor time, and what became of the document."""
    import regex

    best = best_cpu = float("inf")
    outcome = ""
    for _ in range(3):
        regex.purge()  # its cache of compiled patterns would make the second load free
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            load(path)
            outcome = "loaded"
        except InputError as exc:
            outcome = "refused: " + exc.problem[:60]
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu, outcome


def main() -> int:
    met = True
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'document':42} {'bytes':>6} {'wall s':>7} {'cpu s':>6}  outcome")
        for title, name, load, make in CASES:
            text = make()
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            assert len(text.encode()) <= LIMIT_BYTES, title
            seconds, cpu, outcome = timed(load, path)
            met &= seconds <= TARGET
            print(f"{title:42} {len(text.encode()):>6} {seconds:>7.3f} {cpu:>6.3f}  {outcome}")
    compiled = compile_pattern(r"(a|aa)+$")
    start, start_cpu = time.perf_counter(), time.process_time()
    found = search(compiled, "a" * 60 + "b")
    took, took_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    met &= found is None and took_cpu <= 2 * TIME_LIMIT
    print(f"\nsearch of (a|aa)+$ in 60 a and a b: {took_cpu:.3f} s of processor time "
          f"({took:.3f} s wall), {'undecided' if found is None else found} (limit "
          f"{TIME_LIMIT:g} s of processor time)")
    print(f"every document within {TARGET:g} s and the search within twice its limit: "
          f"{'met' if met else 'NOT MET'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
