"""call-errors: no call failed."""

from __future__ import annotations

from itertools import compress

from toolscore import Check, CheckOutcome, EvaluationContext, hookimpl
from toolscore_core.wording import count, number


def run(context: EvaluationContext) -> CheckOutcome:
    calls = context.calls
    outcomes = context.outcomes
    known = len(outcomes) - outcomes.count(None)
    if not known:
        return CheckOutcome("unknown", "no call has a result or error",
                            {"calls": len(calls), "results": "missing"})
    failed = [{"call": number(i), "tool": calls[i].tool, "error": calls[i].error}
              for i in compress(range(len(calls)), outcomes)]
    details = {"calls": len(calls), "with_outcome": known, "failed": failed}
    if failed:
        return CheckOutcome(
            "fail", f"{count(len(failed), 'call')} failed: " + ", ".join(
                f"#{f['call']} {f['tool']}" + (f" ({f['error']})" if f["error"] else "")
                for f in failed[:5]) + (" …" if len(failed) > 5 else ""),
            details)
    unknown = len(calls) - known
    suffix = f" ({count(unknown, 'call')} without an outcome)" if unknown else ""
    return CheckOutcome("pass", f"no call failed{suffix}", details)


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="call-errors", description="No call failed.", run=run)]
