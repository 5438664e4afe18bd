"""Evaluations the report tests share: the bundled example and a hostile trace."""

from __future__ import annotations

import pytest

from tests.toolscore_formats.reports.samples import (
    EXAMPLES,
    HOSTILE_GOLD,
    HOSTILE_TRACE,
    hostile_checks,
)
from toolscore_core.context import Evaluation
from toolscore_core.evaluation import evaluate, evaluate_files
from toolscore_core.plugins import Registry, build_registry, get_plugin_manager


@pytest.fixture(scope="session")
def hostile_registry() -> Registry:
    pm = get_plugin_manager(entry_points=False, env={})
    pm.register(hostile_checks(), name="hostile_checks")
    return build_registry(pm)


@pytest.fixture(scope="session")
def example_evaluation() -> Evaluation:
    return evaluate_files(EXAMPLES / "gold.json", EXAMPLES / "trace.json")


@pytest.fixture(scope="session")
def hostile_evaluation(hostile_registry: Registry) -> Evaluation:
    return evaluate(HOSTILE_GOLD, HOSTILE_TRACE, registry=hostile_registry)
