"""Message content: the text of a message, a tool result's content, an error as text."""

from __future__ import annotations

import json
from typing import Any

from toolscore_formats.values import name_of

TEXT_BLOCK_TYPES = frozenset(("text", "output_text", "input_text"))


def text_of(content: Any, *, separator: str = "") -> str | None:
    """The text of a message's content: a string, or the text blocks of a list joined
    (with ``separator`` between them).

    Empty or blank text is no text (None): an assistant turn with ``""`` or only a line break
    (Claude Code writes ``"\\n\\n"`` text blocks) says nothing.
    """
    if isinstance(content, str):
        return content if content and not content.isspace() else None
    if isinstance(content, list):
        parts = [block["text"] for block in content
                 if isinstance(block, dict) and name_of(block, "type") in TEXT_BLOCK_TYPES
                 and isinstance(block.get("text"), str)]
        text = separator.join(parts)
        return text if text and not text.isspace() else None
    return None


def block_content(content: Any, *, separator: str = "") -> Any:
    """A tool result's content: a list of only text blocks becomes its text, joined (with
    ``separator`` between the blocks).

    Any other content (a string, images, search hits, mixed blocks, an empty list) stays as
    it is: nothing is dropped to make it a string.
    """
    if isinstance(content, list) and content and all(
            isinstance(block, dict) and name_of(block, "type") in TEXT_BLOCK_TYPES and
            isinstance(block.get("text"), str) for block in content):
        return separator.join(block["text"] for block in content)
    return content


def converse_result(content: Any) -> Any:
    """A Bedrock Converse ``toolResult``'s content: one ``json`` block is its value, only
    ``text`` blocks are their joined text; anything else stays as it is."""
    if not isinstance(content, list) or not content:
        return content
    if len(content) == 1 and isinstance(content[0], dict) and set(content[0]) == {"json"}:
        return content[0]["json"]
    if all(isinstance(b, dict) and set(b) == {"text"} and isinstance(b["text"], str)
           for b in content):
        return "".join(b["text"] for b in content)
    return content


def error_text(value: Any) -> str | None:
    """An error as text: a string as it is, a JSON-RPC-style ``{"message"}`` by its message."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        return value["message"]
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
