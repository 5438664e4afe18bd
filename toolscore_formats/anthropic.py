"""Anthropic Messages: ``tool_use`` / ``tool_result`` blocks in a response or a message list."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.content import block_content, text_of
from toolscore_formats.messages import Conversation
from toolscore_formats.shapes import is_cline_history
from toolscore_formats.values import as_str, name_of

USE_BLOCKS = frozenset(("tool_use", "server_tool_use", "mcp_tool_use"))
RESULT_SUFFIX = "_tool_result"
MARKER_BLOCKS = USE_BLOCKS | {"tool_result", "mcp_tool_result", "thinking", "redacted_thinking"}


def messages_of(document: Any) -> list[Any] | None:
    if isinstance(document, dict):
        if document.get("type") == "message" and document.get("role") == "assistant":
            return [document]
        messages = document.get("messages")
        return messages if isinstance(messages, list) else None
    return document if isinstance(document, list) else None


def _has_blocks(messages: list[Any]) -> bool:
    """Every item a user/assistant message, at least one with an Anthropic tool block."""
    found = False
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return False
        if "type" in message and message["type"] != "message":
            return False
        content = message.get("content")
        if isinstance(content, list) and not found:
            found = any(isinstance(b, dict) and (name_of(b, "type") in MARKER_BLOCKS or
                                                 str(b.get("type")).endswith(RESULT_SUFFIX))
                        for b in content)
    return found


def detect(document: Any) -> str | None:
    if isinstance(document, dict) and document.get("type") == "message" \
            and document.get("role") == "assistant" and isinstance(document.get("content"), list):
        return 'an Anthropic Messages response ("type": "message" with content blocks)'
    messages = messages_of(document)
    if messages and _has_blocks(messages) and not is_cline_history(document):
        # A Cline task history is Cline's (its results are user text, read by ``cline``).
        return "a list of Anthropic messages with tool_use / tool_result content blocks"
    return None


def parse(document: Any) -> Trace:
    messages = messages_of(document)
    if messages is None:
        raise InputError("not an Anthropic message or message list", place="$",
                         fix='give a Messages response or a list of {"role", "content"}')
    talk = Conversation()
    table, notes = talk.table, talk.notes
    model = usage = None
    for index, message in talk.walk(messages, place="$"):
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if message.get("role") == "user" and (isinstance(content, str) or any(
                not _is_result(block) for block in blocks)):
            table.start_turn()  # the user spoke (a message of tool results is no turn)
        waits = False  # a client tool_use: the turn waits for its result
        after_tools = 0  # text after the last tool block is what the model says last
        for position, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            kind = name_of(block, "type")
            if kind in USE_BLOCKS and isinstance(block.get("name"), str):
                table.add(block["name"], block.get("input"), call_id=block.get("id"))
                waits = waits or kind == "tool_use"
                after_tools = position + 1
            elif isinstance(kind, str) and (kind == "tool_result" or kind.endswith(RESULT_SUFFIX)):
                _read_result(block, table, notes, index)
                after_tools = position + 1
        if message.get("role") == "assistant":
            talk.said(text_of(content), final=None if waits or message.get(
                "stop_reason") == "tool_use" else text_of(
                content if isinstance(content, str) else blocks[after_tools:]))
            model = as_str(message.get("model")) or model
            usage = message.get("usage") if isinstance(message.get("usage"), dict) else usage
    return talk.trace(model=model, usage=usage)


def _is_result(block: Any) -> bool:
    kind = name_of(block, "type") if isinstance(block, dict) else None
    return isinstance(kind, str) and (kind == "tool_result" or kind.endswith(RESULT_SUFFIX))


def _read_result(block: dict[str, Any], table: CallTable, notes: list[str], index: int) -> None:
    content = block_content(block.get("content"))
    failed = block.get("is_error") is True
    if not table.answer(block.get("tool_use_id"), **outcome(content, failed=failed or None)):
        notes.append(f"message {index}: {block.get('type')} for unknown tool_use_id "
                     f"{as_str(block.get('tool_use_id'))!r} (not counted as a call)")


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="anthropic",
        description="Anthropic Messages API: responses and message lists",
        reads='a Messages response or a list of {"role", "content"} messages: tool_use '
              '(also server_tool_use, mcp_tool_use) joined to tool_result blocks by '
              'tool_use_id, is_error as failure',
        detect=detect, parse=parse,
    )]
