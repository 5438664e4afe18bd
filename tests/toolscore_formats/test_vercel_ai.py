"""Vercel AI SDK: model messages (v4 args/result, v5 input/output), generateText steps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.plugins import default_registry
from toolscore_core.traces import parse_trace
from toolscore_formats.vercel_ai import detect, near

QOM = {"location": "Qom, Iran", "temperature": 35, "unit": "celsius", "condition": "Sunny"}
CALL_ID = "call_UeIuN73svDACfETxAk0UEyqB"


def test_v4_steps_read_the_call_once_with_its_result_and_the_steps_timestamp(read) -> None:
    trace, choice = read("vercel_ai_v4_steps.json")
    assert (choice.format, choice.reason) == (
        "vercel_ai", 'Vercel AI SDK generateText steps ("toolCalls" / "toolResults" per step)')
    # The step also repeats the call in response.messages and in the provider's raw
    # response.body (tool_calls): one call, not three.
    assert [(c.id, c.tool, c.args, c.result, c.is_error, c.error, c.timestamp)
            for c in trace.calls] == [
        (CALL_ID, "getCurrentWeather", {"location": "Qom, Iran", "unit": "celsius"}, QOM,
         False, None, "2025-06-09T12:37:15.000Z")]
    assert trace.calls[0].duration is None
    # The only step stopped for the tool ("finishReason": "tool-calls", text ""): no answer.
    assert trace.final_answer is None
    assert trace.model == "openai/gpt-4o-mini"
    assert trace.notes == ()


def test_v4_response_messages_join_the_result_by_tool_call_id(read) -> None:
    trace, choice = read("vercel_ai_v4_messages.json")
    assert (choice.format, choice.reason) == (
        "vercel_ai", "a list of Vercel AI SDK model messages with tool-call / tool-result parts")
    assert [(c.id, c.tool, c.args, c.result, c.is_error, c.timestamp) for c in trace.calls] == [
        (CALL_ID, "getCurrentWeather", {"location": "Qom, Iran", "unit": "celsius"}, QOM, False,
         None)]
    assert trace.final_answer is None


def _call(call_id: str, name: str, args: Any) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": call_id, "toolName": name, "input": args}


def _result(call_id: str, name: str, output: Any) -> dict[str, Any]:
    return {"type": "tool-result", "toolCallId": call_id, "toolName": name, "output": output}


V5_MESSAGES = [
    {"role": "system", "content": "You are a weather bot."},
    {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"}]},
    {"role": "assistant", "content": [
        {"type": "text", "text": "Checking."},
        _call("a", "weather", {"city": "Paris"}), _call("b", "weather", {"city": "Rome"}),
        _call("c", "forecast", {"city": "Rome"}), _call("d", "stats", {}),
        _call("e", "map", {}), _call("f", "delete", {}), _call("g", "never", {})]},
    {"role": "tool", "content": [
        _result("a", "weather", {"type": "text", "value": "18C"}),
        _result("b", "weather", {"type": "json", "value": {"temp": 0}}),
        _result("c", "forecast", {"type": "error-text", "value": "upstream timeout"}),
        _result("d", "stats", {"type": "error-json", "value": {"code": 503}}),
        _result("e", "map", {"type": "content", "value": [{"type": "text", "text": "a "},
                                                          {"type": "text", "text": "map"}]}),
        _result("f", "delete", {"type": "execution-denied", "reason": "user said no"}),
        _result("zz", "late", {"type": "text", "value": "?"})]},
    {"role": "assistant", "content": [{"type": "text", "text": "Paris 18C, Rome 0C."}]},
]


def test_v5_outputs_errors_denials_and_an_unanswered_call() -> None:
    trace, choice = parse_trace(V5_MESSAGES)
    assert choice.format == "vercel_ai"
    assert [(c.id, c.tool, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("a", "weather", {"city": "Paris"}, "18C", False, None),
        ("b", "weather", {"city": "Rome"}, {"temp": 0}, False, None),
        ("c", "forecast", {"city": "Rome"}, None, True, "upstream timeout"),
        ("d", "stats", {}, None, True, '{"code": 503}'),
        ("e", "map", {}, "a map", False, None),
        ("f", "delete", {}, None, True, "user said no"),
        # No result reached it: the outcome is unknown, never a success.
        ("g", "never", {}, None, None, None)]
    assert trace.final_answer == "Paris 18C, Rome 0C."
    assert trace.notes == ("message 3: tool-result for unknown toolCallId 'zz' (not counted "
                           "as a call)",)


def test_wrapped_messages_and_a_response_object_are_read_like_the_list() -> None:
    wrapped, choice = parse_trace({"messages": V5_MESSAGES})
    assert choice.reason == ('an object whose "messages" are Vercel AI SDK model messages with '
                             "tool-call parts")
    response, choice = parse_trace({"response": {"id": "r", "messages": V5_MESSAGES}})
    assert choice.format == "vercel_ai"
    listed, _ = parse_trace(V5_MESSAGES)
    assert wrapped.calls == response.calls == listed.calls


def test_v5_result_steps_read_content_parts_tool_errors_and_total_usage() -> None:
    result = {
        "text": "Sorry, the lookup failed.",
        "totalUsage": {"inputTokens": 30, "outputTokens": 12, "totalTokens": 42},
        "steps": [
            {"content": [_call("s1", "lookup", {"q": "x"}),
                         {"type": "tool-result", "toolCallId": "s1", "toolName": "lookup",
                          "input": {"q": "x"}, "output": {"type": "text", "value": "raw"}},
                         _call("s2", "lookup", {"q": "y"}),
                         {"type": "tool-error", "toolCallId": "s2", "toolName": "lookup",
                          "input": {"q": "y"}, "error": "Not found"}],
             "toolCalls": [_call("s1", "lookup", {"q": "x"}), _call("s2", "lookup", {"q": "y"})],
             "toolResults": [], "finishReason": "tool-calls",
             "response": {"modelId": "gpt-4o", "timestamp": "2025-08-01T10:00:00.000Z",
                          "messages": [{"role": "assistant",
                                        "content": [_call("s1", "lookup", {"q": "x"})]}]}},
            {"content": [{"type": "text", "text": "Sorry, the lookup failed."}],
             "toolCalls": [], "toolResults": [], "finishReason": "stop",
             "text": "Sorry, the lookup failed.", "response": {"modelId": "gpt-4o"}}]}
    trace, choice = parse_trace(result)
    assert choice.reason == ('a Vercel AI SDK generateText result ("steps" with "toolCalls" / '
                             '"toolResults")')
    # A step's tool output is what the tool returned: an object that looks like a
    # ToolResultOutput stays as it is.
    assert [(c.id, c.result, c.is_error, c.error, c.timestamp) for c in trace.calls] == [
        ("s1", {"type": "text", "value": "raw"}, False, None, "2025-08-01T10:00:00.000Z"),
        ("s2", None, True, "Not found", "2025-08-01T10:00:00.000Z")]
    assert trace.final_answer == "Sorry, the lookup failed."
    assert trace.usage == {"inputTokens": 30, "outputTokens": 12, "totalTokens": 42}
    assert trace.model == "gpt-4o"


def test_v4_is_error_results_are_failures() -> None:
    messages = [
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "1",
                                           "toolName": "f", "args": {"n": 1}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "1",
                                      "toolName": "f", "result": "boom", "isError": True}]}]
    trace, _ = parse_trace(messages)
    assert [(c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ({"n": 1}, None, True, "boom")]


@pytest.mark.parametrize("document", [
    # Plain text messages are no evidence of the AI SDK.
    [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
    # Anthropic's tool_use blocks, Bedrock's typeless blocks, OpenAI's tool_calls.
    [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f",
                                        "input": {}}]}],
    [{"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "f"}}]}],
    [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "t", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}],
])
def test_look_alikes_are_not_claimed(document: object) -> None:
    assert detect(document) is None


def test_no_other_format_claims_ai_sdk_messages_or_steps(read) -> None:
    formats = default_registry().trace_formats
    steps = json.loads(Path(__file__).with_name("fixtures").joinpath(
        "vercel_ai_v4_steps.json").read_text(encoding="utf-8"))
    for document in (V5_MESSAGES, {"messages": V5_MESSAGES}, steps, {"steps": steps}):
        claims = [fid for fid, fmt in formats.items() if fmt.detect(document)]
        assert claims == ["vercel_ai"]


def test_near_names_ui_messages_and_a_message_that_is_not_one() -> None:
    ui = [{"id": "m1", "role": "assistant", "parts": [
        {"type": "tool-getWeather", "toolCallId": "c1", "state": "output-available",
         "input": {"city": "Paris"}, "output": {"temp": 18}}]}]
    assert near(ui) == ('Vercel AI SDK UI messages (useChat "parts" with tool parts), which it '
                        "does not read: save the model messages instead "
                        "(convertToModelMessages, or the result's response.messages)")
    broken = [*V5_MESSAGES[:3], {"role": "tool", "content": [{"toolCallId": "a"}]}]
    assert near({"messages": broken}) == (
        "a Vercel AI SDK message list with tool-call parts, but $.messages[3] is not a model "
        'message ({"role": system/user/assistant/tool, "content": text or typed parts})')
    assert near([{"role": "user", "content": "hi"}]) is None and near({"x": 1}) is None
    with pytest.raises(InputError, match=r"closest: vercel_ai \(Vercel AI SDK UI messages"):
        parse_trace(ui)


def test_explain_format_says_why_and_a_forced_other_shape_is_refused(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [{"tool": "weather", "args": {"city": "Paris"}}])
    trace = write_json(tmp_path / "messages.json", V5_MESSAGES)
    out = run_cli("eval", str(gold), str(trace), "--explain-format")
    assert out.returncode in (0, 1), out.stderr
    assert ("format: vercel_ai (a list of Vercel AI SDK model messages with tool-call / "
            "tool-result parts)") in out.stderr + out.stdout
    with pytest.raises(InputError, match="not Vercel AI SDK messages or steps"):
        parse_trace({"steps": 3}, trace_format="vercel_ai")
