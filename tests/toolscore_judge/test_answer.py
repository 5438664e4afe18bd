"""answer-correct without a judge: the text rules, and absent when no reference is given."""

from __future__ import annotations

from toolscore_core.evaluation import evaluate
from toolscore_core.receipts import build_receipt

CALLS = [{"tool": "lookup", "args": {"city": "Paris"}, "result": "ok"}]


def outcome(
    answer: str | None, reference: str | None = "Paris is the capital of France."
) -> tuple[str, str] | None:
    contract = {"expected": [{"tool": "lookup"}], "expected_answer": reference}
    result = evaluate(contract, {"calls": CALLS}, final_answer=answer).evidence.get(
        "answer-correct")
    return None if result is None else (result.status, result.reason)


def test_the_reference_answer_written_alike_passes() -> None:
    assert outcome("  paris is the capital   of France ") == (
        "pass", "the final answer is the reference answer")


def test_other_words_are_unknown_without_a_judge() -> None:
    assert outcome("La capitale de la France est Paris.") == (
        "unknown", "the final answer words the reference answer differently or not at all; "
        "whether it means the same needs a judge (--judge MODEL)")
    assert outcome(" ") == ("unknown", "no final answer to compare with the reference answer")


def test_without_a_reference_the_check_is_absent_and_receipts_unchanged() -> None:
    assert outcome("Paris", reference=None) is None
    evaluation = evaluate([{"tool": "lookup"}], {"calls": CALLS})
    assert "answer-correct" not in {p.name for p in evaluation.plugins}
    receipt = build_receipt(evaluation)
    assert "judgments" not in receipt["inputs"] and receipt["settings"]["judge_model"] is None
