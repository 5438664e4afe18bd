"""OpenTelemetry GenAI exports written by the real instrumentations: the calls read are the
calls the agent made, whichever place (spans, message parts, log records) the mode put them.

The fixtures were written by tests/toolscore_formats/fixtures/make_adk_otel.py (Google ADK,
a scripted model, every telemetry mode) and make_openai_v2_otel.py (the real ``openai`` SDK
against tests/toolscore_judge/chat_server.py, traced by opentelemetry-instrumentation-openai-v2
in every content mode); see fixtures/SOURCES.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolscore_cli.app import cli
from toolscore_core.traces import load_trace, parse_trace
from toolscore_formats import otel

FIXTURES = Path(__file__).parent / "fixtures"

PARIS = {"city": "Paris", "sky": "sunny", "celsius": 21}
# What the ADK agent did: two parallel calls in turn 1, a call that raised in turn 2.
ADK_CALLS = [
    ("get_weather", "adk-call-1", {"city": "Paris"}, PARIS, False, 1),
    ("get_time", "adk-call-2", {"city": "Tokyo"}, {"result": "18:00"}, False, 1),
    ("get_weather", "adk-call-3", {"city": "Atlantis"}, None, True, 2),
]
# Without content the tool spans still say which tool ran, when, and whether it failed;
# the arguments, results and the failed call's id (ADK writes "<not specified>") are unknown.
ADK_NO_CONTENT = [
    ("get_weather", "adk-call-1", None, None, False, 1),
    ("get_time", "adk-call-2", None, None, False, 1),
    ("get_weather", None, None, None, True, 2),
]
OPENAI_CALLS = [
    ("get_weather", "call_w1", {"city": "Paris"}, PARIS, False, 1),
    ("get_time", "call_t1", {"city": "Tokyo"}, "18:00", False, 1),
    ("get_weather", "call_w2", {"city": "Atlantis"}, {"error": "no such city: Atlantis"}, False,
     2),
]


def _calls(name: str) -> list[tuple[Any, ...]]:
    trace, choice = load_trace(FIXTURES / name)
    assert choice.format == "otel"
    return [(c.tool, c.id, c.args, c.result, c.is_error, c.turn) for c in trace.calls]


@pytest.mark.parametrize("mode", ["legacy", "span_only", "event_only", "span_and_event"])
def test_every_adk_mode_with_content_reads_the_calls_the_agent_made(mode: str) -> None:
    trace, choice = load_trace(FIXTURES / f"google_adk_otel_{mode}.json")
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.turn) for c in trace.calls] == \
        ADK_CALLS
    # The "(merged tools)" span over the parallel calls is not a fourth call.
    assert any("'(merged tools)'" in note for note in trace.notes)
    failed = trace.calls[2]
    assert failed.error == "ValueError: no such city: Atlantis"
    assert all(c.duration is not None and c.timestamp is not None for c in trace.calls)
    # The failed call's span says "<not specified>" for its id: the model's request names it.
    assert "1 by tool name and order" in choice.reason


@pytest.mark.parametrize("mode", ["legacy_no_content", "no_content"])
def test_adk_modes_without_content_leave_arguments_and_results_unknown(mode: str) -> None:
    assert _calls(f"google_adk_otel_{mode}.json") == ADK_NO_CONTENT


@pytest.mark.parametrize("mode", ["span_only", "event_only", "span_and_event"])
def test_openai_instrumentation_calls_come_from_message_parts(mode: str) -> None:
    trace, choice = load_trace(FIXTURES / f"openai_v2_otel_{mode}.json")
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.turn) for c in trace.calls] == \
        OPENAI_CALLS
    # The instrumentation traces the client: no span times a call.
    assert all(c.duration is None and c.timestamp is None for c in trace.calls)
    assert trace.final_answer == "I could not get the weather in Atlantis."
    where = "log records" if mode == "event_only" else "span attributes"
    assert f"3 calls in message parts of {where}" in choice.reason


def test_openai_instrumentation_without_content_is_zero_calls_with_a_note() -> None:
    trace, _ = load_trace(FIXTURES / "openai_v2_otel_no_content.json")
    assert trace.calls == ()
    assert trace.notes == ("no tool call read: 2 chats ended with finish reason tool_calls, "
                           "but the export holds no message content (content capture was off): "
                           "which calls were made is unknown",)


def test_the_older_per_message_events_give_the_same_calls() -> None:
    assert _calls("openai_v2_2_1_otel_events.json") == OPENAI_CALLS
    # Without content the events still carry the ids and tool names, not the arguments.
    assert _calls("openai_v2_2_1_otel_events_no_content.json") == [
        (tool, call_id, None, None, None, turn) for tool, call_id, *_, turn in OPENAI_CALLS]


def test_collector_file_exporter_lines_and_tempo_wrapper_read_as_one_export(tmp_path) -> None:
    document = json.loads((FIXTURES / "openai_v2_otel_event_only.json").read_text())
    lines = tmp_path / "collector.jsonl"
    lines.write_text(json.dumps({"resourceSpans": document["resourceSpans"]}) + "\n" +
                     json.dumps({"resourceLogs": document["resourceLogs"]}) + "\n" +
                     json.dumps({"resourceMetrics": []}) + "\n")
    trace, choice = load_trace(lines)
    assert choice.reason.startswith("OTLP JSON Lines (the Collector's file exporter): export "
                                    'requests of "resourceSpans" and "resourceLogs"')
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.turn) for c in trace.calls] == \
        OPENAI_CALLS
    adk = json.loads((FIXTURES / "google_adk_otel_span_only.json").read_text())
    tempo, choice = parse_trace({"trace": {"resourceSpans": adk["resourceSpans"]}})
    assert choice.reason.startswith('a Grafana Tempo trace ("trace": "resourceSpans")')
    assert [(c.tool, c.id, c.args) for c in tempo.calls] == [c[:3] for c in ADK_CALLS]


@pytest.mark.parametrize("name", ["google_adk_otel_event_only.json",
                                  "openai_v2_2_1_otel_events.json"])
def test_streaming_reads_logs_as_the_whole_document_reader(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    streamed = otel.stream(data)
    assert streamed is not None
    whole, choice = parse_trace(json.loads(data))
    assert streamed[0] == otel.parse(json.loads(data))
    assert whole.calls == streamed[0].calls
    assert streamed[1] == choice.reason


def _attr(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value} if isinstance(value, str)
            else {"intValue": str(value)}}


def test_older_prompt_and_completion_attributes_and_placeholders() -> None:
    """OpenLLMetry's gen_ai.completion.N.tool_calls.M.* join the execute_tool span by id;
    "N/A" arguments on the span are absence, so the completion's arguments are read."""
    spans = [
        {"name": "openai.chat", "spanId": "c1", "startTimeUnixNano": "1",
         "endTimeUnixNano": "5", "attributes": [
             _attr("gen_ai.prompt.0.role", "user"), _attr("gen_ai.prompt.0.content", "hi"),
             _attr("gen_ai.completion.0.role", "assistant"),
             _attr("gen_ai.completion.0.tool_calls.0.id", "call_1"),
             _attr("gen_ai.completion.0.tool_calls.0.name", "lookup"),
             _attr("gen_ai.completion.0.tool_calls.0.arguments", '{"q": "x"}')]},
        {"name": "execute_tool lookup", "spanId": "t1", "startTimeUnixNano": "6",
         "endTimeUnixNano": "9", "attributes": [
             _attr("gen_ai.operation.name", "execute_tool"), _attr("gen_ai.tool.name", "lookup"),
             _attr("gen_ai.tool.call.id", "call_1"),
             _attr("gcp.vertex.agent.tool_call_args", "N/A"),
             _attr("gen_ai.tool.call.result", '{"hits": 2}')]},
    ]
    trace, choice = parse_trace({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    call = trace.calls[0]
    assert (call.tool, call.id, call.args, call.result, call.is_error, call.turn) == (
        "lookup", "call_1", {"q": "x"}, {"hits": 2}, False, 1)
    assert choice.reason.endswith("joined 1 by call id")


def test_a_genai_jaeger_export_without_tool_calls_is_zero_calls_with_a_note() -> None:
    export = {"data": [{"traceID": "t", "spans": [{
        "traceID": "t", "spanID": "a", "operationName": "chat gpt-4o", "startTime": 1,
        "duration": 2, "tags": [{"key": "gen_ai.operation.name", "type": "string",
                                 "value": "chat"}]}]}]}
    trace, choice = parse_trace(export)
    assert (choice.format, trace.calls) == ("jaeger", ())
    assert trace.notes == ("no tool call in this export (1 span: no execute_tool span and no "
                           "tool_call message part)",)
    assert choice.reason.endswith("of OpenTelemetry GenAI spans: no tool call")


def test_openinference_spans_without_tool_calls_are_zero_calls_with_a_note() -> None:
    spans = [{"name": "llm", "context": {"span_id": "a"}, "span_kind": "LLM",
              "attributes": {"llm.output_messages.0.message.role": "assistant",
                             "llm.output_messages.0.message.content": "hello"}}]
    trace, choice = parse_trace(spans)
    assert (choice.format, trace.calls) == ("openinference", ())
    assert trace.notes == ("no tool call in 1 span: no TOOL span, and no tool call in the LLM "
                           "spans' messages",)


def test_explain_format_says_where_the_calls_were_found(tmp_path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "get_weather"}, {"tool": "get_time"}]')
    result = CliRunner().invoke(cli, ["eval", str(gold), str(
        FIXTURES / "google_adk_otel_event_only.json"), "--explain-format"])
    assert result.exit_code == 0, result.output
    assert ('format: otel (an OTLP JSON export ("resourceSpans" and "resourceLogs"): calls '
            "from 3 execute_tool spans, 3 calls in message parts of log records; joined 2 by "
            "call id, 1 by tool name and order)") in " ".join(result.output.split())


def test_the_events_recorded_on_the_chat_span_instead_of_as_log_records() -> None:
    """Some instrumentations add the GenAI events to the chat span (span events)."""
    messages = json.dumps([{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"q": "x"}}]}])
    history = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "find x"}]},
                          {"role": "assistant", "parts": [
                              {"type": "tool_call", "id": "c1", "name": "lookup",
                               "arguments": {"q": "x"}}]},
                          {"role": "tool", "parts": [
                              {"type": "tool_call_response", "id": "c1", "response": "hit"}]}])
    spans = [
        {"name": "chat m", "spanId": "a", "startTimeUnixNano": "1", "endTimeUnixNano": "2",
         "attributes": [_attr("gen_ai.operation.name", "chat")],
         "events": [{"name": "gen_ai.client.inference.operation.details", "attributes": [
             _attr("gen_ai.output.messages", messages)]}]},
        {"name": "chat m", "spanId": "b", "startTimeUnixNano": "3", "endTimeUnixNano": "4",
         "attributes": [_attr("gen_ai.operation.name", "chat")],
         "events": [{"name": "gen_ai.client.inference.operation.details", "attributes": [
             _attr("gen_ai.input.messages", history)]},
                    {"name": "gen_ai.choice", "attributes": [_attr(
                        "gen_ai.event.content", json.dumps({"message": {
                            "role": "assistant", "content": "x is in the index"}}))]}]},
    ]
    trace, _ = parse_trace({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    assert [(c.tool, c.id, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("lookup", "c1", {"q": "x"}, "hit", False)]
    assert trace.final_answer == "x is in the index"
