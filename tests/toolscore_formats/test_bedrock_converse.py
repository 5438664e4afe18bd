"""Bedrock Converse: toolUse / toolResult blocks, status "error", responses and message lists."""

from __future__ import annotations

import pytest

from toolscore_core.errors import InputError
from toolscore_core.traces import parse_trace
from toolscore_formats.bedrock_converse import detect


def test_the_user_guides_exchange_reads_the_call_its_json_result_and_the_answer(read) -> None:
    trace, choice = read("bedrock_converse_messages.json")
    assert (choice.format, choice.reason) == (
        "bedrock_converse",
        "a list of Amazon Bedrock Converse messages with toolUse / toolResult blocks")
    assert [(c.id, c.tool, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "top_song", {"sign": "WZPZ"},
         {"song": "Elemental Hotel", "artist": "8 Storey Hike"}, False, None)]
    assert trace.final_answer == (
        "The most popular song on WZPZ is Elemental Hotel by 8 Storey Hike.")
    assert trace.notes == ()


def test_status_error_is_a_failed_call_with_the_tools_text(read) -> None:
    trace, choice = read("bedrock_converse_error.json")
    assert choice.format == "bedrock_converse"
    assert [(c.id, c.tool, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "top_song", {"sign": "WZPZ"}, None, True,
         "Station WZPA not found.")]
    assert trace.final_answer is None


def test_a_response_that_stops_for_a_tool_has_an_open_call_and_no_final_answer(read) -> None:
    trace, choice = read("bedrock_converse_response.json")
    assert (choice.format, choice.reason) == (
        "bedrock_converse",
        'an Amazon Bedrock Converse response ("output": {"message"} and "stopReason")')
    assert [(c.id, c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("tooluse_cSetmvboc97Bqb2uO0gzu6", "get_resistor_value", {"ref": "R1"}, None, None)]
    # "Sure! I'll look up ..." precedes the tool request: it is not an answer.
    assert trace.final_answer is None
    assert trace.usage is not None and trace.usage["totalTokens"] == 507


def test_a_request_body_mixed_results_and_an_unknown_id_are_read_not_dropped() -> None:
    body = {"modelId": "m", "messages": [
        {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "a", "name": "shot", "input": {}}},
            {"toolUse": {"toolUseId": "b", "name": "lookup", "input": {"q": "x"}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "a", "status": "success", "content": [
                {"text": "Here is the screen:"}, {"image": {"format": "png"}}]}},
            {"toolResult": {"toolUseId": "zz", "content": [{"text": "late"}]}}]}]}
    trace, choice = parse_trace(body)
    assert choice.format == "bedrock_converse"
    assert [(c.id, c.result, c.is_error) for c in trace.calls] == [
        ("a", [{"text": "Here is the screen:"}, {"image": {"format": "png"}}], False),
        ("b", None, None)]
    assert trace.notes == ("message 1: toolResult for unknown toolUseId 'zz' "
                           "(not counted as a call)",)


@pytest.mark.parametrize("document", [
    # Anthropic blocks carry a "type": not Converse.
    [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f",
                                        "input": {}}]}],
    # Converse messages without a tool block are no evidence of Converse.
    [{"role": "user", "content": [{"text": "hi"}]}],
])
def test_look_alikes_are_not_claimed(document: object) -> None:
    assert detect(document) is None


def test_a_document_of_another_shape_is_refused_when_forced() -> None:
    with pytest.raises(InputError, match="not a Bedrock Converse response or message list"):
        parse_trace({"output": "x"}, trace_format="bedrock_converse")
