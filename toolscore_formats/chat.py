"""Chat Completions role messages read one at a time: what the openai_chat format and the
OpenInference span reader (an LLM span's message history) share."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, count
from toolscore_formats.calls import OpenCalls, outcome
from toolscore_formats.content import block_content, text_of
from toolscore_formats.messages import Conversation
from toolscore_formats.values import as_str


class ChatReader:
    """Reads Chat Completions role messages one at a time (from a decoded list or a stream)."""

    def __init__(self, place: str = "$.messages") -> None:
        self.place = place
        """The JSON path of the message list, for errors."""
        self.talk = Conversation()
        self.table = self.talk.table
        self.notes = self.talk.notes
        # The latest assistant message's calls: what a tool message without a usable
        # tool_call_id answers (Ollama and other look-alikes write none), by position.
        self.turn = OpenCalls()
        self.turn_index = -1
        self.paired_by_position = 0

    def read(self, message: Any, index: int) -> None:
        if not isinstance(message, dict):
            raise InputError("a message is an object", place=f"{self.place}[{index}]")
        role = message.get("role")
        if role == "assistant":
            if self.turn:
                self._end_turn()
            self.turn_index = index
            final = self._assistant(message, index)
            self.talk.said(text_of(message.get("content")), final=final)
        elif role == "tool":
            result = block_content(message.get("content"))
            call_id = message.get("tool_call_id")
            if call_id is not None and self.table.answer_result(call_id, result):
                return
            if call_id is None or self.turn.first_with_id(None) is not None:
                self._answer_by_position(message, result, index)
            else:
                self.notes.append(f"message {index}: tool result for unknown call id "
                                  f"{as_str(call_id)!r} (not counted as a call)")
        elif role == "user":
            self.table.start_turn()
        elif role == "function":
            # Legacy function results carry no id: they answer the oldest open call by name.
            name = message.get("name") if isinstance(message.get("name"), str) else None
            result = block_content(message.get("content"))
            if not self.table.answer_next(name, **outcome(result, failed=None)):
                self.notes.append(f"message {index}: function result with no open call")

    def _answer_by_position(self, message: dict[str, Any], result: Any, index: int) -> None:
        """Give the turn's next open call (of the tool the message names, if it names one)
        this result; a result no call can take becomes a call of the tool it names."""
        name = message.get("tool_name", message.get("name"))
        name = name if isinstance(name, str) and name else None
        row = self.turn.first(name)
        if row is not None:
            row.settle(**outcome(result, failed=None))
            self.paired_by_position += 1
            return
        if name is None:
            where = (f"after message {self.turn_index}, whose calls are all answered"
                     if self.turn else "with no assistant tool_calls before it")
            raise InputError(
                f"a tool message with no tool_call_id and no tool_name comes {where}",
                place=f"{self.place}[{index}]",
                fix="give it the tool_call_id (or tool_name) of the call it answers, or put it "
                    "right after the assistant message whose tool_calls it answers")
        call = self.table.add(name, None)
        call.settle(**outcome(result, failed=None))
        self.notes.append(
            f"message {index}: a result of {name} that no call of {name} in its turn "
            "(the assistant message before it) asked for: read as a call of "
            f"{name} with unknown arguments")

    def _end_turn(self) -> None:
        if self.paired_by_position:
            self.notes.append(
                f"message {self.turn_index}: its tool calls were paired with the "
                f"{count(self.paired_by_position, 'tool message')} after it by position (no "
                "tool_call_id joins them)")
        self.turn = OpenCalls()
        self.paired_by_position = 0

    def _assistant(self, message: dict[str, Any], index: int) -> str | None:
        """Record the message's calls; its text is the final answer only when it calls none."""
        tool_calls = message.get("tool_calls")
        called = False
        if isinstance(tool_calls, list):
            for position, item in enumerate(tool_calls):
                function = item.get("function") if isinstance(item, dict) else None
                custom = item.get("custom") if isinstance(item, dict) else None
                if isinstance(custom, dict) and isinstance(custom.get("name"), str):
                    # A custom tool's input is free text, not JSON: kept whole under "input".
                    text = custom.get("input")
                    self.turn.add(self.table.add(
                        custom["name"], {"input": text} if isinstance(text, str) else text,
                        call_id=item.get("id")))
                    called = True
                    continue
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    self.notes.append(f"message {index}: tool_calls[{position}] has no function "
                                      "name (not read)")
                    continue
                # Ollama gives "arguments" as an object: CallTable takes it as it is.
                self.turn.add(self.table.add(function["name"], function.get("arguments"),
                                                call_id=item.get("id")))
                called = True
        legacy = message.get("function_call")
        if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
            self.table.add(legacy["name"], legacy.get("arguments"))
            called = True
        return None if called else text_of(message.get("content"))

    def trace(self, model: Any = None, usage: Any = None) -> Trace:
        self._end_turn()
        return self.talk.trace(model=as_str(model),
                               usage=usage if isinstance(usage, dict) else None)


def read_messages(messages: list[Any]) -> Trace:
    """The calls and answers of a bare list of role messages (places name ``$[index]``)."""
    reader = ChatReader("$")
    for index, message in enumerate(messages):
        reader.read(message, index)
    return reader.trace()
