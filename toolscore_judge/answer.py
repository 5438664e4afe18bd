"""answer-correct: the final answer gives the task's reference answer (``expected_answer``)."""

from __future__ import annotations

from toolscore import Check, CheckOutcome, EvaluationContext, hookimpl

ID = "answer-correct"
_TRAILING = " .!。"


def normalized(text: str) -> str:
    """Case, runs of whitespace and a closing full stop do not change an answer."""
    return " ".join(text.casefold().split()).rstrip(_TRAILING)


def run(context: EvaluationContext) -> CheckOutcome | None:
    reference = context.contract.expected_answer
    if reference is None:
        return None
    answer = context.final_answer
    details = {"expected_answer": reference}
    if answer is None or not answer.strip():
        return CheckOutcome("unknown", "no final answer to compare with the reference answer",
                            {**details, "final_answer": "missing"})
    if normalized(answer) == normalized(reference):
        return CheckOutcome("pass", "the final answer is the reference answer", details)
    outcome = CheckOutcome(
        "unknown", "the final answer words the reference answer differently or not at all; "
        "whether it means the same needs a judge (--judge MODEL)", details)
    if context.options.judge is None:
        return outcome
    # Imported here: an evaluation without a judge loads none of it (start-up time).
    from toolscore_judge.judging import Question, second_opinion
    from toolscore_judge.templates import ANSWER_CORRECT

    return second_opinion(context, outcome, Question(
        template=ANSWER_CORRECT, fields={"reference": reference, "answer": answer},
        on_yes=("pass", "the final answer gives the reference answer"),
        on_no=("fail", "the final answer does not give the reference answer")))


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id=ID, description="The final answer gives the contract's expected_answer "
                  "(compared as text; an LLM judge, when given, decides the rest).", run=run)]
