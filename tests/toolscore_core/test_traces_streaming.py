"""Large logs are streamed; the streamed trace is the one the whole-document reader gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore.testing import json_documents
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Trace, TraceFormat
from toolscore_core.plugins import build_registry, get_plugin_manager
from toolscore_core.traces import STREAM_MIN_BYTES, load_trace, parse_trace

FIXTURES = Path(__file__).parents[1] / "toolscore_formats" / "fixtures"


def _chat_log(turns: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Help."}]
    for turn in range(turns):
        messages += [
            {"role": "user", "content": f"question {turn} " + "x" * 200},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"c{turn}", "type": "function",
                 "function": {"name": "lookup", "arguments": json.dumps({"n": turn})}}]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": "0" if turn % 2 else ""},
            {"role": "assistant", "content": f"answer {turn}"},
        ]
    return {"model": "gpt-4.1", "usage": {"total_tokens": 5}, "messages": messages}


def _otlp(copies: int) -> dict[str, Any]:
    """The recorded agent export, its spans repeated ``copies`` times: each copy's span ids,
    call ids and JSON-RPC ids made its own, so each copy is a run of its own calls."""
    export = json.loads((FIXTURES / "otel_export.json").read_text(encoding="utf-8"))
    scopes = export["resourceSpans"][0]["scopeSpans"]
    call_ids = sorted({a["value"]["stringValue"] for scope in scopes for span in scope["spans"]
                       for a in span["attributes"] if a["key"] == "gen_ai.tool.call.id"})

    def own(copy: int, key: str, value: dict[str, Any]) -> dict[str, Any]:
        text = value.get("stringValue")
        if not isinstance(text, str):
            return value
        if key == "jsonrpc.request.id":
            return {"stringValue": f"{text}-{copy}"}
        for call_id in call_ids:  # also inside the chat spans' message JSON
            text = text.replace(call_id, f"{call_id}_{copy}")
        return {"stringValue": text}

    for scope in scopes:
        scope["spans"] = [
            {**span, "spanId": f"{span['spanId']}-{copy}",
             "parentSpanId": f"{span.get('parentSpanId')}-{copy}",
             "attributes": [{**a, "value": own(copy, a["key"], a["value"])}
                            for a in span["attributes"]]}
            for copy in range(copies) for span in scope["spans"]]
    return export


def _whole(document: Any, fmt: str = "auto") -> Trace:
    return parse_trace(document, trace_format=fmt)[0]


def test_a_large_chat_log_is_streamed_to_the_same_trace(tmp_path: Path) -> None:
    document = _chat_log(4000)
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    assert path.stat().st_size > STREAM_MIN_BYTES
    streamed, choice = load_trace(path)
    assert choice.format == "openai_chat" and not choice.explicit
    assert streamed == _whole(document)
    assert streamed.calls[1].result == "0" and streamed.calls[0].result == ""
    assert streamed.final_answer == "answer 3999" and streamed.model == "gpt-4.1"


def test_a_large_otlp_export_is_streamed_to_the_same_trace(tmp_path: Path) -> None:
    document = _otlp(200)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert path.stat().st_size > STREAM_MIN_BYTES
    streamed, choice = load_trace(path, trace_format="otel")
    assert choice.explicit
    assert streamed == _whole(document, "otel")
    # Two calls a copy: each copy's MCP client and server spans are not more calls.
    assert len(streamed.calls) == 400


def test_a_large_file_of_another_shape_is_read_whole(tmp_path: Path) -> None:
    messages = json.loads((FIXTURES / "anthropic_messages.json").read_text(encoding="utf-8"))
    document = messages + [{"role": "user", "content": "y" * 1000}] * 1200
    path = tmp_path / "anthropic.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    trace, choice = load_trace(path)
    assert choice.format == "anthropic"
    assert trace == _whole(document)


def test_with_a_plugin_format_installed_every_detector_is_asked(tmp_path: Path) -> None:
    class Claimer:
        """A third-party format that also claims OpenAI chat logs."""

        @hookimpl
        def toolscore_register_trace_formats(self) -> list[TraceFormat]:
            return [TraceFormat(id="mine", description="mine", detect=lambda d: "mine too",
                                parse=lambda d: Trace())]

    manager = get_plugin_manager(entry_points=False)
    manager.register(Claimer(), name="claimer")
    registry = build_registry(manager)
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_chat_log(4000)), encoding="utf-8")
    import pytest

    from toolscore_core.errors import InputError

    with pytest.raises(InputError, match="more than one trace format claims"):
        load_trace(path, registry=registry)
    trace, _ = load_trace(path, registry=registry, trace_format="openai_chat")
    assert len(trace.calls) == 4000
    assert evolve(trace, format=None).calls == _whole(_chat_log(4000)).calls


def test_a_torn_last_json_lines_line_is_left_out_with_a_note(tmp_path) -> None:
    from toolscore_core.errors import InputError
    from toolscore_core.traces import TORN_LINE_NOTE

    lines = [
        {"kind": "toolscore.mcp_session", "version": "1", "transport": "stdio",
         "server": ["srv"], "started_at": "2026-12-02T10:00:00Z"},
        {"kind": "message", "direction": "client_to_server", "timestamp": "2026-12-02T10:00:01Z",
         "monotonic": 1.0, "planted": None,
         "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "add", "arguments": {"a": 1}}}},
        {"kind": "message", "direction": "server_to_client", "timestamp": "2026-12-02T10:00:01Z",
         "monotonic": 1.25, "planted": None,
         "message": {"jsonrpc": "2.0", "id": 1,
                     "result": {"content": [{"type": "text", "text": "2"}], "isError": False}}},
    ]
    path = tmp_path / "session.json"
    path.write_text("\n".join(json.dumps(x) for x in lines) + '\n{"kind": "message", "dir')
    trace, choice = load_trace(path)
    assert choice.format == "mcp"
    assert len(trace.calls) == 1 and trace.calls[0].duration == 0.25
    assert TORN_LINE_NOTE in trace.notes
    # a bad line anywhere else is still an error, and names that line (the whole file
    # read as one value would blame line 2, the first line after a whole value)
    path.write_text('{"a": 1}\n{"b": 2}\n{"broken\n{"c": 3}\n')
    with pytest.raises(InputError) as caught:
        load_trace(path)
    assert caught.value.place == "line 3 column 2"
    assert caught.value.problem.startswith("invalid JSON (Unterminated string")


def _plugin_registry(*formats: TraceFormat) -> Any:
    class Formats:
        @hookimpl
        def toolscore_register_trace_formats(self) -> list[TraceFormat]:
            return list(formats)

    manager = get_plugin_manager(entry_points=False, env={})
    manager.register(Formats(), name="third_party")
    return build_registry(manager)


def test_a_plugin_format_does_not_turn_off_the_built_ins_streaming(tmp_path: Path) -> None:
    asked: list[Any] = []

    def detect(document: Any) -> str | None:
        asked.append(document)
        return 'a "tool_log" object' if isinstance(document, dict) and "tool_log" in document \
            else None

    registry = _plugin_registry(TraceFormat(id="tool_log", description="", detect=detect,
                                            parse=lambda d: Trace()))
    document = _chat_log(4000)
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    streamed, choice = load_trace(path, registry=registry)
    assert choice.format == "openai_chat"
    assert streamed == _whole(document)
    # asked once, on the head only: the 16,001 messages were never decoded as one document
    assert len(asked) == 1
    assert asked[0]["model"] == "gpt-4.1"
    assert 10 < len(asked[0]["messages"]) < 1000
    assert asked[0]["messages"] == document["messages"][:len(asked[0]["messages"])]
    # a small document still goes to every detector
    small = _chat_log(2)
    assert parse_trace(small, registry=registry)[0] == _whole(small)
    assert asked[-1] == small


def test_a_plugin_format_that_streams_the_same_log_is_an_ambiguity(tmp_path: Path) -> None:
    def stream(data: bytes) -> tuple[Trace, str] | None:
        return Trace(calls=_whole(_chat_log(1)).calls), "a chat log, mine too"

    registry = _plugin_registry(TraceFormat(id="mine", description="", detect=lambda d: None,
                                            parse=lambda d: Trace(), stream=stream))
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(_chat_log(4000)), encoding="utf-8")
    from toolscore_core.errors import InputError

    with pytest.raises(InputError, match=r"more than one trace format claims this document: "
                       r"openai_chat \(.*\); mine \(a chat log, mine too\)"):
        load_trace(path, registry=registry)


def test_the_head_of_a_json_lines_file_is_its_first_lines() -> None:
    from toolscore_core.traces import HEAD_BYTES, head

    data = b"".join(json.dumps({"n": n, "text": "x" * 50}).encode() + b"\n"
                    for n in range(5000))
    lines = head(data)
    assert isinstance(lines, list) and len(lines) > 100
    assert lines == [{"n": n, "text": "x" * 50} for n in range(len(lines))]
    assert head(b'{"a": "' + b"x" * (HEAD_BYTES + 10) + b'"}') is None


def test_the_head_keeps_whole_elements_of_the_outermost_long_list() -> None:
    from toolscore_core.traces import head

    document = {"meta": {"tags": ["a", "b"]}, "messages": [
        {"role": "assistant", "tool_calls": [{"id": f"c{n}-{k}", "args": "[1, 2]"}
                                             for k in range(3)]} for n in range(3000)],
        "model": "m"}
    cut = head(json.dumps(document).encode())
    assert cut["meta"] == {"tags": ["a", "b"]}
    assert 10 < len(cut["messages"]) < 3000
    assert cut["messages"] == document["messages"][:len(cut["messages"])]
    assert "model" not in cut


@settings(max_examples=200, deadline=None)
@given(json_documents(), st.integers(1, 400))
def test_the_head_of_a_long_list_is_its_first_whole_elements(element: Any, copies: int) -> None:
    from toolscore_core.traces import head

    document = [element] * copies
    cut = head(json.dumps(document).encode())
    if cut is not None:
        assert isinstance(cut, list)
        if copies > 1:  # the top-level list has commas: its elements are kept whole
            assert 1 <= len(cut) < copies and cut == document[:len(cut)]
