"""Report files: ``--json``, ``--markdown``, ``--html``, ``--junit`` and ``--report ID=PATH``
(any writer)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar, cast

import click

from toolscore_core.atomic import atomic_writer
from toolscore_core.errors import InputError, PluginError, ToolscoreError
from toolscore_core.plugins import DISABLE_ENV

if TYPE_CHECKING:
    from toolscore_core.context import Evaluation
    from toolscore_core.models import ReportWriter
    from toolscore_core.plugins import Registry

STDOUT = "-"
F = TypeVar("F", bound=Callable[..., Any])


def report_options(command: F) -> F:
    """``--markdown PATH``, ``--html PATH``, ``--junit PATH`` and ``--report ID=PATH``
    (repeatable)."""
    options = (
        click.option("--markdown", "markdown_path", metavar="PATH|-",
                     help="Write the Markdown report (- = stdout)."),
        click.option("--html", "html_path", metavar="PATH|-",
                     help="Write the HTML report: one self-contained page (- = stdout)."),
        click.option("--junit", "junit_path", metavar="PATH|-",
                     help="Write JUnit XML for CI: one test case per evidence check, failed "
                          "when it fails, skipped when unknown (- = stdout)."),
        click.option("--report", "reports", multiple=True, metavar="ID=PATH",
                     help="Write the report of any writer (see `toolscore plugins`), e.g. "
                          "--report markdown=report.md; repeatable."),
    )
    for option in reversed(options):
        command = option(command)
    return command


def report_targets(
    registry: Registry, *, json_path: str | None = None, markdown_path: str | None = None,
    html_path: str | None = None, junit_path: str | None = None, reports: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """(writer id, path) for every report asked for, checked before anything is evaluated."""
    targets = [(writer_id, path) for writer_id, path in
               (("json", json_path), ("markdown", markdown_path), ("html", html_path),
                ("junit", junit_path)) if path]
    known = ", ".join(sorted(registry.report_writers))
    for text in reports:
        writer_id, sep, path = (part.strip() for part in text.partition("="))
        if not sep or not writer_id or not path:
            raise InputError(f"bad report {text!r}", place="--report",
                             fix=f"write ID=PATH, e.g. --report markdown=report.md (ids: {known})")
        targets.append((writer_id, path))
    for writer_id, _ in targets:
        if writer_id not in registry.report_writers:
            raise InputError(f"no report writer {writer_id!r}", place="--report",
                             fix=f"use one of {known}, or install the plugin that provides it")
    for writer_id, path in targets:
        if path != STDOUT and Path(path).is_dir():
            raise InputError(f"cannot write the {writer_id} report: it is a folder", file=path,
                             fix="give a file path, e.g. report" + _suffix(registry, writer_id))
    if sum(1 for _, path in targets if path == STDOUT) > 1:
        raise InputError("more than one report is going to stdout (-)",
                         fix="write all reports but one to files")
    return targets


def report_flag(writer_id: str) -> str:
    """The flag that asks for a report: ``--json``, or ``--report ID`` for other writers."""
    return f"--{writer_id}" if writer_id in BUILTIN_FLAGS else f"--report {writer_id}"


BUILTIN_FLAGS = ("json", "markdown", "html", "junit")


def _suffix(registry: Registry, writer_id: str) -> str:
    return registry.report_writers[writer_id].suffix or ".txt"


def to_stdout(targets: Sequence[tuple[str, str]]) -> bool:
    """Whether a report takes stdout (then the console verdict goes to stderr)."""
    return any(path == STDOUT for _, path in targets)


def write_reports(
    evaluation: Evaluation, targets: Sequence[tuple[str, str]], registry: Registry, *,
    gates: Sequence[tuple[str, str]] = (),
) -> None:
    """Write each report whole or not at all (temp file, then rename). The JUnit file also
    gets a failed test case per CI gate the verdict failed (``gates``: flag, why)."""
    for writer_id, path in targets:
        writer = registry.report_writers[writer_id]

        def write(stream: TextIO, writer: ReportWriter = writer, writer_id: str = writer_id,
                  ) -> None:
            if writer_id == "junit" and gates:
                from toolscore_formats.reports.junit import evaluation_junit

                stream.write(evaluation_junit(evaluation, gates))
            else:
                _write(writer, evaluation, stream)

        if path == STDOUT:
            from toolscore_cli.console import STDOUT_STREAM

            write(cast(TextIO, STDOUT_STREAM))
            continue
        try:
            with atomic_writer(path) as handle:
                write(cast(TextIO, handle))
        except OSError as exc:
            raise InputError(f"cannot write the {writer_id} report: {exc.strerror or exc}",
                             file=path, fix="choose a path in a folder you can write to") from None


def _write(writer: ReportWriter, evaluation: Evaluation, stream: TextIO) -> None:
    try:
        writer.write(evaluation, stream)
    except (OSError, ToolscoreError):
        raise
    except Exception as exc:  # a broken third-party writer is named, not a traceback
        owner = writer.plugin.name if writer.plugin else "unknown"
        raise PluginError(
            f"report writer {writer.id!r} (plugin {owner!r}) failed: "
            f"{type(exc).__name__}: {exc}; disable it with {DISABLE_ENV}={owner}"
        ) from None
