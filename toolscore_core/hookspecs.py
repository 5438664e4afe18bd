"""The whole hook contract of toolscore: the two markers and every hookspec.

Each hook is collect-only: every plugin that implements it is called, and each returns a
list of records that carry their own ``id``. The host stamps every record with the plugin
that provided it; two records of one kind with the same id are an error naming both.
"""

from __future__ import annotations

import pluggy

from toolscore_core.models import Check, Metric, ReportWriter, RunImporter, Settings, TraceFormat

PROJECT = "toolscore"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def toolscore_register_trace_formats() -> list[TraceFormat]:
    """Return the trace formats this plugin reads.

    A :class:`~toolscore_core.models.TraceFormat` has an ``id`` (used with ``--format``),
    a ``detect(document)`` that returns the reason the decoded JSON document is in this
    format (or None), and a ``parse(document)`` that returns a
    :class:`~toolscore_core.models.Trace`. ``--format auto`` asks every format; exactly
    one must claim the document.

    Example::

        @hookimpl
        def toolscore_register_trace_formats():
            return [TraceFormat(id="mylog", description="My agent's log",
                                detect=detect, parse=parse)]
    """


@hookspec
def toolscore_register_checks() -> list[Check]:
    """Return the evidence checks this plugin runs on every evaluation.

    A :class:`~toolscore_core.models.Check` has an ``id`` and a ``run(context)`` that
    returns a :class:`~toolscore_core.models.CheckOutcome` (``pass``, ``fail`` or
    ``unknown`` with a reason and details) or None when it does not apply. A check that
    raises is reported ``unknown`` with the exception as its reason.

    Example::

        @hookimpl
        def toolscore_register_checks():
            return [Check(id="no-empty-answer", description="...", run=run)]
    """


@hookspec
def toolscore_register_metrics() -> list[Metric]:
    """Return the metrics this plugin computes for every evaluation.

    A :class:`~toolscore_core.models.Metric` has an ``id``, a ``compute(context)`` that
    returns a :class:`~toolscore_core.models.MetricOutcome` (a JSON value and a 0..1
    ``score``), and a ``default_weight`` in the composite score (0: reported only).

    Example::

        @hookimpl
        def toolscore_register_metrics():
            return [Metric(id="call_count", description="...", compute=compute)]
    """


@hookspec
def toolscore_register_report_writers() -> list[ReportWriter]:
    """Return the report writers this plugin provides.

    A :class:`~toolscore_core.models.ReportWriter` has an ``id`` and a
    ``write(evaluation, stream)`` that writes the report as text to ``stream``.

    Example::

        @hookimpl
        def toolscore_register_report_writers():
            return [ReportWriter(id="csv", description="...", write=write, suffix=".csv")]
    """


@hookspec
def toolscore_register_settings() -> list[Settings]:
    """Return the options of this plugin's checks, metrics and trace formats.

    A :class:`~toolscore_core.models.Settings` names the id of a check, metric or trace
    format and lists its :class:`~toolscore_core.models.Setting` records (``name``,
    ``type``, ``default``, ``help``, optional ``validate``). Users set them in a section of
    ``--config toolscore.yaml`` named by that id; unknown sections and options are bad
    input. The plugin reads them with ``context.config_for(id)``: every declared option,
    its given value or its default.

    Example::

        @hookimpl
        def toolscore_register_settings():
            return [Settings(id="acme-slow-calls", settings=(
                Setting(name="limit", type=float, default=30.0, help="..."),))]
    """


@hookspec
def toolscore_register_run_importers() -> list[RunImporter]:
    """Return the readers of other tools' results (benchmark result files) this plugin
    provides, for ``toolscore runs import FORMAT FILE -o runs.jsonl``.

    A :class:`~toolscore_core.models.RunImporter` has an ``id`` (the FORMAT), a
    ``read(source)`` that yields :class:`~toolscore_core.models.ImportedRun` records (task
    id, trial, the trace, the tool's own verdict) from an
    :class:`~toolscore_core.models.ImportSource` (the file, companion files by name,
    and ``parse_trace`` to read a document with any registered trace format), and the
    names of the companion files it takes (``inputs``). toolscore turns each record into a
    runs row (the verdict kept as ``imported.verdict``) that ``summary`` and ``regrade``
    read.

    Example::

        @hookimpl
        def toolscore_register_run_importers():
            return [RunImporter(id="acme_results", description="...", read=read)]
    """
