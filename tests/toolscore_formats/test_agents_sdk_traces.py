"""OpenAI Agents SDK traces (the SDK's own tracing spans): function spans as calls, joined to
the ids the model sent; generation spans' model, usage and final answer; the same run read
alike from a processor's JSON lines and from the exporter's payload."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.models import FormatChoice, Trace
from toolscore_core.traces import load_trace, parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
Read = Callable[[str], tuple[Trace, FormatChoice]]
ANSWER = "Order 7 totals 0; the refund failed: the window is closed."
REFUND_ERROR = ("Error running tool (non-fatal): Tool execution failed. Error details are "
                "redacted.")
SDK_ERROR_TEXT = "An error occurred while running the tool. Please try again."
HANDOFF = ("transfer_to_billing", "call_handoff", {}, None, '{"assistant": "billing"}', False,
           None)


def _lines(name: str) -> list[dict[str, Any]]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _rows(trace: Trace) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.raw_args, c.result, c.is_error, c.error) for c in trace.calls]


def _span(items: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    return next(item for item in items if item.get("object") == "trace.span" and
                item["span_data"]["type"] == kind and
                (name is None or item["span_data"].get("name") == name))


@pytest.mark.parametrize("name, reason", [
    ("agents_sdk_trace.jsonl", "OpenAI Agents SDK trace spans"),
    ("agents_sdk_trace_export.json", "BackendSpanExporter"),
])
def test_function_spans_are_the_calls_with_the_ids_the_model_sent(
        read: Read, name: str, reason: str) -> None:
    trace, choice = read(name)
    assert choice.format == "agents_sdk" and reason in choice.reason
    # Two function spans ran in parallel in the model's first turn; refund raised: the span
    # has an error (the SDK redacts the exception by default) and, as output, the text the
    # model was given. The handoff ran as a handoff span: the call of the transfer tool the
    # model asked for, as the run items list it, its result what the SDK gave the model.
    assert _rows(trace) == [
        ("get_order", "call_order", {"order_id": 7}, None, '{"order_id": 7, "total": 0}',
         False, None),
        ("refund", "call_refund", {"order_id": 7}, None, SDK_ERROR_TEXT, True, REFUND_ERROR),
        HANDOFF,
    ]
    assert trace.notes == ()
    assert trace.final_answer == ANSWER
    assert trace.model == "gpt-4o-mini"
    # Three model calls of 50 + 10 tokens: the JSON lines give total_tokens beside the
    # counts, the exporter moves it into "details"; both read the same.
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30, "total_tokens": 180}
    assert trace.replies is None


def test_mcp_tools_and_an_agent_as_tool(read: Read) -> None:
    trace, choice = read("agents_sdk_trace_mcp.jsonl")
    assert choice.format == "agents_sdk"
    items = _lines("agents_sdk_trace_mcp.jsonl")
    # The spans' output is str() of what the tools returned: the MCP content as a Python
    # repr. The result is what the model was given (the next generation's tool message).
    assert _span(items, "function", "add")["span_data"]["output"] == \
        "{'type': 'text', 'text': '5'}"
    # The server answered fail with isError: true; the SDK wrote no error on the span, so
    # an MCP call's outcome is unknown (is_error None), never a success. The agent used as
    # a tool is a function span like any other; its own model call is not the answer. The
    # two mcp_tools spans (the tools the server listed) are no calls.
    assert _rows(trace) == [
        ("add", "call_add", {"a": 2, "b": 3}, None, "5", None, None),
        ("fail", "call_fail", {"reason": "disk full"}, None,
         "Error executing tool fail: disk full", None, None),
        ("ask_helper", "call_helper", {"input": "Who owns order 7?"}, None,
         "Order 7 belongs to billing.", False, None),
    ]
    assert sum(1 for item in items if item.get("span_data", {}).get("type") == "mcp_tools") == 2
    assert trace.final_answer == "2 + 3 = 5, and order 7 belongs to billing."
    # Three model calls, the helper's among them (it ran inside the ask_helper span).
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30, "total_tokens": 180}
    assert trace.notes == (
        "2 MCP tool calls: outcome unknown, the SDK's trace does not flag an MCP server's "
        "tool error (isError); the result is what the server answered",)


def test_calls_are_timed_by_their_spans(read: Read) -> None:
    trace, _ = read("agents_sdk_trace.jsonl")
    get_order = _span(_lines("agents_sdk_trace.jsonl"), "function", "get_order")
    assert trace.calls[0].timestamp == get_order["started_at"] == \
        "2026-12-06T23:13:17.274978+00:00"
    assert trace.calls[0].duration == pytest.approx(0.009019)  # .283997 - .274978
    assert [c.duration for c in trace.calls] == [0.009019, 0.004223, 0.000198]
    assert trace.run_duration == pytest.approx(0.293075)  # the task span, the only root


def test_without_sensitive_data_arguments_and_results_are_unknown(read: Read) -> None:
    trace, choice = read("agents_sdk_trace_no_sensitive.jsonl")
    assert choice.format == "agents_sdk"
    # No input, no output: arguments unknown (null, not {}), results unknown; the failed
    # call is still a failure (its span's error is kept), the other's outcome is unknown.
    assert _rows(trace) == [
        ("get_order", None, None, None, None, None, None),
        ("refund", None, None, None, None, True, REFUND_ERROR),
        # the handoff, named as the SDK names a handoff tool by default
        ("transfer_to_billing", None, None, None, None, False, None),
    ]
    assert trace.final_answer is None  # no generation output recorded
    assert trace.model == "gpt-4o-mini"
    assert trace.usage == {"input_tokens": 150, "output_tokens": 30, "total_tokens": 180}
    assert trace.notes == (
        "handoff triage -> billing: the model's request is not in the trace, read as "
        "transfer_to_billing (the SDK's default name of a handoff tool), its arguments unknown",
        "2 function spans without input or output (traced with trace_include_sensitive_data "
        "off): arguments and results unknown",
    )


def test_the_same_run_reads_alike_in_lines_and_in_the_exporters_payload(read: Read) -> None:
    lines, _ = read("agents_sdk_trace.jsonl")
    export, _ = read("agents_sdk_trace_export.json")
    assert export.calls == lines.calls
    assert (export.final_answer, export.model, export.usage, export.run_duration) == \
        (lines.final_answer, lines.model, lines.usage, lines.run_duration)


def test_a_model_call_without_usage_makes_the_runs_usage_unknown() -> None:
    # Constructed from the fixture: one generation's usage taken away (a partial sum would
    # pass for the run's total).
    items = _lines("agents_sdk_trace.jsonl")
    _span(items, "generation")["span_data"]["usage"] = None
    trace, _ = parse_trace(items)
    assert trace.usage is None
    assert ("token usage (usage input_tokens / output_tokens) on 2 of 3 model calls "
            "(generation and response spans): the run's token usage is unknown") in trace.notes


def test_zero_counts_the_sdk_writes_for_a_provider_without_usage_are_unknown() -> None:
    # Constructed from the fixture: the last generation's usage replaced with what
    # openai-agents 0.24.0 writes when the Chat Completions response has no "usage" (seen
    # with chat_server.py answering a body without it): zeros, not a measurement.
    items = _lines("agents_sdk_trace.jsonl")
    generations = [item for item in items if item.get("span_data", {}).get("type") ==
                   "generation"]
    generations[-1]["span_data"]["usage"] = {
        "requests": 1, "input_tokens": 0, "output_tokens": 0, "total_tokens": 0,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0,
                                 "cache_write_tokens_details": None},
        "output_tokens_details": {"reasoning_tokens": 0}}
    trace, _ = parse_trace(items)
    assert trace.usage is None
    assert any("on 2 of 3 model calls" in note for note in trace.notes)


def test_response_spans_give_their_usage() -> None:
    # Constructed: the OpenAI Responses model traces a response span (its id and usage, no
    # model and no output) where the Chat Completions model traces a generation span.
    items = [item for item in _lines("agents_sdk_trace.jsonl")
             if item.get("span_data", {}).get("type") != "generation"]
    items.insert(0, {**copy.deepcopy(_span(_lines("agents_sdk_trace.jsonl"), "generation")),
                     "span_data": {"type": "response", "response_id": "resp_1",
                                   "usage": {"input_tokens": 40, "output_tokens": 5,
                                             "total_tokens": 45}}})
    trace, _ = parse_trace(items)
    assert trace.usage == {"input_tokens": 40, "output_tokens": 5, "total_tokens": 45}
    assert trace.model is None and trace.final_answer is None
    assert [c.id for c in trace.calls] == [None, None, None]  # no output: no ids to join


def test_a_failed_agent_has_no_final_answer() -> None:
    # Constructed from the fixture: the billing agent's span ends in an error (as when the
    # run exceeds its max turns), after the last generation.
    items = _lines("agents_sdk_trace.jsonl")
    _span(items, "agent", "billing")["error"] = {"message": "Max turns (1) exceeded",
                                                 "data": None}
    trace, _ = parse_trace(items)
    assert trace.final_answer is None
    assert "agent span billing ended in an error: Max turns (1) exceeded" in trace.notes


def test_a_requested_call_no_function_span_ran_is_noted_not_invented() -> None:
    # Constructed from the fixture: get_order's function span taken out (as when a
    # processor lost it): the model's request for it is named in a note, not made a call.
    items = [item for item in _lines("agents_sdk_trace.jsonl")
             if item.get("span_data", {}).get("name") != "get_order"]
    trace, _ = parse_trace(items)
    assert [(c.tool, c.id) for c in trace.calls] == [("refund", "call_refund"),
                                                     ("transfer_to_billing", "call_handoff")]
    assert trace.notes == (
        "1 tool call the model asked for ran as no function span, not read as calls: "
        "get_order",)


def test_spans_of_two_traces_are_refused() -> None:
    first = _lines("agents_sdk_trace.jsonl")
    second = _lines("agents_sdk_trace_no_sensitive.jsonl")
    with pytest.raises(InputError, match="the spans belong to 2 traces") as caught:
        parse_trace(first + second)
    assert caught.value.fix is not None and "one trace per file" in caught.value.fix


def test_a_malformed_line_is_one_line_naming_it(tmp_path: Path) -> None:
    lines = (FIXTURES / "agents_sdk_trace.jsonl").read_text(encoding="utf-8").splitlines()
    lines[3] = '{"object": "trace.span", "id": "span_x", "span_data": "function"}'
    bad = tmp_path / "trace.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_trace(bad)
    assert "closest: agents_sdk" in str(caught.value)
    assert "$[3] is not a span's or trace's export()" in str(caught.value)
    gold = write_json(tmp_path / "gold.json", {"expected": [{"tool": "get_order"}]})
    out = run_cli("eval", str(gold), str(bad), "--format", "agents_sdk")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        f"error: {bad}: $[3]: not an Agents SDK span or trace; write each span as its "
        'export(): {"object": "trace.span", "id", "trace_id", "span_data": {"type", ...}, '
        '...}, and the trace as {"object": "trace", "id", ...}')
    # A line that is not JSON: its own line and column, not the file's second line.
    lines[3] = '{"object": "trace.span", "id": "span_x", span_data'
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = run_cli("eval", str(gold), str(bad))
    assert out.returncode == 2
    assert out.stderr.strip() == (
        f"error: {bad}: line 4 column 42: invalid JSON (Expecting property name enclosed in "
        "double quotes); fix the JSON syntax")


def test_detection_wants_the_sdks_span_shape() -> None:
    span = _span(_lines("agents_sdk_trace.jsonl"), "function")
    # Items of another tracer: an "object" key alone, or spans without span_data, are not
    # claimed.
    for document in ([{"object": "trace", "id": "trace_1"}],
                     [{**span, "span_data": None}],
                     {"data": [{"object": "trace.span", "id": "s"}]}):
        with pytest.raises(InputError, match="no trace format recognises"):
            parse_trace(document)


@pytest.mark.parametrize("span_id, parent_id", [
    ("span_e833f7480030448699575b85", "span_d02e89deeb204372b80ba7d5"),  # no function in it
    ("span_5f02170a3d5646bb8fd23bd6", "span_e833f7480030448699575b85"),  # ask_helper in it
])
def test_spans_that_are_each_others_parents_end_the_walk_up(span_id: str,
                                                            parent_id: str) -> None:
    # A malformed trace: spans above the helper's model call linked in a cycle. Reading
    # ends, and the agent's own last model call still answers.
    items = _lines("agents_sdk_trace_mcp.jsonl")
    next(item for item in items if item.get("id") == span_id)["parent_id"] = parent_id
    trace, _ = parse_trace(items)
    assert trace.final_answer == "2 + 3 = 5, and order 7 belongs to billing."
    assert [call.tool for call in trace.calls] == ["add", "fail", "ask_helper"]


def test_a_function_span_that_started_before_the_model_asked_is_not_that_requests_run() -> None:
    items = _lines("agents_sdk_trace.jsonl")
    generation = _span(items, "generation")
    get_order = _span(items, "function", "get_order")
    get_order["started_at"] = "2026-12-06T23:13:17.000000+00:00"  # before the generation
    assert generation["started_at"] > get_order["started_at"]
    trace, _ = parse_trace(items)
    assert [(c.tool, c.id) for c in trace.calls] == [
        ("get_order", None), ("refund", "call_refund"), ("transfer_to_billing", "call_handoff")]
    assert trace.notes == (
        "1 tool call the model asked for ran as no function span, not read as calls: "
        "get_order",)
