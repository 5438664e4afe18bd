"""Claude Agent SDK / Claude Code message streams: tool_use, tool_result and the result message."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import outcome
from toolscore_formats.content import block_content, text_of
from toolscore_formats.messages import Conversation
from toolscore_formats.times import iso_timestamp
from toolscore_formats.values import as_float, as_str, dict_of, list_of, name_of

MESSAGE_TYPES = frozenset(("system", "assistant", "user", "result", "stream_event"))
USE_BLOCKS = frozenset(("tool_use", "server_tool_use", "mcp_tool_use"))


def detect(document: Any) -> str | None:
    if not isinstance(document, list) or not document:
        return None
    carries = False
    for item in document:
        if not isinstance(item, dict) or "role" in item or \
                name_of(item, "type") not in MESSAGE_TYPES:
            return None
        carries = carries or isinstance(item.get("message"), dict) or item["type"] == "result"
    if not carries:
        return None
    return 'a Claude Agent SDK message stream ({"type": "assistant"|"user"|"result", ...})'


def parse(document: Any) -> Trace:
    if not isinstance(document, list):
        raise InputError("a Claude Agent SDK stream is a list of messages", place="$",
                         fix="give the stream-json messages as a JSON array or JSON Lines")
    talk = Conversation()
    table, notes, replies = talk.table, talk.notes, talk.replies
    result_text: str | None = None
    run_cost = run_duration = None
    usage = model = None
    for index, item in talk.walk(document, place="$", problem="a stream message is an object"):
        kind = name_of(item, "type")
        message = dict_of(item, "message")
        blocks = list_of(message, "content")
        if kind == "assistant":
            called = False
            for block in blocks:
                if isinstance(block, dict) and name_of(block, "type") in USE_BLOCKS and \
                        isinstance(block.get("name"), str):
                    # Claude Code's saved transcripts stamp each message; streams do not.
                    table.add(block["name"], block.get("input"), call_id=block.get("id"),
                              timestamp=iso_timestamp(item.get("timestamp")))
                    called = True
            if item.get("parent_tool_use_id") is None:  # a subagent's text is not a reply
                reply = text_of(blocks)
                talk.said(reply, final=None if called else reply)
            model = as_str(message.get("model")) or model
        elif kind == "user":
            for block in blocks:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    content = block_content(block.get("content"))
                    failed = block.get("is_error") is True
                    if not table.answer(block.get("tool_use_id"),
                                        **outcome(content, failed=failed or None)):
                        notes.append(f"message {index}: tool_result for unknown tool_use_id")
        elif kind == "result":
            # Run totals stay at run level: they are never spread over the calls.
            run_cost = as_float(item.get("total_cost_usd"))
            duration_ms = as_float(item.get("duration_ms"))
            run_duration = duration_ms / 1000 if duration_ms is not None else None
            result_text = item.get("result") if isinstance(item.get("result"), str) else None
            usage = item.get("usage") if isinstance(item.get("usage"), dict) else usage
            if item.get("is_error") is True:
                notes.append(f"the run ended in error ({item.get('subtype')})")
    has_result = any(isinstance(i, dict) and i.get("type") == "result" for i in document)
    if has_result:
        talk.final_answer = result_text
    final_answer = talk.final_answer
    if final_answer is not None and (not replies or replies[-1] != final_answer):
        replies.append(final_answer)
    return talk.trace(model=model, usage=usage, run_cost=run_cost, run_duration=run_duration)


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="claude_agent_sdk",
        description="Claude Agent SDK / Claude Code stream-json message streams",
        reads='a list or JSON Lines of {"type": "assistant"|"user"|"system"|"result"} '
              "messages: tool_use joined to tool_result by id (sub-agents included), the "
              "result message's text as final answer, its cost and duration at run level",
        detect=detect, parse=parse,
    )]
