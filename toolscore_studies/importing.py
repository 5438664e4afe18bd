"""Other tools' results as runs rows: ``toolscore runs import FORMAT FILE -o runs.jsonl``.

A run importer (``toolscore_register_run_importers``) reads the file into ``ImportedRun``
records; this module turns each into a run record, the benchmark's own verdict kept under
``imported``, and writes them whole or not at all.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from toolscore_core.atomic import atomic_writer
from toolscore_core.canonical import canonical_json
from toolscore_core.context import call_dict
from toolscore_core.errors import InputError, PluginError
from toolscore_core.importers import ImportedRun, ImportSource, RunImporter
from toolscore_core.models import Trace
from toolscore_core.plugins import DISABLE_ENV, Registry, default_registry
from toolscore_core.traces import parse_trace
from toolscore_secrets.redaction import redact
from toolscore_studies.records import (
    KIND,
    RUN_SCHEMA_VERSION,
    run_cost,
    run_id,
    trace_json,
    unknowns,
)
from toolscore_studies.regrade import RegradeSettings, RowRegrader


def find_importer(format_id: str, registry: Registry) -> RunImporter:
    """The importer of ``FORMAT``; an error listing the ones loaded otherwise."""
    importer = registry.run_importers.get(format_id)
    if importer is None:
        raise InputError(f"unknown results format {format_id!r}", place="FORMAT",
                         fix=f"use one of {', '.join(sorted(registry.run_importers))} "
                         "(toolscore plugins --hook toolscore_register_run_importers), or "
                         "install a plugin that reads it")
    return importer


def check_inputs(importer: RunImporter, inputs: Mapping[str, str]) -> None:
    """Companion files only by the names the importer takes, each a file that exists."""
    for name, path in inputs.items():
        if name not in importer.inputs:
            takes = (f"it takes {', '.join(sorted(importer.inputs))}" if importer.inputs
                     else "it takes none")
            raise InputError(f"{importer.id} has no input {name!r}", place="--input",
                             fix=f"{takes} (toolscore runs import --help)")
        if not os.path.isfile(path):
            raise InputError(f"{name} file not found", file=path, place="--input",
                             fix="check the path")


def check_options(importer: RunImporter, options: Mapping[str, str]) -> None:
    """Settings only by the names the importer takes."""
    for name in options:
        if name not in importer.options:
            takes = (f"it takes {', '.join(sorted(importer.options))}" if importer.options
                     else "it takes none")
            raise InputError(f"{importer.id} has no option {name!r}", place="--option",
                             fix=f"{takes} (toolscore runs import --help)")


def _sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def imported_row(run: ImportedRun, *, study: str, importer: RunImporter,
                 provenance: Mapping[str, Any]) -> dict[str, Any]:
    """The run record of one imported run: the evidence as the file holds it, no evaluation
    yet, and the outcome the benchmark gave (``imported.verdict``); a run the file records
    as ended by an error is an ``error`` row."""
    trace = run.trace
    cost, cost_source = run_cost(trace, {})
    passed = bool(run.passed) and run.error is None
    outcome = "error" if run.error is not None else "passed" if passed else "failed"
    error = None if run.error is None else redact(
        {"kind": "imported", "message": run.error, "exit_code": None, "stderr_tail": None})
    return {
        "kind": KIND, "schema_version": RUN_SCHEMA_VERSION,
        "run_id": run_id(study, run.task_id, run.trial), "study": study, "study_version": None,
        "task_id": run.task_id, "trial": run.trial, "agent": trace.model, "prompt": run.prompt,
        "calls": [call_dict(c) for c in trace.calls],
        "final_answer": trace.final_answer,
        "final_answer_source": None if trace.final_answer is None else "trace",
        # the replies, for a regrade under expected_outputs (the spec is not known here)
        "trace": trace_json(trace, replies=True), "injected": None, "started_at": None,
        "duration": run.duration, "cost": cost, "cost_source": cost_source,
        "unknown": sorted({*unknowns(trace.calls, trace.final_answer, cost, run.duration),
                           "evaluation"}),
        "contract": None, "weights": None, "pass_threshold": None, "honesty": None,
        "evaluation": None, "record_sha256": None,
        "outcome": outcome, "passed": passed, "error": error,
        "imported": {**provenance, "place": run.place,
                     "verdict": {**run.verdict, "passed": run.passed}},
    }


def import_runs(
    format_id: str, path: str, output: str, *, inputs: Mapping[str, str] | None = None,
    study: str | None = None, spec: str | None = None, gold: str | None = None,
    registry: Registry | None = None, options: Mapping[str, str] | None = None,
) -> int:
    """Read ``path`` with the importer of ``format_id`` and write its runs to ``output``
    (atomically); return how many. With ``spec`` or ``gold`` each run is evaluated as it is
    imported (the row then carries ``regraded``, as after ``toolscore regrade``); without,
    every run must have the file's verdict (or the file's error), which becomes its
    outcome."""
    registry = registry or default_registry()
    importer = find_importer(format_id, registry)
    inputs = dict(inputs or {})
    check_inputs(importer, inputs)
    options = dict(options or {})
    check_options(importer, options)
    if not os.path.isfile(path):
        raise InputError("results file not found", file=path, fix="check the path")
    if Path(output).resolve() == Path(path).resolve():
        raise InputError("the output is the results file", file=output, place="-o",
                         fix="write the runs to another file, e.g. runs.jsonl")
    regrader = (RowRegrader(RegradeSettings(spec=spec, gold=gold), registry)
                if spec is not None or gold is not None else None)
    plugin = importer.plugin.to_dict() if importer.plugin else None
    provenance = {"format": importer.id, "plugin": plugin, "source": Path(path).name,
                  "source_sha256": _sha256_file(path)}
    study = study or Path(path).stem

    def read_trace(document: Any, trace_format: str) -> Trace:
        return parse_trace(document, trace_format=trace_format, registry=registry)[0]

    source = ImportSource(path=path, inputs=inputs, parse_trace=read_trace, options=options)
    seen: dict[tuple[str, int], str] = {}
    with atomic_writer(output) as handle:
        for run in _runs(importer, source, path):
            key = (run.task_id, run.trial)
            if key in seen:
                raise InputError(f"task {run.task_id!r} trial {run.trial} is both at "
                                 f"{seen[key]} and at {run.place}", file=path,
                                 fix="import each run once (a task's trials need their own "
                                 "trial numbers)")
            seen[key] = run.place
            row = imported_row(run, study=study, importer=importer, provenance=provenance)
            line = canonical_json(row)
            if regrader is not None:
                result = regrader.regrade_text(line)
                if result.problem is not None:
                    raise InputError(result.problem, file=path, place=run.place,
                                     fix="give a spec with a task for every task id of the file")
                handle.write(result.line.decode("utf-8"))
                continue
            if run.passed is None and run.error is None:
                why = "" if run.no_verdict is None else f" ({run.no_verdict})"
                raise InputError(f"the file holds no verdict for this run{why}", file=path,
                                 place=run.place, fix=_no_verdict_fix(importer))
            handle.write(line + "\n")
    return len(seen)


def _no_verdict_fix(importer: RunImporter) -> str:
    if importer.inputs:
        given = (f"its companion files (--input {', '.join(sorted(importer.inputs))}; "
                 "toolscore runs import --help)")
    elif importer.options:
        given = (f"a setting that finds it (--option {', '.join(sorted(importer.options))}; "
                 "toolscore runs import --help)")
    else:
        given = "the file its verdicts are in"
    return f"give {given}, or --spec/--gold to evaluate the runs as they are imported"


def _runs(importer: RunImporter, source: ImportSource, path: str) -> Iterable[ImportedRun]:
    """The importer's records, checked: ImportedRun each (else the plugin is named), and
    its InputErrors naming the results file."""
    try:
        for run in importer.read(source) or ():
            if not isinstance(run, ImportedRun):
                who = importer.plugin.name if importer.plugin else "unknown"
                raise PluginError(
                    f"plugin {who!r} returned {type(run).__name__} from the read of run "
                    f"importer {importer.id!r}; it must yield ImportedRun records (disable it "
                    f"with {DISABLE_ENV}={who})")
            yield run
    except InputError as exc:
        raise exc.at(path) from None
