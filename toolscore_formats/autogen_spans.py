"""Microsoft AutoGen's agent runtime spans: the AgentChat messages they carry, in the shape
the GenAI reader takes (the model's requests, the tools' results, an agent's text).

AutoGen Core's runtime writes a span for each message it sends, publishes and delivers
(``autogen publish {topic}``, ``autogen process {agent}``, ...), with the message itself as
JSON in a ``message`` attribute. In a team's run these are the group chat's messages, and
AgentChat's messages about tools are among them: a ``ToolCallRequestEvent`` (the model's
requests, ``FunctionCall`` ``id`` / ``name`` / ``arguments``), a ``ToolCallExecutionEvent``
(the results, ``FunctionExecutionResult`` ``call_id`` / ``content`` / ``is_error``) and an
agent's ``TextMessage``. The same message is delivered to every member, so each span
repeats some: a message is known by its ``id``.

AutoGen's own ``execute_tool`` spans carry the tool's name and call id, never its arguments
or result; without the runtime (an agent run alone) nothing of AutoGen's writes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolscore import JSON_FAILURES, loads
from toolscore_formats.times import parse_time
from toolscore_formats.values import as_str

if TYPE_CHECKING:
    from toolscore_formats.spans import Attributes

RUNTIME_PREFIX = "autogen "
GENAI_SYSTEM = "autogen"  # gen_ai.system on AutoGen's agent and tool spans
MESSAGE = "message"
REQUESTS, RESULTS, TEXT = "ToolCallRequestEvent", "ToolCallExecutionEvent", "TextMessage"


def runtime_messages(name: str | None, attributes: Attributes) -> list[dict[str, Any]] | None:
    """The AgentChat messages an AutoGen runtime span carries; None for any other span.

    The runtime's envelopes: a group chat's start (``{"messages": [...]}``, the task), a
    message published (``{"message": {...}}``) and an agent's response
    (``{"response": {"chat_message", "inner_messages"}}``: its tool events, then its answer).
    """
    if name is None or not name.startswith(RUNTIME_PREFIX) or MESSAGE not in attributes.raw:
        return None
    text = attributes.text(MESSAGE)
    try:
        envelope = loads(text) if text is not None and text[:1] == "{" else None
    except JSON_FAILURES:
        envelope = None  # the runtime writes the error's text when it cannot serialize
    if not isinstance(envelope, dict):
        return []
    found: list[Any] = []
    if isinstance(envelope.get("messages"), list):
        found.extend(envelope["messages"])
    found.append(envelope.get("message"))
    response = envelope.get("response")
    if isinstance(response, dict):
        inner = response.get("inner_messages")
        found.extend(inner if isinstance(inner, list) else ())
        found.append(response.get("chat_message"))
    return [m for m in found if isinstance(m, dict) and isinstance(m.get("type"), str)]


def message_id(message: dict[str, Any]) -> str | None:
    """The message's ``id``: the same in every span that delivers it."""
    return as_str(message.get("id"))


def message_time(message: dict[str, Any]) -> int | None:
    """When AutoGen made the message (``created_at``, ISO 8601 with its zone)."""
    return parse_time(message.get("created_at"))


def requests(message: dict[str, Any]) -> list[tuple[str | None, str, Any]]:
    """A ``ToolCallRequestEvent``'s calls: (id, tool, arguments as the model gave them)."""
    content = message.get("content")
    if message.get("type") != REQUESTS or not isinstance(content, list):
        return []
    return [(as_str(call.get("id")), call["name"], call.get("arguments")) for call in content
            if isinstance(call, dict) and isinstance(call.get("name"), str)]


def results(message: dict[str, Any]) -> list[tuple[str, Any]]:
    """A ``ToolCallExecutionEvent``'s results: (call id, the text the model was sent).

    A failed call's content is the error's text AutoGen sent the model: not a result here
    (a response has no error flag), the tool's span gives its failure."""
    content = message.get("content")
    if message.get("type") != RESULTS or not isinstance(content, list):
        return []
    found: list[tuple[str, Any]] = []
    for result in content:
        # Only a result that says it is none: without is_error the outcome is not known.
        if not isinstance(result, dict) or result.get("is_error") is not False:
            continue
        call_id = as_str(result.get("call_id"))
        if call_id and "content" in result:
            found.append((call_id, result["content"]))
    return found


def from_model(message: dict[str, Any]) -> bool:
    """Whether a model's answer made the message: it has ``models_usage`` (an agent's text,
    its requests for tools; a user's, a user proxy's, a tool summary's or a result's has
    none)."""
    return isinstance(message.get("models_usage"), dict)


def answer(message: dict[str, Any]) -> str | None:
    """A ``TextMessage``'s text (None for any other message, or blank text)."""
    content = message.get("content")
    if message.get("type") != TEXT or not isinstance(content, str) or not content.strip():
        return None
    return content
