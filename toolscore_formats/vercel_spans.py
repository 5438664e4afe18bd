"""The Vercel AI SDK's own span attributes (``ai.*``: its default telemetry before the GenAI
conventions, ``LegacyOpenTelemetry`` since): a tool's run and a model call's messages, in the
shape the GenAI reader takes (message parts ``tool_call`` / ``tool_call_response``).

The SDK writes a tool's run as an ``ai.toolCall`` span (``ai.toolCall.name``, ``.id``,
``.args``, ``.result``), a model call as an ``ai.generateText.doGenerate`` /
``ai.streamText.doStream`` span (``ai.prompt.messages``, ``ai.response.toolCalls``,
``ai.response.text``), and the whole call as an ``ai.generateText`` / ``ai.streamText`` span
that repeats its steps' calls (not read: the model-call spans hold them once each); that
span's time is the run's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolscore import JSON_FAILURES, loads
from toolscore_formats.values import as_str

if TYPE_CHECKING:
    from toolscore_formats.spans import Attributes

OPERATION_ID = "ai.operationId"
TOOL_CALL = "ai.toolCall"
TOOL_NAME, TOOL_ID = "ai.toolCall.name", "ai.toolCall.id"
TOOL_ARGS, TOOL_RESULT = "ai.toolCall.args", "ai.toolCall.result"
MODEL_CALL_SUFFIXES = (".doGenerate", ".doStream")
# The calls that run the agent's loop (steps of model calls and tool runs), as a whole.
RUN_OPERATIONS = frozenset(("ai.generateText", "ai.streamText"))
# A tool-result output (v5+) whose value is the tool's failure: not a result.
ERROR_OUTPUTS = frozenset(("error-text", "error-json"))


def _operation(attributes: Attributes) -> str | None:
    """``ai.operationId``, None without it (passed over unread: most spans of most exports
    are not the AI SDK's)."""
    return attributes.text(OPERATION_ID) if OPERATION_ID in attributes.raw else None


def is_tool_call(name: str | None, attributes: Attributes) -> bool:
    """An ``ai.toolCall`` span (by ``ai.operationId``, else by its name) with a tool name."""
    operation = _operation(attributes)
    return (operation == TOOL_CALL or (operation is None and name == TOOL_CALL)) and \
        TOOL_NAME in attributes


def is_run(attributes: Attributes) -> bool:
    """An ``ai.generateText`` / ``ai.streamText`` span: the whole call, every step in it."""
    return _operation(attributes) in RUN_OPERATIONS


def is_model_call(attributes: Attributes) -> bool:
    """An ``ai.*.doGenerate`` / ``ai.*.doStream`` span: one request to the model."""
    operation = _operation(attributes)
    return operation is not None and operation.startswith("ai.") and \
        operation.endswith(MODEL_CALL_SUFFIXES)


def decoded(value: Any) -> Any:
    """``ai.toolCall.result`` is the result's ``JSON.stringify``: any JSON value, decoded;
    text that is not JSON stays the text."""
    if isinstance(value, str):
        try:
            return loads(value)
        except JSON_FAILURES:
            return value
    return value


def input_messages(attributes: Attributes) -> list[dict[str, Any]] | None:
    """``ai.prompt.messages`` (the model messages sent) as messages of GenAI parts."""
    messages = decoded(attributes.get("ai.prompt.messages"))
    if not isinstance(messages, list):
        return None
    return [_message(m) for m in messages if isinstance(m, dict)]


def output_messages(attributes: Attributes) -> list[dict[str, Any]] | None:
    """``ai.response.text`` and ``ai.response.toolCalls`` as the one message answered."""
    text = attributes.text("ai.response.text")
    calls = decoded(attributes.get("ai.response.toolCalls"))
    if text is None and not isinstance(calls, list):
        return None
    parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
    for call in calls if isinstance(calls, list) else ():
        if isinstance(call, dict):
            parts.append(_tool_call(call))
    return [{"role": "assistant", "parts": parts}]


def _tool_call(part: dict[str, Any]) -> dict[str, Any]:
    # The arguments are "input" since v5, "args" before; an object or its JSON text.
    return {"type": "tool_call", "id": as_str(part.get("toolCallId")),
            "name": part.get("toolName"),
            "arguments": part["input"] if "input" in part else part.get("args")}


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """A model message (content text, or parts: text, tool-call, tool-result) as GenAI parts."""
    content = message.get("content")
    parts: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else [{"type": "text", "text": content}]:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            parts.append({"type": "text", "content": part["text"]})
        elif kind == "tool-call":
            parts.append(_tool_call(part))
        elif kind == "tool-result":
            response = _result(part)
            if response is not None:
                parts.append({"type": "tool_call_response",
                              "id": as_str(part.get("toolCallId")), "response": response[0]})
    return {"role": message.get("role"), "parts": parts}


def _result(part: dict[str, Any]) -> tuple[Any] | None:
    """A tool-result's value: v5+ ``output`` (``{"type", "value"}``), v4 ``result``; None for
    a failure (the GenAI parts have no error flag: a failure read as a result would be a
    success)."""
    if "output" not in part:
        return None if part.get("isError") is True else (part.get("result"),)
    output = part["output"]
    if isinstance(output, dict):
        if output.get("type") in ERROR_OUTPUTS:
            return None
        if "value" in output:
            return (output["value"],)
    return (output,)
