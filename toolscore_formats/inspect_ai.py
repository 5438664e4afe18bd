"""Inspect AI eval logs (UK AISI's inspect_ai): the one sample of a ``.json`` log, or a sample."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_core.wording import count
from toolscore_formats.common import (
    CallTable,
    as_float,
    as_str,
    block_content,
    dict_of,
    list_of,
    name_of,
    outcome,
    text_of,
)

SAMPLE = 'an Inspect eval sample ({"id", "epoch", "input", "target", "messages"})'
SAMPLE_FIX = ('give the log (`inspect log dump LOG > log.json` writes any log as JSON) or one '
              'of its samples')


def is_sample(document: Any) -> bool:
    """An EvalSample: its id and epoch beside the conversation (``messages``)."""
    return (isinstance(document, dict) and type(document.get("epoch")) is int and
            isinstance(document.get("messages"), list) and "input" in document and
            "target" in document and type(document.get("id")) in (int, str))


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
    return _read_sample(sample, where, notes, model)


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
                "read as it is)")
    if not is_sample(samples[0]):
        raise InputError(f"not {SAMPLE}", place="$.samples[0]", fix=SAMPLE_FIX)
    return samples[0]


def _read_sample(sample: dict[str, Any], where: str, notes: list[str],
                 model: str | None) -> Trace:
    timings = _tool_timings(sample)
    table = CallTable()
    final_answer: str | None = None
    for index, message in enumerate(sample["messages"]):
        place = f"{where}.messages[{index}]"
        if not isinstance(message, dict):
            raise InputError('a message is an object with a "role"', place=place,
                             fix=SAMPLE_FIX)
        role = message.get("role")
        if role == "assistant":
            called = _read_calls(message, table, timings, notes, index)
            final_answer = None if called else text_of(message.get("content"))
        elif role == "tool":
            _read_result(message, table, notes, index)
    unmatched = sum(len(left) for left in timings.values())
    if unmatched:
        notes.append(f"{count(unmatched, 'tool event')} in the sample's events matched no call "
                     "of its messages (a sub-agent's calls?): not read")
    _run_notes(sample, notes)
    usage = sample.get("model_usage")
    return Trace(calls=table.calls(), final_answer=final_answer, model=model,
                 usage=usage if isinstance(usage, dict) and usage else None,
                 run_duration=as_float(sample.get("total_time")), notes=tuple(notes))


def _read_calls(message: dict[str, Any], table: CallTable,
                timings: dict[str, list[tuple[str | None, float | None]]],
                notes: list[str], index: int) -> bool:
    """Record an assistant message's tool calls; whether it made any."""
    called = False
    for position, item in enumerate(list_of(message, "tool_calls")):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, str):
            notes.append(f"message {index}: tool_calls[{position}] has no function name "
                         "(not read)")
            continue
        call_id = as_str(item.get("id"))
        timed = timings.get(call_id) if call_id is not None else None
        stamp, duration = timed.pop(0) if timed else (None, None)
        parse_error = item.get("parse_error")
        if isinstance(parse_error, str) and parse_error:
            # Inspect keeps {} as the arguments of a call whose JSON did not parse: those
            # arguments are unknown, and the error (which quotes the text) is what is left.
            row = table.add(function, None, call_id=call_id, timestamp=stamp)
            row.raw_args = parse_error
        else:
            row = table.add(function, item.get("arguments"), call_id=call_id, timestamp=stamp)
        row.duration = duration
        called = True
    return called


def _read_result(message: dict[str, Any], table: CallTable, notes: list[str],
                 index: int) -> None:
    call_id = message.get("tool_call_id")
    function = name_of(message, "function")
    content = block_content(message.get("content"))
    error = message.get("error")
    if isinstance(error, dict):
        text = error.get("message") if isinstance(error.get("message"), str) and \
            error["message"] else as_str(error.get("type"))
        # Inspect writes the error's text as the content too; other content (an output cut
        # at its limit) is a result that came back beside the error.
        beside = None if content in (None, "", text) else content
        result = outcome(beside, failed=True, error=text)
    else:
        result = outcome(content, failed=None)
    if table.answer(call_id, **result):
        return
    if function is None:
        notes.append(f"message {index}: a tool result that names no function answers no call "
                     "(not read)")
        return
    # A result no assistant message asked for is still a call the tool ran: kept, its
    # arguments unknown (never only a note).
    table.add(function, None, call_id=call_id).settle(**result)
    notes.append(f"message {index}: a {function} result for {json.dumps(call_id)} that "
                 "answers no open call: read as a call with unknown arguments")


def _tool_timings(sample: dict[str, Any]) -> dict[str, list[tuple[str | None, float | None]]]:
    """Each tool event's start and working time, by call id, in order.

    Logs before the ``events`` field kept them in ``transcript.events``.
    """
    events = sample.get("events")
    if not isinstance(events, list):
        events = list_of(dict_of(sample, "transcript"), "events")
    timings: dict[str, list[tuple[str | None, float | None]]] = {}
    for event in events:
        if not isinstance(event, dict) or event.get("event") != "tool" or \
                event.get("pending") is True:
            continue
        call_id = as_str(event.get("id"))
        if call_id is None:
            continue
        stamp = event.get("timestamp") if isinstance(event.get("timestamp"), str) else None
        duration = as_float(event.get("working_time"))
        if duration is None:
            duration = _elapsed(stamp, event.get("completed"))
        timings.setdefault(call_id, []).append((stamp, duration))
    return timings


def _elapsed(start: str | None, end: Any) -> float | None:
    """Seconds between two ISO 8601 times, or None when either is missing or unreadable."""
    if start is None or not isinstance(end, str):
        return None
    try:
        seconds = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    except (ValueError, TypeError):  # TypeError: one time has an offset, the other none
        return None
    return seconds if seconds >= 0 else None


def _run_notes(sample: dict[str, Any], notes: list[str]) -> None:
    """What the sample says about how the run ended, when it did not end normally."""
    error = dict_of(sample, "error")
    if isinstance(error.get("message"), str):
        first = error["message"].strip().splitlines()[0] if error["message"].strip() else ""
        notes.append(f"the sample ended with an error: {first}".rstrip(": "))
    limit = dict_of(sample, "limit")
    if isinstance(limit.get("type"), str):
        notes.append(f"the sample stopped at its {limit['type']} limit "
                     f"({json.dumps(limit.get('limit'))})")


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="inspect_ai",
        description="Inspect AI eval logs (.json) of one sample, or one sample",
        reads='{"version", "status", "eval", "samples"} holding one sample, or a sample '
              '{"id", "epoch", "messages", "events"}: assistant tool_calls joined to role tool '
              'messages by tool_call_id, error {type, message} as failure, tool events\' '
              'timestamp and working_time as timing; a log of several samples is refused '
              '(save one with jq)',
        detect=detect, parse=parse, near=near,
    )]
