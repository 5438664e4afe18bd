"""The run's token usage from span exports: the model-call spans' counts summed, never an agent
or run span's total added to them, unknown when a model-call span has none."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.traces import parse_trace
from toolscore_formats.otel import stream

FIXTURES = Path(__file__).parent / "fixtures"

# Each expectation is the file's own counts, span by span, added by hand.
SUMMED = {
    # opentelemetry-instrumentation-openai-v2: four chat spans, each 50 in and 10 out
    # (every content mode, both instrumentation versions).
    **{name: {"input_tokens": 50 * 4, "output_tokens": 10 * 4} for name in (
        "openai_v2_otel_span_only.json", "openai_v2_otel_event_only.json",
        "openai_v2_otel_span_and_event.json", "openai_v2_otel_no_content.json",
        "openai_v2_2_1_otel_events.json", "openai_v2_2_1_otel_events_no_content.json")},
    # Pydantic AI 1.0: three chats; its "agent run" span repeats their total (227, 48) in the
    # same gen_ai.usage.* attributes.
    **{name: {"input_tokens": 61 + 82 + 84, "output_tokens": 10 + 15 + 23} for name in (
        "pydantic_ai_1_0_otel_v1.json", "pydantic_ai_1_0_otel_v2.json")},
    # Pydantic AI 2.78: three chats; the agent span's total is gen_ai.aggregated_usage.*.
    **{name: {"input_tokens": 61 + 78 + 80, "output_tokens": 10 + 15 + 23} for name in (
        "pydantic_ai_otel_v2.json", "pydantic_ai_otel_v5.json")},
    # The Vercel AI SDK: three model calls (doGenerate / doStream, or ai 7's chat spans); the
    # run span (ai.generateText, ai.streamText, invoke_agent) holds their total (270, 61).
    **{name: {"input_tokens": 52 + 87 + 131, "output_tokens": 14 + 19 + 28} for name in (
        "vercel_ai_otel_generate_text.json", "vercel_ai_otel_generate_text_no_content.json",
        "vercel_ai_otel_stream_text.json", "vercel_ai7_legacy_otel_generate_text.json",
        "vercel_ai7_legacy_otel_stream_text.json", "vercel_ai7_genai_otel_generate_text.json",
        "vercel_ai7_genai_otel_stream_text.json")},
    # Two requests (two traces), one model call each.
    "vercel_ai_otel_client_tool.json": {"input_tokens": 52 + 87, "output_tokens": 14 + 19},
    # Phoenix's LLM span: its prompt count holds the cached tokens (31559 + 760 of 32321).
    "openinference_phoenix_turn.json": {
        "input_tokens": 32321, "output_tokens": 119, "total_tokens": 32440,
        "input_token_details": {"cache_read": 31559, "cache_creation": 760}},
    "openinference_phoenix_subagent.json": {
        "input_tokens": 1, "output_tokens": 1, "total_tokens": 1,
        "input_token_details": {"cache_read": 1}},
}


def _load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(SUMMED))
def test_usage_is_the_sum_of_the_model_call_spans(read, name: str) -> None:
    trace, _ = read(name)
    assert trace.usage == SUMMED[name]
    assert not [note for note in trace.notes if "token" in note]


@pytest.mark.parametrize("name", [
    "google_adk_otel_span_only.json", "google_adk_otel_legacy.json",
    "openinference_otlp_export.json", "jaeger_adk_spans.json"])
def test_an_export_without_token_counts_has_unknown_usage(read, name: str) -> None:
    # ADK's scripted model reports no usage; the others' spans carry no token count.
    trace, _ = read(name)
    assert trace.usage is None
    assert not [note for note in trace.notes if "token" in note]


def test_a_wrapper_and_a_second_instrumentation_do_not_count_a_model_call_again() -> None:
    # A kagent (Google ADK) run: each model call's counts are on ADK's call_llm span, its
    # generate_content span inside it, and OpenLLMetry's openai.chat span inside that.
    # Only the generate_content spans are model-call spans (gen_ai.operation.name).
    path = FIXTURES / "agentevals_kagent_adk_tempo_export.json"
    trace, choice = parse_trace(json.loads(path.read_text(encoding="utf-8")))
    assert choice.format == "otel"
    assert trace.usage == {"input_tokens": 2256 + 2392, "output_tokens": 13 + 116}


def test_usage_is_unknown_when_a_model_call_span_has_none() -> None:
    export = _load("openai_v2_otel_span_only.json")
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[2]["attributes"] = [a for a in spans[2]["attributes"]
                              if not a["key"].startswith("gen_ai.usage.")]
    trace, _ = parse_trace(export)
    assert trace.usage is None
    assert ("token usage (gen_ai.usage.input_tokens / output_tokens) on 3 of 4 model-call "
            "spans: the run's token usage is unknown") in trace.notes
    assert len(trace.calls) == 3  # the calls read as before


def test_a_cache_count_is_summed_only_when_every_model_call_gives_it() -> None:
    export = _load("openai_v2_otel_span_only.json")
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for index, span in enumerate(spans):
        span["attributes"].append({"key": "gen_ai.usage.cache_read.input_tokens",
                                   "value": {"intValue": str(10 + index)}})
    trace, _ = parse_trace(export)
    assert trace.usage == {"input_tokens": 200, "output_tokens": 40,
                           "input_token_details": {"cache_read": 10 + 11 + 12 + 13}}
    del spans[0]["attributes"][-1]
    trace, _ = parse_trace(export)
    # Three calls' cache reads are not the run's: that count is unknown, the rest known.
    assert trace.usage == {"input_tokens": 200, "output_tokens": 40}


def test_a_streamed_export_reads_the_same_usage() -> None:
    data = (FIXTURES / "pydantic_ai_otel_v5.json").read_bytes()
    streamed = stream(data)
    assert streamed is not None
    assert streamed[0].usage == {"input_tokens": 219, "output_tokens": 48}


def test_a_chat_span_inside_a_chat_span_is_one_model_call() -> None:
    # Two instrumentations of one request (a framework's chat span, its provider SDK's
    # inside it) write the same counts twice: the request is counted once.
    export = _load("openai_v2_otel_span_only.json")
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    inner = copy.deepcopy(spans[0])
    inner["spanId"], inner["parentSpanId"] = "00000000000000aa", spans[0]["spanId"]
    spans.insert(0, inner)
    trace, _ = parse_trace(export)
    assert trace.usage == {"input_tokens": 50 * 4, "output_tokens": 10 * 4}


def test_an_llm_span_inside_an_llm_span_is_one_model_call() -> None:
    spans = _load("openinference_phoenix_turn.json")
    inner = copy.deepcopy(spans[1])
    inner["context"]["span_id"], inner["parent_id"] = "s02-provider", spans[1]["context"][
        "span_id"]
    spans.insert(2, inner)
    trace, choice = parse_trace(spans)
    assert choice.format == "openinference"
    assert trace.usage == SUMMED["openinference_phoenix_turn.json"]


def test_a_count_is_read_from_the_preferred_attribute_that_holds_one() -> None:
    from toolscore_formats.spans import otlp_attributes
    from toolscore_formats.usage import GENAI_COUNTS, span_counts

    def counts(**values: str) -> Any:
        return span_counts(otlp_attributes([
            {"key": f"gen_ai.usage.{name}", "value": {"intValue": value}}
            for name, value in values.items()]), GENAI_COUNTS)

    # The deprecated names are read where the current ones are missing or not a number.
    assert counts(prompt_tokens="7", completion_tokens="3") == {
        ("input_tokens",): 7, ("output_tokens",): 3}
    assert counts(input_tokens="x", prompt_tokens="7", output_tokens="3") == {
        ("input_tokens",): 7, ("output_tokens",): 3}
    # The current name wins; a negative count is no count, not a fall back to the old name.
    assert counts(prompt_tokens="1", input_tokens="7", output_tokens="3") == {
        ("input_tokens",): 7, ("output_tokens",): 3}
    assert counts(input_tokens="-7", prompt_tokens="7", output_tokens="3") is None
    assert counts(input_tokens="7") is None
