"""Helpers for the check tests: evaluate a trace and pick one check's result."""

from __future__ import annotations

import inspect
from typing import Any

import toolscore
from toolscore_core.models import CheckResult
from toolscore_core.plugins import default_registry

EVALUATE_KEYWORDS = frozenset(inspect.signature(toolscore.evaluate).parameters)


def run_check(check_id: str, expected: Any, trace: Any, **options: Any) -> CheckResult | None:
    """Evaluate ``trace`` against ``expected`` and return the result of one check;
    ``options`` are keywords of ``evaluate()`` or shorthand flags (``injected=``), which
    fill its ``config=`` through ``Registry.config_with``."""
    given = {k: v for k, v in options.items() if k in EVALUATE_KEYWORDS}
    flags = {k: v for k, v in options.items() if k not in EVALUATE_KEYWORDS}
    if flags:
        registry = given.get("registry") or default_registry()
        given["config"] = registry.config_with(given.get("config"), **flags)
    return toolscore.evaluate(expected, trace, **given).evidence.get(check_id)
