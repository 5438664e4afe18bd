"""The gates of ``toolscore eval``: each flag fails the evaluation it names, with its line."""

from __future__ import annotations

from tests.helpers import EXAMPLES
from toolscore_cli.gates import gate_failures
from toolscore_core.evaluation import evaluate_files

EVALUATION = evaluate_files(str(EXAMPLES / "gold.json"), str(EXAMPLES / "trace.json"))
OFF = {"threshold": None, "fail_under": None, "gated": None, "strict_unknown": False,
       "fail_on_violations": False}


def test_no_gate_given_none_fails() -> None:
    assert gate_failures(EVALUATION, **OFF) == ()


def test_a_score_below_the_threshold_fails_with_the_score_and_the_grade_given() -> None:
    assert EVALUATION.score is not None
    gates = gate_failures(EVALUATION, **{**OFF, "threshold": EVALUATION.score + 0.01,
                                         "fail_under": "A"})
    assert gates == (("--fail-under", f"score {EVALUATION.score:.1%} {EVALUATION.grade} "
                                      "is below --fail-under A"),)
    assert gate_failures(EVALUATION, **{**OFF, "threshold": EVALUATION.score}) == ()


def test_strict_unknown_fails_on_an_unknown_check_only_when_asked() -> None:
    unknown = [r.check for r in EVALUATION.evidence if r.status == "unknown"]
    assert unknown, "the example has checks without evidence"
    gated = (unknown[0],)
    assert gate_failures(EVALUATION, **{**OFF, "gated": gated}) == ()
    (flag, line), = gate_failures(EVALUATION, **{**OFF, "gated": gated, "strict_unknown": True})
    assert flag == "--fail-on-evidence"
    assert line == f"evidence: {unknown[0]} unknown (--fail-on-evidence --strict-unknown)"
