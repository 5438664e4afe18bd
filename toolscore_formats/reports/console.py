"""The console verdict: score and grade, metrics, what went wrong, and the evidence."""

from __future__ import annotations

from typing import TextIO

from toolscore import Evaluation, ReportWriter, count, hookimpl
from toolscore_formats.reports.diagnosis import findings
from toolscore_formats.reports.text import (
    cost_text,
    failed_calls_text,
    latency_text,
    metric_rows,
    score_text,
    visible,
)

STATUS_STYLE = {"pass": "green", "fail": "bold red", "unknown": "yellow"}
TOP = 5


def write(evaluation: Evaluation, stream: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    terminal = stream.isatty()
    # A terminal wraps lines at its width; a file or pipe gets each line whole (so grep and
    # CI logs see one verdict per line) and tables 100 columns wide.
    console = Console(file=stream, highlight=False, soft_wrap=not terminal, emoji=False,
                      width=None if terminal else 100)
    record = evaluation.to_dict()
    metrics = record["metrics"]
    trace = record["trace"]
    # a weighted metric of unknown value is not in the score: say so beside it
    unscored = record["unscored"]
    left_out = f"; left out of the score, unknown: {_clean(', '.join(unscored))}" \
        if unscored else ""
    console.print(
        f"[bold]Score {score_text(record['score'], record['grade'])}[/bold]  "
        f"({count(record['coverage']['calls'], 'call')} vs "
        f"{len(record['calls']['expected'])} expected"
        f"{', format ' + _clean(trace['format']) if trace['format'] else ''}{left_out})"
    )
    table = Table(show_header=True, header_style="bold")
    table.add_column("Metric")
    table.add_column("Value", justify="right")
    table.add_column("Weight", justify="right")
    for name, value, weight in metric_rows(record):
        table.add_row(_clean(name), _clean(value), weight)
    table.add_row("latency", latency_text(metrics), "")
    table.add_row("cost", cost_text(metrics), "")
    if isinstance(metrics.get("efficiency_metrics"), dict):
        table.add_row("failed calls", failed_calls_text(metrics), "")
    console.print(table, soft_wrap=False)
    problems = findings(evaluation)
    if problems:
        console.print("[bold]What went wrong[/bold]")
        for line in problems[:TOP]:
            console.print(f"  - {_clean(line)}")
        if len(problems) > TOP:
            console.print(f"  … and {len(problems) - TOP} more (see --json)")
    console.print(f"[bold]{evaluation.evidence.summary()}[/bold]")
    for check in record["evidence"]["checks"]:
        if check["status"] == "pass":
            continue
        style = STATUS_STYLE[check["status"]]
        console.print(f"  [{style}]{check['status']:<7}[/{style}] {_clean(check['check'])}: "
                      f"{_clean(check['reason'])}")
    if trace["notes"]:
        console.print("[bold]Trace notes[/bold]")
        for note in trace["notes"]:
            console.print(f"  - {_clean(note)}")


def _clean(text: str) -> str:
    """Untrusted text as rich prints it verbatim: no markup, no control characters."""
    from rich.markup import escape

    return escape(visible(text))


@hookimpl
def toolscore_register_report_writers() -> list[ReportWriter]:
    return [ReportWriter(id="console", description="The verdict in the terminal (rich).",
                         write=write, suffix=".txt")]
