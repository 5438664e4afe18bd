"""Other formats' documents, as a detector tells them apart from its own."""

from __future__ import annotations

from toolscore_formats import openai_chat
from toolscore_formats.shapes import is_sample, is_ui_tool_part

SAMPLE = {"id": 1, "epoch": 1, "input": "hi", "target": "ok",
          "messages": [{"role": "user", "content": "hi"},
                       {"role": "assistant", "content": "ok"}]}


def test_an_inspect_sample_is_one_and_its_chat_log_is_left_to_inspect() -> None:
    assert is_sample(SAMPLE)
    assert not is_sample({**SAMPLE, "epoch": "1"})
    assert not is_sample({"messages": SAMPLE["messages"]})
    assert openai_chat.detect(SAMPLE) is None
    assert openai_chat.detect({"messages": SAMPLE["messages"]}) is not None


def test_ai_sdk_ui_tool_parts_in_every_version() -> None:
    assert is_ui_tool_part({"type": "tool-invocation", "toolInvocation": {}})
    assert is_ui_tool_part({"type": "dynamic-tool", "toolName": "x"})
    assert is_ui_tool_part({"type": "tool-weather", "toolCallId": "c", "state": "done"})
    assert not is_ui_tool_part({"type": "tool-weather"})
    assert not is_ui_tool_part({"type": "text", "text": "hi"})
    assert not is_ui_tool_part("tool-weather")
