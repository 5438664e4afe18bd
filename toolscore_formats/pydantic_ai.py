"""Pydantic AI message history: the JSON of ``ModelMessagesTypeAdapter`` (requests, responses)."""

from __future__ import annotations

import json
from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.messages import Conversation
from toolscore_formats.values import as_str, name_of

KINDS = frozenset(("request", "response"))
FAILED_OUTCOMES = frozenset(("failed", "denied", "retried"))
"""``ToolReturnPart.outcome`` values that mean the tool gave no good result."""
PROVIDER_PARTS = frozenset(("builtin-tool-call", "builtin-tool-return"))


def _is_message(item: Any) -> bool:
    """A ``ModelRequest`` / ``ModelResponse``: its kind and parts that each name their kind."""
    if not isinstance(item, dict) or item.get("kind") not in KINDS:
        return False
    parts = item.get("parts")
    return isinstance(parts, list) and all(
        isinstance(part, dict) and isinstance(part.get("part_kind"), str) for part in parts)


def detect(document: Any) -> str | None:
    if isinstance(document, list) and document and all(_is_message(m) for m in document):
        return ('a Pydantic AI message history (ModelMessagesTypeAdapter JSON: '
                '"kind": "request"/"response" with "part_kind" parts)')
    return None


def parse(document: Any) -> Trace:
    if not isinstance(document, list):
        raise InputError("not a Pydantic AI message history", place="$",
                         fix="give the list ModelMessagesTypeAdapter.dump_json wrote")
    talk = Conversation()
    table, notes = talk.table, talk.notes
    model: str | None = None
    provider_parts = 0
    for index, message in talk.walk(document, place="$", list_key="parts",
                                    problem='a message is {"kind", "parts": [...]}'):
        parts = [p for p in message["parts"] if isinstance(p, dict)]
        if any(name_of(p, "part_kind") == "user-prompt" for p in parts):
            table.start_turn()
        if message.get("kind") == "response":
            model = as_str(message.get("model_name")) or model
            texts: list[str] = []
            called = False
            for part in parts:
                kind = name_of(part, "part_kind")
                if kind == "tool-call" and isinstance(part.get("tool_name"), str):
                    table.add(part["tool_name"], part.get("args"), call_id=part.get("tool_call_id"),
                              timestamp=as_str(message.get("timestamp")))
                    called = True
                elif kind == "text" and isinstance(part.get("content"), str):
                    texts.append(part["content"])
                elif kind in PROVIDER_PARTS:
                    provider_parts += 1
            reply = "".join(texts) or None
            talk.said(reply, final=None if called else reply)
        else:
            for part in parts:
                _read_request_part(part, table, notes, index)
                if name_of(part, "part_kind") in PROVIDER_PARTS:
                    provider_parts += 1
            # A request after the last response (tool returns, a retry) means the run had
            # not answered in text when the history ends.
            if any(name_of(p, "part_kind") in ("tool-return", "retry-prompt", "retry-feedback")
                   for p in parts):
                talk.final_answer = None
    if provider_parts:
        notes.append(f"{provider_parts} builtin-tool part(s) run by the provider: not read as "
                     "calls")
    if document and isinstance(document[-1], dict) and document[-1].get("kind") == "request" \
            and any(name_of(p, "part_kind") == "tool-return" for p in document[-1]["parts"]
                    if isinstance(p, dict)):
        notes.append("the history ends on a tool return (structured output through an output "
                     "tool such as final_result): no text answer")
    return talk.trace(model=model)


def _read_request_part(part: dict[str, Any], table: CallTable, notes: list[str],
                       index: int) -> None:
    kind = name_of(part, "part_kind")
    name = part.get("tool_name") if isinstance(part.get("tool_name"), str) else None
    if kind == "tool-return":
        failed = True if part.get("outcome") in FAILED_OUTCOMES else None
        result = outcome(part.get("content"), failed=failed)
    elif kind == "retry-prompt" and name is not None:
        # A tool-bound retry prompt answers the call: its arguments failed validation or
        # the tool raised ModelRetry. Without a tool name it asks for better text output.
        result = outcome(None, failed=True, error=_retry_text(part.get("content")))
    else:
        return
    call_id = part.get("tool_call_id")
    joined = table.answer(call_id, **result) if table.has_id(call_id) else \
        table.answer_next(name, **result)
    if not joined:
        notes.append(f"message {index}: {kind} for {name!r} (tool_call_id "
                     f"{as_str(call_id)!r}) with no open call")


def _retry_text(content: Any) -> str:
    """A retry prompt's content: its text, or its validation errors as JSON."""
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, sort_keys=True, default=str)


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="pydantic_ai",
        description="Pydantic AI message history (ModelMessagesTypeAdapter JSON)",
        reads='a list of {"kind": "request"/"response", "parts"}: tool-call parts joined to '
              'tool-return parts by tool_call_id; a tool-bound retry-prompt or a failed/'
              'denied outcome as failure',
        detect=detect, parse=parse,
    )]
