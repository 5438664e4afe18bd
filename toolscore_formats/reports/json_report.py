"""The JSON report: the complete record plus a summary of latency and cost."""

from __future__ import annotations

import json
from typing import Any, TextIO

from toolscore import Evaluation, ReportWriter, hookimpl


def report(evaluation: Evaluation) -> dict[str, Any]:
    """``to_dict()`` with ``summary``: total_duration, total_cost and their statuses."""
    record = evaluation.to_dict()
    latency = record["metrics"].get("latency_metrics") or {}
    cost = record["metrics"].get("cost_metrics") or {}
    record["summary"] = {
        "score": record["score"],
        "grade": record["grade"],
        "evidence": record["evidence"]["counts"],
        "total_duration": latency.get("total_duration"),
        "latency_status": latency.get("status", "unknown"),
        "total_cost": cost.get("total_cost"),
        "cost_status": cost.get("status", "unknown"),
    }
    return record


def write(evaluation: Evaluation, stream: TextIO) -> None:
    json.dump(report(evaluation), stream, indent=2, sort_keys=True, ensure_ascii=False,
              allow_nan=False)
    stream.write("\n")


@hookimpl
def toolscore_register_report_writers() -> list[ReportWriter]:
    return [ReportWriter(id="json", description="The complete record as JSON, with a summary.",
                         write=write, suffix=".json")]
