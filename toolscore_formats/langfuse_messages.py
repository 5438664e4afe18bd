"""The messages in Langfuse generations: the tool calls a model asked for, the results it was
given, and an answer's text, in the shapes the instrumentations write them (Chat
Completions, Responses, Anthropic, GenAI ``parts``, LangChain, the Vercel AI SDK)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from toolscore_formats.content import block_content, text_of
from toolscore_formats.lc_messages import message_fields
from toolscore_formats.values import as_str, dict_of, list_of, maybe_json, name_of

ASSISTANT_ROLES = frozenset(("assistant", "model", "ai"))


class Request(NamedTuple):
    """A tool call a model asked for."""

    tool: str
    id: str | None
    arguments: Any


def _messages(value: Any) -> list[dict[str, Any]]:
    """The message-like objects of a generation's input or output."""
    items = value if isinstance(value, list) else [value]
    found: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("output"), list) and item.get("object") == "response":
            found.extend(i for i in item["output"] if isinstance(i, dict))
            continue
        choices = list_of(item, "choices")
        candidates = list_of(item, "candidates")
        if choices or candidates:  # a Chat Completions or a Gemini response
            found.extend(dict_of(choice, "message") for choice in choices)
            found.extend(dict_of(candidate, "content") for candidate in candidates)
            continue
        if isinstance(item.get("content"), dict) and "parts" in item["content"]:
            found.append(item["content"])  # an ADK event: a Gemini content in "content"
            continue
        found.append(item)
    return found


def _request(call: Any, name_key: str, id_key: str, args_key: str) -> Request | None:
    if not isinstance(call, dict):
        return None
    function = dict_of(call, "function")
    name = name_of(function, "name") or name_of(call, name_key)
    if name is None:
        return None
    arguments = function.get("arguments") if function else call.get(args_key)
    return Request(name, as_str(call.get(id_key)), arguments)


def _message_requests(item: dict[str, Any]) -> Iterator[Request | None]:
    kind = name_of(item, "type")
    if kind == "function_call":  # a Responses output item
        yield _request(item, "name", "call_id", "arguments")
    if "toolName" in item and "toolCallId" in item:  # a Vercel AI SDK tool call
        yield _request(item, "toolName", "toolCallId", "input" if "input" in item else "args")
    fields = message_fields(item)
    body = fields[1] if fields is not None and fields[0] == "ai" else item
    for call in list_of(body, "tool_calls") + list_of(dict_of(body, "additional_kwargs"),
                                                      "tool_calls") + _text_calls(item):
        yield _request(call, "name", "id", "args")
    for part in list_of(item, "parts"):
        if isinstance(part, dict) and part.get("type") == "tool_call":
            yield _request(part, "name", "id", "arguments")
        elif isinstance(part, dict):  # a Gemini function call, camelCase or snake_case
            call = part.get("functionCall", part.get("function_call"))
            if isinstance(call, dict):
                yield _request(call, "name", "id", "args")
    for block in list_of(body, "content"):
        if isinstance(block, dict) and block.get("type") == "tool_use":
            yield _request(block, "name", "id", "input")
        elif isinstance(block, dict) and block.get("type") == "tool-call":
            yield _request(block, "toolName", "toolCallId",
                           "input" if "input" in block else "args")


def _text_calls(item: dict[str, Any]) -> list[Any]:
    """Chat Completions ``tool_calls`` written as an assistant message's text (Koog writes
    them so, with ``finish_reason: "tool_calls"``)."""
    content = item.get("content")
    if item.get("finish_reason") != "tool_calls" or not isinstance(content, str):
        return []
    calls = maybe_json(content)
    return calls if isinstance(calls, list) and all(
        isinstance(call, dict) and isinstance(call.get("function"), dict) for call in calls) else []


def requests_in(output: Any) -> list[Request]:
    """The tool calls a generation's output asks for, each once (LangChain writes a call
    in ``tool_calls`` and again in ``additional_kwargs``)."""
    requests: list[Request] = []
    seen: set[str] = set()
    for item in _messages(output):
        for request in _message_requests(item):
            if request is None or (request.id is not None and request.id in seen):
                continue
            if request.id is not None:
                seen.add(request.id)
            requests.append(request)
    return requests


def results_in(value: Any) -> dict[str, Any]:
    """The tool results a generation's input holds, by call id."""
    results: dict[str, Any] = {}
    for item in _messages(value):
        fields = message_fields(item)
        if fields is not None and fields[0] == "tool":
            _keep(results, fields[1].get("tool_call_id"), block_content(fields[1].get("content")))
        elif item.get("role") == "tool" and "tool_call_id" in item:
            _keep(results, item.get("tool_call_id"), block_content(item.get("content")))
        elif item.get("type") == "function_call_output":
            _keep(results, item.get("call_id"), item.get("output"))
        for part in list_of(item, "parts"):
            if isinstance(part, dict) and part.get("type") == "tool_call_response":
                _keep(results, part.get("id"), part.get("response"))
        for block in list_of(item, "content"):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                _keep(results, block.get("tool_use_id"), block_content(block.get("content")))
            elif isinstance(block, dict) and block.get("type") == "tool-result":
                _keep(results, block.get("toolCallId"), block.get("output", block.get("result")))
    return results


def _keep(results: dict[str, Any], call_id: Any, result: Any) -> None:
    key = as_str(call_id)
    if key is not None:
        results[key] = result


def answer_text(output: Any) -> str | None:
    """The text of an output that is the agent's answer: text, or an assistant message
    (of any shape above) that asks for no tool; None for anything else."""
    if isinstance(output, str):
        return text_of(output)
    if isinstance(output, dict) and isinstance(output.get("messages"), list):
        return answer_text(output["messages"][-1]) if output["messages"] else None
    messages = _messages(output)
    if not messages:
        return None
    last = messages[-1]
    if requests_in([last]):
        return None
    fields = message_fields(last)
    if fields is not None:
        return text_of(fields[1].get("content")) if fields[0] == "ai" else None
    role = last.get("role")
    if role is not None and role not in ASSISTANT_ROLES:
        return None
    if "parts" in last:
        # GenAI parts ({"type": "text", "content"}) or Gemini parts ({"text"})
        texts = [part.get("content") if part.get("type") == "text" else part.get("text")
                 for part in list_of(last, "parts") if isinstance(part, dict)]
        if any(isinstance(part, dict) and part.get("type") not in (None, "text")
               for part in list_of(last, "parts")):
            return None
        return text_of("".join(t for t in texts if isinstance(t, str)))
    if role is None and last.get("type") not in (None, "message"):
        return None
    return text_of(last.get("content"))
