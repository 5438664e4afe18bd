"""Anthropic Messages: tool_use / tool_result blocks, is_error, responses and lists."""

from __future__ import annotations

import pytest

from toolscore_core.errors import InputError
from toolscore_core.traces import parse_trace


def test_parallel_tool_uses_errors_and_a_pending_call(read) -> None:
    trace, choice = read("anthropic_messages.json")
    assert choice.format == "anthropic"
    paris, rome, book = trace.calls
    assert (paris.is_error, paris.error, paris.result) == (True, "upstream timeout", None)
    assert (rome.is_error, rome.result) == (False, "Rome: 20C")  # text blocks joined
    assert (book.args, book.is_error, book.result) == ({}, None, None)
    assert trace.final_answer is None  # the run stops on a pending tool_use


def test_a_response_with_text_only_has_a_final_answer_and_model() -> None:
    response = {"type": "message", "role": "assistant", "model": "claude-haiku-4-5",
                "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 2}}
    trace, choice = parse_trace(response)
    assert choice.format == "anthropic"
    assert trace.calls == () and trace.final_answer == "Done."
    assert trace.model == "claude-haiku-4-5" and trace.usage["output_tokens"] == 2


def test_server_tool_blocks_are_calls_and_mark_an_anthropic_list() -> None:
    messages = [{"role": "user", "content": "run it"},
                {"role": "assistant", "content": [
                    {"type": "server_tool_use", "id": "srv_1", "name": "bash_code_execution",
                     "input": {"command": "ls"}},
                    {"type": "bash_code_execution_tool_result", "tool_use_id": "srv_1",
                     "content": {"stdout": "ok"}},
                    {"type": "text", "text": "It ran."}]}]
    trace, choice = parse_trace(messages)
    assert choice.format == "anthropic"
    assert [(c.id, c.result, c.is_error) for c in trace.calls] == [
        ("srv_1", {"stdout": "ok"}, False)]
    assert trace.final_answer == "It ran."
    # A *_tool_result block alone is Anthropic's too (not a chat list): its orphan result is
    # no call, and a trace of only that is an error rather than an empty score.
    orphan = [messages[0], {"role": "assistant", "content": messages[1]["content"][1:]}]
    with pytest.raises(InputError, match="the anthropic reader found no tool calls"):
        parse_trace(orphan)
