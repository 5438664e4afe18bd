"""Time one implementation's ``toolscore.evaluate`` on the synthetic cases; print JSON.

Run by bench_evaluate.py in each implementation's own interpreter (both import package
``toolscore``), so the two never share a process.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import make_case


def best_of(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    import toolscore

    cases = json.loads(sys.argv[1])
    records_in = len(sys.argv) > 2 and sys.argv[2] == "records"
    toolscore.evaluate([{"tool": "warm", "args": {"a": 1}}],
                       [{"tool": "warm", "args": {"a": 2}}, {"tool": "warm", "args": {"a": 1}}])
    out = {}
    for n_calls, n_tools, repeat in cases:
        expected, actual = make_case(n_calls, n_tools)
        if records_in:
            from toolscore_core.contracts import parse_contract
            from toolscore_formats.native import parse

            expected = parse_contract(expected)
            actual = parse(actual)
        seconds = best_of(lambda e=expected, a=actual: toolscore.evaluate(e, a), repeat)
        out[f"{n_calls}x{n_tools}"] = seconds
    print(json.dumps(out))


if __name__ == "__main__":
    main()
