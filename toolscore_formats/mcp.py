"""MCP JSON-RPC 2.0: ``tools/call`` requests paired with their responses (logs, proxy sessions)."""

from __future__ import annotations

import json
import signal
from collections import deque
from typing import Any

from toolscore import JSON_FAILURES, InputError, Trace, TraceFormat, count, hookimpl, loads
from toolscore_formats.calls import CallRow, CallTable, outcome
from toolscore_formats.content import block_content, text_of
from toolscore_formats.times import iso_timestamp
from toolscore_formats.values import as_float, as_str, decode_args, dict_of, json_key, name_of

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


Scope = str | int | None
"""Where JSON-RPC ids are unique: an MCP session (``Mcp-Session-Id``), else the one HTTP
request that carried the message, else (stdio, plain logs) the whole log."""


class _Waiting:
    """A call whose last answer was not final (``input_required``): a retry may complete it."""

    __slots__ = ("kind", "row", "scope", "side", "spent", "state")

    def __init__(self, row: CallRow, scope: Scope, side: str | None, kind: str, state: Any,
                 spent: float | None) -> None:
        self.row, self.scope, self.side, self.kind = row, scope, side, kind
        self.state, self.spent = state, spent


class _Reader:
    """Pairs requests with responses in the order seen (a reused id: first in, first out),
    within one scope: two MCP sessions both using ids 1, 2, 3 are never paired across.

    MCP 2026-07-28 multi round-trip requests: a ``tools/call`` answered with a result whose
    ``resultType`` is not ``complete`` (``input_required``) has not finished; the client
    retries it as a new request (new id, the same tool, ``inputResponses`` and the echoed
    ``requestState``), and the retry's answer is the call's outcome. The rounds are one call.
    """

    def __init__(self) -> None:
        self.table = CallTable()
        self.pending: dict[tuple[Scope, str | None, str], deque[CallRow | None]] = {}
        self.waiting: dict[int, _Waiting] = {}
        """Calls a retry may complete, by ``id``, in the order their answers came."""
        self.retriable: dict[tuple[str, Scope, str | None, Any], deque[_Waiting]] = {}
        """The same, by tool, session, side and the state a retry echoes."""
        self.spent: dict[int, float | None] = {}
        """Time the earlier rounds of a retried call took (None: a round was not timed)."""
        self.retries: list[tuple[str, str]] = []
        self.orphans: list[str] = []
        self.notes: list[str] = []
        self.cancelled: dict[tuple[Scope, str | None, str], deque[CallRow | None]] = {}
        """Requests their sender cancelled, by key, until an answer the sender ignores."""
        self.cancellations: list[tuple[CallRow, str | None]] = []
        """Cancelled calls and the reason given, in order."""
        self.ignored: set[int] = set()
        """Cancelled calls (``id`` of the row) the server answered all the same."""

    def read(self, message: Any, *, place: str, side: str | None = None,
             timestamp: Any = None, clock: float | None = None, scope: Scope = None) -> None:
        if not isinstance(message, dict):
            raise InputError("a JSON-RPC message is an object", place=place)
        key_id = as_str(message.get("id"))
        method = message.get("method")
        if isinstance(method, str):
            if key_id is None:  # a notification: never a call, never answered
                if method == "notifications/cancelled":
                    self._cancel(dict_of(message, "params"), scope, side)
                return
            row = self._request(message, method, key_id, place, scope, side, timestamp)
            if row is not None:
                row.clock = clock
            self.pending.setdefault((scope, side, key_id), deque()).append(row)
            return
        if key_id is None or ("result" not in message and "error" not in message):
            return
        asker = ANSWERED_BY.get(side) if side else None
        queue = self.pending.get((scope, asker, key_id))
        if not queue:
            late = self.cancelled.get((scope, asker, key_id))
            if late:
                cancelled = late.popleft()
                if cancelled is not None:
                    self.ignored.add(id(cancelled))
            elif _looks_like_tool_answer(message):
                self.orphans.append(key_id)
            return
        row = queue.popleft()
        if row is None:
            return
        elapsed = None
        if clock is not None and row.clock is not None:
            elapsed = max(0.0, round(clock - row.clock, 9))  # no float noise: ns
        earlier = self.spent.pop(id(row), 0.0)
        spent = None if elapsed is None or earlier is None else round(earlier + elapsed, 9)
        kind = _unfinished(message)
        if kind is not None:
            result = message["result"]
            waiting = _Waiting(row, scope, asker, kind, result.get("requestState"), spent)
            self.waiting[id(waiting)] = waiting
            self.retriable.setdefault((row.tool, scope, asker, json_key(waiting.state)),
                                      deque()).append(waiting)
            return
        row.settle(**_outcome(message))
        row.duration = spent

    def _cancel(self, params: dict[str, Any], scope: Scope, side: str | None) -> None:
        """``notifications/cancelled``: its sender gave up on its request ``requestId``.

        The call keeps an unknown outcome: the sender ignores any answer that still comes.
        A cancellation of a request already answered (the two crossed) changes nothing.
        """
        key_id = as_str(params.get("requestId"))
        if key_id is None or not (queue := self.pending.get((scope, side, key_id))):
            return
        row = queue.popleft()
        self.cancelled.setdefault((scope, side, key_id), deque()).append(row)
        if row is not None:
            reason = params.get("reason")
            self.cancellations.append((row, reason if isinstance(reason, str) else None))

    def unanswered(self) -> list[CallRow]:
        """Calls still waiting for their answer (neither answered nor cancelled)."""
        return [row for queue in self.pending.values() for row in queue if row is not None]

    def _request(self, message: dict[str, Any], method: str, key_id: str, place: str,
                 scope: Scope, side: str | None, timestamp: Any) -> CallRow | None:
        if method != "tools/call":
            return None
        params = dict_of(message, "params")
        name = params.get("name")
        if not isinstance(name, str) or not name:
            self.notes.append(f"{place}: tools/call request id {key_id} names no tool "
                              "(not counted as a call)")
            return None
        arguments = params.get("arguments")
        if "inputResponses" in params or "requestState" in params:
            retried = self._retried(name, params.get("requestState"), scope, side)
            if retried is not None:
                self.retries.append((key_id, retried.row.id or ""))
                self.spent[id(retried.row)] = retried.spent
                if arguments is not None:
                    # The round that completes the call ran with these arguments.
                    retried.row.args, retried.row.raw_args = decode_args(arguments)
                return retried.row
            self.notes.append(f"{place}: tools/call id {key_id} ({name}) carries the answers "
                              "of a multi round-trip request, but no earlier call of that tool "
                              "is waiting for them: read as a call of its own")
        # A request is the call as made: without "arguments" it was made with none (the
        # schema's arguments are optional), which is known, not missing evidence.
        return self.table.add(name, {} if arguments is None else arguments, call_id=key_id,
                              timestamp=iso_timestamp(timestamp))

    def _retried(self, name: str, state: Any, scope: Scope, side: str | None
                 ) -> _Waiting | None:
        """The waiting call this retry continues: the same tool, the same echoed state, the
        same session."""
        candidates = self.retriable.get((name, scope, side, json_key(state)))
        if candidates is None:
            return None
        for index, waiting in enumerate(candidates):
            if waiting.state == state:  # the same state, not only the same key
                del candidates[index]
                return self.waiting.pop(id(waiting))
        return None

    def trace(self, *, notes: tuple[str, ...] = ()) -> Trace:
        if self.cancellations:
            listed = ", ".join(_cancelled(row, reason, id(row) in self.ignored)
                               for row, reason in self.cancellations[:10])
            more = " ..." if len(self.cancellations) > 10 else ""
            self.notes.append(
                f"{count(len(self.cancellations), 'call')} cancelled by the side that made "
                f"it (notifications/cancelled: {listed}{more}): outcome unknown")
        if self.retries:
            pairs = ", ".join(f"id {new} retries id {first}" for new, first in self.retries[:10])
            more = " ..." if len(self.retries) > 10 else ""
            self.notes.append(
                f"{count(len(self.retries), 'tools/call request')} retried a call that needed "
                f"input (MCP multi round-trip: {pairs}{more}): each is read as one call "
                "with the id of its first request and the outcome of its last")
        if self.waiting:
            listed = ", ".join(f"{w.row.id} ({w.row.tool}, {w.kind})"
                               for w in list(self.waiting.values())[:10])
            more = " ..." if len(self.waiting) > 10 else ""
            self.notes.append(
                f"{count(len(self.waiting), 'call')} ended on an answer that is not a final "
                f"result and was not retried (ids {listed}{more}): outcome unknown")
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


def _cancelled(row: CallRow, reason: str | None, answered: bool) -> str:
    details = [row.tool]
    if reason:
        details.append(f"reason {reason[:200]!r}")
    if answered:
        details.append("answered after it was cancelled, which its sender ignores")
    return f"id {row.id} ({', '.join(details)})"


def _ended(code: Any, unanswered: list[CallRow]) -> str | None:
    """The note for a server that did not exit cleanly (an ``end`` line's ``exit_code``)."""
    if type(code) is not int or code == 0:
        return None
    if code < 0:
        try:
            how = f"was killed by {signal.Signals(-code).name} (exit code {code})"
        except ValueError:
            how = f"was killed by signal {-code} (exit code {code})"
    else:
        how = f"exited with code {code}"
    return f"the server {how}" + (_no_answer(unanswered) if unanswered else "")


def _no_answer(unanswered: list[CallRow]) -> str:
    listed = ", ".join(f"{row.id} ({row.tool})" for row in unanswered[:10])
    more = " ..." if len(unanswered) > 10 else ""
    return f"; {count(len(unanswered), 'call')} got no answer (ids {listed}{more}): outcome unknown"


def _unfinished(message: dict[str, Any]) -> str | None:
    """The ``resultType`` of a result that is not a final one (``input_required``), else None.

    Results before 2026-07-28 carry no ``resultType``; they, and ``complete``, are final.
    """
    result = message.get("result")
    if message.get("error") is not None or not isinstance(result, dict):
        return None
    kind = result.get("resultType")
    if kind is None or kind == "complete":
        return None
    return kind if isinstance(kind, str) else json.dumps(kind)


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
    # Several text blocks are separate pieces of text (a planted instruction is one): a
    # newline keeps them apart, as a client showing them would.
    if result.get("isError") is True:
        return outcome(None, failed=True,
                       error=text_of(content, separator="\n") or json.dumps(content))
    if "structuredContent" in result:
        return outcome(result["structuredContent"], failed=None)
    return outcome(block_content(content, separator="\n") if "content" in result else result,
                   failed=None)


def _parse_session(lines: list[Any]) -> Trace:
    reader = _Reader()
    ended = False
    exit_code = None
    failures: list[str] = []
    for index, line in enumerate(lines[1:], start=2):
        if not isinstance(line, dict):
            raise InputError("a session line is an object", place=f"line {index}")
        kind = name_of(line, "kind")
        if kind == "end":
            ended = True
            exit_code = line.get("exit_code")
        elif kind == "upstream_failed":
            error = line.get("error")
            failures.append(error if isinstance(error, str) else "no reason given")
        elif kind == "message":
            direction = name_of(line, "direction")
            if direction not in ANSWERED_BY:
                raise InputError(f"unknown direction {direction!r}", place=f"line {index}",
                                 fix="use client_to_server or server_to_client")
            message = line.get("message")
            # A JSON-RPC batch (protocol 2025-03-26) is read message by message.
            scope = _scope(line)
            for one in message if isinstance(message, list) else [message]:
                reader.read(one, place=f"line {index}", side=direction,
                            timestamp=line.get("timestamp"),
                            clock=as_float(line.get("monotonic")), scope=scope)
    notes: tuple[str, ...] = () if ended else (
        "the session has no end line (the proxy was stopped): calls without a response have "
        "an unknown outcome",)
    unanswered = reader.unanswered()
    if failures:  # over HTTP: the server was down or gone
        notes += (f"{count(len(failures), 'request')} could not reach the server (the proxy "
                  f"answered 502; last: {failures[-1][:200]})"
                  + (_no_answer(unanswered) if unanswered else ""),)
    crash = _ended(exit_code, unanswered)
    return reader.trace(notes=notes if crash is None else (*notes, crash))


def _scope(line: dict[str, Any]) -> Scope:
    """A session line's scope: its ``session`` (``Mcp-Session-Id``), else its ``stream``
    (the HTTP request it came on), else None (stdio, or a file written before these)."""
    session = line.get("session")
    if isinstance(session, str):
        return session
    stream = line.get("stream")
    return stream if type(stream) is int else None


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
