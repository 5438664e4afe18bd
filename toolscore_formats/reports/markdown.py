"""The Markdown report: verdict, metrics, what went wrong, evidence table, coverage, calls."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TextIO

from toolscore import Evaluation, ReportWriter, hookimpl
from toolscore_formats.reports.text import visible

if TYPE_CHECKING:  # the view is loaded when a report is written
    from toolscore_formats.reports.view import ReportView

# The patterns are compiled on first use (re's cache): a run that writes no Markdown report
# compiles none.
# Characters that start Markdown inline syntax: escaped with a backslash wherever they are.
_PUNCTUATION = r"([\\`*\[\]|~])"
# An underscore can open or close emphasis unless it sits between two letters or digits.
_LOOSE_UNDERSCORE = r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"
# What turns the start of a line into a heading, quote, list item or rule.
_BLOCK_START = r"^([#+\-=])|^(\d{1,9})([.)])(?=\s|$)"
_NEWLINES = r"\r\n|\r|\n"


def escape(text: str) -> str:
    """``text`` as inert Markdown inline text, safe in a table cell or a list item.

    Untrusted text (tool names, arguments, results, errors, reasons) can neither break a
    table (``|``, newlines), start a code span, link or emphasis, nor inject HTML: ``<``,
    ``>`` and ``&`` become entities and newlines become ``<br>``.
    """
    text = visible(re.sub(_NEWLINES, "\n", text))  # no ESC, BEL, ... for a terminal to obey
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = re.sub(_PUNCTUATION, r"\\\1", text)
    text = re.sub(_LOOSE_UNDERSCORE, r"\\_", text)
    lines = [re.sub(_BLOCK_START, _escape_block_start, line.strip())
             for line in re.split(_NEWLINES, text)]
    return "<br>".join(lines)


def _escape_block_start(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\" + match.group(1)
    return match.group(2) + "\\" + match.group(3)


def code_block(text: str) -> str:
    """``text`` verbatim (control characters as ``\\xNN``) in a fenced block whose fence no
    run of backticks in it can close."""
    runs = [len(run) for run in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    body = visible(re.sub(_NEWLINES, "\n", text))  # control characters shown, not obeyed
    return f"{fence}text\n{body}\n{fence}"


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def render(view: ReportView) -> str:
    """The Markdown text of a report view."""
    from toolscore_formats.reports.view import NOTHING_WRONG

    out = [f"# toolscore report: {view.score}", "", escape(view.headline), "",
           "## Metrics", ""]
    out += _table(("Metric", "Value", "Weight"),
                  [(escape(m.name), escape(m.value), m.weight) for m in view.metrics])
    out += ["", f"- Latency: {view.latency}", f"- Cost: {view.cost}",
            f"- Failed calls: {view.failed_calls}"]
    if view.unscored:
        out.append("- Left out of the score (value unknown): "
                   + ", ".join(escape(name) for name in view.unscored))
    out += ["", "## What went wrong", ""]
    out += [f"- {escape(line)}" for line in view.findings] or [NOTHING_WRONG]
    out += ["", "## Evidence", "", f"**{view.evidence_summary}**", ""]
    if view.checks:
        out += _table(("Check", "Status", "Reason"),
                      [(escape(c.check), f"**{c.status}**" if c.status == "fail" else c.status,
                        escape(c.reason)) for c in view.checks])
    else:
        out.append("No check ran.")
    out += ["", "## Coverage", "", view.coverage, "", "## Calls", ""]
    if view.calls:
        out += _table(
            ("Expected", "Actual", "Match", "Outcome", "Duration", "Result or error"),
            [(_numbered(row.expected_number, row.expected),
              _numbered(row.actual_number, row.actual), row.match, row.outcome, row.duration,
              escape(row.result))
             for row in view.calls])
    else:
        out.append("No call was expected and none was made.")
    out += ["", "## Final answer", ""]
    out.append("unknown" if view.final_answer is None else code_block(view.final_answer))
    if view.notes:
        out += ["", "## Trace notes", ""] + [f"- {escape(note)}" for note in view.notes]
    out += ["", f"<sub>{view.generator}</sub>", ""]
    return "\n".join(out)


def _numbered(number: int | None, text: str) -> str:
    return "" if number is None else f"#{number} {escape(text)}"


def write(evaluation: Evaluation, stream: TextIO) -> None:
    from toolscore_formats.reports.view import build_view

    stream.write(render(build_view(evaluation)))


@hookimpl
def toolscore_register_report_writers() -> list[ReportWriter]:
    return [ReportWriter(id="markdown", description="A Markdown report with the evidence table.",
                         write=write, suffix=".md")]
