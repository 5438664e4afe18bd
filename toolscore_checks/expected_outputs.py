"""expected-outputs: every text the contract expects appears in what the agent told the user."""

from __future__ import annotations

from typing import Any

from toolscore import Check, CheckOutcome, EvaluationContext, count, hookimpl


def folded(text: str) -> str:
    """Text as it is compared: case folded, commas out (``23,553`` tells ``23553``)."""
    return text.casefold().replace(",", "")


def run(context: EvaluationContext) -> CheckOutcome | None:
    wanted = context.contract.expected_outputs
    if not wanted:
        return None
    replies = context.trace.replies
    said: list[tuple[str, str]] = [(f"reply #{n}", text)
                                   for n, text in enumerate(replies or (), start=1)]
    if context.final_answer is not None:
        said.append(("the final answer", context.final_answer))
    if not said:
        return CheckOutcome(
            "unknown", "no final answer and no reply of the agent in the trace to look in",
            {"outputs": list(wanted), "replies": None if replies is None else 0})
    haystacks = [(where, folded(text)) for where, text in said]
    found: list[dict[str, Any]] = []
    missing: list[str] = []
    for output in wanted:
        needle = folded(output)
        where = next((w for w, text in haystacks if needle in text), None)
        if where is None:
            missing.append(output)
        else:
            found.append({"output": output, "in": where})
    details = {"outputs": list(wanted), "found": found, "missing": missing,
               "replies": None if replies is None else len(replies)}
    if not missing:
        return CheckOutcome("pass", f"{_all(len(wanted))} found: " + ", ".join(
            f"{f['output']!r} in {f['in']}" for f in found), details)
    shown = ", ".join(repr(m) for m in missing)
    if replies is None:
        return CheckOutcome(
            "unknown",
            f"not in the final answer: {shown}; the trace format keeps no other reply of the "
            "agent to look in", details)
    return CheckOutcome(
        "fail", f"{count(len(missing), 'expected output')} not in any reply of the agent: "
        f"{shown}", details)


def _all(n: int) -> str:
    return "the expected output" if n == 1 else f"all {count(n, 'expected output')}"


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="expected-outputs",
                  description="Every expected output appears in the final answer or a reply of "
                              "the agent (only with expected_outputs).", run=run)]
