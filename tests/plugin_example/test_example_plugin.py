"""The example plugin tested as its author would test it: with ``toolscore.testing``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import toolscore_example_plugin
from hypothesis import given, settings
from toolscore_example_plugin.tool_log import TOOL_LOG

from toolscore import ToolCall, evaluate
from toolscore.testing import (
    assert_claims,
    assert_reads_or_refuses,
    assert_steals_nothing,
    json_documents,
    registry,
)

LOG = {"tool_log": [{"name": "lookup", "input": {"id": 7}, "output": {"name": "Ada"}},
                    {"name": "refund", "input": {"id": 7}, "output": "denied", "failed": True}],
       "answer": "Ada was not refunded."}


def test_it_claims_its_own_logs(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(LOG), encoding="utf-8")
    from_file, from_document = assert_claims(TOOL_LOG, path, LOG)
    assert from_file == from_document
    assert [call.tool for call in from_file.calls] == ["lookup", "refund"]
    assert [call.is_error for call in from_file.calls] == [False, True]
    assert from_file.final_answer == "Ada was not refunded."


def test_it_steals_none_of_the_built_in_formats_traces() -> None:
    assert_steals_nothing(TOOL_LOG)


@settings(max_examples=200, deadline=None)
@given(json_documents(keys=["tool_log", "name", "input", "output", "failed", "answer"]))
def test_it_reads_or_refuses_any_json(document: Any) -> None:
    assert_reads_or_refuses(TOOL_LOG, document)


def test_its_check_runs_in_an_evaluation() -> None:
    plugins = registry(example=toolscore_example_plugin)
    assert plugins.checks["short-answer"].plugin is not None
    assert plugins.checks["short-answer"].plugin.name == "example"
    result = evaluate([], [ToolCall(tool="lookup")], final_answer="It is Ada.",
                      registry=plugins)
    check = result.evidence.get("short-answer")
    assert check is not None
    assert check.status == "pass"
    assert check.details == {"words": 3}
