"""forbidden-calls: no call matched a forbidden rule (only when rules are given)."""

from __future__ import annotations

from typing import Any

from toolscore import Check, CheckOutcome, EvaluationContext, ToolCall, hookimpl
from toolscore_core.matchers import Matcher, to_json, to_repr, values_match
from toolscore_core.models import ForbiddenRule
from toolscore_core.wording import count, number


def rule_matches(rule: ForbiddenRule, call: ToolCall) -> bool | None:
    """Whether a call breaks a rule; None when the rule names arguments the call lacks
    because they did not decode."""
    tool_ok = rule.tool.matches(call.tool) if isinstance(rule.tool, Matcher) \
        else rule.tool == call.tool
    if not tool_ok:
        return False
    if rule.args is None:
        return True
    if call.args is None:
        return None if call.raw_args is not None else False
    return all(name in call.args and values_match(want, call.args[name])
               for name, want in rule.args.items())


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
    refused: list[dict[str, Any]] = []
    for j, call in enumerate(context.calls):
        for r, rule in enumerate(rules, start=1):  # rules are numbered from 1, like calls
            hit = rule_matches(rule, call)
            if hit and not rule.count_failed and call.is_error is True:
                refused.append({"call": number(j), "tool": call.tool, "rule": r})
                continue
            if hit is None:
                unchecked.append({"call": number(j), "tool": call.tool, "rule": r})
            elif hit:
                rule_info = rule_dict(r, rule)
                violations.append({"call": number(j), "id": call.id, "tool": call.tool,
                                   "is_error": call.is_error, "rule": r,
                                   "rule_tool": rule_info["tool"], "args": rule_info["args"],
                                   "reason": rule.reason})
    details: dict[str, Any] = {
        "rules": [rule_dict(r, rule) for r, rule in enumerate(rules, start=1)],
        "calls": len(context.calls), "violations": violations, "unchecked": unchecked}
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
    note = (f"; {count(len(unchecked), 'call')} with undecodable arguments could not be matched "
            "against argument rules") if unchecked else ""
    if refused:
        note += (f"; {count(len(refused), 'failed attempt')} left out by count_failed: false: "
                 + ", ".join(f"#{f['call']} {f['tool']} (rule {f['rule']})" for f in refused))
    return CheckOutcome(
        "pass", f"no call matched any of {count(len(rules), 'forbidden rule')}{note}", details)


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="forbidden-calls",
                  description="No call matched a forbidden rule (only with rules).", run=run)]
