"""judged-arguments: the contract's ``{"$judge": ...}`` arguments, decided by the LLM judge,
and the arguments no rule could decide (a ``$regex`` past its time limit)."""

from __future__ import annotations

from typing import Any

from toolscore import (
    Check,
    CheckOutcome,
    EvaluationContext,
    hookimpl,
    undecided_in,
)

ID = "judged-arguments"


def run(context: EvaluationContext) -> CheckOutcome | None:
    expected, calls, pairs = context.expected, context.calls, context.pairing.pairs
    if not context.to_judge and not undecided_in(expected, calls, pairs):
        return None
    # Imported here: a contract with no argument to rule on loads none of the rulings.
    from toolscore_judge.rulings import rulings, undecided

    found = rulings(context)
    if not found:
        return None
    judge = context.options.judge
    details: dict[str, Any] = {"judge": None if judge is None else judge.model,
                               "arguments": [r.to_dict() for r in found]}
    waiting = [r for r in found if r.verdict is None]
    if waiting or judge is None:
        return CheckOutcome("unknown", undecided(waiting), details)
    refused = [r for r in found if r.verdict == "no"]
    if refused:
        shown = "; ".join(f"{r.label} is not {r.claim!r}" + (f" ({r.why})" if r.why else "")
                          for r in refused[:3])
        return CheckOutcome("fail", f"decided by the judge {judge.model}: {shown}", details)
    meet = ("the judged argument meets" if len(found) == 1
            else f"all {len(found)} judged arguments meet")
    return CheckOutcome("pass", f"decided by the judge {judge.model}: {meet} what the "
                        "contract says", details)


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id=ID, description="The contract's {\"$judge\": ...} arguments meet their "
                  "claims, as an LLM judge decides (--judge MODEL; unknown without one, "
                  "and while an argument's $regex ran past its time limit).",
                  run=run)]
