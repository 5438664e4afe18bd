"""OTLP exports the Vercel AI SDK's own telemetry wrote: the calls read are the calls the
scripted model made, with what the tools did.

The exports were written by tests/toolscore_formats/fixtures/make_vercel_ai_otel.mjs (ai 6's
``ai.*`` spans; ai 7's, from ``@ai-sdk/otel``'s ``LegacyOpenTelemetry``, and its GenAI
convention spans, from ``OpenTelemetry``), the model ``MockLanguageModelV3`` / ``V4``
answering canned steps, the spans serialized by the OpenTelemetry JS SDK's OTLP JSON
serializer; see fixtures/SOURCES.md. The run: step 1 calls ``get_weather(city=Paris)``, which
returns; step 2 calls ``get_forecast(city=Paris, days=3)``, whose execute throws; step 3
answers in text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolscore import load_trace, parse_trace
from toolscore_cli.app import cli

FIXTURES = Path(__file__).parent / "fixtures"
WEATHER = {"city": "Paris", "temperature_c": 18, "conditions": "cloudy"}
FAILURE = "forecast service unavailable"  # the Error the forecast tool's execute throws
ANSWER = ("It is 18 °C and cloudy in Paris right now. I could not get the 3-day forecast: "
          "the forecast service is unavailable.")
# (tool, id, arguments, result, is_error, error): what the model asked for, what the tools did.
CALLS = [
    ("get_weather", "call-weather-1", {"city": "Paris"}, WEATHER, False, None),
    # A string result: the SDK writes its JSON.stringify, "\"14:05\"".
    ("get_local_time", "call-time-1", {"city": "Paris"}, "14:05", False, None),
    ("get_forecast", "call-forecast-1", {"city": "Paris", "days": 3}, None, True, FAILURE),
]
# As each export has them: each tool span's end minus start and its start (the tools sleep
# 40, 25 and 15 ms: the spans time the tools' own runs), and the run's span's end minus start
# (ai.generateText / ai.streamText; invoke_agent in the GenAI spans). The first two calls are
# one model response's, run in parallel: their spans start in the same millisecond (the
# OpenTelemetry JS SDK's resolution for a start), and are in the order the model asked.
TIMES = {
    "vercel_ai_otel_generate_text": (
        [(0.040427962, "2026-12-06T21:23:24.649000000Z"),
         (0.025288057, "2026-12-06T21:23:24.649000000Z"),
         (0.01756432, "2026-12-06T21:23:24.694000000Z")], 0.09213296),
    "vercel_ai_otel_generate_text_no_content": (
        [(0.039796782, "2026-12-06T21:23:24.721000000Z"),
         (0.024930021, "2026-12-06T21:23:24.722000000Z"),
         (0.023866829, "2026-12-06T21:23:24.763000000Z")], 0.068533998),
    "vercel_ai_otel_stream_text": (
        [(0.040644714, "2026-12-06T21:23:24.826000000Z"),
         (0.02624173, "2026-12-06T21:23:24.826000000Z"),
         (0.014898034, "2026-12-06T21:23:24.878000000Z")], 0.103331395),
    "vercel_ai7_legacy_otel_generate_text": (
        [(0.04151049, "2026-12-06T21:23:25.452000000Z"),
         (0.027012672, "2026-12-06T21:23:25.452000000Z"),
         (0.01757961, "2026-12-06T21:23:25.498000000Z")], 0.083298539),
    "vercel_ai7_legacy_otel_stream_text": (
        [(0.04462752, "2026-12-06T21:23:25.596000000Z"),
         (0.031026525, "2026-12-06T21:23:25.596000000Z"),
         (0.016552921, "2026-12-06T21:23:25.653000000Z")], 0.137710862),
    "vercel_ai7_genai_otel_generate_text": (
        [(0.040342651, "2026-12-06T21:23:25.699000000Z"),
         (0.025278883, "2026-12-06T21:23:25.699000000Z"),
         (0.016102819, "2026-12-06T21:23:25.742000000Z")], 0.068321563),
    "vercel_ai7_genai_otel_stream_text": (
        [(0.040868582, "2026-12-06T21:23:25.772000000Z"),
         (0.025886392, "2026-12-06T21:23:25.772000000Z"),
         (0.016528112, "2026-12-06T21:23:25.819000000Z")], 0.084266993),
}
AI_SDK_SPANS = ["vercel_ai_otel_generate_text", "vercel_ai_otel_stream_text",
                "vercel_ai7_legacy_otel_generate_text", "vercel_ai7_legacy_otel_stream_text"]
GENAI_SPANS = ["vercel_ai7_genai_otel_generate_text", "vercel_ai7_genai_otel_stream_text"]


def _export(name: str) -> dict[str, Any]:
    document = json.loads((FIXTURES / f"{name}.json").read_text())
    assert isinstance(document, dict)
    return document


def _read_as_run(name: str, calls: list[tuple[Any, ...]]) -> None:
    trace, choice = load_trace(FIXTURES / f"{name}.json")
    assert choice.format == "otel"
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error) for c in trace.calls] == calls
    times, run = TIMES[name]
    assert [(c.duration, c.timestamp) for c in trace.calls] == times
    weather, local_time, forecast = (c.duration or 0.0 for c in trace.calls)
    # The tools' sleeps, less the millisecond by which Node's timers may fire early.
    assert weather > 0.039 and local_time > 0.024 and forecast > 0.014
    assert trace.run_duration == run
    # All answer the one user message of the run.
    assert [c.turn for c in trace.calls] == [1, 1, 1]
    assert trace.final_answer == ANSWER
    assert trace.model == "mock-model-id"
    assert trace.notes == ()


@pytest.mark.parametrize("name", AI_SDK_SPANS)
def test_the_tool_call_spans_are_the_calls_the_model_made(name: str) -> None:
    _read_as_run(name, CALLS)
    _, choice = load_trace(FIXTURES / f"{name}.json")
    assert choice.reason == (
        'an OTLP JSON export ("resourceSpans"): calls from 3 Vercel AI SDK ai.toolCall spans, '
        "3 calls in message parts of span attributes; joined 3 by call id")


@pytest.mark.parametrize("name", GENAI_SPANS)
def test_ai_7s_genai_spans_are_the_same_calls(name: str) -> None:
    # The failed call's result is the text the SDK sent the model in its place (the
    # tool_call_response of the next chat's input: GenAI message parts have no error flag);
    # the span's ERROR status says it failed.
    failed = ("get_forecast", "call-forecast-1", {"city": "Paris", "days": 3},
              f"Error: {FAILURE}", True, FAILURE)
    _read_as_run(name, [*CALLS[:2], failed])
    _, choice = load_trace(FIXTURES / f"{name}.json")
    assert choice.reason == (
        'an OTLP JSON export ("resourceSpans"): calls from 3 execute_tool spans, 3 calls in '
        "message parts of span attributes; joined 3 by call id")


def test_the_thrown_error_is_the_span_status_not_a_result_from_the_next_prompt() -> None:
    # The SDK sends the failure back to the model as an error-text tool output: the span's
    # ERROR status is what says the call failed, and the error text is no result.
    spans = _export("vercel_ai_otel_generate_text")["resourceSpans"][0]["scopeSpans"][0]["spans"]
    [*_, answering] = [s for s in spans if s["name"] == "ai.generateText.doGenerate"]
    last_prompt = next(a["value"]["stringValue"] for a in answering["attributes"]
                       if a["key"] == "ai.prompt.messages")
    assert '"output":{"type":"error-text","value":"forecast service unavailable"}' in last_prompt
    failed = load_trace(FIXTURES / "vercel_ai_otel_generate_text.json")[0].calls[2]
    assert (failed.is_error, failed.error, failed.result) == (True, FAILURE, None)


def test_without_recorded_inputs_and_outputs_the_calls_are_known_but_not_their_content() -> None:
    trace, choice = load_trace(FIXTURES / "vercel_ai_otel_generate_text_no_content.json")
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("get_weather", "call-weather-1", None, None, False, None),
        ("get_local_time", "call-time-1", None, None, False, None),
        ("get_forecast", "call-forecast-1", None, None, True, FAILURE)]
    times, run = TIMES["vercel_ai_otel_generate_text_no_content"]
    assert [(c.duration, c.timestamp) for c in trace.calls] == times
    assert trace.run_duration == run
    assert trace.final_answer is None  # recordOutputs off: the answer is not in the export
    assert trace.model == "mock-model-id"  # the model-call spans still name it
    assert [c.turn for c in trace.calls] == [None] * 3  # no prompt, so no user message
    assert choice.reason == (
        'an OTLP JSON export ("resourceSpans"): calls from 3 Vercel AI SDK ai.toolCall spans')


def test_a_tool_the_app_ran_is_read_from_the_next_requests_prompt() -> None:
    # A tool without execute: no ai.toolCall span; the first request's model call asked for
    # it, the second request's prompt carries the app's result.
    trace, choice = load_trace(FIXTURES / "vercel_ai_otel_client_tool.json")
    [call] = trace.calls
    assert (call.tool, call.id, call.args, call.result, call.is_error, call.error) == (
        "get_user_location", "call-location-1", {"precision": "city"},
        {"city": "Paris", "country": "FR"}, False, None)
    assert (call.duration, call.timestamp, call.turn) == (None, None, 1)  # nothing timed it
    assert trace.final_answer == "You are in Paris, France."
    assert trace.model == "mock-model-id"
    assert trace.notes == ()
    assert choice.reason == ('an OTLP JSON export ("resourceSpans"): calls from 1 call in '
                             "message parts of span attributes")
    # Two requests, two traces: no one span to attach verdicts to, no one run to time.
    assert (trace.span, trace.run_duration) == (None, None)


def test_the_second_request_alone_does_not_count_the_call_its_history_repeats() -> None:
    # An export that starts after the tool ran (the second request's trace only): its prompt
    # repeats call-location-1, which this export did not see asked for.
    document = _export("vercel_ai_otel_client_tool")
    scope = document["resourceSpans"][0]["scopeSpans"][0]
    second = scope["spans"][-1]["traceId"]  # the last span to end: the second ai.generateText
    scope["spans"] = [s for s in scope["spans"] if s["traceId"] == second]
    assert [s["name"] for s in scope["spans"]] == ["ai.generateText.doGenerate",
                                                   "ai.generateText"]
    trace, _ = parse_trace(document)
    assert trace.calls == ()
    assert trace.final_answer == "You are in Paris, France."
    assert trace.notes == (
        "1 call only in the chats' input history (asked for before this export's first chat):"
        " not counted",
        "no tool call in this export (2 spans: no execute_tool span and no tool_call message "
        "part)")


def _jaeger(document: dict[str, Any]) -> dict[str, Any]:
    """The export's spans as Jaeger's query API returns them: attributes as tags (arrays as
    JSON text), events as logs, the parent as a CHILD_OF reference, times in microseconds."""
    def tag(attribute: dict[str, Any]) -> dict[str, Any]:
        [(kind, value)] = attribute["value"].items()
        if kind == "intValue":
            return {"key": attribute["key"], "type": "int64", "value": int(value)}
        if kind == "doubleValue":
            return {"key": attribute["key"], "type": "float64", "value": value}
        text = value if kind == "stringValue" else json.dumps(
            [v["stringValue"] for v in value["values"]])
        return {"key": attribute["key"], "type": "string", "value": text}

    spans = []
    for span in document["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        start, end = int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])
        tags = [tag(a) for a in span["attributes"]]
        if span["status"].get("code") == 2:
            tags += [{"key": "otel.status_code", "type": "string", "value": "ERROR"},
                     {"key": "otel.status_description", "type": "string",
                      "value": span["status"]["message"]}]
        spans.append({
            "traceID": span["traceId"], "spanID": span["spanId"],
            "operationName": span["name"],
            "references": [{"refType": "CHILD_OF", "traceID": span["traceId"],
                            "spanID": span["parentSpanId"]}] if "parentSpanId" in span else [],
            "startTime": start // 1000, "duration": (end - start) // 1000, "tags": tags,
            "logs": [{"timestamp": int(e["timeUnixNano"]) // 1000, "fields": [
                {"key": "event", "type": "string", "value": e["name"]},
                *(tag(a) for a in e["attributes"])]} for e in span["events"]],
            "processID": "p1"})
    return {"data": [{"traceID": spans[0]["traceID"], "spans": spans,
                      "processes": {"p1": {"serviceName": "unknown_service:node", "tags": []}}}]}


def test_the_same_spans_in_a_jaeger_export_give_the_same_calls() -> None:
    trace, choice = parse_trace(_jaeger(_export("vercel_ai_otel_generate_text")))
    assert choice.format == "jaeger"
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error) for c in trace.calls] == CALLS
    # Jaeger keeps microseconds.
    assert [c.duration for c in trace.calls] == [0.040427, 0.025288, 0.017564]
    assert trace.run_duration == 0.092132
    assert trace.final_answer == ANSWER


def test_an_evaluation_of_the_export_measures_the_calls_and_sees_the_failure(
        tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "get_weather", "args": {"city": "Paris"}},
                                {"tool": "get_local_time", "args": {"city": "Paris"}},
                                {"tool": "get_forecast", "args": {"city": "Paris", "days": 3}}]))
    out = tmp_path / "record.json"
    result = CliRunner().invoke(cli, ["eval", str(gold), str(
        FIXTURES / "vercel_ai_otel_stream_text.json"), "--json", str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads(out.read_text())
    latency = record["metrics"]["latency_metrics"]
    assert (latency["status"], latency["measured_calls"], latency["run_duration"]) == (
        "measured", 3, 0.103331395)
    assert latency["total_duration"] == pytest.approx(0.040644714 + 0.02624173 + 0.014898034)
    checks = {c["check"]: c for c in record["evidence"]["checks"]}
    assert (checks["call-errors"]["status"], checks["call-errors"]["reason"]) == (
        "fail", "1 call failed: #3 get_forecast (forecast service unavailable)")
    assert record["coverage"] == {"calls": 3, "final_answer_known": True, "with_cost": 0,
                                  "with_duration": 3, "with_outcome": 3}
    # The model's order, the parallel calls included: the sequence is as expected.
    assert record["metrics"]["sequence_accuracy"] == 1.0
