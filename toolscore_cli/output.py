"""Writing a JSON document to a file (atomically) or to stdout (``-``)."""

from __future__ import annotations

import json
from typing import Any

from toolscore_core.atomic import write_text_atomic


def write_json(target: str, document: Any) -> None:
    """Indented JSON to ``target``, or to stdout when ``target`` is ``-``."""
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if target == "-":
        from toolscore_cli.console import STDOUT_STREAM

        STDOUT_STREAM.write(text)
        STDOUT_STREAM.flush()
    else:
        write_text_atomic(target, text)
