"""Regrading a runs file (JSON Lines of agent runs), called by ``toolscore regrade``."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from toolscore_cli.paths import refuse_outputs_over_inputs
from toolscore_cli.summary import print_regrade, print_summary
from toolscore_core.errors import InputError


def regrade_jsonl(
    source: str, *, output: str | None, spec: str | None, gold: str | None,
    weights: dict[str, float] | None, jobs: int, engine: str = "local",
    ray_address: str | None = None, judge: Any = None, k: int | None = None,
    json_path: str | None = None, markdown_path: str | None = None,
    html_path: str | None = None, junit_path: str | None = None, fail_under: str | None = None,
    otel: bool = False, otel_file: str | None = None, no_progress: bool = False,
) -> int:
    """Regrade every run in ``source`` into ``output``; print before/after; return the exit code.

    Each row's stored judgments give the judge's verdicts; ``judge`` (a client) is asked
    only what they lack.

    Rows that cannot be regraded (not JSON, task missing from the new spec) are written
    through unchanged and listed with their line numbers. With ``otel``/``otel_file`` the
    regraded rows' verdicts are sent/written as OpenTelemetry evaluation events. On a
    terminal a bar on stderr shows the rows done (``no_progress`` hides it).
    """
    from toolscore_cli.options import check_otel, gate_ks, parse_study_gate, write_otel
    from toolscore_cli.summary import (
        check_outputs,
        gate,
        report_flags,
        stdout_taken,
        write_junit,
        write_outputs,
    )
    from toolscore_studies.regrade import RegradeSettings, regrade_file

    if output is None:
        raise InputError("a runs file is regraded into a new file", file=source, place="-o",
                         fix="add -o runs.v2.jsonl")
    if fail_under is not None:
        parse_study_gate(fail_under)  # a bad threshold is bad input before any row is read
    check_outputs(json_path, markdown_path, junit_path)
    events = check_otel(otel, otel_file)
    reports = report_flags(json_path, markdown_path, html_path, junit_path)
    refuse_outputs_over_inputs([("-o", output), ("--otel-file", otel_file), *reports],
                               [("runs file", source), ("study spec", spec), ("gold file", gold)])
    refuse_outputs_over_inputs(reports, [("runs file", output)])
    settings = RegradeSettings(spec=spec, gold=gold, judge=judge,
                               weights=dict(weights) if isinstance(weights, Mapping) else None)
    from toolscore_cli.progress import progress_bar

    with progress_bar("rows", os.path.getsize(source), disable=no_progress, count=False,
                      status="{task.fields[rows]} done", timing=True, rows=0) as advance:
        done = 0

        def progress(rows: int, read: int) -> None:
            nonlocal done
            done += rows
            advance(read, rows=done)

        summary = regrade_file(source, output, settings, jobs=jobs, engine=engine,
                               ray_address=ray_address, progress=progress)
    data = summary.to_dict(k, gate_ks(fail_under))
    err = stdout_taken(json_path, markdown_path, junit_path)
    print_summary(data["after"], err=err)
    print_regrade(data, err=err)
    write_outputs(data["after"], json_path=json_path, markdown_path=markdown_path,
                  html_path=html_path, regrade=data)
    write_junit(output, junit_path, data["after"], fail_under)
    if events:
        from toolscore_otel.events import run_events

        write_otel(run_events(regraded_rows(source, output)), otel=otel, otel_file=otel_file)
    return gate(data["after"], fail_under, err=err)


def regraded_rows(source: str, output: str) -> Iterator[dict[str, Any]]:
    """The rows of ``output`` that a regrade of ``source`` changed: it writes one line per
    line, and a row written through unchanged keeps its bytes (and its old verdict)."""
    from toolscore_core.documents import loads

    with open(source, "rb") as before, open(output, "rb") as after:
        for old, new in zip(before, after, strict=False):
            if new != old and new.strip():
                row = loads(new)
                if isinstance(row, dict):
                    yield row
