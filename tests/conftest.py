"""Shared test helpers: evaluate a trace and pick one check's result."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import toolscore
from toolscore_core.models import CheckResult


def run_check(check_id: str, expected: Any, trace: Any, **options: Any) -> CheckResult | None:
    """Evaluate ``trace`` against ``expected`` and return the result of one check."""
    return toolscore.evaluate(expected, trace, **options).evidence.get(check_id)


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[str, Any], str]:
    def write(name: str, value: Any) -> str:
        path = tmp_path / name
        path.write_text(json.dumps(value), encoding="utf-8")
        return str(path)

    return write
