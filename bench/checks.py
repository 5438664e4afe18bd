"""Benchmark: the cost of the evidence checks and of redaction on clean data.

    python bench/checks.py [--calls 1000] [--strings 10000] [--repeat 20]

Prints the median CPU time of ``evaluate()`` on a trace of N calls with a final answer, with
every built-in check and with the seven safety and honesty checks (forbidden-calls,
credentials, claimed-success, disclosure, escape-hatch, prompt-injection, side-effects)
disabled, their ratio, and the
time to ``redact_text``/``find_secrets`` 10,000 clean strings and one record, and the
time of ``to_dict()`` (the record, redacted) of a fresh evaluation.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

SAFETY_AND_HONESTY_CHECKS = ("toolscore_checks.forbidden_calls", "toolscore_checks.credentials",
              "toolscore_checks.claimed_success", "toolscore_checks.disclosure",
              "toolscore_checks.escape_hatch", "toolscore_checks.prompt_injection",
              "toolscore_checks.side_effects")


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    """The median CPU time of ``repeat`` runs after one warm-up run, in milliseconds (the
    minimum too). CPU time of this process, not wall time: other jobs on a shared machine
    do not count."""
    fn()  # warm: imports, the language model, caches that live for the process
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    MINIMA.append(min(times) * 1000)
    return statistics.median(times) * 1000


MINIMA: list[float] = []


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--strings", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=20)
    opts = parser.parse_args()

    from toolscore_core.evaluation import evaluate
    from toolscore_core.models import ToolCall, Trace
    from toolscore_core.plugins import build_registry, get_plugin_manager
    from toolscore_secrets.redaction import find_secrets, redact, redact_text

    tools = ("search_flights", "book_flight", "send_email", "get_weather")
    calls = tuple(
        ToolCall(id=str(i), tool=tools[i % 4],
                 args={"origin": "SFO", "destination": "JFK", "date": f"2026-12-{i % 28 + 1:02d}",
                       "query": f"flight number {i} for passenger {i % 7}"},
                 result={"ok": True, "id": f"R{i}"}, is_error=i % 50 == 0,
                 error="Service unavailable" if i % 50 == 0 else None, duration=0.1)
        for i in range(opts.calls))
    trace = Trace(calls=calls, final_answer="I booked the flights and emailed the details, "
                  "except one booking that failed because the service was unavailable.")
    expected = [{"tool": t, "args": {"origin": "SFO"}} for t in tools]
    full = build_registry(get_plugin_manager(entry_points=False))
    base = build_registry(get_plugin_manager(
        entry_points=False, env={"TOOLSCORE_DISABLE_PLUGINS": ",".join(SAFETY_AND_HONESTY_CHECKS)}))
    rules = [{"tool": "delete_branch", "reason": "no"}]
    with_checks = median_ms(lambda: evaluate(expected, trace, registry=full, forbidden=rules),
                            opts.repeat)
    without = median_ms(lambda: evaluate(expected, trace, registry=base), opts.repeat)
    low_with, low_without = MINIMA[-2:]
    print(f"evaluate() on {opts.calls} calls, every check:           median {with_checks:7.2f} ms"
          f"  min {low_with:7.2f} ms")
    print(f"evaluate() on {opts.calls} calls, without the 7 safety and honesty checks: "
          f"median {without:7.2f} ms"
          f"  min {low_without:7.2f} ms")
    print(f"ratio (median): {with_checks / without:.2f}x  (min): {low_with / low_without:.2f}x")

    clean = [f"value-{i} flight UA{i} to JFK on 2026-12-{i % 28 + 1:02d}"
             for i in range(opts.strings)]
    per_text = median_ms(lambda: [redact_text(s) for s in clean], max(3, opts.repeat // 4))
    per_find = median_ms(lambda: [find_secrets(s) for s in clean], max(3, opts.repeat // 4))
    record = evaluate(expected, trace, registry=full).to_dict()
    record_ms = median_ms(lambda: redact(record), max(3, opts.repeat // 4))
    fresh = [evaluate(expected, trace, registry=full) for _ in range(max(3, opts.repeat // 4) + 1)]
    to_dict_ms = median_ms(lambda: fresh.pop().to_dict(), max(3, opts.repeat // 4))
    print(f"redact_text over {opts.strings} clean strings: {per_text:8.2f} ms "
          f"({per_text * 1000 / opts.strings:.2f} us each)")
    print(f"find_secrets over {opts.strings} clean strings: {per_find:8.2f} ms")
    print(f"redact() of a {opts.calls}-call record:          {record_ms:8.2f} ms")
    print(f"to_dict() of a {opts.calls}-call evaluation:     {to_dict_ms:8.2f} ms")


if __name__ == "__main__":
    main()
