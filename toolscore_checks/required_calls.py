"""required-calls: every required call was made, with its arguments, and did not fail."""

from __future__ import annotations

from itertools import compress, repeat
from operator import is_, itemgetter
from typing import Any

from toolscore import (
    Check,
    CheckOutcome,
    EvaluationContext,
    arguments_unknown,
    count,
    hookimpl,
    number,
)
from toolscore_checks.required import required_made


def run(context: EvaluationContext) -> CheckOutcome:
    expected = context.expected
    found = required_made(context)
    if not found.total:
        return CheckOutcome("unknown", "nothing was required: the contract has no required call")
    missing: list[dict[str, Any]] = []
    undecided: list[dict[str, Any]] = []
    unrecorded: list[dict[str, Any]] = []  # made, but the trace has not their arguments
    said: list[str] = []  # each missing call as the reason names it
    for i, j, made, why in found.not_made:
        tool = expected[i].tool
        if j is None:
            entry: dict[str, Any] = {"expected": number(i), "tool": tool}
        else:  # a call of the tool, with other arguments
            entry = {"expected": number(i), "tool": tool, "call": number(j), "why": why}
        if made is False:
            missing.append(entry)
            said.append(tool if j is None else f"{tool} (call #{number(j)}: {why})")
        elif j is not None and arguments_unknown(expected[i], context.calls[j]):
            unrecorded.append(entry)
        else:
            undecided.append(entry)
    # the outcome of each call made (C passes: most succeeded)
    status = list(map(context.outcomes.__getitem__, map(_CALL, found.made)))
    failed, no_outcome = (
        [_entry(number(i), number(j), expected[i].tool)
         for i, j in compress(found.made, map(is_, status, repeat(wanted)))]
        for wanted in (True, None))
    # A call whose arguments are not in the trace that failed fails the check either way:
    # made with the expected arguments, it failed; with others, the required call was not made.
    for entry in unrecorded:
        if context.outcomes[entry["call"] - 1] is True:
            failed.append(_entry(entry["expected"], entry["call"], entry["tool"]))
    unrecorded = [u for u in unrecorded if context.outcomes[u["call"] - 1] is not True]
    details: dict[str, Any] = {"required": found.total, "missing": missing, "failed": failed,
                               "no_outcome": no_outcome}
    if undecided:
        details["undecided"] = undecided
    if unrecorded:
        details["unrecorded"] = unrecorded
        details["arguments"] = "missing"
    if missing or failed:
        parts = []
        if missing:
            parts.append("not made: " + ", ".join(said))
        if failed:
            parts.append("failed: " + ", ".join(f["tool"] for f in failed))
        return CheckOutcome("fail", "; ".join(parts), details)
    if undecided or unrecorded:
        parts = []
        if unrecorded:
            parts.append(
                f"{count(len(unrecorded), 'required call')} made, but the trace does not "
                "record the arguments, so whether with the expected ones is unknown: "
                + ", ".join(f"{u['tool']} (call #{u['call']})" for u in unrecorded))
        if undecided:
            parts.append(
                f"{count(len(undecided), 'required call')} made with arguments only the "
                "judge decides: " + ", ".join(f"{u['tool']} (call #{u['call']}: {u['why']})"
                                              for u in undecided))
        return CheckOutcome("unknown", "; ".join(parts), details)
    if no_outcome:
        return CheckOutcome(
            "unknown",
            f"{count(len(no_outcome), 'required call')} made, but the trace has no result or "
            "error for them: " + ", ".join(n["tool"] for n in no_outcome),
            {**details, "results": "missing"},
        )
    return CheckOutcome("pass", f"{_all(found.total, 'required call')} made and succeeded",
                        details)


_CALL = itemgetter(1)


def _entry(expected: int | None, call: int | None, tool: str) -> dict[str, Any]:
    return {"expected": expected, "call": call, "tool": tool}


def _all(n: int, noun: str) -> str:
    return f"the {noun}" if n == 1 else f"all {count(n, noun)}"


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="required-calls",
                  description="Every required call was made, with its arguments, and did not "
                              "fail.", run=run)]
