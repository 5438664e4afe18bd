"""OpenAI Chat Completions and look-alikes (Ollama, vLLM, LiteLLM): responses and message lists."""

from __future__ import annotations

import json
from typing import Any

from toolscore import InputError, Trace, TraceFormat, count, hookimpl, type_name
from toolscore_formats.shapes import is_mini_swe_agent_trajectory, is_sample, is_ui_tool_part
from toolscore_formats.values import name_of

ROLES = frozenset(("system", "developer", "user", "assistant", "tool", "function"))
# Content block types that belong to other providers' message lists, never to Chat Completions.
FOREIGN_BLOCKS = frozenset((
    "tool_use", "tool_result", "server_tool_use", "mcp_tool_use", "mcp_tool_result",
    "thinking", "redacted_thinking", "web_search_tool_result", "code_execution_tool_result",
    # Vercel AI SDK model messages: their tool parts are joined by the vercel_ai reader.
    "tool-call", "tool-result", "tool-error",
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
            reply = logged_reply(document)
            return messages if reply is None else [*messages, reply]
        if is_ollama_response(document):
            return [document["message"]]
    return None


def logged_reply(document: dict[str, Any]) -> dict[str, Any] | None:
    """The reply a LiteLLM log keeps beside the request's ``messages``: its ``response``
    (a Chat Completions response), whose message is the conversation's next turn."""
    response = document.get("response")
    if not isinstance(response, dict) or not isinstance(response.get("choices"), list):
        return None
    replies = messages_of(response)
    return replies[0] if replies else None


def is_ollama_response(document: dict[str, Any]) -> bool:
    """An Ollama ``/api/chat`` reply: one assistant ``message`` beside a ``done`` flag."""
    message = document.get("message")
    return (type(document.get("done")) is bool and type(message) is dict and
            message.get("role") == "assistant" and "messages" not in document and
            "choices" not in document and not_chat(message) is None)


def not_chat(message: Any) -> str | None:
    """Why ``message`` is not a Chat Completions role message (a phrase), or None if it is:
    a role message with none of another provider's blocks or item types."""
    if type(message) is not dict:
        return "is not an object"
    role = message.get("role")
    if type(role) is not str or role not in ROLES:
        return "has no role" if role is None else f"has role {shown(role)}, not one of " \
            "system/developer/user/assistant/tool/function"
    if "type" in message and name_of(message, "type") in RESPONSES_ITEMS:
        return f"is a Responses API item (type {shown(message['type'])})"
    parts = message.get("parts")
    if type(parts) is list and any(map(is_ui_tool_part, parts)):
        return 'is a Vercel AI SDK UI message (tool calls in "parts")'
    content = message.get("content")
    if type(content) is list:
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = name_of(block, "type")
            if kind is not None and (kind in FOREIGN_BLOCKS or kind.endswith("_tool_result")):
                return f"holds another provider's content block (type {shown(kind)})"
            if kind is None and not FOREIGN_BLOCK_KEYS.isdisjoint(block):
                key = min(FOREIGN_BLOCK_KEYS.intersection(block))
                return f"holds a Bedrock Converse block ({shown(key)})"
    return None


SHOWN_CHARS = 40


def shown(value: Any) -> str:
    """A value from the document, quoted and cut short, for a message."""
    return json.dumps(value if isinstance(value, str) else str(value),
                      ensure_ascii=False)[:SHOWN_CHARS]


def detect(document: Any) -> str | None:
    if isinstance(document, dict) and isinstance(document.get("choices"), list):
        if document.get("object") == "chat.completion" or messages_of(document):
            return 'a Chat Completions response ("choices" with a "message")'
        return None
    messages = messages_of(document)
    if not messages or any(not_chat(m) is not None for m in messages):
        return None
    if is_sample(document):  # its messages look like a chat log, but the sample is inspect_ai's
        return None
    if is_mini_swe_agent_trajectory(document):  # a chat too, but mini_swe_agent reads the run
        return None
    if isinstance(document, dict) and "messages" not in document:
        return OLLAMA
    if isinstance(document, dict) and logged_reply(document) is not None:
        return LITELLM
    return WRAPPED if isinstance(document, dict) else LISTED


def near(document: Any) -> str | None:
    """What an unclaimed document that is almost a chat log misses."""
    if isinstance(document, list) and document and all(isinstance(d, dict) for d in document):
        if all(_first_choice(d, "delta") for d in document):
            return ("a stream of Chat Completions chunks (choices[].delta), which it does not "
                    "join: save the assembled response or the conversation's messages")
        if all(_first_choice(d, "message") for d in document):
            return (f"{len(document)} Chat Completions responses, one per line: it reads one "
                    "response, or one conversation's message list")
        if all(isinstance(d.get("message"), dict) and "done" in d for d in document):
            return ("a stream of Ollama /api/chat chunks: save the final response, or the "
                    "conversation's messages")
    if isinstance(document, dict):
        if "messages" in document and not isinstance(document["messages"], list):
            return (f'an object whose "messages" is {type_name(document["messages"])}, not a '
                    "list of role messages")
        if isinstance(document.get("choices"), list) and not messages_of(document):
            return 'a Chat Completions response whose first "choices" item has no "message"'
    messages = messages_of(document)
    if not messages:
        return None
    reasons = [not_chat(message) for message in messages]
    misses = [(index, why) for index, why in enumerate(reasons) if why is not None]
    if not misses or len(misses) * 2 > len(messages):
        return None  # mostly something else: not close
    index, why = misses[0]
    place = f"$.messages[{index}]" if isinstance(document, dict) else f"$[{index}]"
    others = f" (and {count(len(misses) - 1, 'other message')})" if len(misses) > 1 else ""
    return (f"a Chat Completions message list ({len(messages) - len(misses)} of "
            f"{len(messages)} messages are), but {place} {why}{others}")


def _first_choice(document: dict[str, Any], key: str) -> bool:
    choices = document.get("choices")
    return (isinstance(choices, list) and bool(choices) and isinstance(choices[0], dict) and
            isinstance(choices[0].get(key), dict))


# Object-valued keys a message log may carry besides "messages" (a request body's settings).
SMALL_KEYS = frozenset(("usage", "metadata", "tools", "tool_choice", "response_format"))
WRAPPED = 'an object with "messages": a list of Chat Completions role messages'
LISTED = "a list of Chat Completions role messages (system/user/assistant/tool)"
LITELLM = ('a LiteLLM log: "messages" (Chat Completions role messages) and the "response" '
           'to them')
OLLAMA = 'an Ollama /api/chat response ("message" beside "done")'
# Ollama reports token counts under its own names; they are kept as given.
OLLAMA_USAGE = ("prompt_eval_count", "eval_count")


def parse(document: Any) -> Trace:
    messages = messages_of(document)
    if messages is None:
        raise InputError("not a Chat Completions response or message list", place="$",
                         fix='give {"choices": [...]}, a list of messages, or {"messages": [...]}')
    # Imported here, as in stream: only a document this format claims is read.
    from toolscore_formats.chat import ChatReader

    reader = ChatReader("$.messages" if isinstance(document, dict) else "$")
    for index, message in enumerate(messages):
        reader.read(message, index)
    if isinstance(document, dict):
        usage = document.get("usage")
        if "message" in document and usage is None:
            usage = {key: document[key] for key in OLLAMA_USAGE if key in document} or None
        if logged_reply(document) is not None and usage is None:
            usage = document["response"].get("usage")
        return reader.trace(document.get("model"), usage)
    return reader.trace()


def stream(data: bytes) -> tuple[Trace, str] | None:
    """Stream a large message log (a list, or an object with "messages"), one message at a time."""
    # Imported here: streaming is for large files.
    from toolscore_formats.chat import ChatReader
    from toolscore_formats.cursor import TextCursor

    cursor = TextCursor(data)
    reader = ChatReader()
    extra: dict[str, Any] = {}
    count = 0

    def read_messages() -> bool:
        nonlocal count
        for message in cursor.values():
            if not_chat(message) is not None:
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
        description="OpenAI Chat Completions and compatible servers (Ollama, vLLM, LM "
                    "Studio, llama.cpp, LiteLLM)",
        reads='{"choices": [{"message"}]}, a list of role messages, {"messages": [...]} '
              '(with a LiteLLM "response"), an Ollama {"message", "done"}: tool_calls (JSON '
              'string or object arguments), legacy function_call, role tool/function results '
              'joined by tool_call_id (without one: by position in the turn)',
        detect=detect, parse=parse, stream=stream, near=near,
    )]
