"""Anthropic Messages: tool_use / tool_result blocks, is_error, responses and lists."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from toolscore_core.errors import InputError
from toolscore_core.models import FormatChoice, Trace
from toolscore_core.traces import parse_trace

Read = Callable[[str], tuple[Trace, FormatChoice]]


def test_a_tool_result_flagged_is_error_is_a_failed_call_and_the_run_answers(read) -> None:
    trace, choice = read("anthropic_messages.json")
    assert choice.format == "anthropic"
    (call,) = trace.calls
    assert (call.id, call.tool, call.args) == (
        "toolu_01A9HHF5Ezy3oBrKmSgfASm9", "get_weather",
        {"location": "San Francisco, CA", "units": "f"})
    assert (call.is_error, call.error, call.result) == (
        True, "RuntimeError('Unexpected error, try again')", None)
    assert trace.final_answer is not None
    assert trace.final_answer.startswith("I apologize, but I'm getting an error")
    # The last message is the API's whole response: its model and usage are the run's.
    assert trace.model == "claude-haiku-4-5-20251001"
    assert trace.usage is not None
    assert (trace.usage["input_tokens"], trace.usage["output_tokens"]) == (760, 63)


def test_parallel_tool_uses_results_in_any_order_and_a_pending_call() -> None:
    # Constructed: two parallel calls answered out of order (one with text blocks, one
    # failed), then a call no result reaches.
    messages = [
        {"role": "user", "content": "Weather in Paris and Rome, then book."},
        {"role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
             "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_weather",
             "input": {"city": "Rome"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2",
             "content": [{"type": "text", "text": "Rome: 20C"}]},
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "upstream timeout",
             "is_error": True}]},
        {"role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "toolu_3", "name": "book", "input": {}}]}]
    trace, choice = parse_trace(messages)
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
