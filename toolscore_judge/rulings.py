"""The rulings of the check judged-arguments: what became of each ``{"$judge": ...}``
argument of a paired call, and of each argument no rule could decide (a ``$regex`` past
its time limit). Imported when a contract has one of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attrs import frozen

from toolscore import (
    TIMED_OUT,
    EvaluationContext,
    Judged,
    count,
    number,
    redact,
    undecided_arguments,
    undecided_in,
)

if TYPE_CHECKING:
    from toolscore_judge.store import Verdict

NO_JUDGE = "no judge was given (--judge MODEL)"


@frozen
class Ruling:
    """What became of one judged argument of a paired call."""

    expected: int
    """The expected call's index."""
    call: int
    """The paired call's index."""
    tool: str
    argument: str
    claim: str
    verdict: Verdict | None
    """None: undecided (no judge, the judge gave none, the judgment is missing)."""
    why: str
    """The judge's reason, or why there is no verdict."""
    judgment_sha256: str | None
    judged: bool = True
    """False for an argument a rule could not decide (its claim is the matcher's repr)."""

    @property
    def label(self) -> str:
        return f"{self.argument} of call #{number(self.call)} {self.tool}"

    def to_dict(self) -> dict[str, Any]:
        return {"expected": number(self.expected), "call": number(self.call),
                "tool": self.tool, "argument": self.argument, "claim": self.claim,
                "verdict": self.verdict, "why": self.why,
                "judgment_sha256": self.judgment_sha256}


def rulings(context: EvaluationContext) -> list[Ruling]:
    """A ruling for each judged argument a paired call gave (one it left out is a plain
    mismatch: nothing to judge), in the order of the expected calls."""
    out: list[Ruling] = []
    expected, calls, pairs = context.expected, context.calls, context.pairing.pairs
    if not context.to_judge and not undecided_in(expected, calls, pairs):
        return out
    for pair in pairs:
        want = expected[pair.expected].args or {}
        call = calls[pair.actual]
        got = call.args or {}
        unsettled = set(undecided_arguments(want, got)) if pair.score < 1.0 else set()
        for name, claim in want.items():
            if type(claim) is Judged and name in got:
                out.append(_rule(context, pair.expected, pair.actual, name, claim, got[name]))
            elif name in unsettled:
                out.append(Ruling(pair.expected, pair.actual, call.tool, name, repr(claim),
                                  None, TIMED_OUT, None, judged=False))
    return out


def _rule(context: EvaluationContext, i: int, j: int, name: str, claim: Judged,
          value: Any) -> Ruling:
    tool = context.calls[j].tool
    judge = context.options.judge
    if judge is None:
        return Ruling(i, j, tool, name, claim.claim, None, NO_JUDGE, None)
    # Imported here: a contract without $judge loads none of the judge.
    from toolscore_judge.judging import consult
    from toolscore_judge.templates import JUDGED_ARGUMENT

    # A credential in an argument is masked before it leaves for the judge's endpoint.
    fields = {"tool": tool, "argument": name, "claim": claim.claim, "value": redact(value)}
    found, missing = consult(judge, JUDGED_ARGUMENT, fields)
    sha = None if found is None else found.sha256
    if found is None or found.verdict is None:
        return Ruling(i, j, tool, name, claim.claim, None, missing or "", sha)
    return Ruling(i, j, tool, name, claim.claim, found.verdict, found.why, sha)


def undecided(waiting: list[Ruling]) -> str:
    """``1 judged argument undecided: city of call #2 get_weather: no judge was given ...``
    (``argument`` when a rule could not decide one of them)."""
    shown = "; ".join(f"{r.label}: {r.why}" for r in waiting[:3])
    more = " …" if len(waiting) > 3 else ""
    noun = "judged argument" if all(r.judged for r in waiting) else "argument"
    return f"{count(len(waiting), noun)} undecided: {shown}{more}"
