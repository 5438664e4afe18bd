"""Google's Gemini CLI session recordings (``~/.gemini/tmp/<project>/chats/session-*.json``,
and the ``.jsonl`` log newer versions append to): each ``gemini`` message's ``toolCalls`` as
calls, with the CLI's own ``status`` and the Gemini ``functionResponse`` parts of their
``result``."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, count, hookimpl
from toolscore_formats.calls import response_outcome
from toolscore_formats.messages import Conversation
from toolscore_formats.times import iso_timestamp
from toolscore_formats.usage import RunUsage
from toolscore_formats.values import as_str

KINDS = frozenset(("user", "gemini", "info", "error", "warning"))
# The CLI records a call once it completed: these are the statuses of a completed call.
# "cancelled" is the user stopping it (or declining it): the tool gave no outcome.
FAILED, SUCCEEDED, CANCELLED = "error", "success", "cancelled"
# User messages the CLI itself does not count as the user's (its isIgnoredUserContent): the
# context it sends first, hook context, slash commands and "?" help.
NOT_PROMPTS = ("<session_context>", "<hook_context>", "/", "?")
LOG = 'a Gemini CLI session log (JSON Lines: "sessionId" metadata, messages, "$set", "$rewindTo")'


def detect(document: Any) -> str | None:
    if isinstance(document, list):
        return LOG if _is_log(document) else None
    if not (isinstance(document, dict) and isinstance(document.get("sessionId"), str)
            and isinstance(document.get("messages"), list)):
        return None
    messages = document["messages"]
    kinds = [message.get("type") if isinstance(message, dict) else None
             for message in messages]
    if messages and all(kind in KINDS for kind in kinds) and (
            "gemini" in kinds or "user" in kinds):
        return 'a Gemini CLI session ("sessionId" and "messages" of type user/gemini)'
    return None


def text(content: Any) -> str | None:
    """The text of a message's ``content`` (a string, a part, or a list of both), thought
    parts left out; blank text is none."""
    items = content if isinstance(content, list) else [content]
    texts = [item if isinstance(item, str) else item["text"] for item in items
             if isinstance(item, str) or (isinstance(item, dict) and isinstance(
                 item.get("text"), str) and not item.get("thought"))]
    joined = "".join(texts)
    return joined if joined and not joined.isspace() else None


def _is_log(records: list[Any]) -> bool:
    first = records[0] if records else None
    if not (isinstance(first, dict) and isinstance(first.get("sessionId"), str)
            and isinstance(first.get("projectHash"), str)):
        return False
    kinds = [_record_kind(record) for record in records]
    return None not in kinds and any(
        record.get("type") in ("user", "gemini")
        for record, kind in zip(records, kinds, strict=True) if kind == "message")


def _record_kind(record: Any) -> str | None:
    """What a line of the session log is, as the CLI's loader tells them apart, in its order."""
    if not isinstance(record, dict):
        return None
    if isinstance(record.get("$rewindTo"), str):
        return "rewind"
    if isinstance(record.get("id"), str):
        return "message" if record.get("type") in KINDS else None
    if isinstance(record.get("$set"), dict):
        return "set"
    if isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
        return "metadata"
    return None


def fold(records: list[Any], notes: list[str]) -> dict[str, Any]:
    """The session a log's lines leave, as the CLI loads it: a message line adds the message,
    or replaces the one with its id (the CLI re-writes a message as its calls and tokens come
    in); ``$set`` sets metadata, and its ``messages`` replace all of them; ``$rewindTo`` drops
    that message and every later one."""
    metadata: dict[str, Any] = {}
    messages: dict[str, dict[str, Any]] = {}  # by id, in the order first written
    rewinds = 0
    for index, record in enumerate(records):
        kind = _record_kind(record)
        if kind is None:
            raise InputError("a line of a Gemini CLI session log is the session's metadata, a "
                             'message ({"id", "type", ...}), "$set" or "$rewindTo"',
                             place=f"line {index + 1}", fix="remove or repair the line")
        if kind == "rewind":
            rewinds += 1
            # The messages from the last back to the one rewound to (all, when it is not
            # there): each message is dropped at most once, however many rewinds come.
            if record["$rewindTo"] in messages:
                while messages.popitem()[0] != record["$rewindTo"]:
                    pass
            else:
                messages.clear()
        elif kind == "message":
            messages[record["id"]] = record
        else:
            update = dict(record["$set"] if kind == "set" else record)
            given = update.pop("messages", None)
            if isinstance(given, list):
                if kind == "set":
                    messages.clear()
                messages.update((item["id"], item) for item in given
                                if _record_kind(item) == "message")
            metadata.update(update)
    if rewinds:
        notes.append(f"{count(rewinds, 'rewind')} ($rewindTo): the messages rewound are not "
                     "read, as the CLI drops them")
    return {**metadata, "messages": list(messages.values())}


def parse(document: Any) -> Trace:
    notes: list[str] = []
    if isinstance(document, list) and document and _record_kind(document[0]) == "metadata":
        document = fold(document, notes)  # a bad line is named there
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        raise InputError("not a Gemini CLI session", place="$",
                         fix='give the session file\'s {"sessionId", "messages": [...]}')
    talk = Conversation()
    talk.notes.extend(notes)
    usage = RunUsage("tokens", "gemini messages", common_only=True)
    notes, asides = talk.notes, []
    model: str | None = None
    for index, message in talk.walk(document["messages"], place="$.messages",
                                    problem='a message is {"id", "type", "content", ...}'):
        kind = message.get("type")
        if kind == "user":
            if _is_prompt(message.get("content")):
                talk.table.start_turn()
        elif kind == "gemini":
            model = as_str(message.get("model")) or model
            usage.add(_tokens(message, index, notes))
            called = _read_calls(message, index, talk, notes)
            reply = text(message.get("content"))
            talk.said(reply, final=None if called else reply)
        elif kind in KINDS:
            asides.append(f"message {index} ({kind}): {text(message.get('content'))!r}")
        else:
            raise InputError(f"message type {kind!r} is not one the Gemini CLI writes",
                             place=f"$.messages[{index}].type",
                             fix="use user, gemini, info, error or warning")
    if asides:
        notes.append(f"{count(len(asides), 'info, warning or error message')} of the CLI "
                     f"(not calls): " + "; ".join(asides[:5])
                     + (" ..." if len(asides) > 5 else ""))
    return talk.trace(model=model, usage=usage.result(notes))


def _is_prompt(content: Any) -> bool:
    """Whether a user message is the user's: not the function responses the CLI records as
    the user's turn, nor the context and commands it does not count."""
    said = text(content)
    return said is not None and not said.strip().startswith(NOT_PROMPTS)


def _tokens(message: dict[str, Any], index: int, notes: list[str]) -> dict[str, Any] | None:
    """The message's counts, or None. The CLI writes 0 for a count the API did not report, so
    a total of 0 (a model response reads its prompt, at least) is no count at all."""
    tokens = message.get("tokens")
    if not isinstance(tokens, dict):
        return None
    if tokens.get("total") == 0:
        notes.append(f"message {index}: tokens with a total of 0 (the CLI writes 0 for counts "
                     "the API did not report): not counted")
        return None
    return tokens


def _read_calls(message: dict[str, Any], index: int, talk: Conversation,
                notes: list[str]) -> bool:
    """Add the message's tool calls, each with its outcome; True when it made any."""
    calls = message.get("toolCalls")
    if calls is None:
        return False
    if not isinstance(calls, list):
        raise InputError('"toolCalls" is not a list', place=f"$.messages[{index}].toolCalls",
                         fix='give a list of {"id", "name", "args", "result", "status"}')
    for number, call in enumerate(calls):
        place = f"$.messages[{index}].toolCalls[{number}]"
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise InputError("a tool call has no name", place=place,
                             fix='give {"id", "name", "args", ...} with "name" a string')
        args = call.get("args")
        row = talk.table.add(call["name"], {} if args is None else args,
                             call_id=call.get("id"), timestamp=iso_timestamp(
                                 call.get("timestamp")))
        status = call.get("status")
        response = _function_response(call.get("result"))
        if status == CANCELLED:
            notes.append(f"{place} {call['name']!r}: cancelled (the user stopped it): "
                         "outcome unknown")
        elif status not in (FAILED, SUCCEEDED):
            notes.append(f"{place} {call['name']!r}: status {status!r}: outcome unknown")
        elif response is None:
            notes.append(f"{place} {call['name']!r}: {status} without a functionResponse "
                         "result: outcome unknown")
        else:
            result = response_outcome(response)
            if status == FAILED and not result["is_error"]:
                # The CLI's status is the call's outcome; the response holds its text.
                result = {"result": None, "is_error": True,
                          "error": result["result"] if isinstance(result["result"], str)
                          else None}
            row.settle(**result)
    return bool(calls)


def _function_response(result: Any) -> dict[str, Any] | None:
    """The ``functionResponse`` of a call's ``result`` parts, or None when it holds none."""
    for part in result if isinstance(result, list) else [result]:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            return response
    return None


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="gemini_cli",
        description="Gemini CLI session recordings (chats/session-*.json and .jsonl)",
        reads='{"sessionId", "messages": [...]} or the .jsonl log (folded as the CLI loads '
              'it): each gemini message\'s toolCalls (status '
              'error a failure, cancelled unknown; the result\'s functionResponse as in '
              'gemini), its text a reply, tokens summed; user messages start turns',
        detect=detect, parse=parse,
    )]
