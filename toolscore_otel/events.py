"""Verdicts as OpenTelemetry ``gen_ai.evaluation.result`` events: what each one says.

One event per check, per metric and for the composite score, built from an evaluation's
record (``to_dict()``, or a run row's ``evaluation``). Nothing here imports OpenTelemetry:
``toolscore_otel.export`` turns these into log records and sends or writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from attrs import frozen

from toolscore_core.canonical import canonical_json, canonical_sha256
from toolscore_core.spans import SpanRef
from toolscore_secrets.redaction import redact

if TYPE_CHECKING:
    from toolscore_core.context import Evaluation

EVENT_NAME = "gen_ai.evaluation.result"
SCORE_NAME = "score"
"""``gen_ai.evaluation.name`` of the composite score's event."""
CHECK_SCORES = {"pass": 1.0, "fail": 0.0}
"""A check's ``score.value``; an unknown check has none."""
METRIC_STATUSES = frozenset(("measured", "partial", "unknown"))


@frozen
class EvaluationEvent:
    """One ``gen_ai.evaluation.result`` event: its attributes and the span it belongs to."""

    attributes: Mapping[str, str | int | float | bool]
    """OpenTelemetry attributes (absent values are left out, never written as 0 or "")."""
    span: SpanRef | None = None
    """The evaluated trace's span, the event's parent; null when the trace is not one
    OpenTelemetry trace."""


def evaluation_events(evaluation: Evaluation, *, receipt_sha256: str | None = None
                      ) -> list[EvaluationEvent]:
    """The events of one evaluation; ``receipt_sha256`` when a receipt was written."""
    from toolscore_core.contracts import contract_json

    trace = evaluation.trace
    return record_events(evaluation.to_dict(), record_sha256=evaluation.record_sha256,
                         contract_sha256=canonical_sha256(contract_json(evaluation.contract)),
                         receipt_sha256=receipt_sha256, span=trace.span,
                         response_id=trace.response_id)


def run_events(rows: Iterable[Mapping[str, Any]]) -> Iterator[EvaluationEvent]:
    """The events of each evaluated run of a runs file (an error row has none)."""
    for row in rows:
        record = row.get("evaluation")
        if not isinstance(record, Mapping):
            continue
        contract = row.get("contract")
        expected = contract.get("expected") if isinstance(contract, Mapping) else None
        context = {f"toolscore.{key}": row.get(key)
                   for key in ("study", "task_id", "trial", "run_id")}
        yield from record_events(
            record, record_sha256=_text(row.get("record_sha256")),
            contract_sha256=None if not isinstance(expected, list)
            else canonical_sha256(expected), context=context)


def record_events(
    record: Mapping[str, Any], *, record_sha256: str | None, contract_sha256: str | None,
    receipt_sha256: str | None = None, span: SpanRef | None = None,
    response_id: str | None = None, context: Mapping[str, Any] | None = None,
) -> list[EvaluationEvent]:
    """The events of one evaluation record: the composite score, then each check, then each
    metric, every attribute redacted as the reports are."""
    shared = _present({
        "gen_ai.response.id": response_id,
        "toolscore.record_sha256": record_sha256,
        "toolscore.receipt_sha256": receipt_sha256,
        "toolscore.contract_sha256": contract_sha256,
        **(context or {}),
    })
    plugins = {p.get("name"): p for p in record.get("plugins") or () if isinstance(p, Mapping)}
    providers = (record.get("provenance") or {}).get("metrics") or {}
    weights = record.get("weights") or {}
    unscored = set(record.get("unscored") or ())
    grade = record.get("grade")
    events = [{
        "gen_ai.evaluation.name": SCORE_NAME, "toolscore.evaluation.kind": "score",
        "gen_ai.evaluation.score.value": _number(record.get("score")),
        "gen_ai.evaluation.score.label": grade if isinstance(grade, str) else "unknown",
        "gen_ai.evaluation.explanation": None if grade is not None else
        "no weighted metric has a known value",
    }]
    for check in (record.get("evidence") or {}).get("checks") or ():
        status = check.get("status")
        events.append({
            "gen_ai.evaluation.name": check.get("check"), "toolscore.evaluation.kind": "check",
            "gen_ai.evaluation.score.value": CHECK_SCORES.get(status),
            "gen_ai.evaluation.score.label": status if status in CHECK_SCORES else "unknown",
            "gen_ai.evaluation.explanation": check.get("reason"),
            **_plugin(check.get("plugin")),
        })
    for metric, value in (record.get("metrics") or {}).items():
        events.append({
            "gen_ai.evaluation.name": metric, "toolscore.evaluation.kind": "metric",
            "gen_ai.evaluation.score.value": _number(value),
            "gen_ai.evaluation.score.label": _metric_label(value),
            "gen_ai.evaluation.explanation": _metric_explanation(
                weights.get(metric), metric in unscored),
            "toolscore.metric.value": None if value is None or _number(value) is not None
            else canonical_json(value),
            "toolscore.metric.weight": _number(weights.get(metric)),
            **_plugin(plugins.get(providers.get(metric))),
        })
    return [EvaluationEvent(attributes=redact(_present({**shared, **event})), span=span)
            for event in events]


def _metric_label(value: Any) -> str:
    """``measured`` for a value, ``unknown`` for none; a value that states its own status
    (latency, cost: measured, partial, unknown) gives that."""
    if value is None:
        return "unknown"
    status = value.get("status") if isinstance(value, Mapping) else None
    return status if status in METRIC_STATUSES else "measured"


def _metric_explanation(weight: Any, unscored: bool) -> str | None:
    if unscored:
        return "unknown, so left out of the composite score (the other weights renormalized)"
    number = _number(weight)
    return None if not number else f"weight {number:.3g} in the composite score"


def _plugin(plugin: Any) -> dict[str, Any]:
    if not isinstance(plugin, Mapping):
        return {}
    return {"toolscore.plugin.name": plugin.get("name"),
            "toolscore.plugin.distribution": plugin.get("distribution"),
            "toolscore.plugin.version": plugin.get("version")}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _present(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The attributes that have a value an OpenTelemetry attribute can hold."""
    return {key: value for key, value in attributes.items()
            if isinstance(value, str | int | float | bool)}
