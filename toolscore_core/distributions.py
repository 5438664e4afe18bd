"""Cheap look-ups in the installed distributions' metadata, for a fast start-up.

``importlib.metadata`` costs about 10 ms to import (email, zipfile, csv, ...) and reads every
distribution on ``sys.path`` to list entry points. The CLI needs two answers on each run:
whether any distribution declares a ``toolscore`` entry point (almost never) and
toolscore's own version. Both are answered here by reading the same files in the same
order as ``importlib.metadata``'s path finder; whenever the environment is one this reader
does not model exactly (another distribution finder, a zip or egg on ``sys.path``, a
metadata file it cannot read plainly), the answer is "ask importlib.metadata", never a guess.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator

_SUFFIXES = (".dist-info", ".egg-info")


class Unsure(Exception):
    """This environment is not one the cheap reader models exactly."""


def _path_finder_only() -> None:
    """Refuse when a finder other than the standard path finder can supply distributions."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            raise Unsure(f"distribution finder {finder!r}")


def _metadata_dirs() -> Iterator[tuple[str, str]]:
    """(metadata directory, its normalized distribution name), in ``importlib.metadata``'s order.

    The order is that of ``sys.path``, then of ``os.listdir`` within each folder, grouped by
    normalized name in the order each name first appears (as ``importlib.metadata``'s
    ``Lookup`` does).
    """
    _path_finder_only()
    for entry in list(sys.path):
        root = entry or "."
        try:
            children = os.listdir(root)
        except OSError:
            if os.path.exists(root):  # a zip file or something else importlib may read
                raise Unsure(f"sys.path entry {entry!r} is not a folder") from None
            continue
        if os.path.basename(root).lower().endswith(".egg"):
            raise Unsure(f"sys.path entry {entry!r} is an egg")
        grouped: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith(_SUFFIXES):
                name = low.rpartition(".")[0].partition("-")[0]
                grouped.setdefault(normalize(name), []).append(os.path.join(root, child))
        for name, paths in grouped.items():
            for path in paths:
                yield path, name


def normalize(name: str) -> str:
    """A distribution name as ``importlib.metadata`` compares it (PEP 503, ``_`` joined)."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _read_text(path: str) -> str | None:
    """A metadata file's text; None when it is absent (as ``importlib.metadata`` reads it)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise Unsure(f"{path}: {exc}") from None


def may_declare_entry_points(group: str) -> bool:
    """False only when no installed distribution declares an entry point in ``group``.

    True also when unsure; the caller then asks ``importlib.metadata``, which decides.
    """
    try:
        for path, _ in _metadata_dirs():
            text = _read_text(os.path.join(path, "entry_points.txt"))
            if text and _declares_section(text, group):
                return True
    except Unsure:
        return True
    return False


def _declares_section(text: str, group: str) -> bool:
    """Whether ``entry_points.txt`` text has a ``[group]`` section (``Sectioned``'s reading)."""
    for line in text.splitlines():
        value = line.strip()
        if value.startswith("[") and value.endswith("]") and value.strip("[]") == group:
            return True
    return False


_HEADER = re.compile(r"[\x21-\x39\x3b-\x7e]+:")


def distribution_version(name: str) -> str | None:
    """The ``Version`` of the first distribution called ``name`` on ``sys.path``.

    The same answer as ``importlib.metadata.version(name)``; None when that call is
    needed to tell (not installed, or metadata this reader does not parse plainly).
    """
    wanted = normalize(name)
    try:
        for path, found in _metadata_dirs():
            if found != wanted:
                continue
            text = _read_text(os.path.join(path, "METADATA")) or _read_text(
                os.path.join(path, "PKG-INFO"))
            return _plain_version(text) if text else None
    except Unsure:
        return None
    return None


def _plain_version(text: str) -> str | None:
    """The first ``Version`` header of plain metadata: one line, before any blank line."""
    if "\r" in text or len(text.splitlines()) != text.count("\n") + (not text.endswith("\n")):
        return None  # line breaks other than \n: leave them to the email parser
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line:
            return None
        if line[0] in " \t":
            continue
        if not _HEADER.match(line):
            return None
        field, _, value = line.partition(":")
        if field.lower() == "version":
            follows = lines[i + 1] if i + 1 < len(lines) else ""
            if follows[:1] in (" ", "\t"):
                return None  # a folded header
            return value.lstrip(" \t")
    return None
