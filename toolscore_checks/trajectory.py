"""trajectory: the calls follow the expected ones as the contract's ``match`` mode says."""

from __future__ import annotations

from typing import Any

from toolscore import (
    Check,
    CheckOutcome,
    EvaluationContext,
    Judged,
    arguments_differ,
    count,
    hookimpl,
    number,
)

ORDERED = ("strict", "in_order")
MISSING_FAILS = ("strict", "in_order", "unordered", "superset")
"""The modes in which an expected call not made fails the trajectory."""
EXTRA_FAILS = ("strict", "unordered", "subset")
"""The modes in which any call beyond the expected ones fails it (the others: only a call of
a closed tool)."""


def run(context: EvaluationContext) -> CheckOutcome | None:
    contract = context.contract
    mode = contract.match
    if mode is None:
        return None
    expected, calls = context.expected, context.calls
    paired = dict(context.paired)
    exact = {i: j for i, j in paired.items()
             if arguments_differ(expected[i], calls[j]) is None}
    made_exactly = set(exact.values())
    missing: list[dict[str, Any]] = []
    out_of_order: list[dict[str, Any]] = []
    moved: set[int] = set()
    skipped: list[dict[str, Any]] = []
    for i, call in enumerate(expected):
        if i in exact:
            continue
        if not call.required:  # optional: it may be left out (a call of it is no extra)
            skipped.append({"expected": number(i), "tool": call.tool})
            continue
        if mode in ORDERED:
            j = next((j for j, made in enumerate(calls)
                      if j not in made_exactly and j not in moved and made.tool == call.tool
                      and arguments_differ(call, made) is None), None)
            if j is not None:
                moved.add(j)
                out_of_order.append({"expected": number(i), "call": number(j),
                                     "tool": call.tool})
                continue
        entry: dict[str, Any] = {"expected": number(i), "tool": call.tool}
        j = paired.get(i)
        if j is not None:
            entry["call"] = number(j)
            entry["why"] = arguments_differ(call, calls[j])
        missing.append(entry)
    closed = _closed_tools(context)
    extra = [{"call": number(j), "tool": made.tool, "closed": made.tool in closed}
             for j, made in enumerate(calls) if j not in made_exactly and j not in moved]
    failing_extra = extra if mode in EXTRA_FAILS else [e for e in extra if e["closed"]]
    failing_missing = missing if mode in MISSING_FAILS else []
    failing_order = out_of_order
    details = {"mode": mode, "expected": len(expected), "calls": len(calls),
               "matched": [{"expected": number(i), "call": number(j)}
                           for i, j in sorted(exact.items())],
               "missing": missing, "out_of_order": out_of_order, "extra": extra,
               "closed": sorted(closed)}
    if skipped:
        details["skipped"] = skipped
    if not (failing_extra or failing_missing or failing_order):
        return CheckOutcome("pass", _passed(mode, len(expected), len(calls), len(extra)),
                            details)
    reason = f"{mode}: " + "; ".join(_parts(failing_missing, failing_order, failing_extra))
    doubt = _doubt(context, failing_missing + failing_order, failing_extra)
    if doubt:
        return CheckOutcome("unknown", f"{reason}; but {doubt}", {**details, "doubt": doubt})
    return CheckOutcome("fail", reason, details)


def _closed_tools(context: EvaluationContext) -> set[str]:
    """The tools of which every call must be an expected one."""
    contract = context.contract
    closed = {call.tool for call in contract.expected if call.closed}
    if contract.closed:
        closed.update(call.tool for call in context.calls)
        closed.update(call.tool for call in contract.expected)
    return closed


def _passed(mode: str, n_expected: int, n_calls: int, n_extra: int) -> str:
    if not n_expected and not n_calls:
        return f"no call was expected and none was made ({mode})"
    rule = {"strict": "the same calls in the same order",
            "in_order": "every expected call made, in order",
            "unordered": "the same calls, in any order",
            "subset": "every call made is an expected one",
            "superset": "every expected call made"}[mode]
    extra = f", with {count(n_extra, 'other call')}" if n_extra else ""
    return f"{rule} ({mode}: {count(n_expected, 'expected call')}, " \
           f"{count(n_calls, 'call')}{extra})"


def _parts(missing: list[dict[str, Any]], out_of_order: list[dict[str, Any]],
           extra: list[dict[str, Any]]) -> list[str]:
    parts = []
    if missing:
        parts.append(f"{count(len(missing), 'expected call')} not made: " + ", ".join(
            f"#{m['expected']} {m['tool']}"
            + (f" (call #{m['call']}: {m['why']})" if "call" in m else "")
            for m in missing[:5]) + (" …" if len(missing) > 5 else ""))
    if out_of_order:
        parts.append(f"{count(len(out_of_order), 'call')} out of order: " + ", ".join(
            f"#{o['expected']} {o['tool']} made as call #{o['call']}"
            for o in out_of_order[:5]) + (" …" if len(out_of_order) > 5 else ""))
    if extra:
        parts.append(f"{count(len(extra), 'extra call')}: " + ", ".join(
            f"#{e['call']} {e['tool']}" + (" (closed tool)" if e["closed"] else "")
            for e in extra[:5]) + (" …" if len(extra) > 5 else ""))
    return parts


def _doubt(context: EvaluationContext, unmet: list[dict[str, Any]],
           extra: list[dict[str, Any]]) -> str | None:
    """Why a failure is not certain: a call whose arguments did not decode or are not in
    the trace, of a tool the failure is about, or an unmet expected call with a ``$judge``
    argument (the judge's to decide, not this check's)."""
    tools = {u["tool"] for u in unmet} | {e["tool"] for e in extra}
    checked = {call.tool for call in context.expected if call.args is not None}
    for j, call in enumerate(context.calls):
        if call.tool in tools and call.args is None:
            if call.raw_args is not None:
                return f"the arguments of call #{number(j)} ({call.tool}) did not decode"
            if call.tool in checked:
                return f"the arguments of call #{number(j)} ({call.tool}) are not in the trace"
    for u in unmet:
        args = context.expected[u["expected"] - 1].args or {}
        if any(isinstance(value, Judged) for value in args.values()):
            return (f"expected call #{u['expected']} ({u['tool']}) has a $judge argument, "
                    "which only the judge decides")
    return None


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="trajectory",
                  description="The calls follow the expected ones as the contract's match mode "
                              "says (only with match).", run=run)]
