"""Claude Agent SDK message streams and Claude Code session transcripts: tool_use,
tool_result, the result message, and sub-agents' calls."""

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
    carries = stamped = transcript = other = False
    for item in document:
        if not isinstance(item, dict) or "role" in item:
            return None
        kind = name_of(item, "type")
        if kind not in MESSAGE_TYPES:
            # Claude's other lines (a transcript's progress, file-history-snapshot,
            # queue-operation, summary; a stream's rate_limit_event, command_lifecycle):
            # their kinds change between versions.
            if kind is None:
                return None
            other = True
            continue
        carries = carries or isinstance(item.get("message"), dict) or kind == "result"
        if kind in ("user", "assistant") and isinstance(item.get("uuid"), str):
            transcript = transcript or isinstance(item.get("sessionId"), str)
            stamped = stamped or transcript or isinstance(item.get("session_id"), str)
    if not carries or (other and not stamped):
        return None
    if transcript:
        return ('a Claude Code session transcript (JSON Lines of {"type": "user"|"assistant", '
                '"uuid", "sessionId", "message"} and bookkeeping lines)')
    return 'a Claude Agent SDK message stream ({"type": "assistant"|"user"|"result", ...})'


def parse(document: Any) -> Trace:
    if not isinstance(document, list):
        raise InputError("a Claude Agent SDK stream is a list of messages", place="$",
                         fix="give the stream-json messages as a JSON array or JSON Lines")
    talk = Conversation()
    notes, replies = talk.notes, talk.replies
    result_text: str | None = None
    run_cost = run_duration = None
    usage = model = None
    echoed: dict[str, int] = {}
    for index, item in talk.walk(document, place="$", problem="a stream message is an object"):
        kind = name_of(item, "type")
        if kind in ("assistant", "user"):
            sub_agent = item.get("parent_tool_use_id") is not None
            model = _message(talk, index, item, sub_agent=sub_agent) or model
        elif kind == "progress":
            _sub_agent_progress(talk, index, item, echoed)
        elif kind == "result":
            # Run totals stay at run level: they are never spread over the calls.
            run_cost = as_float(item.get("total_cost_usd"))
            duration_ms = as_float(item.get("duration_ms"))
            run_duration = duration_ms / 1000 if duration_ms is not None else None
            result_text = item.get("result") if isinstance(item.get("result"), str) else None
            usage = item.get("usage") if isinstance(item.get("usage"), dict) else usage
            if item.get("is_error") is True:
                notes.append(f"the run ended in error ({item.get('subtype')})")
    calls = sum(echoed.values())
    if calls:
        notes.append(f"{calls} call{'s' if calls != 1 else ''} of sub-agents read from the "
                     f"transcript's agent_progress lines (agent {', '.join(sorted(echoed))}; "
                     "the sub-agent's own transcript, subagents/agent-<id>.jsonl, holds them "
                     "too)")
    has_result = any(isinstance(i, dict) and i.get("type") == "result" for i in document)
    if has_result:
        talk.final_answer = result_text
    final_answer = talk.final_answer
    if final_answer is not None and (not replies or replies[-1] != final_answer):
        replies.append(final_answer)
    return talk.trace(model=model, usage=usage, run_cost=run_cost, run_duration=run_duration)


def _message(talk: Conversation, index: int, item: dict[str, Any], *,
             sub_agent: bool) -> str | None:
    """Read one assistant or user message; give the model an assistant message names."""
    table = talk.table
    message = dict_of(item, "message")
    blocks = list_of(message, "content")
    if item.get("type") == "assistant":
        called = False
        for block in blocks:
            if isinstance(block, dict) and name_of(block, "type") in USE_BLOCKS and \
                    isinstance(block.get("name"), str):
                # Claude Code's saved transcripts stamp each message; streams do not.
                table.add(block["name"], block.get("input"), call_id=block.get("id"),
                          timestamp=iso_timestamp(item.get("timestamp")))
                called = True
        if not sub_agent:  # a subagent's text is not a reply
            reply = text_of(blocks)
            talk.said(reply, final=None if called else reply)
        return as_str(message.get("model"))
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            content = block_content(block.get("content"))
            failed = block.get("is_error") is True
            if not table.answer(block.get("tool_use_id"),
                                **outcome(content, failed=failed or None)):
                talk.notes.append(f"message {index}: tool_result for unknown tool_use_id")
    return None


def _sub_agent_progress(talk: Conversation, index: int, item: dict[str, Any],
                        echoed: dict[str, int]) -> None:
    """A Claude Code ``agent_progress`` line: one message of a sub-agent (a Task call),
    echoed into the parent's transcript as it runs; its calls are the run's calls, as a
    stream's sub-agent messages are. Other progress lines (hooks, bash output) are not."""
    data = dict_of(item, "data")
    inner = dict_of(data, "message")
    if name_of(data, "type") != "agent_progress" or name_of(inner, "type") not in (
            "assistant", "user"):
        return
    before = len(talk.table)
    _message(talk, index, inner, sub_agent=True)
    agent = as_str(data.get("agentId")) or "?"
    echoed[agent] = echoed.get(agent, 0) + len(talk.table) - before


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="claude_agent_sdk",
        description="Claude Agent SDK stream-json and Claude Code session transcripts",
        reads='a list or JSON Lines of {"type": "assistant"|"user"|"system"|"result"} '
              "messages, or a Claude Code transcript (~/.claude/projects/*/*.jsonl): "
              "tool_use joined to tool_result by id (sub-agents included, also from a "
              "transcript's agent_progress lines), the result message's text as final "
              "answer, its cost and duration at run level",
        detect=detect, parse=parse,
    )]
