"""MCP JSON-RPC 2.0: ``tools/call`` requests paired with their responses (logs, proxy sessions)."""

from __future__ import annotations

import json
from typing import Any

from toolscore_core.documents import JSON_FAILURES, loads
from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_core.wording import count
from toolscore_formats.common import (
    CallRow,
    CallTable,
    as_float,
    as_str,
    block_content,
    iso_timestamp,
    name_of,
    outcome,
    text_of,
)

SESSION_KIND = "toolscore.mcp_session"
ANSWERED_BY = {"client_to_server": "server_to_client", "server_to_client": "client_to_server"}


def detect(document: Any) -> str | None:
    if not isinstance(document, list) or not document:
        return None
    first = document[0]
    if isinstance(first, dict) and first.get("kind") == SESSION_KIND:
        return f'a toolscore MCP proxy session (first line "kind": "{SESSION_KIND}")'
    if all(isinstance(m, dict) and m.get("jsonrpc") == "2.0" for m in document):
        return 'a list of JSON-RPC 2.0 messages ("jsonrpc": "2.0")'
    if all(isinstance(e, dict) and isinstance(e.get("requestBody"), str) and "url" in e
           for e in document):
        return "an MCP Inspector network log (requestBody / responseBody entries)"
    return None


def parse(document: Any) -> Trace:
    if not isinstance(document, list):
        raise InputError("an MCP log is a list of messages", place="$",
                         fix="give a JSON array or JSON Lines of JSON-RPC messages")
    first = document[0] if document else None
    if isinstance(first, dict) and first.get("kind") == SESSION_KIND:
        return _parse_session(document)
    if document and all(isinstance(e, dict) and "requestBody" in e for e in document):
        return _parse_inspector(document)
    reader = _Reader()
    for index, message in enumerate(document):
        reader.read(message, place=f"$[{index}]")
    return reader.trace()


class _Reader:
    """Pairs requests with responses in the order seen (a reused id: first in, first out)."""

    def __init__(self) -> None:
        self.table = CallTable()
        self.pending: dict[tuple[str | None, str], list[CallRow | None]] = {}
        self.orphans: list[str] = []
        self.notes: list[str] = []

    def read(self, message: Any, *, place: str, side: str | None = None,
             timestamp: Any = None, clock: float | None = None) -> None:
        if not isinstance(message, dict):
            raise InputError("a JSON-RPC message is an object", place=place)
        key_id = as_str(message.get("id"))
        method = message.get("method")
        if isinstance(method, str):
            if key_id is None:
                return  # a notification: never a call, never answered
            row = self._request(message, method, key_id, place, timestamp)
            if row is not None:
                row.clock = clock
            self.pending.setdefault((side, key_id), []).append(row)
            return
        if key_id is None or ("result" not in message and "error" not in message):
            return
        asker = ANSWERED_BY.get(side) if side else None
        queue = self.pending.get((asker, key_id))
        if not queue:
            if _looks_like_tool_answer(message):
                self.orphans.append(key_id)
            return
        row = queue.pop(0)
        if row is None:
            return
        row.settle(**_outcome(message))
        if clock is not None and row.clock is not None:
            row.duration = max(0.0, round(clock - row.clock, 9))  # no float noise: ns

    def _request(self, message: dict[str, Any], method: str, key_id: str, place: str,
                 timestamp: Any) -> CallRow | None:
        if method != "tools/call":
            return None
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if not isinstance(name, str) or not name:
            self.notes.append(f"{place}: tools/call request id {key_id} names no tool "
                              "(not counted as a call)")
            return None
        return self.table.add(name, params.get("arguments"),  # type: ignore[union-attr]
                              call_id=key_id, timestamp=iso_timestamp(timestamp))

    def trace(self, *, notes: tuple[str, ...] = ()) -> Trace:
        if self.orphans:
            listed = ", ".join(self.orphans[:10]) + (" ..." if len(self.orphans) > 10 else "")
            self.notes.append(f"{count(len(self.orphans), 'tool response')} without their request "
                              f"(ids {listed}): reported, not read as calls")
            if not len(self.table):
                raise InputError(
                    f"unsupported: the MCP log holds {count(len(self.orphans), 'tool response')} "
                    f"(ids {listed}) but not the tools/call requests they answer, so the "
                    "tools called are unknown", place="$",
                    fix="record the whole session (requests and responses)")
        return Trace(calls=self.table.calls(), notes=(*notes, *self.notes))


def _looks_like_tool_answer(message: dict[str, Any]) -> bool:
    result = message.get("result")
    return isinstance(message.get("error"), dict) or (isinstance(result, dict) and any(
        key in result for key in ("content", "structuredContent", "isError")))


def _outcome(message: dict[str, Any]) -> dict[str, Any]:
    error = message.get("error")
    if error is not None:
        return outcome(None, failed=True, error=error)
    result = message.get("result")
    if not isinstance(result, dict):
        return outcome(result, failed=None)
    content = result.get("content")
    if result.get("isError") is True:
        return outcome(None, failed=True, error=text_of(content) or json.dumps(content))
    if "structuredContent" in result:
        return outcome(result["structuredContent"], failed=None)
    return outcome(block_content(content) if "content" in result else result, failed=None)


def _parse_session(lines: list[Any]) -> Trace:
    reader = _Reader()
    ended = False
    for index, line in enumerate(lines[1:], start=2):
        if not isinstance(line, dict):
            raise InputError("a session line is an object", place=f"line {index}")
        kind = name_of(line, "kind")
        if kind == "end":
            ended = True
        elif kind == "message":
            direction = name_of(line, "direction")
            if direction not in ANSWERED_BY:
                raise InputError(f"unknown direction {direction!r}", place=f"line {index}",
                                 fix="use client_to_server or server_to_client")
            message = line.get("message")
            # A JSON-RPC batch (protocol 2025-03-26) is read message by message.
            for one in message if isinstance(message, list) else [message]:
                reader.read(one, place=f"line {index}", side=direction,
                            timestamp=line.get("timestamp"),
                            clock=as_float(line.get("monotonic")))
    notes = () if ended else ("the session has no end line (the proxy was stopped): "
                              "calls without a response have an unknown outcome",)
    return reader.trace(notes=notes)


def _parse_inspector(entries: list[Any]) -> Trace:
    reader = _Reader()
    for index, entry in enumerate(entries):
        request = _json_or_none(entry.get("requestBody"))
        if not isinstance(request, dict):
            continue
        duration = as_float(entry.get("duration"))
        clock = 0.0 if duration is not None else None
        reader.read(request, place=f"$[{index}].requestBody",
                    timestamp=entry.get("timestamp"), clock=clock)
        for message in _response_messages(entry.get("responseBody")):
            if as_str(message.get("id")) == as_str(request.get("id")):
                # The Inspector times the HTTP round trip in milliseconds.
                reader.read(message, place=f"$[{index}].responseBody",
                            clock=None if duration is None else duration / 1000)
    return reader.trace()


def _json_or_none(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return loads(text)
    except JSON_FAILURES:
        return None


def _response_messages(body: Any) -> list[dict[str, Any]]:
    """A JSON body, or the ``data:`` lines of a server-sent-event stream."""
    decoded = _json_or_none(body)
    if decoded is None and isinstance(body, str):
        decoded = [_json_or_none(line[5:].strip()) for line in body.splitlines()
                   if line.startswith("data:")]
    values = decoded if isinstance(decoded, list) else [decoded]
    return [v for v in values if isinstance(v, dict)]


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="mcp",
        description="MCP JSON-RPC 2.0 logs, toolscore proxy sessions and Inspector network logs",
        reads="JSON-RPC messages (array or JSON Lines): tools/call requests paired with their "
              "responses by id (reused ids in order), result content / structuredContent, "
              "isError and error objects; proxy sessions add timestamps and durations",
        detect=detect, parse=parse,
    )]
