"""Synthetic contracts and traces for the benchmarks (deterministic, seeded)."""

from __future__ import annotations

import random
from typing import Any


def make_case(
    n_calls: int, n_tools: int, seed: int = 7
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """An expected list and an actual list of ``n_calls`` calls over ``n_tools`` tools.

    The actual trace follows the contract with the noise of a real agent's run: ~20% of
    calls have an argument changed, ~10% call another tool (a name the contract does not
    expect there), ~2% are dropped, ~2% are extra, ~2% are failed-then-retried. The
    renamed calls and the changed arguments leave pairs that do not match fully, which is
    where pairing works hardest.
    """
    rng = random.Random(seed)
    tools = [f"tool_{i}" for i in range(n_tools)]
    expected: list[dict[str, Any]] = []
    for i in range(n_calls):
        tool = tools[rng.randrange(n_tools)]
        expected.append({"tool": tool, "args": {"id": i, "query": f"q{rng.randrange(1000)}",
                                                "limit": rng.choice([5, 10, 20])}})
    return expected, agent_run(expected, tools, rng)


def agent_run(expected: list[dict[str, Any]], tools: list[str],
              rng: random.Random) -> list[dict[str, Any]]:
    """The calls of one run following ``expected``, with :func:`make_case`'s noise drawn
    from ``rng`` (each seed a run of its own: its noise, and its durations)."""
    n_tools = len(tools)
    actual: list[dict[str, Any]] = []
    for call in expected:
        roll = rng.random()
        if roll < 0.02:
            continue
        args = dict(call["args"])
        tool = call["tool"]
        if rng.random() < 0.2:
            args[rng.choice(("query", "limit"))] = f"changed-{rng.randrange(1000)}"
        if rng.random() < 0.1:
            tool = f"{tool}_renamed"
        if 0.07 <= roll < 0.09:
            actual.append({"tool": tool, "args": args, "error": "timeout",
                           "is_error": True, "duration": 0.5})
        actual.append({"tool": tool, "args": args, "result": {"ok": True},
                       "duration": round(rng.uniform(0.01, 0.5), 3)})
        if 0.09 <= roll < 0.11:
            actual.append({"tool": tools[rng.randrange(n_tools)], "args": {"id": -1},
                           "result": "extra"})
    return actual
