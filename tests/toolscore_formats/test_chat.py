"""Chat Completions role messages read one at a time, as openai_chat and OpenInference read them."""

from __future__ import annotations

import pytest

from toolscore import InputError
from toolscore_formats import openai_chat
from toolscore_formats.chat import read_messages

MESSAGES = [
    {"role": "user", "content": "weather in Oslo?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "4C"},
    {"role": "assistant", "content": "It is 4C."},
]


def test_a_message_list_gives_its_calls_results_and_answer() -> None:
    trace = read_messages(MESSAGES)
    (call,) = trace.calls
    assert (call.tool, call.args, call.result, call.is_error, call.turn) == (
        "weather", {"city": "Oslo"}, "4C", False, 1)
    assert trace.final_answer == "It is 4C." and trace.replies == ("It is 4C.",)
    assert read_messages(MESSAGES) == openai_chat.parse(MESSAGES)


def test_a_message_that_is_not_an_object_is_named_by_its_place() -> None:
    with pytest.raises(InputError) as caught:
        read_messages([MESSAGES[0], 3])
    assert caught.value.place == "$[1]"
