"""A chat's messages under the OpenTelemetry GenAI conventions, whichever shape the
instrumentation wrote them in, kept as an exchange: the calls it asks for, the calls its
history repeats, the results, the answer (the GenAI reader's toolkit)."""

from __future__ import annotations

import json
from typing import Any

from toolscore import JSON_FAILURES, loads
from toolscore_formats.content import converse_result, text_of
from toolscore_formats.spans import Attributes
from toolscore_formats.values import as_str, decode_args, maybe_json

PLACEHOLDERS = frozenset(("N/A", "<not specified>", "<elided>"))
OLD_FIRST_KEYS = tuple(f"gen_ai.{side}.0.{field}" for side in ("prompt", "completion")
                       for field in ("role", "content", "tool_calls.0.name"))
CONVERSE_KINDS = ("text", "toolUse", "toolResult")


def absent(value: Any) -> bool:
    """No content: null, or a placeholder an instrumentation writes where it has none."""
    return value is None or (isinstance(value, str) and value.strip() in PLACEHOLDERS)


def _absent_result(value: Any) -> bool:
    # ADK wraps a missing response's placeholder as {"result": "<not specified>"}.
    # A tool that returned None is {"result": null}: a result, not an absence.
    return absent(value) or (isinstance(value, dict) and len(value) == 1 and
                             value.get("result") is not None and absent(value.get("result")))


class Exchange:
    """One model call, kept compact: the calls its output asks for, the calls its input
    history repeats (as keys), how many user turns the history holds, and the answer.

    The messages themselves are not kept: an instrumentation repeats the whole history in
    every chat, so keeping them would make memory grow with the square of a conversation.
    """

    __slots__ = ("answer", "answer_raw", "end", "from_autogen", "from_events", "from_spans",
                 "has_input", "has_output",
                 "history", "key", "model", "order", "requests", "start", "turns")

    def __init__(self, key: Any, order: int) -> None:
        self.key = key
        self.order = order
        self.start: int | None = None
        self.end: int | None = None
        self.has_input = self.has_output = False
        self.requests: list[tuple[str | None, str, Any]] = []  # (id, tool, arguments)
        self.history: list[tuple[str | None, int]] = []  # (id, key of tool and arguments)
        self.turns = 0
        self.answer: str | None = None
        self.answer_raw: str | None = None  # output messages without a call, decoded if last
        self.model: str | None = None
        self.from_spans = False  # content read from span attributes (else log records only)
        self.from_events = False  # content read from the span's own events
        self.from_autogen = False  # requests from AutoGen's runtime messages (not a chat)

    def time(self) -> int:
        moment = self.end if self.end is not None else self.start
        return moment if moment is not None else -1

    def user_turns(self) -> int | None:
        """How many user messages the input holds: the turn this chat answers."""
        return self.turns or None

    def add_input(self, message: dict[str, Any], responses: dict[str, Any],
                  keys: dict[str, int]) -> None:
        """A message of the input history (or the system instructions, role "system").

        ``responses`` gathers the results by call id, ``keys`` the key of each call id's
        tool and arguments (a history repeats every earlier call: each is keyed once)."""
        self.has_input = True
        spoke = False
        for part in _parts(message):
            kind = part.get("type")
            if kind == "tool_call" and isinstance(part.get("name"), str):
                call_id = _call_id(part.get("id"))
                key = keys.get(call_id) if call_id is not None else None
                if key is None:
                    key = _shape_key(part["name"], part.get("arguments"))
                    if call_id is not None:
                        keys[call_id] = key
                self.history.append((call_id, key))
            elif kind == "tool_call_response":
                call_id = _call_id(part.get("id"))
                value = part.get("response", part.get("result"))
                if call_id is not None and not _absent_result(value):
                    responses.setdefault(call_id, _tool_result(value))
            else:
                spoke = True
        self.turns += message.get("role") == "user" and spoke

    def final_text(self) -> str | None:
        if self.answer_raw is not None:
            for message in _messages(self.answer_raw) or ():
                self.add_output(message)
            self.answer_raw = None
        return self.answer

    def add_output(self, message: dict[str, Any]) -> None:
        """A message the model answered with; the last one is the answer unless it asks
        for a tool."""
        self.has_output = True
        parts = _parts(message)
        for part in parts:
            if part.get("type") == "tool_call" and isinstance(part.get("name"), str):
                self.requests.append((_call_id(part.get("id")), part["name"],
                                      part.get("arguments")))
        asks = any(part.get("type") == "tool_call" for part in parts)
        self.answer = None if asks else text_of(
            [{"type": "text", "text": p.get("content")} for p in parts
             if p.get("type") == "text"])


def _call_id(value: Any) -> str | None:
    call_id = as_str(value)
    return None if absent(call_id) else call_id


def _shape_key(tool: str, arguments: Any) -> int:
    """A key of a call's tool and arguments, to find the same call in another history."""
    args, raw = decode_args(arguments) if not absent(arguments) else (None, None)
    return hash((tool, json.dumps(args, sort_keys=True, default=str) if args is not None
                 else f"raw:{raw}"))


# --- sightings in messages


def _has_old_messages(attributes: Attributes) -> bool:
    raw = attributes.raw
    return any(key in raw for key in OLD_FIRST_KEYS)


def _decoded(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return loads(value)
        except JSON_FAILURES:
            return None
    return value


def _messages(value: Any) -> list[dict[str, Any]] | None:
    decoded = _decoded(value)
    if not isinstance(decoded, list):
        return None
    return [message for message in decoded if isinstance(message, dict)]


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = message.get("parts")
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def _old_message(role: str, body: dict[str, Any]) -> dict[str, Any]:
    """An older per-message event's body (``content``, ``tool_calls``, ``id``) as a message
    of parts, the shape of ``gen_ai.input.messages``."""
    parts: list[dict[str, Any]] = []
    content = body.get("content")
    blocks = _converse_blocks(content)
    if blocks is not None:
        return {"role": role, "parts": [_converse_part(block) for block in blocks]}
    if role == "tool":
        # The conventions' "id"; Semantic Kernel writes the Chat Completions message's
        # "tool_call_id".
        parts.append({"type": "tool_call_response",
                      "id": as_str(body.get("id")) or as_str(body.get("tool_call_id")),
                      "response": content})
    elif not absent(content):
        text = content if isinstance(content, str) else text_of(content)
        parts.append({"type": "text", "content": text if text is not None else content})
    elif role == "user":
        # Content not captured: still a user message, which starts a turn.
        parts.append({"type": "text", "content": None})
    for call in body.get("tool_calls") or ():
        if isinstance(call, dict):
            function = call.get("function")
            function = function if isinstance(function, dict) else {}
            parts.append({"type": "tool_call", "id": as_str(call.get("id")),
                          "name": function.get("name"), "arguments": function.get("arguments")})
    return {"role": role, "parts": parts}


def _converse_blocks(content: Any) -> list[dict[str, Any]] | None:
    """Bedrock Converse content blocks (Strands writes a message's content so, as JSON text):
    a list of objects without ``type``, each one block keyed by its kind."""
    blocks = _decoded(content)
    if not isinstance(blocks, list) or not blocks or not all(
            isinstance(block, dict) and len(block) == 1 and "type" not in block
            for block in blocks):
        return None
    return blocks if any(key in block for block in blocks for key in CONVERSE_KINDS) \
        else None


def _converse_part(block: dict[str, Any]) -> dict[str, Any]:
    """One Converse content block as a GenAI message part."""
    (kind, value), = block.items()
    if kind == "toolUse" and isinstance(value, dict):
        return {"type": "tool_call", "id": value.get("toolUseId"), "name": value.get("name"),
                "arguments": value.get("input")}
    if kind == "toolResult" and isinstance(value, dict):
        return {"type": "tool_call_response", "id": value.get("toolUseId"),
                "response": value.get("content")}
    if kind == "text":
        return {"type": "text", "content": value}
    return {"type": kind, "content": value}


def _tool_result(value: Any, *, quoted: bool = False) -> Any:
    """A tool's result as a span or a response part holds it: JSON text decoded, and Bedrock
    Converse content blocks (Strands' tool results) read as the bedrock_converse reader reads
    them, their text then decoded the same way.

    ``quoted`` (``gen_ai.tool.call.result``, JSON text): a JSON string (``"\\"14:05\\""``,
    the Vercel AI SDK's ``JSON.stringify`` of a string result) is that string. Other text
    stays text: a plain ``42`` some instrumentations write is not a number."""
    if quoted and isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            text = loads(value)
        except JSON_FAILURES:
            return value
        return text if isinstance(text, str) else value
    value = maybe_json(value)
    unwrapped = converse_result(value)
    return value if unwrapped is value else maybe_json(unwrapped)


def _gemini_message(content: dict[str, Any]) -> dict[str, Any]:
    """A Gemini ``Content`` (role, parts of text, function_call, function_response) as a
    message of GenAI parts."""
    parts: list[dict[str, Any]] = []
    for part in content.get("parts") or ():
        if not isinstance(part, dict):
            continue
        call, response = part.get("function_call"), part.get("function_response")
        if isinstance(call, dict):
            parts.append({"type": "tool_call", "id": call.get("id"), "name": call.get("name"),
                          "arguments": call.get("args")})
        elif isinstance(response, dict):
            parts.append({"type": "tool_call_response", "id": response.get("id"),
                          "response": response.get("response")})
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            parts.append({"type": "text", "content": part["text"]})
    role = content.get("role")
    return {"role": "assistant" if role == "model" else role, "parts": parts}


def _old_messages(attributes: Attributes, prefix: str, role: str) -> list[dict[str, Any]]:
    """``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` (role, content, tool_call_id,
    tool_calls.M.id/name/arguments) as messages of parts."""
    grouped: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if isinstance(key, str) and key.startswith(prefix):
            head, _, rest = key[len(prefix):].partition(".")
            if head.isdigit() and rest:
                grouped.setdefault(int(head), {})[rest] = value
    messages = []
    for index in sorted(grouped):
        fields = grouped[index]
        calls: dict[int, dict[str, Any]] = {}
        for key, value in fields.items():
            if key.startswith("tool_calls."):
                head, _, rest = key[len("tool_calls."):].partition(".")
                if head.isdigit():
                    calls.setdefault(int(head), {})[rest] = value
        message_role = as_str(fields.get("role")) or role
        body = {"content": fields.get("content"), "id": fields.get("tool_call_id"),
                "tool_calls": [{"id": calls[i].get("id"), "function": {
                    "name": calls[i].get("name"), "arguments": calls[i].get("arguments")}}
                    for i in sorted(calls)]}
        messages.append(_old_message("tool" if message_role == "tool" else message_role, body))
    return messages
