"""How numbers and values are shown in every report: scores, seconds, dollars, unknowns."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolscore import Matcher

_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x09), *range(0x0B, 0x20), 0x7F,
                                                   *range(0x80, 0xA0))}
# Invisible characters that no script needs (zero-width space, word joiner, invisible
# operators, zero-width no-break space) and the embeddings, overrides and isolates that
# reorder what follows (the "Trojan Source" set). The zero-width (non-)joiners and the
# left-to-right/right-to-left marks stay: Persian, Hindi, Arabic and emoji text needs them.
_CONTROLS.update({code: f"\\u{code:04x}" for code in (
    0x200B, *range(0x202A, 0x202F), *range(0x2060, 0x2065), *range(0x2066, 0x206A), 0xFEFF)})


def visible(text: str) -> str:
    """``text`` with its control characters (ESC, BEL, CR, backspace, ...) written as
    ``\\xNN`` and its invisible and reordering ones (zero-width space, right-to-left
    override, ...) as ``\\uNNNN``: text from a trace can neither drive the terminal it is
    printed in nor hide or reorder what a report shows (``search`` and ``sea\\u200brch``
    look different). Newlines and tabs are kept."""
    return text.translate(_CONTROLS)


MEASURE_METRICS = ("latency_metrics", "cost_metrics", "efficiency_metrics")
"""Metrics shown as their own lines (latency, cost, failed calls), not as table rows."""


def score_text(score: float | None, grade: str | None) -> str:
    """``95.7% A``; ``unknown`` when the score is unknown."""
    if score is None:
        return "unknown"
    return f"{score * 100:.1f}% {grade}"


def percent(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value * 100:.1f}%"
    return "unknown"


def seconds_text(seconds: float | None) -> str:
    """``0.412s``; ``unknown`` when not measured (a measured 0.0 is ``0.000s``)."""
    return "unknown" if seconds is None else f"{seconds:.3f}s"


def usd_text(usd: float | None) -> str:
    """``$0.0123``; ``unknown`` when not priced."""
    return "unknown" if usd is None else f"${usd:.4f}"


def measured_text(summary: Mapping[str, Any], total_key: str, unit: str) -> str:
    """``unknown``, ``1.234s`` or ``1.234s (3 of 5 calls)`` (cost: ``$0.0123``)."""
    total = summary.get(total_key)
    if summary.get("status") == "unknown" or total is None:
        return "unknown"
    shown = seconds_text(total) if unit == "s" else usd_text(total)
    if summary.get("status") == "partial":
        shown += f" ({summary['measured_calls']} of {summary['calls']} calls)"
    return shown


def latency_text(metrics: Mapping[str, Any]) -> str:
    return measured_text(metrics.get("latency_metrics") or {}, "total_duration", "s")


def cost_text(metrics: Mapping[str, Any]) -> str:
    return measured_text(metrics.get("cost_metrics") or {}, "total_cost", "$")


def failed_calls_text(metrics: Mapping[str, Any]) -> str:
    """How many calls failed, or ``unknown`` when no call has an outcome."""
    efficiency = metrics.get("efficiency_metrics")
    errors = efficiency.get("errors") if isinstance(efficiency, Mapping) else None
    return "unknown" if errors is None else str(errors)


def metric_text(value: Any) -> str:
    """A metric value for a table cell."""
    if value is None or (isinstance(value, Mapping) and "unknown" in value):
        return "unknown"  # the reason is the evidence's (judged-arguments)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def metric_rows(record: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(metric, value, weight) for the metric table of a ``to_dict()`` record.

    Ratios show as percentages; the weight is empty for metrics outside the composite.
    """
    weights = record["weights"]
    rows = []
    for name, value in record["metrics"].items():
        if name in MEASURE_METRICS:
            continue
        shown = percent(value) if isinstance(value, int | float) else metric_text(value)
        weight = weights.get(name)
        rows.append((name, shown, "" if weight is None else f"{weight:.2f}"))
    return rows


def coverage_text(coverage: Mapping[str, Any]) -> str:
    """``4 calls: 3 with an outcome, 3 with a duration, 0 with a cost; final answer known``."""
    answer = "known" if coverage["final_answer_known"] else "unknown"
    return (f"{count_text(coverage['calls'], 'call')}: {coverage['with_outcome']} with an outcome, "
            f"{coverage['with_duration']} with a duration, {coverage['with_cost']} with a cost; "
            f"final answer {answer}")


def count_text(count: int, noun: str) -> str:
    """``1 call``, ``4 calls``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def outcome_text(is_error: bool | None) -> str:
    """``ok``, ``error``, or ``unknown`` when the trace has no result or error."""
    if is_error is None:
        return "unknown"
    return "error" if is_error else "ok"


def clean(text: str) -> str:
    """``text`` safe to encode as UTF-8: lone surrogates (possible in JSON) become U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in ``…`` when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_text(value: Any) -> str:
    """A JSON value on one line, non-ASCII kept, matchers as their repr."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=repr)


def value_text(value: Any) -> str:
    """A result or argument for people: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, Matcher):
        return repr(value)
    return json_text(value)


def args_text(args: Mapping[str, Any] | None) -> str:
    """``origin="SFO", date=Regex('^2026-12-')``: values as JSON, matchers as their repr."""
    if args is None:
        return ""
    return ", ".join(
        f"{name}={repr(value) if isinstance(value, Matcher) else json_text(value)}"
        for name, value in args.items()
    )
