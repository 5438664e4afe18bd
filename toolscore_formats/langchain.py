"""LangChain / LangGraph messages: AIMessage ``tool_calls`` answered by ToolMessages."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.content import block_content, text_of
from toolscore_formats.lc_messages import message_fields
from toolscore_formats.messages import Conversation
from toolscore_formats.usage import RunUsage
from toolscore_formats.values import as_str, list_of


def messages_of(document: Any) -> list[Any] | None:
    if isinstance(document, dict):
        messages = document.get("messages")
        return messages if isinstance(messages, list) else None
    return document if isinstance(document, list) else None


def detect(document: Any) -> str | None:
    messages = messages_of(document)
    if not messages or not all(message_fields(m) is not None for m in messages):
        return None
    if isinstance(document, dict):
        return 'LangGraph state: "messages" of serialized LangChain messages'
    return "a list of serialized LangChain messages (AIMessage / ToolMessage ...)"


def parse(document: Any) -> Trace:
    messages = messages_of(document)
    if messages is None:
        raise InputError("not a LangChain message list", place="$",
                         fix='give a list of messages or {"messages": [...]}')
    talk = Conversation()
    table, notes = talk.table, talk.notes
    model = None
    # Each AI message's usage_metadata is one model call's, summed as LangChain's add_usage
    # adds them.
    usage = RunUsage("usage_metadata", "AI messages")
    for index, item in enumerate(messages):
        fields = message_fields(item)
        if fields is None:
            raise InputError("not a serialized LangChain message", place=f"$.messages[{index}]")
        kind, data = fields
        if kind == "human":
            table.start_turn()
        elif kind == "ai":
            called = _read_ai(data, table)
            reply = text_of(data.get("content"))
            talk.said(reply, final=None if called else reply)
            usage.add(data.get("usage_metadata"))
            metadata = data.get("response_metadata")
            if isinstance(metadata, dict):
                model = as_str(metadata.get("model_name")) or model
        elif kind == "tool":
            content = block_content(data.get("content"))
            failed = data.get("status") == "error"
            if not table.answer(data.get("tool_call_id"),
                                **outcome(content, failed=failed or None)):
                notes.append(f"message {index}: ToolMessage for unknown tool_call_id "
                             f"{as_str(data.get('tool_call_id'))!r} (not counted as a call)")
    return talk.trace(model=model, usage=usage.result(notes))


def _read_ai(data: dict[str, Any], table: CallTable) -> bool:
    """Record an AI message's tool calls (invalid ones too, their arguments kept raw)."""
    calls = data.get("tool_calls")
    called = False
    if isinstance(calls, list):
        for call in calls:
            if isinstance(call, dict) and isinstance(call.get("name"), str):
                table.add(call["name"], call.get("args"), call_id=call.get("id"))
                called = True
    elif isinstance(data.get("additional_kwargs"), dict):
        # Older messages keep OpenAI-style tool_calls only in additional_kwargs.
        for call in list_of(data["additional_kwargs"], "tool_calls"):
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                table.add(function["name"], function.get("arguments"), call_id=call.get("id"))
                called = True
    for call in list_of(data, "invalid_tool_calls"):
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            table.add(call["name"], call.get("args"), call_id=call.get("id"))
            called = True
    return called


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="langchain",
        description="LangChain / LangGraph serialized message lists",
        reads='a list of messages or LangGraph state {"messages": [...]} (lc constructor, '
              'messages_to_dict or model_dump form): AIMessage tool_calls (and '
              'invalid_tool_calls, arguments kept raw) joined to ToolMessage by '
              'tool_call_id, status "error" as failure',
        detect=detect, parse=parse,
    )]
