"""Amazon Bedrock Converse: ``toolUse`` / ``toolResult`` blocks in messages or a response."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.content import converse_result
from toolscore_formats.messages import Conversation
from toolscore_formats.values import as_str, dict_of

ROLES = ("user", "assistant")


def _response_message(document: Any) -> dict[str, Any] | None:
    """The assistant message of a Converse response (``{"output": {"message"}}``)."""
    if isinstance(document, dict):
        message = dict_of(document, "output").get("message")
        if isinstance(message, dict):
            return message
    return None


def messages_of(document: Any) -> list[Any] | None:
    message = _response_message(document)
    if message is not None:
        return [message]
    if isinstance(document, dict):
        messages = document.get("messages")
        return messages if isinstance(messages, list) else None
    return document if isinstance(document, list) else None


def _is_message(message: Any) -> bool:
    """A Converse message: a role and a list of blocks, each keyed by its kind (no "type")."""
    if not isinstance(message, dict) or message.get("role") not in ROLES:
        return False
    content = message.get("content")
    return isinstance(content, list) and all(
        isinstance(block, dict) and "type" not in block for block in content)


def _has_tool_block(message: dict[str, Any]) -> bool:
    return any(isinstance(block.get("toolUse"), dict) or isinstance(block.get("toolResult"), dict)
               for block in message["content"])


def detect(document: Any) -> str | None:
    message = _response_message(document)
    if message is not None and _is_message(message) and "stopReason" in document:
        return 'an Amazon Bedrock Converse response ("output": {"message"} and "stopReason")'
    messages = messages_of(document)
    if messages and all(_is_message(m) for m in messages) and any(
            _has_tool_block(m) for m in messages):
        return "a list of Amazon Bedrock Converse messages with toolUse / toolResult blocks"
    return None


def parse(document: Any) -> Trace:
    messages = messages_of(document)
    if messages is None:
        raise InputError("not a Bedrock Converse response or message list", place="$",
                         fix='give a Converse response or a list of {"role", "content"}')
    talk = Conversation()
    table, notes = talk.table, talk.notes
    for index, message in talk.walk(messages, place="$"):
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        if message.get("role") == "user" and any("toolResult" not in b for b in blocks):
            table.start_turn()  # the user spoke (a message of tool results is no turn)
        used = False
        for block in blocks:
            use, result = block.get("toolUse"), block.get("toolResult")
            if isinstance(use, dict) and isinstance(use.get("name"), str):
                table.add(use["name"], use.get("input"), call_id=use.get("toolUseId"))
                used = True
            elif isinstance(result, dict):
                _read_result(result, table, notes, index)
        if message.get("role") == "assistant":
            # A turn that asks for a tool waits for its result: it is not the final answer.
            reply = _text(blocks)
            talk.said(reply, final=None if used else reply)
    if isinstance(document, dict) and document.get("stopReason") == "tool_use":
        talk.final_answer = None
    usage = document.get("usage") if isinstance(document, dict) else None
    return talk.trace(usage=usage if isinstance(usage, dict) else None)


def _text(blocks: list[dict[str, Any]]) -> str | None:
    text = "".join(block["text"] for block in blocks if isinstance(block.get("text"), str))
    return text or None


def _read_result(result: dict[str, Any], table: CallTable, notes: list[str], index: int) -> None:
    value = converse_result(result.get("content"))
    status = result.get("status")
    # Without "status" (only some models take it) a returned result is not a failure.
    failed = True if status == "error" else None
    if not table.answer(result.get("toolUseId"), **outcome(value, failed=failed)):
        notes.append(f"message {index}: toolResult for unknown toolUseId "
                     f"{as_str(result.get('toolUseId'))!r} (not counted as a call)")


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="bedrock_converse",
        description="Amazon Bedrock Converse API: responses and message lists",
        reads='a Converse response {"output": {"message"}, "stopReason"}, a list of '
              '{"role", "content"} messages or {"messages": [...]}: toolUse blocks joined to '
              'toolResult blocks by toolUseId, status "error" as failure',
        detect=detect, parse=parse,
    )]
