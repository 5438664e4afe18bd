"""required-calls: every required call was made and did not fail."""

from __future__ import annotations

from typing import Any

from toolscore import Check, CheckOutcome, EvaluationContext, hookimpl
from toolscore_core.wording import count, number


def run(context: EvaluationContext) -> CheckOutcome:
    expected = context.expected
    required = [i for i, call in enumerate(expected) if call.required]
    if not required:
        return CheckOutcome("unknown", "nothing was required: the contract has no required call")
    paired = context.paired
    outcomes = context.outcomes
    missing: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    no_outcome: list[dict[str, Any]] = []
    for i in required:
        j = paired.get(i)
        if j is None:
            missing.append({"expected": number(i), "tool": expected[i].tool})
            continue
        status = outcomes[j]
        if status is False:
            continue
        if status is True:
            failed.append({"expected": number(i), "call": number(j), "tool": expected[i].tool})
        elif status is None:
            no_outcome.append({"expected": number(i), "call": number(j),
                               "tool": expected[i].tool})
    details = {"required": len(required), "missing": missing, "failed": failed,
               "no_outcome": no_outcome}
    if missing or failed:
        parts = []
        if missing:
            parts.append("not made: " + ", ".join(m["tool"] for m in missing))
        if failed:
            parts.append("failed: " + ", ".join(f["tool"] for f in failed))
        return CheckOutcome("fail", "; ".join(parts), details)
    if no_outcome:
        return CheckOutcome(
            "unknown",
            f"{count(len(no_outcome), 'required call')} made, but the trace has no result or "
            "error for them: " + ", ".join(n["tool"] for n in no_outcome),
            {**details, "results": "missing"},
        )
    return CheckOutcome("pass", f"{_all(len(required), 'required call')} made and succeeded",
                        details)


def _all(n: int, noun: str) -> str:
    return f"the {noun}" if n == 1 else f"all {count(n, noun)}"


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="required-calls",
                  description="Every required call was made and did not fail.", run=run)]
