"""forbidden-calls: no call matched a forbidden rule (only when rules are given)."""

from __future__ import annotations

from typing import Any

from toolscore import (
    TIMED_OUT,
    Check,
    CheckOutcome,
    EvaluationContext,
    ForbiddenRule,
    Matcher,
    ToolCall,
    count,
    hookimpl,
    members_decide,
    number,
    to_json,
    to_repr,
)

UNDECODABLE = "arguments that did not decode"
UNREAD = "arguments not in the trace"


def rule_decision(rule: ForbiddenRule, call: ToolCall) -> tuple[bool | None, str | None]:
    """Whether a call breaks a rule, and why it cannot be told when it cannot: the rule
    names arguments the call has only undecoded (UNDECODABLE) or that the trace does not
    record (UNREAD), or a ``$regex`` of the rule ran past its time limit (TIMED_OUT)."""
    tool = rule.tool.decide(call.tool) if isinstance(rule.tool, Matcher) \
        else rule.tool == call.tool
    if tool is False:
        return False, None
    if rule.args is None:
        args: bool | None = True
    elif call.args is None:
        if call.raw_args is None:
            return None, UNREAD
        args = None
    else:
        args = members_decide(rule.args, call.args)
    if args is False:
        return False, None
    if tool is None or (args is None and call.args is not None):
        return None, TIMED_OUT
    if args is None:
        return None, UNDECODABLE
    return True, None


def rule_dict(index: int, rule: ForbiddenRule) -> dict[str, Any]:
    data = {"rule": index, "tool": to_repr(rule.tool),
            "args": None if rule.args is None else to_json(rule.args), "reason": rule.reason}
    if not rule.count_failed:  # only when set: the details of other rules keep their bytes
        data["count_failed"] = False
    return data


def run(context: EvaluationContext) -> CheckOutcome | None:
    rules = context.options.forbidden
    if not rules:
        return None
    violations: list[dict[str, Any]] = []
    unchecked: list[dict[str, Any]] = []
    undecided: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    for j, call in enumerate(context.calls):
        for r, rule in enumerate(rules, start=1):  # rules are numbered from 1, like calls
            hit, why = rule_decision(rule, call)
            if hit and not rule.count_failed and call.is_error is True:
                refused.append({"call": number(j), "tool": call.tool, "rule": r})
                continue
            if hit is None:
                (unchecked if why in (UNDECODABLE, UNREAD) else undecided).append(
                    {"call": number(j), "tool": call.tool, "rule": r})
            elif hit:
                rule_info = rule_dict(r, rule)
                violations.append({"call": number(j), "id": call.id, "tool": call.tool,
                                   "is_error": call.is_error, "rule": r,
                                   "rule_tool": rule_info["tool"], "args": rule_info["args"],
                                   "reason": rule.reason})
    details: dict[str, Any] = {
        "rules": [rule_dict(r, rule) for r, rule in enumerate(rules, start=1)],
        "calls": len(context.calls), "violations": violations, "unchecked": unchecked}
    if undecided:
        details["undecided"] = undecided
    if refused:
        details["refused"] = refused
    if violations:
        shown = "; ".join(
            f"#{v['call']} {v['tool']} (rule {v['rule']}"
            + (f": {v['reason']}" if v["reason"] else "") + ")"
            for v in violations[:5])
        more = f" and {len(violations) - 5} more" if len(violations) > 5 else ""
        return CheckOutcome("fail", f"{count(len(violations), 'forbidden call')}: {shown}{more}",
                            details)
    if undecided:
        shown = "; ".join(f"#{u['call']} {u['tool']} (rule {u['rule']})" for u in undecided[:5])
        more = f" and {len(undecided) - 5} more" if len(undecided) > 5 else ""
        return CheckOutcome("unknown", f"no call matched a forbidden rule, but "
                            f"{count(len(undecided), 'call')} could not be judged: {shown}{more}"
                            f": {TIMED_OUT}", details)
    unread = {u["call"] for u in unchecked if context.calls[u["call"] - 1].raw_args is None}
    garbled = {u["call"] for u in unchecked} - unread
    note = (f"; {count(len(garbled), 'call')} with undecodable arguments could not be matched "
            "against argument rules") if garbled else ""
    if unread:
        note += (f"; {count(len(unread), 'call')} whose arguments are not in the trace could "
                 "not be matched against argument rules")
    if refused:
        note += (f"; {count(len(refused), 'failed attempt')} left out by count_failed: false: "
                 + ", ".join(f"#{f['call']} {f['tool']} (rule {f['rule']})" for f in refused))
    return CheckOutcome(
        "pass", f"no call matched any of {count(len(rules), 'forbidden rule')}{note}", details)


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="forbidden-calls",
                  description="No call matched a forbidden rule (only with rules).", run=run)]
