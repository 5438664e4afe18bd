"""How long the Markdown and HTML reports take as traces grow (should be linear).

Run: python bench/reports.py [--sizes 1000,4000,16000]
Prints seconds per report and the time per call at each size relative to the smallest.
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Callable
from typing import TextIO

from toolscore_core.context import Evaluation
from toolscore_core.evaluation import evaluate
from toolscore_core.models import ToolCall, Trace
from toolscore_formats.reports import html, markdown


def make_evaluation(calls: int) -> Evaluation:
    tools = ("search", "fetch", "book", "notify")
    trace = Trace(calls=tuple(
        ToolCall(tool=tools[i % 4], args={"q": f"item {i} | <b>{i}</b>", "n": i},
                 result={"rows": [i, i + 1], "text": "ok " * 20} if i % 7 else None,
                 error="timeout <script>" if i % 7 == 0 else None,
                 is_error=i % 7 == 0, duration=0.01 * (i % 13) if i % 5 else None)
        for i in range(calls)
    ), final_answer="done")
    expected = [{"tool": tools[i % 4], "args": {"n": i}} for i in range(0, calls, 2)]
    return evaluate(expected, trace)


def best_of(write: Callable[[Evaluation, TextIO], None], evaluation: Evaluation,
            rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        write(evaluation, io.StringIO())
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,4000,16000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    base: dict[str, float] = {}
    print(f"{'calls':>7} {'report':>9} {'seconds':>9} {'us/call':>9} {'vs smallest':>12}")
    for size in sizes:
        evaluation = make_evaluation(size)
        evaluation.to_dict()  # the record is cached; time the writers, not the evaluation
        for name, write in (("markdown", markdown.write), ("html", html.write)):
            seconds = best_of(write, evaluation)
            per_call = seconds / size
            base.setdefault(name, per_call)
            print(f"{size:>7} {name:>9} {seconds:>9.3f} {per_call * 1e6:>9.1f} "
                  f"{per_call / base[name]:>11.2f}x")


if __name__ == "__main__":
    main()
