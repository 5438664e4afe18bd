"""The HTML report: one self-contained page, every string from the trace escaped."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, TextIO

from toolscore import Evaluation, ReportWriter, hookimpl
from toolscore_formats.reports.text import visible

if TYPE_CHECKING:  # the view and the stylesheet are loaded when a report is written
    from toolscore_formats.reports.view import CallDetail, CallRow, ReportView


@cache
def stylesheet() -> str:
    """The report's CSS (``html.css``, shipped with the package)."""
    from importlib.resources import files

    return files("toolscore_formats.reports").joinpath("html.css").read_text(encoding="utf-8")


def content_security_policy(css: str) -> str:
    """Nothing may load or run: no network, no scripts; only this page's own stylesheet."""
    import base64
    import hashlib

    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; style-src 'sha256-{digest}'; img-src 'none'; "
            "base-uri 'none'; form-action 'none'")


def _e(text: str) -> str:
    """Untrusted text as inert HTML, its control and invisible characters shown (visible())."""
    from html import escape  # html.entities is loaded only when a page is written

    return escape(visible(text), quote=True)


def _status_class(status: str) -> str:
    return status if status in ("pass", "fail", "unknown") else "unknown"


def _metrics(view: ReportView) -> list[str]:
    out = ['<table id="metrics">',
           "<thead><tr><th>Metric</th><th>Value</th><th>Weight</th></tr></thead><tbody>"]
    out += [f'<tr data-metric="{_e(m.name)}"><td>{_e(m.name)}</td>'
            f'<td class="num">{_e(m.value)}</td><td class="num">{_e(m.weight)}</td></tr>'
            for m in view.metrics]
    out.append("</tbody></table>")
    out.append('<dl class="measures" id="measures">')
    out.append(f'<dt>Latency</dt><dd id="latency">{_e(view.latency)}</dd>')
    out.append(f'<dt>Cost</dt><dd id="cost">{_e(view.cost)}</dd>')
    out.append(f'<dt>Failed calls</dt><dd id="failed-calls">{_e(view.failed_calls)}</dd>')
    if view.unscored:
        out.append("<dt>Left out of the score</dt><dd id=\"unscored\">"
                   + _e(", ".join(view.unscored)) + " (value unknown)</dd>")
    out.append("</dl>")
    return out


def _evidence(view: ReportView) -> list[str]:
    out = ['<section id="evidence-section">', "<h2>Evidence</h2>",
           f'<p id="evidence-summary">{_e(view.evidence_summary)}</p>']
    if not view.checks:
        return [*out, "<p>No check ran.</p>", "</section>"]
    out.append('<table id="evidence">')
    out.append("<thead><tr><th>Check</th><th>Status</th><th>Reason</th><th>Details</th></tr>"
               "</thead><tbody>")
    for c in view.checks:
        status = _status_class(c.status)
        out.append(
            f'<tr class="check status-{status}" data-check="{_e(c.check)}" '
            f'data-status="{status}">'
            f'<td class="check-id">{_e(c.check)}</td>'
            f'<td class="status {status}">{_e(c.status)}</td>'
            f'<td class="reason">{_e(c.reason)}</td>'
            f'<td class="details"><details><summary>{_e(c.plugin)}</summary>'
            f"<pre>{_e(c.details)}</pre></details></td></tr>"
        )
    out += ["</tbody></table>", "</section>"]
    return out


def _call_row(row: CallRow) -> str:
    match_class = {"match": "match-ok", "arguments differ": "match-differ",
                   "unexpected": "match-unexpected"}.get(row.match, "match-missing")
    expected = "" if row.expected_number is None else f"#{row.expected_number} {row.expected}"
    actual = "" if row.actual_number is None else f"#{row.actual_number} {row.actual}"
    return (f'<tr class="call {match_class}"><td class="mono">{_e(expected)}</td>'
            f'<td class="mono">{_e(actual)}</td><td class="nowrap">{_e(row.match)}</td>'
            f'<td class="outcome nowrap {_e(row.outcome)}">{_e(row.outcome)}</td>'
            f'<td class="num">{_e(row.duration)}</td><td class="mono">{_e(row.result)}</td></tr>')


def _call_detail(call: CallDetail) -> list[str]:
    out = [f'<section class="call" id="call-{call.number}">',
           f"<h3>#{call.number} {_e(call.tool)}</h3>",
           '<dl class="measures">',
           f"<dt>Call id</dt><dd>{_e('unknown' if call.id is None else call.id)}</dd>",
           f"<dt>Outcome</dt><dd>{_e(call.outcome)}</dd>",
           f"<dt>Duration</dt><dd>{_e(call.duration)}</dd>",
           f"<dt>Cost</dt><dd>{_e(call.cost)}</dd>",
           f"<dt>Started</dt><dd>{_e('unknown' if call.timestamp is None else call.timestamp)}"
           "</dd></dl>",
           f'<p>Arguments</p><pre class="args">{_e(call.args)}</pre>']
    if call.result is not None:
        out.append(f'<p>Result</p><pre class="result">{_e(call.result)}</pre>')
    if call.error is not None:
        out.append(f'<p>Error</p><pre class="error">{_e(call.error)}</pre>')
    out.append("</section>")
    return out


def render(view: ReportView) -> str:
    """The HTML page of a report view."""
    from toolscore_formats.reports.view import NOTHING_WRONG

    css = stylesheet()
    grade = (view.grade or "unknown").lower()
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" '
        f'content="{_e(content_security_policy(css))}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{_e(view.generator)}">',
        f"<title>toolscore report: {_e(view.score)}</title>",
        f"<style>{css}</style>",
        "</head>",
        "<body>",
        "<header>",
        "<h1>toolscore report</h1>",
        f'<p id="score" class="grade-{_e(grade)}">{_e(view.score)}</p>',
        f'<p id="headline" class="muted">{_e(view.headline)}</p>',
        "</header>",
        "<h2>Metrics</h2>",
        *_metrics(view),
        "<h2>What went wrong</h2>",
    ]
    if view.findings:
        out.append('<ul id="findings">')
        out += [f"<li>{_e(line)}</li>" for line in view.findings]
        out.append("</ul>")
    else:
        out.append(f'<p id="findings">{_e(NOTHING_WRONG)}</p>')
    out += _evidence(view)
    out += ["<h2>Coverage</h2>", f'<p id="coverage">{_e(view.coverage)}</p>', "<h2>Calls</h2>"]
    if view.calls:
        out.append('<table id="calls">')
        out.append("<thead><tr><th>Expected</th><th>Actual</th><th>Match</th><th>Outcome</th>"
                   "<th>Duration</th><th>Result or error</th></tr></thead><tbody>")
        out += [_call_row(row) for row in view.calls]
        out.append("</tbody></table>")
    else:
        out.append("<p>No call was expected and none was made.</p>")
    out.append("<h2>Final answer</h2>")
    if view.final_answer is None:
        out.append('<p id="final-answer" class="muted">unknown</p>')
    else:
        out.append(f'<pre id="final-answer">{_e(view.final_answer)}</pre>')
    if view.call_details:
        out.append('<h2>Each call</h2><div id="call-details">')
        for call in view.call_details:
            out += _call_detail(call)
        out.append("</div>")
    if view.notes:
        out += ["<h2>Trace notes</h2>", '<ul id="notes">']
        out += [f"<li>{_e(note)}</li>" for note in view.notes]
        out.append("</ul>")
    out += [f"<footer>{_e(view.generator)}</footer>", "</body>", "</html>", ""]
    return "\n".join(out)


def write(evaluation: Evaluation, stream: TextIO) -> None:
    from toolscore_formats.reports.view import build_view

    stream.write(render(build_view(evaluation)))


@hookimpl
def toolscore_register_report_writers() -> list[ReportWriter]:
    return [ReportWriter(id="html", description="One self-contained HTML page, no network.",
                         write=write, suffix=".html")]
