"""Fixtures for the check tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[str, Any], str]:
    """Write a JSON file in the test's folder and return its path."""
    def write(name: str, value: Any) -> str:
        path = tmp_path / name
        path.write_text(json.dumps(value), encoding="utf-8")
        return str(path)

    return write
