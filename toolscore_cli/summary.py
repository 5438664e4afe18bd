"""``toolscore summary``: per-task pass rate, pass^k, score, evidence, time and cost of runs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import click

from toolscore_cli import console
from toolscore_cli.options import (
    check_otel,
    gate_ks,
    otel_options,
    parse_study_gate,
    study_below,
    write_otel,
)
from toolscore_cli.paths import FILE, refuse_outputs_over_inputs
from toolscore_core.atomic import write_text_atomic

if TYPE_CHECKING:
    from rich.console import Console

TABLE_WIDTH = 150

output_options = [
    click.option("--k", "k", type=int, default=None, metavar="K",
                 help="The k of pass^k (default: the fewest trials any task has)."),
    click.option("--json", "json_path", metavar="PATH|-", type=FILE,
                 help="Write the summary as JSON."),
    click.option("--markdown", "markdown_path", metavar="PATH|-", type=FILE,
                 help="Write the summary as a Markdown table."),
    click.option("--html", "html_path", metavar="PATH", type=FILE,
                 help="Write a self-contained HTML page with a chart of pass rate per task."),
    click.option("--junit", "junit_path", metavar="PATH|-", type=FILE,
                 help="Write JUnit XML for CI: a test case per run (failed or errored runs "
                      "fail; - = stdout)."),
    click.option("--fail-under", metavar="RATE|pass^K=VALUE",
                 help="Exit 1 when the pass rate of all runs is below RATE (0.8 or 80%), or "
                      "with pass^K=VALUE, when the study's pass^K is below VALUE."),
]


def with_output_options(command: Any) -> Any:
    for option in reversed(output_options):
        command = option(command)
    return command


def _console(err: bool) -> Console:
    """The CLI console; when not a terminal, wide enough that tables are not squeezed."""
    from rich.console import Console

    out = console.stderr() if err else console.stdout()
    if out.is_terminal:
        return out
    return Console(file=out.file, width=max(out.width, TABLE_WIDTH), highlight=False,
                   emoji=False)


def print_summary(summary: Mapping[str, Any], *, err: bool = False) -> None:
    """The per-task table in the terminal."""
    from rich.markup import escape
    from rich.table import Table

    from toolscore_formats.reports.text import visible
    from toolscore_studies.render import COLUMNS, task_cells, total_cells

    out = _console(err)
    k = summary["k"]
    table = Table(title=escape(visible(f"Study {', '.join(summary['studies']) or '(no runs)'}")),
                  header_style="bold")
    for i, name in enumerate(COLUMNS):
        table.add_column(f"pass^{k}" if name == "pass^k" else name,
                         justify="left" if i == 0 else "right")
    for task in summary["tasks"]:
        table.add_row(*(escape(visible(c)) for c in task_cells(task, k)))
    table.add_section()
    table.add_row(*(escape(c) for c in total_cells(summary)), style="bold")
    out.print(table)


def print_regrade(data: Mapping[str, Any], *, err: bool = False) -> None:
    """Before vs after per task, the tasks that flipped, and the rows written through."""
    from rich.markup import escape
    from rich.table import Table

    from toolscore_formats.reports.text import visible
    from toolscore_secrets.redaction import redact_text
    from toolscore_studies.render import CHECK_FLIP_COLUMNS, check_flip_cells, regrade_cells

    out = _console(err)
    table = Table(title="Regrade", header_style="bold")
    for i, name in enumerate(("Task", "Runs", "Pass rate before", "Pass rate after",
                              "Mean score before", "Mean score after", "Flipped")):
        table.add_column(name, justify="left" if i in (0, 6) else "right")
    for task in data["tasks"]:
        table.add_row(*(escape(visible(c)) for c in regrade_cells(task)))
    out.print(table)
    flipped = data["flipped_tasks"]
    out.print(f"{data['rows']} rows: {data['regraded']} regraded, {data['written_through']} "
              "written through unchanged. "
              + (f"Flipped: {visible(', '.join(flipped))}." if flipped else "No task flipped."),
              markup=False)
    if data["check_flips"]:
        flips = Table(title="Checks that flipped", header_style="bold")
        for i, name in enumerate(CHECK_FLIP_COLUMNS):
            flips.add_column(name, justify="right" if i == 3 else "left")
        for flip in data["check_flips"]:
            flips.add_row(*(escape(visible(c)) for c in check_flip_cells(flip)))
        out.print(flips)
    else:
        out.print("No check flipped.", markup=False)
    for problem in data["problems"]:
        reason = visible(redact_text(problem["problem"]))
        console.stderr().print(f"line {problem['line']}: {reason} (written through unchanged)",
                               markup=False, soft_wrap=True)
    if data["written_through"] > len(data["problems"]):
        console.stderr().print(f"… and {data['written_through'] - len(data['problems'])} more",
                               markup=False)
    out.print("Nothing was re-run: same calls and final answers, new evaluation.",
              markup=False)


def write_outputs(summary: Mapping[str, Any], *, json_path: str | None,
                  markdown_path: str | None, html_path: str | None,
                  regrade: Mapping[str, Any] | None = None) -> None:
    """Write the summary in the formats asked for (``-`` = stdout)."""
    from toolscore_studies.render import (
        regrade_markdown,
        summary_html,
        summary_json,
        summary_markdown,
    )

    if json_path:
        _emit(json_path, summary_json(summary if regrade is None else regrade))
    if markdown_path:
        text = summary_markdown(summary)
        if regrade is not None:
            text = regrade_markdown(regrade) + "\n" + text
        _emit(markdown_path, text)
    if html_path:
        write_text_atomic(html_path, summary_html(summary, regrade=regrade))


def _emit(path: str, text: str) -> None:
    if path == "-":
        from toolscore_cli.console import STDOUT_STREAM

        STDOUT_STREAM.write(text)
    else:
        write_text_atomic(path, text)


def write_junit(runs: str, junit_path: str | None, summary: Mapping[str, Any],
                fail_under: str | None = None) -> None:
    """``--junit``: the runs of ``runs`` as JUnit XML (``-`` = stdout), streamed, with the
    study's pass rate and pass^k (from ``summary``) as the suite's properties and a failed
    test case when the study is below ``--fail-under``."""
    if not junit_path:
        return
    from toolscore_studies.junit import study_properties, write_runs_junit

    properties = study_properties(summary)
    why = None if fail_under is None else study_below(summary["total"], fail_under)
    gates = () if why is None else (("--fail-under", why),)
    if junit_path == "-":
        from toolscore_cli.console import STDOUT_STREAM

        write_runs_junit(runs, STDOUT_STREAM, properties, gates)  # type: ignore[arg-type]
        return
    from toolscore_core.atomic import atomic_writer

    with atomic_writer(junit_path) as handle:
        write_runs_junit(runs, handle, properties, gates)


def check_outputs(*paths: str | None) -> None:
    """Only one report may go to stdout (``-``); checked before any work."""
    if sum(1 for p in paths if p == "-") > 1:
        from toolscore_core.errors import InputError

        raise InputError("more than one report is going to stdout (-)",
                         fix="write all reports but one to files")


def report_flags(json_path: str | None, markdown_path: str | None, html_path: str | None,
                 junit_path: str | None) -> list[tuple[str, str | None]]:
    """(flag, path) of the summary's report files, for the check that none is an input."""
    return [("--json", json_path), ("--markdown", markdown_path), ("--html", html_path),
            ("--junit", junit_path)]


def stdout_taken(*paths: str | None) -> bool:
    """Whether a report goes to stdout (then the console table goes to stderr)."""
    return any(p == "-" for p in paths)


def gate(data: Mapping[str, Any], fail_under: str | None, *, err: bool) -> int:
    """1 (after the one line that says why) when the study is below ``--fail-under`` (its
    pass rate, or its pass^K), else 0."""
    if fail_under is None:
        return 0
    why = study_below(data["total"], fail_under)
    if why is None:
        return 0
    _console(err).print(why, markup=False, soft_wrap=True)
    return 1


def run_rows(path: str) -> Iterator[dict[str, Any]]:
    """The run records of a runs file (lines that are not are skipped, as the summary does)."""
    from toolscore_studies.records import KIND
    from toolscore_studies.summary import iter_lines

    for _, row, problem in iter_lines(path):
        if problem is None and isinstance(row, dict) and row.get("kind") == KIND:
            yield row


@click.command("summary")
@click.argument("runs", type=FILE)
@with_output_options
@otel_options
@click.pass_context
def summary_command(ctx: click.Context, runs: str, k: int | None, json_path: str | None,
                    markdown_path: str | None, html_path: str | None, junit_path: str | None,
                    fail_under: str | None, otel: bool, otel_file: str | None) -> None:
    """Summarize a runs file (JSON Lines from `toolscore agent run` or a regrade)."""
    from toolscore_core.errors import InputError
    from toolscore_studies.summary import summarize_file

    if k is not None and k < 1:
        raise InputError(f"--k must be at least 1, not {k}", place="--k")
    if fail_under is not None:
        parse_study_gate(fail_under)  # a bad threshold is bad input before any work
    check_outputs(json_path, markdown_path, junit_path)
    events = check_otel(otel, otel_file)
    refuse_outputs_over_inputs([*report_flags(json_path, markdown_path, html_path, junit_path),
                                ("--otel-file", otel_file)], [("runs file", runs)])
    summary = summarize_file(runs)
    data = summary.to_dict(k, gate_ks(fail_under))
    for line, problem in summary.skipped:
        console.stderr().print(f"{runs}: line {line}: {problem} (skipped)", markup=False,
                               soft_wrap=True)
    err = stdout_taken(json_path, markdown_path, junit_path)
    print_summary(data, err=err)
    write_outputs(data, json_path=json_path, markdown_path=markdown_path, html_path=html_path)
    write_junit(runs, junit_path, data, fail_under)
    if events:
        from toolscore_otel.events import run_events

        write_otel(run_events(run_rows(runs)), otel=otel, otel_file=otel_file)
    code = gate(data, fail_under, err=err)
    if code:
        ctx.exit(code)
