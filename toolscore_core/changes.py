"""What a regrade changed: the checks whose status flipped and the metrics that moved
between the evaluation a receipt recorded and the new one."""

from __future__ import annotations

from typing import Any

from attrs import frozen

from toolscore_core.canonical import canonical_json
from toolscore_core.context import Evaluation
from toolscore_core.models import Status


@frozen
class CheckChange:
    """A check whose status differs between the recorded evaluation and the regrade."""

    check: str
    before: Status | None
    """The recorded status; null when the check did not run before."""
    after: Status | None
    """The new status; null when the check no longer runs."""
    reason: str
    """The new reason (the recorded one when the check no longer runs)."""

    def __str__(self) -> str:
        return (f"{self.check} {self.before or '(not run)'} → {self.after or '(not run)'}: "
                f"{self.reason}")

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "before": self.before, "after": self.after,
                "reason": self.reason}


@frozen
class MetricChange:
    """A metric whose value differs between the recorded evaluation and the regrade."""

    metric: str
    before: Any
    """The recorded value (any JSON; null when unknown or not computed before)."""
    after: Any
    """The new value (null when unknown or no longer computed)."""

    def __str__(self) -> str:
        return f"{self.metric} {_shown(self.before)} → {_shown(self.after)}"

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "before": self.before, "after": self.after}


@frozen
class Changes:
    """What a regrade changed: the checks whose status flipped and the metrics that moved."""

    checks: tuple[CheckChange, ...]
    metrics: tuple[MetricChange, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"checks": [c.to_dict() for c in self.checks],
                "metrics": [m.to_dict() for m in self.metrics]}


def compare(before: Evaluation, after: Evaluation) -> Changes:
    """The checks whose status differs and the metrics whose value differs, in the new
    evaluation's order, then those that only the recorded one has."""
    old_checks = {c.check: c for c in before.evidence.checks}
    new_checks = {c.check: c for c in after.evidence.checks}
    checks = []
    for name in [*new_checks, *(n for n in old_checks if n not in new_checks)]:
        old, new = old_checks.get(name), new_checks.get(name)
        was = None if old is None else old.status
        now = None if new is None else new.status
        if was != now:
            reason = new.reason if new is not None else old.reason  # type: ignore[union-attr]
            checks.append(CheckChange(check=name, before=was, after=now, reason=reason))
    old_metrics = {m.id: m.value for m in before.metric_results}
    new_metrics = {m.id: m.value for m in after.metric_results}
    metrics = [MetricChange(metric=name, before=old_metrics.get(name),
                            after=new_metrics.get(name))
               for name in [*new_metrics, *(n for n in old_metrics if n not in new_metrics)]
               if _moved(old_metrics.get(name), new_metrics.get(name))]
    return Changes(checks=tuple(checks), metrics=tuple(metrics))


def _moved(before: Any, after: Any) -> bool:
    # True is not 1 to a reader of a metric, and 1 == 1.0 is no change
    return isinstance(before, bool) != isinstance(after, bool) or before != after


def _shown(value: Any) -> str:
    """A metric's value as a line shows it: canonical JSON."""
    try:
        return canonical_json(value)
    except ValueError:
        return repr(value)
