"""A third-party plugin: one trace format (a JSON 'tool log') and one check.

It imports only from ``toolscore`` and type-checks under ``mypy --strict``.
"""

from __future__ import annotations

from toolscore import Check, TraceFormat, hookimpl
from toolscore_example_plugin.short_answer import SHORT_ANSWER
from toolscore_example_plugin.tool_log import TOOL_LOG


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TOOL_LOG]


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [SHORT_ANSWER]
