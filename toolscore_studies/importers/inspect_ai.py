"""Inspect AI eval logs (UK AISI's inspect_ai): each sample of each epoch a run, its calls
read by the ``inspect_ai`` trace format, the log's own scores as the verdict."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from toolscore import InputError, hookimpl
from toolscore_studies.importers import finite_number, load_json
from toolscore_studies.importers.inspect_scores import decide, kept_scores

if TYPE_CHECKING:  # the importer's records load when runs are imported (read, the hook)
    from toolscore import ImportedRun, ImportSource, RunImporter

FIX = ("give an Inspect eval log (.json, or .eval) written with its samples (`inspect log "
       "dump LOG > log.json` writes any log as JSON)")
ZIP_MAGIC = b"PK\x03\x04"
"""How a ``.eval`` log (a ZIP archive) begins; a ``.json`` log is JSON text."""


def read(source: ImportSource) -> Iterator[ImportedRun]:
    with open(source.path, "rb") as handle:
        zipped = handle.read(len(ZIP_MAGIC)) == ZIP_MAGIC
    samples = _eval_samples(source.path) if zipped else _json_samples(source.path)
    header = next(samples)
    scorer = source.options.get("scorer") or _headline_scorer(header)
    status = header.get("status")
    status_note = (None if status in ("success", None) else
                   f"the log's status is {json.dumps(status)}, not \"success\": the run may "
                   "be incomplete")
    eval_model = _mapping(header.get("eval")).get("model")
    for place, sample in samples:
        yield _run(source, place, sample, scorer, status_note,
                   eval_model if isinstance(eval_model, str) else None)


def _run(source: ImportSource, place: str, sample: Any, scorer: str | None,
         status_note: str | None, eval_model: str | None) -> ImportedRun:
    """One sample of one epoch as a run."""
    import attrs

    from toolscore import ImportedRun

    if not isinstance(sample, Mapping) or type(sample.get("id")) not in (int, str):
        raise InputError('a sample must be an object with its "id"', place=place, fix=FIX)
    epoch = sample.get("epoch")
    if type(epoch) is not int or epoch < 1:
        raise InputError('"epoch" must be a whole number from 1', place=_at(place, "epoch"),
                         fix=FIX)
    try:
        trace = source.parse_trace(sample, "inspect_ai")
    except InputError as exc:
        raise InputError(exc.problem, place=_within(place, exc.place), fix=exc.fix) from None
    if trace.model is None and eval_model is not None:
        trace = attrs.evolve(trace, model=eval_model)
    if status_note is not None:
        trace = attrs.evolve(trace, notes=(*trace.notes, status_note))
    scores = _mapping(sample.get("scores"))
    error = _mapping(sample.get("error")).get("message")
    if isinstance(error, str):  # Inspect does not score a sample that errored
        passed, verdict, why = None, {"error": error, "scores": kept_scores(scores)}, None
    else:
        error = None
        passed, verdict, why = decide(scores, scorer)
    total = sample.get("total_time")
    return ImportedRun(
        task_id=str(sample["id"]), trace=trace, trial=epoch, prompt=_prompt(sample.get("input")),
        passed=passed, verdict=verdict, place=place, error=error, no_verdict=why,
        duration=finite_number(total))


def _json_samples(path: str) -> Iterator[Any]:
    """The header of a ``.json`` log, then (place, sample) of each sample in file order."""
    log = load_json(path, FIX)
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise InputError('not an Inspect eval log (no "eval" object)', place="$", fix=FIX)
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError("the log holds no samples (written with --no-log-samples, or only "
                         "its header): no agent run to import",
                         place="$.samples" if "samples" in log else "$", fix=FIX)
    yield log
    for i, sample in enumerate(samples):
        yield f"$.samples[{i}]", sample


def _eval_samples(path: str) -> Iterator[Any]:
    """The header of a ``.eval`` log, then (member, sample) of each sample, read one at a
    time in Inspect's order (by epoch, then id).

    A ``.eval`` log is a ZIP archive (inspect_ai/log/_recorders/eval.py): ``header.json``
    (the log without its samples; a log still being written has ``_journal/start.json``
    instead) and ``samples/<id>_epoch_<epoch>.json``, one sample each, as a ``.json``
    log holds it.
    """
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"not a readable .eval log ({exc})", place="$", fix=FIX) from None
    with archive:
        names = list(dict.fromkeys(archive.namelist()))  # a re-logged sample: its last copy
        head = "header.json" if "header.json" in names else "_journal/start.json"
        if head not in names:
            raise InputError("a ZIP archive without header.json or _journal/start.json: not "
                             "an Inspect .eval log", place="$", fix=FIX)
        header = _member(archive, head)
        members = sorted((n for n in names if n.startswith("samples/") and
                          n.endswith(".json")), key=_inspect_order)
        nested = next((n for n in members if n.count("/") > 1), None)
        if nested is not None:
            raise InputError("a sample stored in parts (a layout this reader does not know)",
                             place=nested, fix="write the log as JSON (`inspect log dump LOG "
                             "> log.json`) and import that")
        if not isinstance(header, dict) or not members:
            raise InputError("the log holds no samples (written with --no-log-samples, or "
                             "only its header): no agent run to import", place="samples/",
                             fix=FIX)
        yield header
        for name in members:
            yield name, _member(archive, name)


def _member(archive: zipfile.ZipFile, name: str) -> Any:
    try:
        data = archive.read(name)
    except NotImplementedError:
        # Recent Inspect versions write Zstandard (method 93); zipfile reads it from 3.14 on.
        method = archive.getinfo(name).compress_type
        raise InputError(f"compressed with ZIP method {method}, which this Python's zipfile "
                         "does not read (Inspect's Zstandard is read from Python 3.14 on)",
                         place=name, fix="write the log as JSON (`inspect log dump LOG > "
                         "log.json`) and import that, or run toolscore on Python 3.14+"
                         ) from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"unreadable ({exc})", place=name, fix=FIX) from None
    try:
        return json.loads(data)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"not JSON ({exc})", place=name, fix=FIX) from None


def _inspect_order(name: str) -> tuple[int, str, str]:
    """Inspect's order of samples (``sort_samples``): by epoch, then id, a number's digits
    padded so that 2 comes before 10."""
    stem = name.removeprefix("samples/").removesuffix(".json")
    sample_id, sep, epoch = stem.rpartition("_epoch_")
    if not sep or not epoch.isdigit():
        return (0, stem, name)
    return (int(epoch), sample_id.zfill(20) if sample_id.isdigit() else sample_id, name)


def _headline_scorer(header: Mapping[str, Any]) -> str | None:
    """The scorer whose score the log puts first: its headline (``results.headline``), else
    the first of ``results.scores``, else the first the task names (``eval.scorers``)."""
    results = _mapping(header.get("results"))
    headline = _mapping(results.get("headline")).get("scorer")
    if isinstance(headline, str):
        return headline
    scores = results.get("scores")
    if isinstance(scores, list) and scores and isinstance(scores[0], Mapping):
        name = scores[0].get("scorer") or scores[0].get("name")
        if isinstance(name, str):
            return name
    scorers = _mapping(header.get("eval")).get("scorers")
    if isinstance(scorers, list) and scorers and isinstance(scorers[0], Mapping):
        name = scorers[0].get("name")
        return name if isinstance(name, str) else None
    return None


def _prompt(given: Any) -> str | None:
    """The sample's input: its text, or the text of its user messages."""
    if isinstance(given, str):
        return given
    if not isinstance(given, list):
        return None
    texts = [_text(m.get("content")) for m in given
             if isinstance(m, Mapping) and m.get("role") == "user"]
    found = [t for t in texts if t]
    return "\n".join(found) if found else None


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [c.get("text") for c in content
                 if isinstance(c, Mapping) and c.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _at(place: str, key: str) -> str:
    return f"{place}.{key}" if place.startswith("$") else f"{place}: $.{key}"


def _within(place: str, inner: str | None) -> str:
    """A place inside the sample ($.messages[2]) as a place in the log."""
    if not inner or inner == "$":
        return place
    if not inner.startswith("$"):
        return f"{place} ({inner})"
    return f"{place}{inner[1:]}" if place.startswith("$") else f"{place}: {inner}"


@hookimpl
def toolscore_register_run_importers() -> list[RunImporter]:
    from toolscore import RunImporter

    return [RunImporter(
        id="inspect_ai", description="Inspect AI eval logs (.json, .eval): each sample of "
        "each epoch a run, its tool calls and answer; the log's scores as the verdict.",
        read=read,
        options={"scorer": "the scorer whose score decides (a key of the samples' scores; "
                           "default: the log's headline scorer, else its first)"},
        reads='{"version", "status", "eval", "results", "samples": [{"id", "epoch", "input", '
              '"messages", "events", "scores": {scorer: {"value", "answer", "explanation"}}, '
              '"error", "total_time"}]}, or the same as a .eval archive')]
