"""OpenAI Chat Completions: message lists, responses, legacy function calls."""

from __future__ import annotations

import pytest

from toolscore_core.errors import InputError
from toolscore_core.traces import parse_trace


def test_parallel_calls_joined_by_tool_call_id_in_any_order(read) -> None:
    trace, choice = read("openai_chat_messages.json")
    assert choice.format == "openai_chat"
    assert [c.id for c in trace.calls] == ["call_a", "call_b", "call_c"]
    first, second, third = trace.calls
    assert (first.args, first.result, first.is_error) == ({"to": "LIS"}, '[{"flight": "TP123"}]',
                                                          False)
    # A malformed JSON string is kept raw and flagged; an empty result stays "".
    assert second.args is None and second.raw_args == '{"to": "OPO"'
    assert second.result == "" and second.is_error is False
    # No tool message answers call_c: its outcome is unknown, not a success.
    assert third.args == {} and third.result is None and third.is_error is None
    assert trace.final_answer == "I found TP123 to Lisbon; Porto returned nothing."
    assert trace.model == "gpt-4o-mini"


def test_legacy_function_call_results_join_by_position(read) -> None:
    trace, _ = read("openai_chat_legacy.json")
    assert [(c.args, c.result, c.is_error) for c in trace.calls] == [
        ({"path": "a.txt"}, "0", False), ({"path": "b.txt"}, None, None)]
    assert all(c.id is None for c in trace.calls)
    assert trace.final_answer is None  # the last turn is a call still waiting


def test_a_response_is_read_with_model_and_usage_and_no_final_answer(read) -> None:
    trace, choice = read("openai_chat_response.json")
    assert "response" in choice.reason
    assert [(c.tool, c.id, c.is_error) for c in trace.calls] == [("weather", "call_w", None)]
    assert trace.final_answer is None  # content "" beside a tool call is not an answer
    assert trace.usage == {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29}
    assert trace.run_cost is None and trace.calls[0].duration is None


def test_a_list_may_start_with_any_role_and_is_detected_on_the_whole_list() -> None:
    document = [{"role": "tool", "tool_call_id": "x", "content": "stray"},
                {"role": "assistant", "tool_calls": [
                    {"id": "c1", "function": {"name": "f", "arguments": "{}"}}]}]
    trace, choice = parse_trace(document)
    assert choice.format == "openai_chat"
    assert [c.tool for c in trace.calls] == ["f"]
    assert any("unknown call id 'x'" in note for note in trace.notes)


def test_anthropic_blocks_in_a_role_list_are_not_chat() -> None:
    document = [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]
    assert parse_trace(document)[1].format == "anthropic"


def test_not_a_message_list_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="Chat Completions"):
        parse_trace({"hello": 1}, trace_format="openai_chat")


def test_custom_tool_calls_keep_their_free_text_input() -> None:
    messages = [{"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "1"}]}]
    trace, _ = parse_trace(messages)
    assert [(c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("sql", {"input": "SELECT 1"}, "1", False)]
