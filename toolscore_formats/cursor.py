"""A cursor over the JSON of a large file, for the readers that stream it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from toolscore import STRICT_DECODER, loads

_DECODE = STRICT_DECODER.raw_decode  # NaN and the infinities are not JSON
_SPACE = re.compile(r"[ \t\n\r]*")
WINDOW_BYTES = 2_000_000
EDGE = 8
"""Characters at a window's end that a cut number could leave undecoded ("e+", ".")."""


class TextCursor:
    """Walks the JSON of a large file, decoding one element at a time.

    Streaming readers use it to visit the long arrays of a log (messages, spans) without
    building the whole document. Only a window of the bytes is decoded to text at a time,
    so memory stays near the file's size even when non-ASCII text makes a Python string
    two or four bytes a character. Bad JSON or UTF-8 raises ValueError; the loader then
    reads the document whole and reports the precise place.
    """

    __slots__ = ("ascii", "base", "data", "failed_at", "pos", "size", "stop", "text")

    def __init__(self, data: bytes | str, window: int = WINDOW_BYTES) -> None:
        self.data = data.encode("utf-8") if isinstance(data, str) else data
        self.size = max(16, window)
        self.base = 0  # byte offset of the window's first character
        self.stop = 0  # byte offset just after the window
        self.pos = 0  # position in the window's text
        self.text = ""
        self.ascii = True
        self.failed_at = -1  # the window where a run of elements could not be cut
        self._load(0)

    def _load(self, start: int) -> None:
        """Decode the window beginning at byte ``start``, ending on a character boundary."""
        data = self.data
        stop = min(len(data), start + self.size)
        while stop < len(data) and (data[stop] & 0xC0) == 0x80:
            stop -= 1
        self.base, self.stop, self.pos = start, stop, 0
        self.text = str(memoryview(data)[start:stop], "utf-8")
        self.ascii = self.text.isascii()

    def _slide(self, grow: bool = False) -> bool:
        """Move the window to start at the cursor (twice as large with ``grow``)."""
        if self.stop >= len(self.data):
            return False
        consumed = self.pos if self.ascii else len(self.text[:self.pos].encode("utf-8"))
        if grow:
            self.size *= 2
        self._load(self.base + consumed)
        return True

    def peek(self) -> str:
        while True:
            match = _SPACE.match(self.text, self.pos)
            self.pos = match.end() if match else self.pos
            if self.pos < len(self.text) or not self._slide():
                return self.text[self.pos:self.pos + 1]

    def take(self, char: str) -> bool:
        if self.peek() == char:
            self.pos += 1
            return True
        return False

    def value(self) -> Any:
        """Decode the next whole value."""
        self.peek()
        while True:
            try:
                value, end = _DECODE(self.text, self.pos)
            except json.JSONDecodeError:
                # Cut by the window's end: move the window to the value (grow it only when
                # the value already starts the window and still does not fit).
                if self._slide(grow=self.pos == 0):
                    continue
                raise
            # A number near the window's edge may have been cut ("1.5e" decodes as 1.5).
            if end < len(self.text) - EDGE or not self._slide(grow=self.pos == 0):
                self.pos = end
                return value

    def values(self) -> Iterator[Any]:
        """Decode an array's elements: whole runs of them per window, in one C call (a run
        ends just after an element, where :meth:`elements` expects the next)."""
        for _ in self.elements():
            run = self._run()
            if run is not None:
                yield from run
            else:
                yield self.value()

    def _run(self) -> list[Any] | None:
        """The whole elements from the cursor up to the last one that starts like this one.

        The cut is found by the first key of the element at the cursor (``{"role":``,
        ``{"traceId":``), the way log arrays repeat it. ``[`` + that text + ``]`` is valid
        JSON only when the cut falls between two elements (inside a string or a nested
        object it would not close), so a successful decode is exactly those elements. None
        when there is no such cut, and for the rest of the window once a cut failed.
        """
        if self.peek() != "{" or self.failed_at == self.base:
            return None
        text, pos = self.text, self.pos
        colon = text.find(":", pos, pos + 200)
        if colon < 0:
            return None
        start = text.rfind(text[pos:colon + 1], pos + 1, len(text) - EDGE)
        comma = start - 1
        while comma > pos and text[comma] in " \n\r\t":
            comma -= 1
        cut = comma - 1
        while cut > pos and text[cut] in " \n\r\t":
            cut -= 1
        if start < 0 or text[comma] != "," or text[cut] != "}":
            self.failed_at = self.base
            return None
        try:
            run = loads(f"[{text[pos:cut + 1]}]")
        except json.JSONDecodeError:
            self.failed_at = self.base
            return None
        self.pos = cut + 1
        return run if isinstance(run, list) else None

    def elements(self) -> Iterator[None]:
        """Step through an array: at each yield the cursor is on one element to consume."""
        if not self.take("["):
            raise ValueError("expected an array")
        if self.take("]"):
            return
        while True:
            yield
            if self.take(","):
                continue
            if self.take("]"):
                return
            raise ValueError("expected , or ] in an array")

    def members(self) -> Iterator[str]:
        """Step through an object: yields each key with the cursor on its value to consume."""
        if not self.take("{"):
            raise ValueError("expected an object")
        if self.take("}"):
            return
        while True:
            key = self.value()
            if not isinstance(key, str) or not self.take(":"):
                raise ValueError("expected a key and :")
            yield key
            if self.take(","):
                continue
            if self.take("}"):
                return
            raise ValueError("expected , or } in an object")

    def at_end(self) -> bool:
        return self.peek() == ""
