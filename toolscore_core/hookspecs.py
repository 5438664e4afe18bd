"""The whole hook contract of toolscore: the two markers and every hookspec.

Each hook is collect-only: every plugin that implements it is called, and each returns a
list of records (``toolscore_core.models``; a run importer's, ``toolscore_core.importers``)
that carry their own ``id``. The host stamps every record with the plugin that provided it;
two records of one kind with the same id are an error naming both. The run importers' hook
is called when the run importers are first asked for, the others when the registry is
built. plugins.md documents each hook, each field of its records, and a
complete example, in the section named after the hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from toolscore_core.models import Check, Metric, ReportWriter, Settings, TraceFormat

if TYPE_CHECKING:  # a run importer's records live in toolscore_core.importers
    from toolscore_core.importers import RunImporter

PROJECT = "toolscore"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def toolscore_register_trace_formats() -> list[TraceFormat]:
    """Return the trace formats this plugin reads (``--format ID``; ``--format auto`` asks
    every format's ``detect``, and exactly one must claim the document).

    See plugins.md#toolscore_register_trace_formats.
    """


@hookspec
def toolscore_register_checks() -> list[Check]:
    """Return the evidence checks this plugin runs on every evaluation (each ``pass``,
    ``fail`` or ``unknown``, or None when it does not apply).

    See plugins.md#toolscore_register_checks.
    """


@hookspec
def toolscore_register_metrics() -> list[Metric]:
    """Return the metrics this plugin computes for every evaluation (a JSON value and a
    0..1 score for the composite).

    See plugins.md#toolscore_register_metrics.
    """


@hookspec
def toolscore_register_report_writers() -> list[ReportWriter]:
    """Return the report writers this plugin provides (``--report ID=PATH``).

    See plugins.md#toolscore_register_report_writers.
    """


@hookspec
def toolscore_register_settings() -> list[Settings]:
    """Return the options of this plugin's checks, metrics and trace formats (set in
    ``--config``, read with ``context.config_for(id)``).

    See plugins.md#toolscore_register_settings.
    """


@hookspec
def toolscore_register_run_importers() -> list[RunImporter]:
    """Return the readers of other tools' results this plugin provides
    (``toolscore runs import FORMAT FILE -o runs.jsonl``): ``RunImporter`` records, and the
    ``ImportSource`` and ``ImportedRun`` records they read and yield, all from
    ``toolscore_core.importers`` (re-exported by ``toolscore``). It is called when the run
    importers are first asked for (``Registry.run_importers``), not when the registry is
    built.

    See plugins.md#toolscore_register_run_importers.
    """
