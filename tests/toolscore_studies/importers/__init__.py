"""Tests of the built-in run importers, and the refusal check they share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolscore_core.errors import InputError
from toolscore_studies.importing import import_runs


def assert_refused(tmp_path: Path, format_id: str, document: object, message: str) -> None:
    """Importing ``document`` (written as bad.json) raises ``message`` and writes nothing."""
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "runs.jsonl"
    with pytest.raises(InputError, match=message):
        import_runs(format_id, str(bad), str(out))
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]
