"""Vercel AI SDK: ``tool-call`` / ``tool-result`` parts of model messages and ``steps``."""

from __future__ import annotations

import json
from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.content import error_text
from toolscore_formats.shapes import is_ui_tool_part
from toolscore_formats.values import as_str, name_of

ROLES = frozenset(("system", "user", "assistant", "tool"))
TOOL_PARTS = frozenset(("tool-call", "tool-result"))
# ToolResultOutput types (v5+) whose value is the tool's failure, not its result.
ERROR_OUTPUTS = frozenset(("error-text", "error-json"))
VALUE_OUTPUTS = frozenset(("text", "json", "content"))

MESSAGES = "a list of Vercel AI SDK model messages with tool-call / tool-result parts"
WRAPPED = 'an object whose "messages" are Vercel AI SDK model messages with tool-call parts'
STEPS = 'Vercel AI SDK generateText steps ("toolCalls" / "toolResults" per step)'
RESULT = 'a Vercel AI SDK generateText result ("steps" with "toolCalls" / "toolResults")'
RESPONSE = ('a Vercel AI SDK result\'s "response" with "messages" (model messages with '
            "tool-call parts)")


def _is_message(message: Any) -> bool:
    """A ModelMessage: a role and content that is text or parts that each name their type."""
    if type(message) is not dict or message.get("role") not in ROLES:
        return False
    content = message.get("content")
    return isinstance(content, str) or (isinstance(content, list) and all(
        isinstance(part, dict) and isinstance(part.get("type"), str) for part in content))


def _tool_part(part: Any) -> bool:
    return (isinstance(part, dict) and part.get("type") in TOOL_PARTS and
            isinstance(part.get("toolCallId"), str))


def _is_model_messages(messages: Any) -> bool:
    """Model messages, at least one of them with a tool-call or tool-result part (plain text
    messages are no evidence of the AI SDK)."""
    return (isinstance(messages, list) and bool(messages) and all(map(_is_message, messages))
            and any(isinstance(m["content"], list) and any(map(_tool_part, m["content"]))
                    for m in messages))


def _is_step(step: Any) -> bool:
    return (type(step) is dict and isinstance(step.get("toolCalls"), list) and
            isinstance(step.get("toolResults"), list) and
            ("finishReason" in step or "stepType" in step or "content" in step))


def _is_steps(steps: Any) -> bool:
    return isinstance(steps, list) and bool(steps) and all(map(_is_step, steps))


def _response_messages(document: dict[str, Any]) -> Any:
    response = document.get("response")
    return response.get("messages") if isinstance(response, dict) else None


def detect(document: Any) -> str | None:
    if _is_model_messages(document):
        return MESSAGES
    if _is_steps(document):
        return STEPS
    if type(document) is not dict:
        return None
    if _is_steps(document.get("steps")):
        return RESULT
    if _is_model_messages(document.get("messages")):
        return WRAPPED
    if "steps" not in document and _is_model_messages(_response_messages(document)):
        return RESPONSE
    return None


def near(document: Any) -> str | None:
    """What an unclaimed document that is almost AI SDK messages misses."""
    messages = document.get("messages") if isinstance(document, dict) else document
    if not isinstance(messages, list) or not messages:
        return None
    if all(type(m) is dict and isinstance(m.get("parts"), list) for m in messages) and any(
            is_ui_tool_part(p) for m in messages for p in m["parts"]):
        return ("Vercel AI SDK UI messages (useChat \"parts\" with tool parts), which it does "
                "not read: save the model messages instead (convertToModelMessages, or the "
                "result's response.messages)")
    tooled = [i for i, m in enumerate(messages) if type(m) is dict and
              isinstance(m.get("content"), list) and any(map(_tool_part, m["content"]))]
    if not tooled:
        return None
    index = next((i for i, m in enumerate(messages) if not _is_message(m)), None)
    if index is None:
        return None
    place = f"$.messages[{index}]" if isinstance(document, dict) else f"$[{index}]"
    return (f"a Vercel AI SDK message list with tool-call parts, but {place} is not a model "
            'message ({"role": system/user/assistant/tool, "content": text or typed parts})')


def parse(document: Any) -> Trace:
    if _is_steps(document):
        return _read_steps(document, None)
    if isinstance(document, dict):
        if _is_steps(document.get("steps")):
            return _read_steps(document["steps"], document)
        messages = document.get("messages")
        if not isinstance(messages, list):
            messages = _response_messages(document)
    else:
        messages = document
    if not isinstance(messages, list):
        raise InputError("not Vercel AI SDK messages or steps", place="$",
                         fix='give a list of {"role", "content"} model messages, the '
                             'result\'s "steps", or {"messages": [...]}')
    return _read_messages(messages, document)


def _read_messages(messages: list[Any], document: Any) -> Trace:
    table = CallTable()
    notes: list[str] = []
    final_answer: str | None = None
    replies: list[str] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InputError("a message is an object", place=f"$[{index}]")
        content = message.get("content")
        parts = [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []
        if message.get("role") == "user":
            table.start_turn()
        called = False
        for part in parts:
            kind = name_of(part, "type")
            if kind == "tool-call" and isinstance(part.get("toolName"), str):
                table.add(part["toolName"], _input(part), call_id=part.get("toolCallId"))
                called = True
            elif kind == "tool-result":
                _answer(table, part, _message_output(part), notes, f"message {index}")
        role = message.get("role")
        if role == "assistant":
            # A turn that asks for a tool waits for its result: it is not the final answer.
            final_answer = None if called else _text(content)
            reply = _text(content)
            if reply is not None:
                replies.append(reply)
        elif role == "tool":
            final_answer = None
    usage = document.get("usage") if isinstance(document, dict) else None
    return Trace(calls=table.calls(), final_answer=final_answer,
                 usage=usage if isinstance(usage, dict) else None, notes=tuple(notes),
                 replies=tuple(replies))


def _read_steps(steps: list[Any], result: dict[str, Any] | None) -> Trace:
    """One step per model call: v5+ steps list their parts in ``content`` (tool errors
    included); v4 steps only in ``toolCalls`` / ``toolResults``. A step's
    ``response.messages`` repeats the conversation so far, so it is not read."""
    table = CallTable()
    notes: list[str] = []
    final_answer: str | None = None
    replies: list[str] = []
    model: str | None = None
    for index, step in enumerate(steps):
        response = step.get("response") if isinstance(step.get("response"), dict) else {}
        stamp = as_str(response.get("timestamp"))
        model = as_str(response.get("modelId")) or model
        content = step.get("content")
        parts = content if isinstance(content, list) else [*step["toolCalls"],
                                                          *step["toolResults"]]
        called = False
        for part in parts:
            if not isinstance(part, dict):
                continue
            kind = name_of(part, "type")
            if kind == "tool-call" and isinstance(part.get("toolName"), str):
                table.add(part["toolName"], _input(part), call_id=part.get("toolCallId"),
                          timestamp=stamp)
                called = True
            elif kind == "tool-result":
                # In a step the output is what the tool returned, not a ToolResultOutput.
                value = part["output"] if "output" in part else part.get("result")
                failed = True if part.get("isError") is True else None
                _answer(table, part, outcome(value, failed=failed), notes, f"step {index}")
            elif kind == "tool-error":
                _answer(table, part, outcome(None, failed=True, error=_error(part.get("error"))),
                        notes, f"step {index}")
        text = step.get("text")
        final_answer = None if called else (text if isinstance(text, str) and text else None)
        if isinstance(text, str) and text:
            replies.append(text)
    usage = None
    if result is not None:
        usage = result.get("totalUsage") if isinstance(result.get("totalUsage"), dict) \
            else result.get("usage")
    return Trace(calls=table.calls(), final_answer=final_answer, model=model,
                 usage=usage if isinstance(usage, dict) else None, notes=tuple(notes),
                 replies=tuple(replies))


def _input(part: dict[str, Any]) -> Any:
    """The call's arguments: ``input`` since v5, ``args`` before."""
    return part["input"] if "input" in part else part.get("args")


def _message_output(part: dict[str, Any]) -> dict[str, Any]:
    """A message's tool-result: v5+ ``output`` is ``{"type", "value"}``; v4 ``result`` with
    ``isError``."""
    output = part.get("output")
    if "output" not in part or not isinstance(output, dict):
        return outcome(part.get("result"), failed=True if part.get("isError") is True else None)
    kind = name_of(output, "type")
    if kind in ERROR_OUTPUTS:
        return outcome(None, failed=True, error=_error(output.get("value")))
    if kind == "execution-denied":
        reason = output.get("reason")
        return outcome(None, failed=True, error=reason if isinstance(reason, str) and reason
                       else "execution denied")
    if kind in VALUE_OUTPUTS and "value" in output:
        return outcome(_content_value(output["value"]) if kind == "content" else
                       output["value"], failed=None)
    return outcome(output, failed=None)


def _content_value(value: Any) -> Any:
    """A ``content`` output: only text parts are their joined text; else the list as it is."""
    if isinstance(value, list) and value and all(
            isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
            for p in value):
        return "".join(p["text"] for p in value)
    return value


def _error(value: Any) -> str:
    text = error_text(value)
    return text if text is not None else json.dumps(value)


def _answer(table: CallTable, part: dict[str, Any], result: dict[str, Any], notes: list[str],
            where: str) -> None:
    call_id = part.get("toolCallId")
    if not table.answer(call_id, **result):
        notes.append(f"{where}: {part.get('type')} for unknown toolCallId "
                     f"{as_str(call_id)!r} (not counted as a call)")


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        text = "".join(p["text"] for p in content if isinstance(p, dict) and
                       p.get("type") == "text" and isinstance(p.get("text"), str))
        return text or None
    return None


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="vercel_ai",
        description="Vercel AI SDK model messages and generateText steps (v4 and v5+)",
        reads='a list of {"role", "content"} model messages (or {"messages": [...]}, a '
              'result\'s "response"), or generateText "steps" / a result with "steps": '
              'tool-call parts joined to tool-result parts by toolCallId, error-text / '
              'error-json outputs, isError and tool-error parts as failure',
        detect=detect, parse=parse, near=near,
    )]
