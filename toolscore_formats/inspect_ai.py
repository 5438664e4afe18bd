"""Inspect AI eval logs (UK AISI's inspect_ai): the one sample of a ``.json`` log, or a sample."""

from __future__ import annotations

import json
from typing import Any

from toolscore import InputError, Trace, TraceFormat, count, hookimpl
from toolscore_formats.shapes import SAMPLE_FIX, is_sample
from toolscore_formats.values import as_str, dict_of, list_of

SAMPLE = 'an Inspect eval sample ({"id", "epoch", "input", "target", "messages"})'


def is_log(document: Any) -> bool:
    """An EvalLog: the format ``version``, the run's ``status`` and its ``eval`` spec."""
    return (isinstance(document, dict) and type(document.get("version")) is int and
            isinstance(document.get("status"), str) and
            isinstance(dict_of(document, "eval").get("task"), str) and
            ("samples" not in document or isinstance(document["samples"], list)))


def detect(document: Any) -> str | None:
    if is_log(document):
        held = count(len(list_of(document, "samples")), "sample")
        return f'an Inspect eval log ("version", "eval" and {held})'
    if is_sample(document):
        return SAMPLE
    return None


def near(document: Any) -> str | None:
    """What an unclaimed document holding Inspect samples misses."""
    if isinstance(document, list) and document and all(is_sample(s) for s in document):
        return (f"{count(len(document), 'Inspect eval sample')} in a bare list: it reads one "
                "agent run, a sample alone or a log that holds one (save one: jq '.[0]')")
    if isinstance(document, dict) and type(document.get("epoch")) is int and \
            "input" in document and "target" in document and "messages" not in document:
        return ("an Inspect sample without its messages (a sample summary?): give the full "
                "sample, as the log's JSON holds it")
    return None


def parse(document: Any) -> Trace:
    notes: list[str] = []
    if is_log(document):
        sample, where = _the_sample(document), "$.samples[0]"
        status = document["status"]
        if status != "success":
            notes.append(f"the log's status is {json.dumps(status)}, not \"success\": the run "
                         "may be incomplete")
    elif is_sample(document):
        sample, where = document, "$"
    else:
        raise InputError("not an Inspect eval log or sample", place="$", fix=SAMPLE_FIX)
    # The model that answered (the sample's output), else the one the log was run with.
    model = as_str(dict_of(sample, "output").get("model"))
    if model is None and is_log(document):
        model = as_str(document["eval"].get("model"))
    # Imported here: reading a sample is for a document this format claims.
    from toolscore_formats.inspect_samples import read_sample

    return read_sample(sample, where, notes, model)


def _the_sample(log: dict[str, Any]) -> dict[str, Any]:
    """The log's one sample; a log of none or of several is refused, saying how to pick."""
    samples = list_of(log, "samples")
    if not samples:
        raise InputError(
            "an Inspect eval log without samples (written with --no-log-samples, or only its "
            "header): it holds no agent run", place="$.samples" if "samples" in log else "$",
            fix="give a log written with its samples (the default), or one of its samples")
    if len(samples) > 1:
        keys = [(s.get("id"), s.get("epoch")) for s in samples if isinstance(s, dict)]
        ids = {json.dumps(k[0]) for k in keys}
        epochs = {json.dumps(k[1]) for k in keys}
        first_id, first_epoch = keys[0] if keys else (1, 1)
        pick = (f"jq '.samples[] | select(.id == {json.dumps(first_id)} and .epoch == "
                f"{json.dumps(first_epoch)})' LOG.json > sample.json")
        raise InputError(
            f"an Inspect eval log of {len(samples)} samples ({count(len(ids), 'sample id')} "
            f"in {count(len(epochs), 'epoch')}): toolscore scores one agent run at a time",
            place="$.samples",
            fix=f"save the sample to score and give that file, e.g. {pick} (a sample alone is "
                "read as it is), or import every sample as a run: toolscore runs import "
                "inspect_ai LOG.json -o runs.jsonl")
    if not is_sample(samples[0]):
        raise InputError(f"not {SAMPLE}", place="$.samples[0]", fix=SAMPLE_FIX)
    return samples[0]


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="inspect_ai",
        description="Inspect AI eval logs (.json) of one sample, or one sample",
        reads='{"version", "status", "eval", "samples"} holding one sample, or a sample '
              '{"id", "epoch", "messages", "events"}: assistant tool_calls joined to role tool '
              'messages by tool_call_id, error {type, message} as failure, tool events\' '
              'timestamp and working_time as timing; tool events no message holds (sub-agents, '
              'react\'s dropped submit) as calls in event order; a run ending on submit() '
              'answers with the submission; a log of several samples is refused (save one '
              'with jq)',
        detect=detect, parse=parse, near=near,
    )]
