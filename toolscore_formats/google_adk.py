"""Google ADK: a ``Session``'s events (or a bare list of ``Event``s), snake_case or camelCase."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import CallRow, CallTable, OpenCalls, outcome
from toolscore_formats.times import iso_timestamp, parse_time
from toolscore_formats.values import as_float, as_str

SESSION_KEYS = ("app_name", "appName", "user_id", "userId")
EVAL_SET_KEYS = ("eval_set_id", "eval_cases")


def _get(mapping: dict[str, Any], snake: str, camel: str) -> Any:
    """A field under its Python name, else under its alias (``by_alias=True``, the web API)."""
    return mapping[snake] if snake in mapping else mapping.get(camel)


def _has_invocation_id(event: dict[str, Any]) -> bool:
    return isinstance(_get(event, "invocation_id", "invocationId"), str)


def _is_event(event: Any) -> bool:
    """An ADK event: who appended it (``author``) and the invocation it belongs to.

    Gemini contents have a role and parts but no author; community look-alikes often have
    an author but no invocation id: both are left to other readers (or to ``near``).
    """
    return isinstance(event, dict) and isinstance(event.get("author"), str) and \
        _has_invocation_id(event) and isinstance(event.get("content", {}), dict | None)


def _is_session(document: Any) -> bool:
    return isinstance(document, dict) and isinstance(document.get("events"), list) and \
        "id" in document and any(key in document for key in SESSION_KEYS)


def events_of(document: Any) -> list[Any] | None:
    if isinstance(document, dict):
        events = document.get("events")
        return events if isinstance(events, list) else None
    return document if isinstance(document, list) else None


def detect(document: Any) -> str | None:
    events = events_of(document)
    if events is None or not all(_is_event(event) for event in events):
        return None
    if _is_session(document):
        return ('a Google ADK session ("id", "app_name" and "events", each with "author" and '
                'an invocation id)')
    if not events:
        return None
    if isinstance(document, dict):
        return 'Google ADK events ("events": each with "author" and an invocation id)'
    return 'a list of Google ADK events (each with "author" and an invocation id)'


def near(document: Any) -> str | None:
    """What an unclaimed document that is almost an ADK dump misses."""
    if isinstance(document, dict) and any(key in document for key in EVAL_SET_KEYS):
        return ("an ADK eval set (expected conversations and tool uses, not a recorded run), "
                "which it does not read: give the session the run left (adk run "
                "--save_session, or GET .../sessions/{id} of the API server)")
    events = events_of(document)
    if not events or not all(isinstance(event, dict) for event in events):
        return None
    authored = [event for event in events if isinstance(event.get("author"), str)
                and isinstance(event.get("content"), dict)]
    if len(authored) * 2 <= len(events):
        return None
    place = "$.events" if isinstance(document, dict) else "$"
    missing = [index for index, event in enumerate(events) if not _is_event(event)]
    if not missing:
        return None
    if len(authored) == len(events) and not any(_has_invocation_id(e) for e in events):
        return ("ADK-style events (author and content) without an invocation_id / "
                "invocationId, which every ADK event has: if it is an ADK dump, pass "
                "--format google_adk")
    return (f"a list of Google ADK events, but {place}[{missing[0]}] is not one (an object "
            'with "author" and "invocation_id"/"invocationId")')


def _timestamp(event: dict[str, Any]) -> tuple[str | None, float | None]:
    """The event's ISO time and its epoch seconds (None when it is not a plausible time).

    Python ADK writes float seconds. A value no calendar date has (Java ADK's milliseconds
    read as seconds) gives neither, so it never becomes a duration a thousand times too long.
    """
    seconds = as_float(event.get("timestamp"))
    iso = iso_timestamp(seconds) if seconds is not None else None
    if iso is None:
        text = event.get("timestamp")
        if isinstance(text, str):
            # ISO text times the call only with its zone: never the reading machine's.
            nanos = parse_time(text)
            return text, None if nanos is None else nanos / 1e9
        return None, None
    return iso, seconds


def parse(document: Any) -> Trace:
    events = events_of(document)
    if events is None:
        raise InputError("not a Google ADK session or event list", place="$",
                         fix='give a Session {"id", "app_name", "events": [...]} or a list of '
                             "events")
    table = CallTable()
    open_calls = OpenCalls()
    notes: list[str] = []
    final_answer: str | None = None
    partial = 0
    model: str | None = None
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            raise InputError("an event is an object", place=f"$.events[{index}]"
                             if isinstance(document, dict) else f"$[{index}]")
        if event.get("partial") is True:
            # A streamed chunk: the complete event that follows repeats its content.
            partial += 1
            continue
        model = as_str(_get(event, "model_version", "modelVersion")) or model
        _note_error(event, index, notes)
        content = event.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(parts, list):
            continue
        iso, seconds = _timestamp(event)
        if event.get("author") == "user" and any(
                isinstance(part, dict) and isinstance(part.get("text"), str) for part in parts):
            table.start_turn()  # the user's message: the calls after it answer it
        texts: list[str] = []
        acted = False
        for part in parts:
            if not isinstance(part, dict):
                continue
            call = _get(part, "function_call", "functionCall")
            response = _get(part, "function_response", "functionResponse")
            if isinstance(call, dict) and isinstance(call.get("name"), str):
                # The part is the call as the model made it: without args, it has none.
                args = call.get("args")
                row = table.add(call["name"], {} if args is None else args,
                                call_id=call.get("id"), timestamp=iso)
                row.clock = seconds
                open_calls.add(row)
                acted = True
            elif isinstance(response, dict):
                _read_response(response, open_calls, notes, index, seconds)
                acted = True
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
        if acted or event.get("author") == "user":
            final_answer = None
        elif texts:
            final_answer = "".join(texts) or None
    if partial:
        notes.append(f"{partial} partial (streamed) event(s) not read: the complete events "
                     "repeat their content")
    if final_answer is not None and open_calls.first() is not None:
        final_answer = None  # the run still waits on a tool: its last text is not the answer
    return Trace(calls=table.calls(), final_answer=final_answer, model=model,
                 notes=tuple(notes))


def _read_response(response: dict[str, Any], open_calls: OpenCalls, notes: list[str],
                   index: int, seconds: float | None) -> None:
    body = response.get("response")
    if isinstance(body, dict) and "error" in body:
        # ADK's own tools answer a failure with {"error": text} (a missing mandatory
        # argument, an MCP tool error); the model reads it as the tool's response.
        result = outcome(None, failed=True, error=body["error"])
    else:
        # ADK wraps a tool's non-dict return value as {"result": value}.
        if isinstance(body, dict) and set(body) == {"result"}:
            body = body["result"]
        result = outcome(body, failed=None)
    call_id, name = response.get("id"), as_str(response.get("name"))
    row = _take(open_calls, call_id, name)
    if row is None:
        notes.append(f"event {index}: function_response for {name!r} with no open call "
                     "(not counted as a call)")
        return
    if row.clock is not None and seconds is not None and seconds >= row.clock:
        # Both are float seconds of microsecond precision: the difference is rounded to it.
        result["duration"] = round(seconds - row.clock, 6)
    row.settle(**result)


def _take(open_calls: OpenCalls, call_id: Any, name: str | None) -> CallRow | None:
    """The call a response answers: by id (a reused id first in, first out), else the oldest
    open call of that tool (calls without ids, as some models leave them)."""
    key = as_str(call_id)
    if key is not None and open_calls.has_id(key):
        return open_calls.first_with_id(key)
    return open_calls.first(name)


def _note_error(event: dict[str, Any], index: int, notes: list[str]) -> None:
    code = as_str(_get(event, "error_code", "errorCode"))
    if code is not None:
        message = as_str(_get(event, "error_message", "errorMessage"))
        notes.append(f"event {index}: {event.get('author')} ended with error {code}"
                     f"{f': {message}' if message else ''} (a model or agent error, not a "
                     "tool's)")


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="google_adk",
        description="Google ADK sessions and event lists (snake_case or camelCase dumps)",
        reads='a Session {"id", "app_name", "events": [...]} or a list of events {"author", '
              '"invocation_id", "timestamp", "content": {"parts"}}: function_call parts joined '
              'to function_response parts by id (else by tool name), a response holding '
              '"error" as failure, duration from the call event to its response event',
        detect=detect, parse=parse, near=near,
    )]
