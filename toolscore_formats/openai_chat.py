"""OpenAI Chat Completions: a response (``choices``), a message list, or ``{"messages": [...]}``."""

from __future__ import annotations

from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_formats.common import CallTable, as_str, name_of, outcome, text_of

ROLES = frozenset(("system", "developer", "user", "assistant", "tool", "function"))
# Content block types that belong to other providers' message lists, never to Chat Completions.
FOREIGN_BLOCKS = frozenset((
    "tool_use", "tool_result", "server_tool_use", "mcp_tool_use", "mcp_tool_result",
    "thinking", "redacted_thinking", "web_search_tool_result", "code_execution_tool_result",
))
# Responses API item types: a list holding them is a Responses input/output list.
RESPONSES_ITEMS = frozenset((
    "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
    "message", "reasoning", "mcp_call", "mcp_list_tools", "web_search_call",
    "file_search_call", "computer_call", "computer_call_output", "code_interpreter_call",
))


def messages_of(document: Any) -> list[Any] | None:
    """The message list of a document in any of the accepted shapes, or None."""
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        choices = document.get("choices")
        if isinstance(choices, list) and choices and "messages" not in document:
            first = choices[0]
            if isinstance(first, dict) and isinstance(first.get("message"), dict):
                return [first["message"]]
            return None
        messages = document.get("messages")
        if isinstance(messages, list):
            return messages
    return None


def is_chat_list(messages: list[Any]) -> bool:
    """Every item a role message, none with another provider's blocks or item types."""
    if not messages:
        return False
    for message in messages:
        if not isinstance(message, dict) or name_of(message, "role") not in ROLES:
            return False
        if name_of(message, "type") in RESPONSES_ITEMS:
            return False
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and name_of(block, "type") in FOREIGN_BLOCKS:
                    return False
    return True


def detect(document: Any) -> str | None:
    if isinstance(document, dict) and isinstance(document.get("choices"), list):
        if document.get("object") == "chat.completion" or messages_of(document):
            return 'a Chat Completions response ("choices" with a "message")'
        return None
    messages = messages_of(document)
    if messages is None or not is_chat_list(messages):
        return None
    if isinstance(document, dict):
        return 'an object with "messages": a list of Chat Completions role messages'
    return "a list of Chat Completions role messages (system/user/assistant/tool)"


def parse(document: Any) -> Trace:
    messages = messages_of(document)
    if messages is None:
        raise InputError("not a Chat Completions response or message list", place="$",
                         fix='give {"choices": [...]}, a list of messages, or {"messages": [...]}')
    table = CallTable()
    notes: list[str] = []
    final_answer: str | None = None
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InputError("a message is an object", place=f"$.messages[{index}]")
        role = message.get("role")
        if role == "assistant":
            final_answer = _read_assistant(message, table, notes, index)
        elif role == "tool":
            result = message.get("content")
            if not table.answer(message.get("tool_call_id"), **outcome(result, failed=None)):
                notes.append(f"message {index}: tool result for unknown call id "
                             f"{as_str(message.get('tool_call_id'))!r} (not counted as a call)")
        elif role == "function":
            # Legacy function results carry no id: they answer the oldest open call by that name.
            name = message.get("name") if isinstance(message.get("name"), str) else None
            result = message.get("content")
            if not table.answer_next(name, **outcome(result, failed=None)):
                notes.append(f"message {index}: function result with no open call")
    model = as_str(document.get("model")) if isinstance(document, dict) else None
    usage = document.get("usage") if isinstance(document, dict) else None
    return Trace(calls=table.calls(), final_answer=final_answer, model=model,
                 usage=usage if isinstance(usage, dict) else None, notes=tuple(notes))


def _read_assistant(message: dict[str, Any], table: CallTable, notes: list[str],
                    index: int) -> str | None:
    """Record the message's calls; its text is the final answer only when it calls nothing."""
    tool_calls = message.get("tool_calls")
    called = False
    if isinstance(tool_calls, list):
        for position, item in enumerate(tool_calls):
            function = item.get("function") if isinstance(item, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                notes.append(f"message {index}: tool_calls[{position}] has no function name "
                             f"(type {item.get('type') if isinstance(item, dict) else None!r}, "
                             "not read)")
                continue
            table.add(function["name"], function.get("arguments"), call_id=item.get("id"))
            called = True
    legacy = message.get("function_call")
    if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
        table.add(legacy["name"], legacy.get("arguments"))
        called = True
    return None if called else text_of(message.get("content"))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="openai_chat",
        description="OpenAI Chat Completions (and compatible APIs): responses and message lists",
        reads='{"choices": [{"message"}]}, a list of role messages or {"messages": [...]}: '
              'tool_calls (JSON-string arguments), legacy function_call, role tool/function '
              'results joined by tool_call_id (legacy: by position)',
        detect=detect, parse=parse,
    )]
