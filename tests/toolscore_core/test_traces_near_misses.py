"""When no format claims a document, the error names the formats it nearly is and what each
misses, in one line with a fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.errors import InputError
from toolscore_core.models import Trace, TraceFormat
from toolscore_core.plugins import default_registry
from toolscore_core.traces import choose_format, describe_document, near_misses

FIXTURES = Path(__file__).parents[1] / "toolscore_formats" / "fixtures"


def _refusal(document: Any, formats: dict[str, TraceFormat] | None = None) -> InputError:
    with pytest.raises(InputError) as caught:
        choose_format(document, formats or default_registry().trace_formats, file="t.json")
    return caught.value


def test_a_jaeger_trace_without_the_export_wrapper_is_named_with_the_fix() -> None:
    document = json.loads((FIXTURES / "jaeger_trace.json").read_text(encoding="utf-8"))
    error = _refusal(document)
    assert error.problem == (
        'no trace format recognises this document (an object with keys "traceID", "spans", '
        '"processes", "warnings"); closest: jaeger (one Jaeger trace without the export\'s '
        '"data" wrapper: save it as {"data": [trace]}, as the Jaeger UI and API export it)')
    assert error.fix is not None and "install a plugin" in error.fix
    assert "\n" not in str(error)


def test_a_chat_log_whose_tool_result_lost_its_role_names_the_message() -> None:
    document = {"messages": [
        {"role": "user", "content": "weather in Oslo?"},
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
        {"tool_call_id": "c1", "content": "4°C"},
        {"role": "assistant", "content": "It is 4°C."}]}
    error = _refusal(document)
    assert "closest: openai_chat (a Chat Completions message list (3 of 4 messages are), but " \
           "$.messages[2] has no role)" in error.problem
    assert str(error).startswith("t.json: $: no trace format recognises this document")


def test_a_random_object_names_its_keys_and_every_format_to_pass() -> None:
    error = _refusal({"hello": 1, "world": [1, 2]})
    assert error.problem == ('no trace format recognises this document (an object with keys '
                             '"hello", "world")')
    assert error.fix is not None and "pass --format with one of toolscore, openai_chat" in \
        error.fix


def test_a_near_hint_that_breaks_or_says_nothing_is_left_out() -> None:
    def broken(document: Any) -> str | None:
        raise RuntimeError("bug in a plugin")

    def never(document: Any) -> str | None:
        return None

    def parse(document: Any) -> Trace:
        return Trace()

    formats = {fid: TraceFormat(id=fid, description="", detect=never, parse=parse, near=near)
               for fid, near in (("a", broken), ("b", never), ("c", lambda d: "a c log, but no "
                                                                  "\"c\" key"), ("d", None))}
    assert near_misses({}, formats) == [("c", 'a c log, but no "c" key')]
    assert 'closest: c (a c log, but no "c" key)' in _refusal({}, formats).problem


def test_at_most_three_near_misses_are_named() -> None:
    def parse(document: Any) -> Trace:
        return Trace()

    formats = {str(n): TraceFormat(id=str(n), description="", detect=lambda d: None,
                                   parse=parse, near=lambda d, n=n: f"miss {n}")
               for n in range(5)}
    assert [fid for fid, _ in near_misses([], formats)] == ["0", "1", "2"]


@pytest.mark.parametrize("document, outline", [
    ({}, "an empty object"),
    ({str(n): n for n in range(7)}, 'an object with keys "0", "1", "2", "3", "4" and 2 more'),
    ([], "an empty list"), ([{}], "a list of one object"), ([1, "x"], "a list of 2 values"),
    ([None, None], "a list of 2 nulls"), ("text", "a string"),
    ({"a\nb": 1}, 'an object with keys "a\\nb"'),
])
def test_the_document_outline(document: Any, outline: str) -> None:
    assert describe_document(document) == outline
