"""Walking a message list: what every chat-style reader gathers on the way.

A chat-style format (Anthropic, Bedrock Converse, Gemini, LangChain, Pydantic AI, the
Claude Agent SDK, Chat Completions) is a list of messages: calls in assistant messages,
their results in later ones, user messages opening turns. A reader walks the list with a
``Conversation``, which holds the call table, the notes, what the agent said and its final
answer, and turns them into the Trace.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolscore import InputError, Trace
from toolscore_formats.calls import CallTable


class Conversation:
    """The calls, notes, replies and final answer of a message list being read."""

    __slots__ = ("final_answer", "notes", "replies", "table")

    def __init__(self) -> None:
        self.table = CallTable()
        self.notes: list[str] = []
        self.replies: list[str] = []
        """Every assistant text, in order (what ``expected_outputs`` reads)."""
        self.final_answer: str | None = None

    def walk(self, messages: list[Any], *, place: str,
             problem: str = "a message is an object",
             list_key: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
        """Each message with its index. A message that is not an object (or whose
        ``list_key`` is not a list) is bad input at ``place[index]``, named by ``problem``."""
        for index, message in enumerate(messages):
            if not isinstance(message, dict) or (
                    list_key is not None and not isinstance(message.get(list_key), list)):
                raise InputError(problem, place=f"{place}[{index}]")
            yield index, message

    def said(self, reply: str | None, *, final: str | None) -> None:
        """An assistant message: its text ``reply`` joins the replies, and ``final`` is the
        final answer so far (None when the message waits on the calls it made)."""
        self.final_answer = final
        if reply is not None:
            self.replies.append(reply)

    def trace(self, **fields: Any) -> Trace:
        """The Trace of what was read, with the run's other ``fields`` (model, usage ...)."""
        return Trace(calls=self.table.calls(), final_answer=self.final_answer,
                     notes=tuple(self.notes), replies=tuple(self.replies), **fields)
