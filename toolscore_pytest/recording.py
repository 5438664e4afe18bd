"""A trace written back as toolscore's native trace file (what trials record)."""

from __future__ import annotations

import os
from typing import Any

from toolscore_core.atomic import atomic_writer
from toolscore_core.canonical import canonical_json
from toolscore_core.context import call_dict
from toolscore_core.models import Trace


def native_document(trace: Trace) -> dict[str, Any]:
    """``trace`` as toolscore's native trace document: read back, it is the same trace."""
    document: dict[str, Any] = {"calls": [call_dict(c) for c in trace.calls],
                                "final_answer": trace.final_answer}
    for key in ("model", "run_cost", "run_duration"):
        if getattr(trace, key) is not None:
            document[key] = getattr(trace, key)
    if trace.usage is not None:
        document["usage"] = dict(trace.usage)
    if trace.notes:
        document["notes"] = list(trace.notes)
    return document


def write_trace(trace: Trace, path: str | os.PathLike[str]) -> None:
    """Write ``trace`` to ``path`` as a native trace file (temp file, then rename)."""
    with atomic_writer(path) as handle:
        handle.write(canonical_json(native_document(trace)) + "\n")
