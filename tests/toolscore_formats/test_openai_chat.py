"""OpenAI Chat Completions: message lists, responses, legacy function calls."""

from __future__ import annotations

import pytest

from toolscore_core.errors import InputError
from toolscore_core.traces import parse_trace


def test_parallel_calls_are_joined_to_their_tool_messages_by_id(read) -> None:
    trace, choice = read("openai_chat_messages.json")
    assert choice.format == "openai_chat"
    assert [(c.id, c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("call_JpNb8OiAkbIbHzDggfpdDHpi", "get_current_weather", {"location": "Seattle, WA"},
         "50 degrees and raining", False),
        ("call_vaFQc3zK6hHTRZKXRI5Eo2cJ", "get_current_weather",
         {"location": "San Francisco, CA"}, "70 degrees and sunny", False)]
    assert trace.final_answer == ("Today, the weather in Seattle is 50 degrees and raining, "
                                  "while in San Francisco, it's 70 degrees and sunny.")
    # A bare message list names no model and no usage: both stay unknown.
    assert trace.model is None and trace.usage is None


def test_malformed_empty_and_unanswered_calls_in_any_order() -> None:
    # Constructed: one bad JSON argument string, one empty result, one call never answered,
    # tool messages out of call order, the whole inside {"model", "messages"}.
    document = {"model": "gpt-4o-mini", "messages": [
        {"role": "user", "content": "Find flights to Lisbon and Porto, and check my balance."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "search_flights", "arguments": '{"to": "LIS"}'}},
            {"id": "call_b", "type": "function",
             "function": {"name": "search_flights", "arguments": '{"to": "OPO"'}},
            {"id": "call_c", "type": "function",
             "function": {"name": "get_balance", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "call_b", "content": ""},
        {"role": "tool", "tool_call_id": "call_a", "content": '[{"flight": "TP123"}]'},
        {"role": "assistant", "content": "I found TP123 to Lisbon; Porto returned nothing."}]}
    trace, choice = parse_trace(document)
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


def test_a_legacy_function_call_without_an_answer_is_pending(read) -> None:
    trace, choice = read("openai_chat_legacy.json")
    assert choice.format == "openai_chat"
    # The legacy function_call has no id; its arguments are a JSON string with newlines.
    assert [(c.id, c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        (None, "book_a_flight", {"date": "2022-10-15", "destination": "London"}, None, None)]
    assert trace.final_answer is None  # the last turn is a call still waiting


def test_legacy_function_call_results_join_by_position() -> None:
    # Constructed: two legacy calls of one function, only the first answered by a
    # role "function" message.
    messages = [
        {"role": "user", "content": "Read both files."},
        {"role": "assistant", "content": None,
         "function_call": {"name": "read_file", "arguments": '{"path": "a.txt"}'}},
        {"role": "function", "name": "read_file", "content": "0"},
        {"role": "assistant", "content": None,
         "function_call": {"name": "read_file", "arguments": '{"path": "b.txt"}'}}]
    trace, _ = parse_trace(messages)
    assert [(c.args, c.result, c.is_error) for c in trace.calls] == [
        ({"path": "a.txt"}, "0", False), ({"path": "b.txt"}, None, None)]
    assert all(c.id is None for c in trace.calls)
    assert trace.final_answer is None


def test_a_response_is_read_with_model_and_usage_and_no_final_answer(read) -> None:
    trace, choice = read("openai_chat_response.json")
    assert "response" in choice.reason
    # A response asks for calls; nothing in it says how they ended, so outcomes are unknown.
    assert [(c.tool, c.id, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("get_current_weather", "call_JpNb8OiAkbIbHzDggfpdDHpi", {"location": "Seattle, WA"},
         None, None),
        ("get_current_weather", "call_vaFQc3zK6hHTRZKXRI5Eo2cJ",
         {"location": "San Francisco, CA"}, None, None)]
    assert trace.final_answer is None  # content null beside tool calls is not an answer
    assert trace.model == "gpt-4o-mini-2024-07-18"
    assert trace.usage is not None
    assert (trace.usage["prompt_tokens"], trace.usage["completion_tokens"],
            trace.usage["total_tokens"]) == (75, 51, 126)
    assert trace.run_cost is None and trace.calls[0].duration is None


def test_empty_content_beside_a_tool_call_is_not_a_final_answer() -> None:
    # Constructed: a response whose message has content "" next to its tool call.
    response = {"object": "chat.completion", "model": "gpt-4.1", "choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "", "tool_calls": [
                {"id": "call_w", "type": "function",
                 "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}}]}}]}
    trace, _ = parse_trace(response)
    assert [(c.tool, c.id, c.is_error) for c in trace.calls] == [("weather", "call_w", None)]
    assert trace.final_answer is None


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


def test_an_ollama_log_pairs_id_less_results_by_position_with_object_arguments(read) -> None:
    trace, choice = read("ollama_chat_parallel.json")
    assert choice.format == "openai_chat"
    assert [(c.id, c.tool, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        (None, "get_temperature", {"city": "New York"}, "22°C", False, None),
        (None, "get_conditions", {"city": "New York"}, "Partly cloudy", False, None),
        (None, "get_temperature", {"city": "London"}, "15°C", False, None),
        (None, "get_conditions", {"city": "London"}, "Rainy", False, None),
    ]
    assert all(c.raw_args is None for c in trace.calls)
    assert trace.final_answer is None  # the log ends with the results, before the reply
    assert trace.model == "qwen3"
    assert trace.notes == ("message 1: its tool calls were paired with the 4 tool messages "
                           "after it by position (no tool_call_id joins them)",)


def test_an_ollama_response_is_read_with_its_token_counts(read) -> None:
    trace, choice = read("ollama_chat_response.json")
    assert choice.reason == 'an Ollama /api/chat response ("message" beside "done")'
    assert [(c.id, c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        (None, "get_current_weather", {"format": "celsius", "location": "Paris, FR"}, None,
         None)]
    assert trace.final_answer is None  # content "" beside a tool call
    assert (trace.model, trace.usage) == ("llama3.2", {"prompt_eval_count": 122,
                                                       "eval_count": 33})


def test_a_litellm_log_reads_the_response_after_the_messages(read) -> None:
    trace, choice = read("litellm_standard_logging_payload.json")
    assert choice.reason.startswith("a LiteLLM log")
    assert trace.calls == () and trace.final_answer == "hi" and trace.model == "gpt-4o"
    assert trace.usage is not None and trace.usage["total_tokens"] == 30
    assert trace.run_cost is None  # response_cost prices the model call, not the run


def test_the_tool_calls_of_a_logged_response_are_calls() -> None:
    document = {"messages": [{"role": "user", "content": "weather?"}], "response": {
        "choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "weather", "arguments": "{\"city\": \"Oslo\"}"}}]}}]}}
    trace, _ = parse_trace(document)
    assert [(c.id, c.tool, c.args, c.is_error) for c in trace.calls] == [
        ("call_1", "weather", {"city": "Oslo"}, None)]


def _ollama_turn(*results: dict) -> list[dict]:
    calls = [{"function": {"name": name, "arguments": {"n": n}}}
             for n, name in enumerate(("a", "b", "a"))]
    return [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": calls},
            *results]


def test_a_named_result_answers_the_next_open_call_of_its_tool() -> None:
    # Results given out of order keep to their tools: b's result does not go to a's call.
    trace, _ = parse_trace(_ollama_turn({"role": "tool", "tool_name": "b", "content": "B"},
                                        {"role": "tool", "tool_name": "a", "content": "A0"}))
    assert [(c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("a", {"n": 0}, "A0", False), ("b", {"n": 1}, "B", False), ("a", {"n": 2}, None, None)]


def test_unnamed_id_less_results_pair_in_order_and_stay_within_their_turn() -> None:
    messages = [*_ollama_turn({"role": "tool", "content": "1"}, {"role": "tool", "content": "2"}),
                {"role": "assistant", "tool_calls": [{"function": {"name": "c", "arguments": {}}}]},
                {"role": "tool", "content": "3"}, {"role": "assistant", "content": "done"}]
    trace, _ = parse_trace(messages)
    # The third "a" call (message 1) got no result: the next turn's result is not its.
    assert [(c.tool, c.result, c.is_error) for c in trace.calls] == [
        ("a", "1", False), ("b", "2", False), ("a", None, None), ("c", "3", False)]
    assert trace.final_answer == "done"
    assert trace.notes == (
        "message 1: its tool calls were paired with the 2 tool messages after it by position "
        "(no tool_call_id joins them)",
        "message 4: its tool calls were paired with the 1 tool message after it by position "
        "(no tool_call_id joins them)")


def test_id_less_results_answer_calls_that_have_ids() -> None:
    messages = [{"role": "assistant", "tool_calls": [
        {"id": "call_x", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "content": "ok"}]
    trace, _ = parse_trace(messages)
    assert [(c.id, c.result, c.is_error) for c in trace.calls] == [("call_x", "ok", False)]


def test_results_with_unknown_ids_pair_by_position_while_an_id_less_call_is_open() -> None:
    messages = [{"role": "assistant", "tool_calls": [
        {"id": "call_x", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"type": "function", "function": {"name": "g", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_y", "content": "1"},
        {"role": "tool", "tool_call_id": "call_z", "content": "2"},
        {"role": "tool", "tool_call_id": "call_w", "content": "3"}]
    trace, _ = parse_trace(messages)
    # While g (no id) is open, an unknown id pairs by position (the first open call, then
    # g); once it is answered, an unknown id is only a note.
    assert [(c.id, c.result, c.is_error) for c in trace.calls] == [
        ("call_x", "1", False), (None, "2", False)]
    assert "message 3: tool result for unknown call id 'call_w' (not counted as a call)" in \
        trace.notes


def test_a_named_result_no_call_asked_for_becomes_a_call_with_a_note() -> None:
    trace, _ = parse_trace(_ollama_turn({"role": "tool", "tool_name": "zzz", "content": "?"}))
    extra = trace.calls[-1]
    assert (extra.tool, extra.id, extra.args, extra.result, extra.is_error) == (
        "zzz", None, None, "?", False)
    assert "message 2: a result of zzz that no call of zzz in its turn" in trace.notes[0]


@pytest.mark.parametrize("document, place, where", [
    ([{"role": "user", "content": "hi"}, {"role": "tool", "content": "lost"}], "$[1]",
     "with no assistant tool_calls before it"),
    ({"messages": _ollama_turn(*[{"role": "tool", "content": str(n)} for n in range(4)])},
     "$.messages[5]", "after message 1, whose calls are all answered"),
])
def test_an_unnamed_result_no_call_can_take_is_an_error(document: object, place: str,
                                                        where: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_trace(document)
    assert caught.value.place == place
    assert where in str(caught.value) and "tool_call_id" in str(caught.value.fix)


@pytest.mark.parametrize("document, missed", [
    ([{"role": "user", "content": "hi"}, {"role": "ipython", "content": "42"},
      {"role": "assistant", "content": "42"}],
     'a Chat Completions message list (2 of 3 messages are), but $[1] has role "ipython", '
     "not one of system/developer/user/assistant/tool/function"),
    ({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                   {"type": "function_call_output", "role": "tool", "output": "c"},
                   {"role": "x"}, {"role": "user", "content": "d"}]},
     "a Chat Completions message list (3 of 5 messages are), but $.messages[2] is a Responses "
     'API item (type "function_call_output") (and 1 other message)'),
    ([{"choices": [{"delta": {"role": "assistant", "content": "x"}}]},
      {"choices": [{"delta": {"content": "y"}}]}],
     "a stream of Chat Completions chunks (choices[].delta), which it does not join: save the "
     "assembled response or the conversation's messages"),
    ([{"choices": [{"message": {"role": "assistant", "content": "x"}}]}] * 2,
     "2 Chat Completions responses, one per line: it reads one response, or one "
     "conversation's message list"),
    ([{"model": "m", "message": {"role": "assistant", "content": "x"}, "done": False}] * 2,
     "a stream of Ollama /api/chat chunks: save the final response, or the conversation's "
     "messages"),
    ({"messages": "user: hi"}, 'an object whose "messages" is a string, not a list of role '
                              "messages"),
    ({"choices": [{"text": "hi"}]}, 'a Chat Completions response whose first "choices" item '
                                    'has no "message"'),
])
def test_a_near_chat_log_is_refused_with_what_it_misses(document: object, missed: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_trace(document)
    assert f"closest: openai_chat ({missed})" in caught.value.problem


@pytest.mark.parametrize("document", [
    [{"role": "user", "content": "a"}, {"x": 1}, {"y": 2}],  # mostly not messages
    {"hello": "world"}, [1, 2, 3], "text",
])
def test_documents_unlike_a_chat_log_are_no_near_miss(document: object) -> None:
    from toolscore_formats.openai_chat import near
    assert near(document) is None


def test_vercel_ai_sdk_messages_are_not_chat_completions_messages() -> None:
    """Tool parts of AI SDK model or UI messages are not Chat Completions content: claiming
    them read every call as missing (0 calls, nothing flagged)."""
    from toolscore_formats.openai_chat import detect as chat_detect

    model = [{"role": "assistant", "content": [
                {"type": "tool-call", "toolCallId": "c", "toolName": "f", "input": {}}]},
             {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "c", "toolName": "f",
                 "output": {"type": "text", "value": "ok"}}]}]
    ui = [{"id": "m", "role": "assistant", "parts": [
        {"type": "tool-f", "toolCallId": "c", "state": "output-available", "input": {},
         "output": "ok"}]}]
    assert chat_detect(model) is None and chat_detect(ui) is None
