"""Every trace reader, fed random JSON, returns a Trace or raises InputError: never a traceback."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolscore_core.errors import InputError
from toolscore_core.models import Trace
from toolscore_core.plugins import default_registry
from toolscore_core.traces import parse_trace

# Keys and values the readers look for, so random documents reach deep into every reader.
KEYS = st.sampled_from([
    "role", "content", "tool_calls", "function", "name", "arguments", "id", "tool_call_id",
    "function_call", "choices", "message", "messages", "type", "call_id", "output", "input",
    "tool_use_id", "is_error", "parts", "functionCall", "functionResponse", "response",
    "contents", "candidates", "jsonrpc", "method", "params", "result", "error", "isError",
    "structuredContent", "kind", "direction", "monotonic", "timestamp", "resourceSpans",
    "scopeSpans", "spans", "attributes", "key", "value", "stringValue", "intValue", "status",
    "code", "startTimeUnixNano", "endTimeUnixNano", "spanId", "parentSpanId", "lc", "kwargs",
    "data", "status", "$schemaVersion", "generated_items", "raw_item", "rawItem", "callId",
    "object", "steps", "total_cost_usd", "duration_ms", "parent_tool_use_id", "calls",
    "tool", "args", "requestBody", "responseBody", "url", "batches", "text", "object",
    "tool_name", "done",
    "toolUse", "toolResult", "toolUseId", "stopReason", "json", "resultType",
    "inputResponses", "requestState",
    "part_kind", "tool_name", "tool_call_id", "model_name", "outcome",
    "traceID", "spanID", "operationName", "tags", "references", "refType", "startTime",
    "duration", "logs", "fields",
    "toolCallId", "toolName", "isError", "toolCalls", "toolResults", "finishReason",
    "stepType", "totalUsage", "modelId", "state",
    "run_type", "child_runs", "runs", "parent_run_id", "trace_id", "dotted_order",
    "start_time", "end_time", "inputs", "outputs", "post", "patch", "total_cost",
    "author", "invocation_id", "invocationId", "function_call", "function_response", "events",
    "app_name", "partial", "thought", "error_code",
    "span_kind", "context", "span_id", "parent_id", "start_time", "end_time", "status_code",
    "status_message", "openinference.span.kind", "tool.name", "input.value", "output.value",
    "tool_call.id", "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
    "llm.input_messages.0.message.role", "context.span_id", "attributes.tool.name", "events",
    "version", "eval", "task", "samples", "epoch", "target", "events", "event", "working_time",
    "completed", "pending", "parse_error", "transcript", "total_time", "model_usage", "limit",
    "trace", "observations", "scores", "parentObservationId", "endTime", "level",
    "statusMessage", "usageDetails", "costDetails", "traceId", "totalCost", "latency",
    "gen_ai.tool.call.id", "ai.toolCall.name", "additional_kwargs", "parts",
    "info", "request_id", "trace", "mlflow.spanType", "mlflow.spanInputs",
    "mlflow.spanOutputs", "mlflow.spanFunctionName", "mlflow.traceRequestId",
    "mlflow.chat.tokenUsage", "mlflow.llm.cost", "start_time_unix_nano", "parent_span_id",
    "execution_time_ms",
    "trajectory", "history", "info", "action", "observation", "exit_status", "submission",
    "model_stats", "tokens_sent", "tokens_received", "instance_cost", "execution_time",
    "replay_config", "is_demo", "tool_calls",
    "observation", "source", "cause", "extras", "exit_code", "tool_call_metadata", "history",
])
VALUES = st.sampled_from([
    "assistant", "user", "tool", "function", "model", "system", "tool_use", "tool_result",
    "function_call", "function_call_output", "custom_tool_call", "mcp_call", "message",
    "2.0", "tools/call", "initialize", "execute_tool", "gen_ai.tool.name",
    "gen_ai.operation.name", "gen_ai.tool.call.arguments", "STATUS_CODE_ERROR", "constructor",
    "toolscore.mcp_session", "client_to_server", "server_to_client", "tool_call_item",
    "result", "response", "chat.completion", "interaction", "text", "{\"a\": 1}", "{bad",
    "ai", "AIMessage", "error", "1790978944025514088", "success", "input_required",
    "complete",
    "request", "tool-call", "tool-return", "retry-prompt", "user-prompt", "builtin-tool-call",
    "failed", "denied", "CHILD_OF", "otel.status_code", "ERROR", "execute_tool f",
    "tool-result", "tool-error", "error-text", "error-json", "json", "execution-denied",
    "tool-invocation", "output-available", "tool-calls",
    "chain", "llm", "pending", "2025-01-10T12:02:01.000Z", "{'a': (1, 2)}",
    "20250110T120000000000Z.2",
    "e-1",
    "TOOL", "LLM", "AGENT", "CHAIN", "openinference.span.kind", "exception",
    "started", "2025-05-12T20:27:39.762878-04:00", "timeout",
    "GENERATION", "SPAN", "DEFAULT", "tool_call", "tool_call_response", "\"quoted\"",
    "\"TOOL\"", "\"CHAT_MODEL\"", "STATUS_CODE_ERROR", "{\"city\": \"Paris\"}", "get_weather_1",
    "submit", "submitted", "exit_cost", "find_file x",
    "agent", "environment", "run", "finish", "read", "edit", "ERROR:\nbad",
])
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | \
    st.text(max_size=8) | VALUES
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS | st.text(max_size=5),
                                                               inner, max_size=6),
    max_leaves=40,
)
FORMATS = sorted(default_registry().trace_formats)


def _read(document: Any, trace_format: str) -> None:
    try:
        trace, _ = parse_trace(document, trace_format=trace_format)
    except InputError as exc:
        assert str(exc)
        return
    assert isinstance(trace, Trace)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON)
def test_auto_detection_never_raises_anything_but_input_error(document: Any) -> None:
    _read(document, "auto")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FORMATS), JSON)
def test_each_reader_never_raises_anything_but_input_error(fmt: str, document: Any) -> None:
    _read(document, fmt)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FORMATS), JSON)
def test_each_parse_function_itself_raises_only_input_error(fmt: str, document: Any) -> None:
    """Not only through parse_trace, which would translate a stray TypeError: parse itself."""
    _parse_only(fmt, document)


def _parse_only(fmt: str, document: Any) -> None:
    try:
        trace = default_registry().trace_formats[fmt].parse(document)
    except InputError as exc:
        assert str(exc)
        return
    assert isinstance(trace, Trace)


def _corpus_like() -> list[Any]:
    """Small real-shaped documents of every format (the test fixtures), to mutate."""
    import json
    from pathlib import Path

    from toolscore_core.traces import decode_trace_bytes

    folder = Path(__file__).parent / "fixtures"
    return [decode_trace_bytes(path.read_bytes(), file=str(path))
            for path in sorted(folder.iterdir()) if path.suffix in (".json", ".jsonl")] or [
        json.loads("[]")]


SEEDS = _corpus_like()


def _mutate(document: Any, data: st.DataObject) -> Any:
    """Replace one node, chosen by hypothesis, anywhere in the document with random JSON."""
    if isinstance(document, dict) and document and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(document)))
        return {**document, key: _mutate(document[key], data)}
    if isinstance(document, list) and document and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(document) - 1))
        return [*document[:index], _mutate(document[index], data), *document[index + 1:]]
    return data.draw(JSON)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(SEEDS))), st.data())
def test_mutated_real_shapes_never_raise_anything_but_input_error(
        seed: int, data: st.DataObject) -> None:
    document = SEEDS[seed]
    for _ in range(data.draw(st.integers(1, 3))):
        document = _mutate(document, data)
    _read(document, "auto")
    for fmt in FORMATS:
        _parse_only(fmt, document)


STREAMERS = sorted(fid for fid, fmt in default_registry().trace_formats.items()
                   if fmt.stream is not None)
STREAM_ERRORS = (InputError, ValueError, TypeError, KeyError, AttributeError, IndexError,
                 RecursionError)


def _streamed_matches_whole(fmt_id: str, document: Any) -> None:
    import json

    fmt = default_registry().trace_formats[fmt_id]
    assert fmt.stream is not None
    try:
        read = fmt.stream(json.dumps(document).encode("utf-8"))
    except STREAM_ERRORS:
        return  # the loader then reads the document whole
    if read is None:
        return
    trace, reason = read
    assert fmt.detect(document) == reason
    assert fmt.parse(document) == trace


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(STREAMERS), st.sampled_from(range(len(SEEDS))), st.data())
def test_a_streamed_read_is_the_whole_read(fmt_id: str, seed: int, data: st.DataObject) -> None:
    document = SEEDS[seed]
    if data.draw(st.booleans()):
        document = _mutate(document, data)
    _streamed_matches_whole(fmt_id, document)
    _streamed_matches_whole(fmt_id, data.draw(JSON))
