"""A stand-in agent for the example study: standard library only, no model, no network.

toolscore runs it once per task and trial. It reads the prompt on stdin, "decides" on its
tool calls by the task id ($TOOLSCORE_TASK_ID), writes them as a toolscore trace to the
path in $TOOLSCORE_TRACE and prints its final answer. Replace the body of ``decide`` with a
call to your model and your tools; the rest is the whole contract with toolscore.
"""

from __future__ import annotations

import json
import os
import sys
import time


def decide(task: str, trial: int) -> tuple[list[tuple[str, dict, object]], str]:
    """The calls (tool, arguments, result) and the final answer for one run."""
    if task == "weather":
        return ([("get_weather", {"city": "Paris, FR"}, {"temp_c": 18, "sky": "clear"})],
                "It is 18°C and clear in Paris.")
    if task == "book":
        return ([("search_flights", {"origin": "SFO", "destination": "JFK"},
                  {"flights": ["UA123", "DL45"]}),
                 ("book_flight", {"flight_id": "UA123", "passengers": 1},
                  {"confirmation": "ZX9K2"})],
                "Booked UA123 for one passenger, confirmation ZX9K2.")
    if task == "refund":
        calls: list[tuple[str, dict, object]] = [
            ("lookup_order", {"order_id": "8812"}, {"total": 42.5, "status": "delivered"})]
        if trial == 2:  # on the second trial the agent forgets to look the order up
            calls = []
        calls.append(("refund", {"order_id": "8812", "amount": 42.5}, {"refunded": 42.5}))
        return calls, "Refunded 42.50 for order 8812."
    return [], "I cannot help with that."


def main() -> int:
    sys.stdin.read()  # the prompt; a real agent sends it to its model
    task = os.environ["TOOLSCORE_TASK_ID"]
    trial = int(os.environ["TOOLSCORE_TRIAL"])
    calls, answer = decide(task, trial)
    trace_calls = []
    for number, (tool, args, result) in enumerate(calls, start=1):
        began = time.perf_counter()
        # A real agent would call the tool here; the result above stands in for it.
        trace_calls.append({"id": f"call_{number}", "tool": tool, "args": args,
                            "result": result, "is_error": False,
                            "duration": round(time.perf_counter() - began, 6)})
    trace = {"calls": trace_calls, "model": "example-model",
             "usage": {"input_tokens": 1200, "output_tokens": 150}}
    with open(os.environ["TOOLSCORE_TRACE"], "w", encoding="utf-8") as handle:
        json.dump(trace, handle)
    print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
