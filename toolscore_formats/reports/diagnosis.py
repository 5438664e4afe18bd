"""What went wrong, in sentences: missing, unexpected, mismatched and failed calls."""

from __future__ import annotations

from typing import Any

from toolscore import (
    TIMED_OUT,
    Evaluation,
    Judged,
    Optional,
    Pair,
    decide,
    known_secrets,
    mask_known,
    number,
    redact_text,
    to_repr,
)


def _short(value: Any, limit: int = 60, secrets: frozenset[str] = frozenset()) -> str:
    # Masked before it is cut: a cut would leave part of a secret no detector knows.
    text = mask_known(redact_text(repr(to_repr(value))), secrets)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def judge_verdicts(evaluation: Evaluation) -> dict[tuple[int | None, str], str | None]:
    """The judge's verdict on each judged argument, by (expected call number, argument)."""
    judged = evaluation.evidence.get("judged-arguments")
    return {(a["expected"], a["argument"]): a["verdict"]
            for a in (judged.details.get("arguments", []) if judged else [])}


def argument_differences(evaluation: Evaluation, pair: Pair,
                         verdicts: dict[tuple[int | None, str], str | None],
                         secrets: frozenset[str] = frozenset()) -> list[str]:
    """How a paired call's arguments differ from the expected ones, one phrase each (none
    when they match, judged arguments the judge accepted included)."""
    want = evaluation.context.expected[pair.expected].args
    call = evaluation.context.calls[pair.actual]
    if want is not None and call.args is None and call.raw_args is None:
        return [UNRECORDED]  # neither a match nor a difference is known
    if want is None or pair.score >= 1.0:
        return []
    got = call.args or {}
    diffs = []
    for name, value in want.items():
        if name not in got:
            if type(value) is not Optional:
                diffs.append(f"{name} missing")
        elif isinstance(value, Judged):
            verdict = verdicts.get((number(pair.expected), name))
            if verdict != "yes":
                diffs.append(f"{name}: the judge says it is not {value.claim!r}"
                             if verdict == "no" else f"{name}: {WAITS}")
        else:
            decision = decide(value, got[name])
            if decision is None:
                diffs.append(f"{name}: {UNDECIDED}")
            elif not decision:
                diffs.append(f"{name}: expected {_short(value, 30, secrets)}, "
                             f"got {_short(got[name], 30, secrets)}")
    diffs.extend(f"{name} unexpected" for name in got if name not in want)
    return diffs


WAITS = "waits for a judge"
UNRECORDED = "arguments not in the trace"
UNDECIDED = f"undecided ({TIMED_OUT})"


def findings(evaluation: Evaluation, limit: int | None = None) -> list[str]:
    """Problems in order of weight: missing required calls, failures, arguments, extras."""
    ctx = evaluation.context
    expected, calls, pairing = ctx.expected, ctx.calls, ctx.pairing
    # A password quoted in an error or an argument diff is hidden like the argument itself.
    secrets = known_secrets([[c.args for c in calls], [e.args for e in expected]])
    out: list[str] = []
    for i in pairing.unpaired_expected:
        kind = "required call" if expected[i].required else "expected call"
        out.append(f"missing {kind} #{number(i)} {expected[i].tool}")
    for j, call in enumerate(calls):
        if call.is_error:
            detail = f": {_short(call.error, secrets=secrets)}" if call.error else ""
            out.append(f"call #{number(j)} {call.tool} failed{detail}")
    verdicts = judge_verdicts(evaluation)
    for pair in pairing.pairs:
        diffs = argument_differences(evaluation, pair, verdicts, secrets)
        if not diffs:
            continue
        if diffs == [UNRECORDED]:
            out.append(f"call #{number(pair.actual)} {calls[pair.actual].tool}: {UNRECORDED} "
                       "(whether they are the expected ones is unknown)")
            continue
        out.append(f"call #{number(pair.actual)} {calls[pair.actual].tool} arguments differ: "
                   + "; ".join(diffs[:4]) + (" …" if len(diffs) > 4 else ""))
    for j in pairing.unpaired_actual:
        out.append(f"unexpected call #{number(j)} {calls[j].tool}")
    for j, call in enumerate(calls):
        if call.raw_args is not None:
            out.append(f"call #{number(j)} {call.tool} has arguments that are not a JSON object")
    return out if limit is None else out[:limit]
