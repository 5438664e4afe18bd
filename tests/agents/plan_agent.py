"""A real agent command for the study tests: reads the prompt, follows a fixed plan, writes
its native trace to $TOOLSCORE_TRACE and prints its final answer.

The plan is chosen by the task id ($TOOLSCORE_TASK_ID). The mode (ok, fail, hang, crash,
exit) comes from $PLAN_AGENT_MODE, else from the plan for that task and trial.
$PLAN_AGENT_DELAY makes every run sleep that many seconds first (to interrupt a study).
$PLAN_AGENT_PID_DIR makes every run write its process id into a file in that folder first.
The flood mode prints $PLAN_AGENT_FLOOD bytes after its answer; flood_forever never stops
printing.
"""

from __future__ import annotations

import json
import os
import sys
import time

PLANS = {
    "weather": {
        "calls": [("get_weather", {"city": "Paris", "unit": "celsius"}, {"temp_c": 18})],
        "answer": "It is 18°C in Paris right now.",
    },
    "book": {
        "calls": [
            ("search_flights", {"origin": "SFO", "destination": "JFK"}, {"flights": ["UA123"]}),
            ("book_flight", {"flight_id": "UA123", "passengers": 1}, {"confirmation": "ZX9K2"}),
        ],
        "answer": "Booked UA123 for 1 passenger, confirmation ZX9K2.",
        "model": "test-model",
        "usage": {"input_tokens": 1000, "output_tokens": 200},
    },
    "flaky": {
        "calls": [("lookup", {"id": 7}, {"name": "seven"})],
        "answer": "Item 7 is called seven.",
        "fail_on_trials": [2],
    },
    "hang": {"calls": [], "answer": "", "mode": "hang"},
    "crash": {"calls": [("lookup", {"id": 1}, {"name": "one"})], "answer": "", "mode": "crash"},
}


def main() -> int:
    prompt = sys.stdin.read()
    if prompt != os.environ.get("TOOLSCORE_PROMPT"):
        print("stdin and TOOLSCORE_PROMPT differ", file=sys.stderr)
        return 4
    task = os.environ["TOOLSCORE_TASK_ID"]
    trial = int(os.environ["TOOLSCORE_TRIAL"])
    plan = PLANS[task]
    mode = os.environ.get("PLAN_AGENT_MODE") or plan.get("mode", "ok")
    if trial in plan.get("fail_on_trials", ()):
        mode = "fail"
    pid_dir = os.environ.get("PLAN_AGENT_PID_DIR")
    if pid_dir:
        with open(os.path.join(pid_dir, f"{task}-{trial}.pid"), "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
    time.sleep(float(os.environ.get("PLAN_AGENT_DELAY", "0")))
    if mode == "flood_forever":
        block = b"x" * 65536
        while True:
            sys.stdout.buffer.write(block)
    if mode == "hang":
        print("thinking forever", file=sys.stderr, flush=True)
        time.sleep(3600)
    calls = []
    for number, (tool, args, result) in enumerate(plan["calls"], start=1):
        if mode == "fail":
            tool = "wrong_tool"
        calls.append({"id": f"call_{number}", "tool": tool, "args": args, "result": result,
                      "is_error": False, "duration": 0.01 * number,
                      "timestamp": f"2026-12-02T10:00:0{number}Z"})
    trace = {"calls": calls}
    for key in ("model", "usage"):
        if key in plan:
            trace[key] = plan[key]
    with open(os.environ["TOOLSCORE_TRACE"], "w", encoding="utf-8") as handle:
        json.dump(trace, handle)
    if mode == "crash":
        print("Traceback (most recent call last):\nRuntimeError: the agent fell over",
              file=sys.stderr, flush=True)
        os.abort()
    if mode == "exit":
        print("giving up", file=sys.stderr)
        return 3
    print(plan["answer"])
    if mode == "flood":
        sys.stdout.flush()
        sys.stdout.buffer.write(b"x" * int(os.environ["PLAN_AGENT_FLOOD"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
