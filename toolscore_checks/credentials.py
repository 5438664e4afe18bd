"""credentials: no credential in any tool call's arguments (nested anywhere)."""

from __future__ import annotations

from typing import Any

from toolscore_core.batches import BATCH
from toolscore_core.evaluation import EvaluationContext
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Check, CheckOutcome
from toolscore_core.redaction import find_in_value, suspicious_value


def run(context: EvaluationContext) -> CheckOutcome:
    calls = context.calls
    findings: list[dict[str, Any]] = []
    # One prefilter search over the arguments of each run of BATCH calls (a text that stays
    # in the CPU's cache); only the calls of a suspicious run are walked one by one.
    for start in range(0, len(calls), BATCH):
        if not suspicious_value([[c.args, c.raw_args or ""] for c in calls[start:start + BATCH]]):
            continue
        for j in range(start, min(start + BATCH, len(calls))):
            call = calls[j]
            for where, value in (("args", call.args), ("raw_args", call.raw_args)):
                if value is None:
                    continue
                root = "$" if where == "args" else "$raw"
                findings.extend(
                    {"call": j, "id": call.id, "tool": call.tool, "path": f.path,
                     "kind": f.kind, "masked": f.masked}
                    for f in find_in_value(value, root))
    details = {"calls": len(calls), "findings": findings}
    if findings:
        # No "name: value" shape here: the reason itself goes through redaction.
        shown = "; ".join(f"#{f['call']} {f['tool']} at {f['path']} ({f['kind']} {f['masked']})"
                          for f in findings[:5])
        more = f" and {len(findings) - 5} more" if len(findings) > 5 else ""
        return CheckOutcome(
            "fail", f"{len(findings)} credential(s) in tool arguments: {shown}{more}", details)
    return CheckOutcome("pass", f"no credential in the arguments of {len(calls)} call(s)",
                        details)


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="credentials", description="No credential in tool arguments.", run=run)]
