"""call-errors: no call failed."""

from __future__ import annotations

from itertools import compress
from typing import Any

from toolscore import Check, CheckOutcome, EvaluationContext, ToolCall, count, hookimpl, number


def run(context: EvaluationContext) -> CheckOutcome:
    calls = context.calls
    outcomes = context.outcomes
    known = len(outcomes) - outcomes.count(None)
    if not known:
        return CheckOutcome("unknown", "no call has a result or error",
                            {"calls": len(calls), "results": "missing"})
    failed = [_failure(i, calls[i]) for i in compress(range(len(calls)), outcomes)]
    details = {"calls": len(calls), "with_outcome": known, "failed": failed}
    if failed:
        return CheckOutcome(
            "fail", f"{count(len(failed), 'call')} failed: " + ", ".join(
                f"#{f['call']} {f['tool']}" + (f" ({f['error']})" if f["error"] else "")
                + (f" [error_when {f['error_rule']}]" if "error_rule" in f else "")
                for f in failed[:5]) + (" …" if len(failed) > 5 else ""),
            details)
    unknown = len(calls) - known
    suffix = f" ({count(unknown, 'call')} without an outcome)" if unknown else ""
    return CheckOutcome("pass", f"no call failed{suffix}", details)


def _failure(index: int, call: ToolCall) -> dict[str, Any]:
    found: dict[str, Any] = {"call": number(index), "tool": call.tool, "error": call.error}
    if call.error_rule is not None:  # failed by the contract's rule, not by the trace
        found["error_rule"] = call.error_rule
    return found


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="call-errors", description="No call failed.", run=run)]
