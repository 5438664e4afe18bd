"""The plugin example in docs/formats.md works as written, on the sample log it shows."""

from __future__ import annotations

import ast
import json
import re
import types
from pathlib import Path

import pytest

from toolscore import InputError, build_registry, get_plugin_manager, parse_trace

DOC = Path(__file__).parents[2] / "docs" / "formats.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def _example_plugin() -> types.ModuleType:
    source = next(block for block in _blocks("python") if "def detect" in block)
    module = types.ModuleType("toolscore_mylog")
    exec(compile(source, str(DOC), "exec"), module.__dict__)
    return module


def test_the_documented_examples_import_only_the_public_api() -> None:
    for block in _blocks("python"):
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                assert node.module.split(".")[0] != "toolscore_formats", node.module
                assert not node.module.startswith("toolscore_"), node.module


def test_the_documented_plugin_reads_the_documented_log() -> None:
    manager = get_plugin_manager(entry_points=False, env={})
    manager.register(_example_plugin(), name="toolscore_mylog")
    registry = build_registry(manager)
    sample = json.loads(next(b for b in _blocks("json") if '"mylog"' in b))
    trace, choice = parse_trace(sample, registry=registry)
    assert (choice.format, choice.reason) == ("mylog", '"mylog": 1 with a "steps" list')
    search, refund, notify = trace.calls
    assert (search.id, search.args, search.result, search.is_error) == (
        "s1", {"q": "refund policy"}, "30 days", False)
    assert (refund.is_error, refund.error, refund.args, refund.raw_args) == (
        True, "order is closed", None, '{"order": 7')
    assert (notify.result, notify.is_error) == (None, None)
    assert trace.final_answer == "Refunds take 30 days."
    assert registry.trace_formats["mylog"].plugin.name == "toolscore_mylog"
    with pytest.raises(InputError, match="not a MyAgent log"):
        parse_trace([], trace_format="mylog", registry=registry)


def test_the_documented_test_passes() -> None:
    source = next(block for block in _blocks("python") if "def test_mylog" in block)
    namespace: dict[str, object] = {}
    import sys

    sys.modules["toolscore_mylog"] = _example_plugin()
    try:
        exec(compile(source, str(DOC), "exec"), namespace)
        namespace["test_mylog_reads_calls_and_failures"]()  # type: ignore[operator]
    finally:
        del sys.modules["toolscore_mylog"]
