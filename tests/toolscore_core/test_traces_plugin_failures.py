"""A plugin format's exception is named (plugin, hook, exception), never swallowed unseen."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_core.plugins import build_registry, get_plugin_manager
from toolscore_core.traces import parse_trace

CHAT = [{"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}]

BROKEN_PLUGIN = '''
from toolscore import Trace, TraceFormat, hookimpl


def detect(document):
    return document["kind"] == "broken"  # a KeyError on every other object


def near(document):
    raise RuntimeError("near is broken too")


def parse(document):
    raise RuntimeError("parse is broken")


@hookimpl
def toolscore_register_trace_formats():
    return [TraceFormat(id="broken", description="a broken format", detect=detect,
                        parse=parse, near=near)]
'''


def _registry(fmt: TraceFormat) -> Any:
    class Plugin:
        @hookimpl
        def toolscore_register_trace_formats(self) -> list[TraceFormat]:
            return [fmt]

    manager = get_plugin_manager(entry_points=False, env={})
    manager.register(Plugin(), name="acme")
    return build_registry(manager)


def _raise(document: Any) -> str | None:
    raise ValueError("boom")


def test_a_detector_that_raises_is_named_in_the_choice() -> None:
    registry = _registry(TraceFormat(id="acme_log", description="", detect=_raise,
                                     parse=lambda d: Trace()))
    trace, choice = parse_trace(CHAT, registry=registry)
    assert choice.format == "openai_chat" and len(trace.calls) == 1
    assert choice.failures == ("trace format 'acme_log' of plugin 'acme': detect raised "
                               "ValueError: boom",)


def test_when_nothing_claims_the_document_the_error_names_the_broken_hooks() -> None:
    registry = _registry(TraceFormat(id="acme_log", description="", detect=_raise,
                                     parse=lambda d: Trace(), near=_raise))
    with pytest.raises(InputError) as caught:
        parse_trace({"acme": 1}, registry=registry)
    assert "trace format 'acme_log' of plugin 'acme': detect raised ValueError: boom" \
        in caught.value.problem
    assert "trace format 'acme_log' of plugin 'acme': near raised ValueError: boom" \
        in caught.value.problem


def test_a_plugin_parse_that_raises_is_a_one_line_error_naming_it() -> None:
    def parse(document: Any) -> Trace:
        raise RuntimeError("not ready")

    registry = _registry(TraceFormat(id="acme_log", description="", detect=lambda d: "mine",
                                     parse=parse))
    with pytest.raises(InputError) as caught:
        parse_trace({"acme": 1}, registry=registry, file="t.json")
    message = str(caught.value)
    assert "the acme_log reader could not read this document (trace format 'acme_log' of " \
        "plugin 'acme': parse raised RuntimeError: not ready)" in message
    assert "TOOLSCORE_DISABLE_PLUGINS=acme" in message


@pytest.fixture
def broken_site(tmp_path: Path) -> Path:
    """A hand-installed distribution whose entry point is a format with broken hooks."""
    site = tmp_path / "site"
    (site / "toolscore_broken-1.0.dist-info").mkdir(parents=True)
    (site / "toolscore_broken.py").write_text(BROKEN_PLUGIN, encoding="utf-8")
    (site / "toolscore_broken-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolscore-broken\nVersion: 1.0\n", encoding="utf-8")
    (site / "toolscore_broken-1.0.dist-info" / "entry_points.txt").write_text(
        "[toolscore]\nbroken = toolscore_broken\n", encoding="utf-8")
    return site


def test_explain_format_names_the_plugin_and_debug_shows_the_traceback(
        broken_site: Path, tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [{"tool": "lookup"}])
    trace = write_json(tmp_path / "chat.json", {"messages": CHAT})
    env = {"PYTHONPATH": f"{broken_site}{os.pathsep}{ROOT}"}
    out = run_cli("eval", str(gold), str(trace), "--explain-format", env=env)
    assert out.returncode == 0, out.stderr
    assert ("format: not claimed, because trace format 'broken' of plugin 'broken' "
            "(toolscore-broken 1.0): detect raised KeyError: 'kind'") in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
    debug = run_cli("eval", str(gold), str(trace), env={**env, "TOOLSCORE_DEBUG": "1"})
    assert debug.returncode == 0, debug.stderr
    assert "Traceback (most recent call last)" in debug.stderr
    assert 'return document["kind"] == "broken"' in debug.stderr


def test_a_broken_plugin_parse_is_one_line_with_exit_code_2(
        broken_site: Path, tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [{"tool": "lookup"}])
    trace = tmp_path / "log.json"
    trace.write_text(json.dumps({"kind": "broken"}), encoding="utf-8")
    out = run_cli("eval", str(gold), str(trace),
                  env={"PYTHONPATH": f"{broken_site}{os.pathsep}{ROOT}"})
    assert out.returncode == 2
    assert "parse raised RuntimeError: parse is broken" in out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
