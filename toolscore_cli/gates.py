"""The gates of ``toolscore eval``: which of ``--fail-under``, ``--fail-on-evidence`` and
``--fail-on-violations`` an evaluation fails, and the line the console prints for each."""

from __future__ import annotations

from typing import Any


def gate_failures(evaluation: Any, *, threshold: float | None, fail_under: str | None,
                  gated: tuple[str, ...] | None, strict_unknown: bool,
                  fail_on_violations: bool) -> tuple[tuple[str, str], ...]:
    """The gates ``evaluation`` fails: (flag, the line the console prints for it).

    ``threshold`` is ``--fail-under`` as a fraction (``fail_under`` as the user wrote it);
    ``gated`` the checks ``--fail-on-evidence`` names (empty: all; None: the flag is off).
    """
    out = []
    forbidden = evaluation.evidence.get("forbidden-calls")
    if fail_on_violations and forbidden is not None and forbidden.status == "fail":
        out.append(("--fail-on-violations", "forbidden calls were made (--fail-on-violations)"))
    if gated is not None:
        failing = evaluation.evidence.failing(gated or None, strict_unknown=strict_unknown)
        if failing:
            shown = ", ".join(f"{r.check} {r.status}" for r in failing)
            flag = "--fail-on-evidence" + (" --strict-unknown" if strict_unknown else "")
            out.append(("--fail-on-evidence", f"evidence: {shown} ({flag})"))
    if threshold is not None and (evaluation.score is None or evaluation.score < threshold):
        score = ("unknown" if evaluation.score is None
                 else f"{evaluation.score:.1%} {evaluation.grade}")
        out.append(("--fail-under", f"score {score} is below --fail-under {fail_under}"))
    return tuple(out)
