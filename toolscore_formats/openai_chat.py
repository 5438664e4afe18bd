"""OpenAI Chat Completions: a response (``choices``), a message list, or ``{"messages": [...]}``."""

from __future__ import annotations

from typing import Any

from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_formats.common import (
    CallTable,
    TextCursor,
    as_str,
    block_content,
    name_of,
    outcome,
    text_of,
)

ROLES = frozenset(("system", "developer", "user", "assistant", "tool", "function"))
# Content block types that belong to other providers' message lists, never to Chat Completions.
FOREIGN_BLOCKS = frozenset((
    "tool_use", "tool_result", "server_tool_use", "mcp_tool_use", "mcp_tool_result",
    "thinking", "redacted_thinking", "web_search_tool_result", "code_execution_tool_result",
))
# Bedrock Converse blocks carry no "type": the key names the block.
FOREIGN_BLOCK_KEYS = frozenset(("toolUse", "toolResult"))
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


def is_chat_message(message: Any) -> bool:
    """A role message with none of another provider's blocks or item types."""
    if type(message) is not dict:
        return False
    role = message.get("role")
    if type(role) is not str or role not in ROLES:
        return False
    if "type" in message and name_of(message, "type") in RESPONSES_ITEMS:
        return False
    content = message.get("content")
    if type(content) is list:
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = name_of(block, "type")
            if kind is not None and (kind in FOREIGN_BLOCKS or kind.endswith("_tool_result")):
                return False
            if kind is None and not FOREIGN_BLOCK_KEYS.isdisjoint(block):
                return False
    return True


def detect(document: Any) -> str | None:
    if isinstance(document, dict) and isinstance(document.get("choices"), list):
        if document.get("object") == "chat.completion" or messages_of(document):
            return 'a Chat Completions response ("choices" with a "message")'
        return None
    messages = messages_of(document)
    if not messages or not all(is_chat_message(m) for m in messages):
        return None
    return WRAPPED if isinstance(document, dict) else LISTED


# Object-valued keys a message log may carry besides "messages" (a request body's settings).
SMALL_KEYS = frozenset(("usage", "metadata", "tools", "tool_choice", "response_format"))
WRAPPED = 'an object with "messages": a list of Chat Completions role messages'
LISTED = "a list of Chat Completions role messages (system/user/assistant/tool)"


class _Reader:
    """Reads messages one at a time (from a decoded list or a stream)."""

    def __init__(self) -> None:
        self.table = CallTable()
        self.notes: list[str] = []
        self.final_answer: str | None = None

    def read(self, message: Any, index: int) -> None:
        if not isinstance(message, dict):
            raise InputError("a message is an object", place=f"$.messages[{index}]")
        role = message.get("role")
        if role == "assistant":
            self.final_answer = self._assistant(message, index)
        elif role == "tool":
            result = block_content(message.get("content"))
            if not self.table.answer_result(message.get("tool_call_id"), result):
                self.notes.append(f"message {index}: tool result for unknown call id "
                                  f"{as_str(message.get('tool_call_id'))!r} (not counted as a "
                                  "call)")
        elif role == "function":
            # Legacy function results carry no id: they answer the oldest open call by name.
            name = message.get("name") if isinstance(message.get("name"), str) else None
            result = block_content(message.get("content"))
            if not self.table.answer_next(name, **outcome(result, failed=None)):
                self.notes.append(f"message {index}: function result with no open call")

    def _assistant(self, message: dict[str, Any], index: int) -> str | None:
        """Record the message's calls; its text is the final answer only when it calls none."""
        tool_calls = message.get("tool_calls")
        called = False
        if isinstance(tool_calls, list):
            for position, item in enumerate(tool_calls):
                function = item.get("function") if isinstance(item, dict) else None
                custom = item.get("custom") if isinstance(item, dict) else None
                if isinstance(custom, dict) and isinstance(custom.get("name"), str):
                    # A custom tool's input is free text, not JSON: kept whole under "input".
                    text = custom.get("input")
                    self.table.add(custom["name"], {"input": text} if isinstance(text, str)
                                   else text, call_id=item.get("id"))
                    called = True
                    continue
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    self.notes.append(f"message {index}: tool_calls[{position}] has no function "
                                      "name (not read)")
                    continue
                self.table.add(function["name"], function.get("arguments"),
                               call_id=item.get("id"))
                called = True
        legacy = message.get("function_call")
        if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
            self.table.add(legacy["name"], legacy.get("arguments"))
            called = True
        return None if called else text_of(message.get("content"))

    def trace(self, model: Any = None, usage: Any = None) -> Trace:
        return Trace(calls=self.table.calls(), final_answer=self.final_answer,
                     model=as_str(model), usage=usage if isinstance(usage, dict) else None,
                     notes=tuple(self.notes))


def parse(document: Any) -> Trace:
    messages = messages_of(document)
    if messages is None:
        raise InputError("not a Chat Completions response or message list", place="$",
                         fix='give {"choices": [...]}, a list of messages, or {"messages": [...]}')
    reader = _Reader()
    for index, message in enumerate(messages):
        reader.read(message, index)
    if isinstance(document, dict):
        return reader.trace(document.get("model"), document.get("usage"))
    return reader.trace()


def stream(data: bytes) -> tuple[Trace, str] | None:
    """Stream a large message log (a list, or an object with "messages"), one message at a time."""
    cursor = TextCursor(data)
    reader = _Reader()
    extra: dict[str, Any] = {}
    count = 0

    def read_messages() -> bool:
        nonlocal count
        for message in cursor.values():
            if not is_chat_message(message):
                return False
            reader.read(message, count)
            count += 1
        return True

    if cursor.peek() == "[":
        if not read_messages():
            return None
        reason = LISTED
    else:
        found = False
        for key in cursor.members():
            if key == "messages" and not found and cursor.peek() == "[":
                found = True
                if not read_messages():
                    return None
            elif cursor.peek() in ("[", "{") and key not in SMALL_KEYS:
                return None  # not a message log (or a response): read whole
            else:
                extra[key] = cursor.value()
        if not found:
            return None
        reason = WRAPPED
    if not cursor.at_end() or not count:
        return None
    return reader.trace(extra.get("model"), extra.get("usage")), reason


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="openai_chat",
        description="OpenAI Chat Completions (and compatible APIs): responses and message lists",
        reads='{"choices": [{"message"}]}, a list of role messages or {"messages": [...]}: '
              'tool_calls (JSON-string arguments), legacy function_call, role tool/function '
              'results joined by tool_call_id (legacy: by position)',
        detect=detect, parse=parse, stream=stream,
    )]
