"""The records of a run importer (``toolscore_register_run_importers``): what it is, what it
reads and the runs it yields. Only importing another tool's results loads them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import field, frozen

from toolscore_core.models import PluginInfo, Trace


@frozen
class ImportedRun:
    """One run of another tool's results (a benchmark's result file), as a run importer
    reads it: the evidence, and that tool's own verdict on it."""

    task_id: str
    """The benchmark's task id (a number is given as its text)."""
    trace: Trace
    """The calls with their results, and the final answer (``Trace.format``: the format the
    calls were read with)."""
    trial: int = 1
    """Which trial of the task, from 1."""
    prompt: str | None = None
    """The task as the agent was given it (or as the benchmark states it), or None."""
    passed: bool | None = None
    """The benchmark's own verdict: True (it passed the run), False, or None (the file does
    not say)."""
    verdict: Mapping[str, Any] = field(factory=dict)
    """The benchmark's own figures behind the verdict, as JSON (a reward, error types)."""
    place: str = ""
    """Where in the file the run is (``$[3]``, ``line 4``), for messages."""
    duration: float | None = None
    """The run's wall time in seconds, when the file measured it."""
    error: str | None = None
    """The run ended in an error, as the file says (its message): the row's outcome is
    ``error``, which needs no verdict. None for a run that ended normally."""
    no_verdict: str | None = None
    """Why the file gives no verdict for this run (``passed`` None), said in the line that
    refuses it unless ``--spec``/``--gold`` evaluates it."""


@frozen
class ImportSource:
    """What a run importer reads: the file, its companion files, and the host's readers."""

    path: str
    """The results file given to ``toolscore runs import FORMAT FILE``."""
    inputs: Mapping[str, str]
    """Companion files by name (``--input NAME=PATH``), only names the importer declares."""
    parse_trace: Callable[[Any, str], Trace]
    """``parse_trace(document, format_id)``: a decoded document read by a registered trace
    format (``"auto"`` detects it by content), so an importer reuses every trace format."""
    options: Mapping[str, str] = field(factory=dict)
    """Settings by name (``--option NAME=VALUE``), only names the importer declares."""


@frozen
class RunImporter:
    """A reader of another tool's results into runs rows (``toolscore runs import``)."""

    id: str
    """The FORMAT of ``toolscore runs import FORMAT FILE``."""
    description: str
    """One line: whose results, which files."""
    read: Callable[[ImportSource], Any]
    """Yield (or return a list of) ``ImportedRun`` records, in file order; raise
    ``InputError`` with ``place`` for a file it cannot read (toolscore adds the file)."""
    inputs: Mapping[str, str] = field(factory=dict)
    """Companion files it takes with ``--input NAME=PATH``: name -> what the file is."""
    options: Mapping[str, str] = field(factory=dict)
    """Settings it takes with ``--option NAME=VALUE``: name -> what the value chooses."""
    reads: str = ""
    """What it reads, for people."""
    plugin: PluginInfo | None = None
