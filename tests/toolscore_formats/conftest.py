"""Shared helpers for the trace format tests: read a fixture the way the CLI does."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscore_core.models import FormatChoice, Trace
from toolscore_core.traces import load_trace

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def read():
    """Read a fixture with ``--format auto``; return the trace and the format chosen."""

    def _read(name: str) -> tuple[Trace, FormatChoice]:
        return load_trace(FIXTURES / name)

    return _read
