"""The "short-answer" check: the final answer has at most 50 words."""

from __future__ import annotations

from toolscore import Check, CheckOutcome, EvaluationContext, Status

MAX_WORDS = 50


def short_answer(context: EvaluationContext) -> CheckOutcome:
    if context.final_answer is None:
        return CheckOutcome("unknown", "no final answer")
    words = len(context.final_answer.split())
    status: Status = "pass" if words <= MAX_WORDS else "fail"
    return CheckOutcome(status, f"the final answer has {words} words", {"words": words})


SHORT_ANSWER = Check(id="short-answer", description="The final answer has at most 50 words.",
                     run=short_answer)
