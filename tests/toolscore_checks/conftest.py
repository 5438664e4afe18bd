"""Fixtures for the check tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import write_json as write_json_file


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[str, Any], str]:
    """Write a JSON file in the test's folder and return its path."""
    def write(name: str, value: Any) -> str:
        return str(write_json_file(tmp_path / name, value))

    return write
