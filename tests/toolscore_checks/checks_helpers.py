"""Helpers for the check tests: evaluate a trace and pick one check's result."""

from __future__ import annotations

from typing import Any

import toolscore
from toolscore_core.models import CheckResult


def run_check(check_id: str, expected: Any, trace: Any, **options: Any) -> CheckResult | None:
    """Evaluate ``trace`` against ``expected`` and return the result of one check."""
    return toolscore.evaluate(expected, trace, **options).evidence.get(check_id)
