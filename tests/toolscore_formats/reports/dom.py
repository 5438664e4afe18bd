"""A small DOM for tests: HTML (a report, a browser dump, rendered Markdown) as elements."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser

from attrs import define, field

VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                  "source", "track", "wbr"))


@define
class Element:
    tag: str
    attrs: dict[str, str | None] = field(factory=dict)
    children: list[Element | str] = field(factory=list)

    def iter(self) -> Iterator[Element]:
        """This element and every element under it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str) -> list[Element]:
        return [e for e in self.iter() if e.tag == tag]

    def by_id(self, element_id: str) -> Element | None:
        return next((e for e in self.iter() if e.attrs.get("id") == element_id), None)

    def text(self) -> str:
        """The text content; ``<br>`` reads as a newline."""
        parts = []
        for child in self.children:
            if isinstance(child, str):
                parts.append(child)
            elif child.tag == "br":
                parts.append("\n")
            else:
                parts.append(child.text())
        return "".join(parts)

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(html: str) -> Element:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


def table_rows(table: Element) -> list[list[str]]:
    """The body rows of a table as lists of cell texts (stripped)."""
    body = table.find_all("tbody")
    rows = body[0].find_all("tr") if body else table.find_all("tr")[1:]
    return [[cell.text().strip() for cell in row.children
             if isinstance(cell, Element) and cell.tag in ("td", "th")] for row in rows]


def header(table: Element) -> list[str]:
    first = table.find_all("tr")[0]
    return [c.text().strip() for c in first.children if isinstance(c, Element)]
