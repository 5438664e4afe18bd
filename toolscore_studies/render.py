"""Study summaries as text: cells, Markdown, JSON and a self-contained HTML page."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any

from toolscore_secrets.redaction import redact_text

COLUMNS = ("Task", "Runs", "Passed", "Errors", "Pass rate", "pass^k", "Mean score",
           "Evidence pass/fail/unknown", "Latency", "Cost (total)")


def pct(value: float | None) -> str:
    return "unknown" if value is None else f"{value * 100:.1f}%"


def measured_cell(data: Mapping[str, Any], unit: str) -> str:
    """``unknown``, ``1.234s`` mean per run, or ``1.234s (2 of 3 runs)`` when partial."""
    if data.get("status") == "unknown" or data.get("mean") is None:
        return "unknown"
    shown = f"{data['mean']:.3f}s/run" if unit == "s" else f"${data['total']:.4f}"
    if data.get("status") == "partial":
        shown += f" ({data['measured_runs']}/{data['runs']} runs)"
    return shown


def score_cell(task: Mapping[str, Any]) -> str:
    if task.get("mean_score") is None:
        return f"unknown (0/{task['runs']} runs)"
    return f"{task['mean_score'] * 100:.1f}% ({task['scored_runs']}/{task['runs']} runs)"


def evidence_cell(evidence: Mapping[str, int]) -> str:
    return f"{evidence['pass']}/{evidence['fail']}/{evidence['unknown']}"


def task_cells(task: Mapping[str, Any], k: int) -> list[str]:
    """One table row of a study summary, as text (untrusted text not yet escaped)."""
    pass_k = task.get("pass_k")
    return [
        redact_text(str(task["task_id"])), str(task["runs"]), str(task["passed"]),
        str(task["errors"]), pct(task["pass_rate"]),
        "n/a" if pass_k is None else f"{pass_k:.3f}",
        score_cell(task), evidence_cell(task["evidence"]),
        measured_cell(task["duration"], "s"), measured_cell(task["cost"], "$"),
    ]


def total_cells(summary: Mapping[str, Any]) -> list[str]:
    """The ``(all)`` row: every run's figures, and the study's pass^k (the tasks' mean)."""
    return task_cells(summary["total"], summary["k"])


def pass_k_note(k: int) -> str:
    """What the pass^k column holds, in a sentence."""
    return (f"pass^{k} is the unbiased estimate C(c,{k})/C(n,{k}) over a task's n trials "
            f"with c passes; the study's (all) is the mean over tasks, n/a when a task has "
            f"fewer than {k} trials.")


def summary_json(data: Mapping[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def _md(text: str) -> str:
    """Untrusted text (study names, task ids, problems) as inert Markdown, as ``eval
    --markdown`` writes it."""
    from toolscore_formats.reports.markdown import escape

    return escape(text)


def summary_markdown(summary: Mapping[str, Any]) -> str:
    """A study summary as a Markdown table."""
    k = summary["k"]
    header = [c if c != "pass^k" else f"pass^{k}" for c in COLUMNS]
    lines = [f"# Study summary: {_md(', '.join(summary['studies']) or 'no runs')}", "",
             f"{summary['runs']} runs; {pass_k_note(k)}", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for task in summary["tasks"]:
        lines.append("| " + " | ".join(_md(c) for c in task_cells(task, k)) + " |")
    lines.append("| " + " | ".join(_md(c) for c in total_cells(summary)) + " |")
    return "\n".join(lines) + "\n"


def regrade_markdown(data: Mapping[str, Any]) -> str:
    """A regrade summary: before vs after per task, flipped tasks, rows written through."""
    lines = ["# Regrade summary", "",
             f"{data['rows']} rows: {data['regraded']} regraded, {data['written_through']} "
             "written through unchanged.", "",
             "| Task | Runs | Pass rate before | Pass rate after | Mean score before | "
             "Mean score after | Flipped |", "|---|---|---|---|---|---|---|"]
    for task in data["tasks"]:
        lines.append("| " + " | ".join(_md(c) for c in regrade_cells(task)) + " |")
    if data["check_flips"]:
        lines += ["", "Checks that flipped:", "", "| Check | Before | After | Runs |",
                  "|---|---|---|---|"]
        lines += ["| " + " | ".join(_md(c) for c in check_flip_cells(flip)) + " |"
                  for flip in data["check_flips"]]
    else:
        lines += ["", "No check flipped."]
    if data["problems"]:
        lines += ["", "Rows written through unchanged:", ""]
        lines += [f"- line {p['line']}: {_md(redact_text(p['problem']))}"
                  for p in data["problems"]]
    return "\n".join(lines) + "\n"


CHECK_FLIP_COLUMNS = ("Check", "Before", "After", "Runs")


def check_flip_cells(flip: Mapping[str, Any]) -> list[str]:
    """A row of the checks-that-flipped table: a status, or ``(not run)`` on the side where
    the check did not run."""
    return [redact_text(str(flip["check"])), flip["before"] or "(not run)",
            flip["after"] or "(not run)", str(flip["runs"])]


def regrade_cells(task: Mapping[str, Any]) -> list[str]:
    flips = []
    if task["flipped_to_pass"]:
        flips.append(f"{task['flipped_to_pass']} to pass")
    if task["flipped_to_fail"]:
        flips.append(f"{task['flipped_to_fail']} to fail")

    def score(value: float | None) -> str:
        return "unknown" if value is None else f"{value * 100:.1f}%"

    return [redact_text(str(task["task_id"])), str(task["runs"]), pct(task["pass_rate_before"]),
            pct(task["pass_rate_after"]), score(task["mean_score_before"]),
            score(task["mean_score_after"]), ", ".join(flips) or "-"]


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem;color:#1b1f24}
h1{font-size:1.4rem}table{border-collapse:collapse;margin:1rem 0}
th,td{border:1px solid #d0d7de;padding:.35rem .6rem;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f6f8fa}
.chart text{font-size:12px;fill:#1b1f24}.bar{fill:#2da44e}.track{fill:#eaeef2}
.unknown{fill:#bf8700}.note{color:#57606a}
"""

BAR_WIDTH = 420
ROW_HEIGHT = 26
LABEL_WIDTH = 220


def chart_svg(summary: Mapping[str, Any]) -> str:
    """An inline SVG bar chart of the pass rate per task (one ``rect.bar`` per task)."""
    tasks = summary["tasks"]
    height = ROW_HEIGHT * max(1, len(tasks)) + 10
    width = LABEL_WIDTH + BAR_WIDTH + 80
    parts = [f'<svg class="chart" role="img" aria-label="Pass rate per task" '
             f'xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">']
    for i, task in enumerate(tasks):
        y = 5 + i * ROW_HEIGHT
        name = escape(redact_text(str(task["task_id"])))
        rate = task["pass_rate"]
        filled = 0.0 if rate is None else rate * BAR_WIDTH
        parts.append(f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end">{name}</text>')
        parts.append(f'<rect class="track" x="{LABEL_WIDTH}" y="{y}" width="{BAR_WIDTH}" '
                     f'height="{ROW_HEIGHT - 8}"/>')
        parts.append(f'<rect class="bar" data-task="{name}" data-pass-rate="'
                     f'{"" if rate is None else f"{rate:.6f}"}" x="{LABEL_WIDTH}" y="{y}" '
                     f'width="{filled:.2f}" height="{ROW_HEIGHT - 8}"><title>{name}: '
                     f'{pct(rate)}</title></rect>')
        parts.append(f'<text x="{LABEL_WIDTH + BAR_WIDTH + 6}" y="{y + 15}">{pct(rate)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def summary_html(summary: Mapping[str, Any], *, regrade: Mapping[str, Any] | None = None) -> str:
    """A self-contained page (no scripts, no external resources): chart and tables."""
    k = summary["k"]
    title = f"Study summary: {', '.join(summary['studies']) or 'no runs'}"
    header = "".join(f"<th>{escape(c if c != 'pass^k' else f'pass^{k}')}</th>" for c in COLUMNS)
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in task_cells(task, k)) + "</tr>"
        for task in summary["tasks"])
    total = "<tr>" + "".join(f"<th>{escape(c)}</th>" for c in total_cells(summary)) + "</tr>"
    body = [f"<h1>{escape(redact_text(title))}</h1>",
            f'<p class="note">{summary["runs"]} runs. {escape(pass_k_note(k))} Unknown values '
            "are never 0.</p>",
            '<h2>Pass rate per task</h2>', chart_svg(summary),
            f'<table class="tasks"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody>'
            f"<tfoot>{total}</tfoot></table>"]
    if regrade is not None:
        head = "".join(f"<th>{escape(c)}</th>" for c in (
            "Task", "Runs", "Pass rate before", "Pass rate after", "Mean score before",
            "Mean score after", "Flipped"))
        cells = "".join(
            "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in regrade_cells(t)) + "</tr>"
            for t in regrade["tasks"])
        body += ["<h2>Regrade: before vs after</h2>",
                 f'<p class="note">{regrade["rows"]} rows: {regrade["regraded"]} regraded, '
                 f'{regrade["written_through"]} written through unchanged.</p>',
                 f'<table class="regrade"><thead><tr>{head}</tr></thead>'
                 f"<tbody>{cells}</tbody></table>"]
        if regrade["check_flips"]:
            head = "".join(f"<th>{escape(c)}</th>" for c in CHECK_FLIP_COLUMNS)
            cells = "".join(
                "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in check_flip_cells(f)) + "</tr>"
                for f in regrade["check_flips"])
            body += ["<h2>Checks that flipped</h2>",
                     f'<table class="check-flips"><thead><tr>{head}</tr></thead>'
                     f"<tbody>{cells}</tbody></table>"]
        else:
            body.append('<p class="note">No check flipped.</p>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(redact_text(title))}</title><style>{_CSS}</style></head><body>"
            + "".join(body) + "</body></html>\n")
