"""Message content: the text of a message."""

from __future__ import annotations

from toolscore_formats.content import text_of


def test_text_of_blocks_and_empty_text() -> None:
    assert text_of([{"type": "text", "text": "a"}, {"type": "image"},
                    {"type": "output_text", "text": "b"}]) == "ab"
    assert text_of("") is None and text_of(None) is None


def test_blank_text_is_no_text() -> None:
    assert text_of("\n\n") is None and text_of(" \t") is None
    assert text_of([{"type": "text", "text": "\n"}, {"type": "text", "text": " "}]) is None
    assert text_of([{"type": "text", "text": "\n"}, {"type": "text", "text": "ok"}]) == "\nok"
