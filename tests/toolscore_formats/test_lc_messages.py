"""LangChain's serialized messages: the lc constructor form and the dict forms."""

from __future__ import annotations

from toolscore_formats.lc_messages import message_fields


def test_every_serialized_form_gives_its_kind_and_fields() -> None:
    kwargs = {"content": "hi", "tool_calls": []}
    assert message_fields({"lc": 1, "type": "constructor",
                           "id": ["langchain", "schema", "messages", "AIMessage"],
                           "kwargs": kwargs}) == ("ai", kwargs)
    assert message_fields({"type": "tool", "data": {"content": "4C"}}) == (
        "tool", {"content": "4C"})
    assert message_fields({"type": "human", "content": "hi"}) == (
        "human", {"type": "human", "content": "hi"})


def test_what_is_not_a_langchain_message_gives_none() -> None:
    assert message_fields({"role": "user", "content": "hi"}) is None  # a chat message
    assert message_fields({"type": "robot", "content": "hi"}) is None
    assert message_fields({"type": "ai"}) is None  # no content
    assert message_fields({"lc": 1, "type": "constructor", "id": ["x", "Nope"],
                           "kwargs": {}}) is None
    assert message_fields("ai") is None
