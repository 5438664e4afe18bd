"""``toolscore.testing``: the test kit for plugin authors (the example plugin's tests use it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

import toolscore
from toolscore import InputError, Trace, TraceFormat, load_trace
from toolscore.testing import (
    assert_claims,
    assert_reads_or_refuses,
    assert_steals_nothing,
    builtin_fixtures,
    json_documents,
    registry,
)
from toolscore_core.plugins import build_registry, get_plugin_manager

FIXTURES = Path(__file__).parents[1] / "toolscore_formats" / "fixtures"


def _greedy(document: Any) -> str | None:
    return "anything at all"


def _parse_nothing(document: Any) -> Trace:
    return Trace(calls=())


GREEDY = TraceFormat(id="greedy", description="claims everything", detect=_greedy,
                     parse=_parse_nothing)


def test_it_is_a_lazy_public_submodule() -> None:
    assert "testing" in toolscore.__all__
    assert toolscore.testing.registry is registry


def test_the_corpus_lists_every_trace_fixture_with_its_format() -> None:
    fixtures = builtin_fixtures()
    on_disk = sorted(p.name for p in FIXTURES.iterdir() if p.suffix in (".json", ".jsonl"))
    assert sorted(f.name for f in fixtures) == on_disk, (
        "every trace fixture is listed in fixtures/formats.txt with its format")
    formats = registry().trace_formats
    for fixture in fixtures:
        if fixture.format is None:
            with pytest.raises(InputError, match="no trace format recognises"):
                load_trace(fixture.path, registry=registry())
            continue
        assert fixture.format in formats, fixture.name
        _, choice = load_trace(fixture.path, registry=registry())
        assert choice.format == fixture.format, fixture.name
        assert fixture.document() is not None


def test_the_corpus_ships_as_package_data() -> None:
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"fixtures/*.json"' in pyproject and '"fixtures/*.txt"' in pyproject
    assert builtin_fixtures()[0].path.parent.samefile(FIXTURES)


def test_the_registry_ignores_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCORE_DISABLE_PLUGINS", "toolscore_formats.openai_chat")
    unhermetic = build_registry(get_plugin_manager(entry_points=False))
    assert "openai_chat" not in unhermetic.trace_formats
    assert "openai_chat" in registry().trace_formats
    blocked = registry(env={"TOOLSCORE_DISABLE_PLUGINS": "toolscore_formats.openai_chat"})
    assert "openai_chat" not in blocked.trace_formats


def test_the_registry_names_plugins_passed_by_keyword() -> None:
    class Plugin:
        @toolscore.hookimpl
        def toolscore_register_trace_formats(self) -> list[TraceFormat]:
            return [GREEDY]

    built = registry(acme=Plugin())
    plugin = built.trace_formats["greedy"].plugin
    assert plugin is not None and plugin.name == "acme"


def test_a_greedy_format_steals_and_is_named() -> None:
    with pytest.raises(AssertionError) as caught:
        assert_steals_nothing(GREEDY)
    message = str(caught.value)
    assert "greedy claims what is not its own" in message
    assert "openai_chat_messages.json (read by openai_chat): claimed as 'anything at all'" \
        in message


def test_claims_fails_when_a_built_in_claims_the_trace_too() -> None:
    document = json.loads((FIXTURES / "openai_chat_messages.json").read_text(encoding="utf-8"))
    with pytest.raises(AssertionError, match="more than one trace format claims"):
        assert_claims(GREEDY, document)


def test_claims_fails_when_the_format_does_not_detect() -> None:
    fmt = registry().trace_formats["anthropic"]
    with pytest.raises(AssertionError, match=r"anthropic\.detect does not claim"):
        assert_claims(fmt, {"tool_log": []})
    traces = assert_claims(fmt, FIXTURES / "anthropic_messages.json")
    assert [c.tool for c in traces[0].calls] == ["get_weather"]


def test_reads_or_refuses_catches_a_stray_exception() -> None:
    def parse(document: Any) -> Trace:
        return Trace(calls=tuple(document["calls"]))

    fmt = TraceFormat(id="fragile", description="", detect=_greedy, parse=parse)
    with pytest.raises(TypeError):
        assert_reads_or_refuses(fmt, [])
    assert assert_reads_or_refuses(fmt, {"calls": []}) == Trace(calls=())


@settings(max_examples=100, deadline=None)
@given(json_documents(keys=["role", "tool_calls"], strings=["assistant"]))
def test_json_documents_are_json(document: Any) -> None:
    assert json.loads(json.dumps(document, allow_nan=False)) == document
