"""LangChain: AIMessage tool_calls, ToolMessage status, invalid calls kept raw."""

from __future__ import annotations

from toolscore_core.traces import parse_trace


def test_message_dicts_join_the_tool_message_by_id_and_sum_usage(read) -> None:
    trace, choice = read("langchain_messages.json")
    assert choice.format == "langchain"
    (search,) = trace.calls
    assert (search.id, search.tool, search.args) == (
        "call_IjkgmeQJfktyArdJAIxwwcdv", "web_search", {"query": "current weather in Sydney"})
    # status "success": a completed call, its result the ToolMessage's content as it is.
    assert search.is_error is False
    assert isinstance(search.result, str)
    assert search.result.startswith("[Document(metadata={'url': 'https://www.weatherapi.com/'}")
    assert search.result.endswith("| Date | Weather | Temperatures | Rain | UV | More | "
                                  "September Weather')]")
    assert trace.final_answer is not None
    assert trace.final_answer.startswith("The current weather in Sydney is as follows:")
    assert trace.model == "gpt-4o-2024-05-13"
    # Both AI messages' usage_metadata, summed.
    assert trace.usage == {"input_tokens": 1310, "output_tokens": 149, "total_tokens": 1459}


def test_status_error_is_a_failure_and_an_invalid_call_is_kept_raw() -> None:
    # Constructed: one ToolMessage with status "error", one with content blocks, and an
    # invalid tool call whose arguments are cut short.
    messages = [
        {"type": "human", "data": {"content": "Delete tmp and list files."}},
        {"type": "ai", "data": {
            "content": "", "tool_calls": [
                {"name": "delete", "args": {"path": "tmp"}, "id": "call_d", "type": "tool_call"},
                {"name": "list_files", "args": {}, "id": "call_l", "type": "tool_call"}],
            "invalid_tool_calls": [{"name": "move", "args": '{"from": ', "id": "call_m",
                                    "error": "bad JSON"}],
            "response_metadata": {"model_name": "gpt-4o"}}},
        {"type": "tool", "data": {"content": "permission denied", "tool_call_id": "call_d",
                                  "status": "error"}},
        {"type": "tool", "data": {"content": [{"type": "text", "text": "a.txt"}],
                                  "tool_call_id": "call_l", "status": "success"}},
        {"type": "ai", "data": {"content": "I could not delete tmp; the folder holds a.txt.",
                                "tool_calls": []}}]
    trace, choice = parse_trace(messages)
    assert choice.format == "langchain"
    delete, listing, move = trace.calls
    assert (delete.is_error, delete.error) == (True, "permission denied")
    assert (listing.result, listing.is_error) == ("a.txt", False)
    # An invalid tool call is kept, its arguments raw, its outcome unknown.
    assert (move.args, move.raw_args, move.is_error) == (None, '{"from": ', None)
    assert trace.final_answer == "I could not delete tmp; the folder holds a.txt."
    assert trace.model == "gpt-4o"


def test_langgraph_state_of_lc_constructor_messages() -> None:
    state = {"messages": [
        {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"],
         "kwargs": {"content": "", "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "c"}]}},
    ]}
    trace, choice = parse_trace(state)
    assert choice.format == "langchain"
    assert [(c.tool, c.args, c.is_error) for c in trace.calls] == [("f", {"x": 1}, None)]


def test_real_langgraph_state_sums_the_model_calls_usage(read) -> None:
    # A create_react_agent run's state, each message to_json()'d: its AI messages carry
    # their calls twice (tool_calls and the provider's additional_kwargs.tool_calls).
    trace, choice = read("langgraph_state_lc.json")
    assert choice.format == "langchain"
    first, second = trace.calls
    assert (first.id, first.tool, first.args, first.result, first.is_error) == (
        "chatcmpl-tool-4ccc4f90101d4f1fa39dce72fb4c6ddb", "add", {"a": "11", "b": "13"},
        "24.0", False)
    assert (second.args, second.result) == ({"a": "24", "b": "20"}, "44.0")
    assert trace.final_answer == "The total sum of the numbers 11, 13, and 20 is 44."
    assert trace.model == "meta-llama/llama-3-1-70b-instruct"
    # Each AI message's usage_metadata is one model call's: the run used all three.
    assert trace.usage == {"input_tokens": 574 + 614 + 654, "output_tokens": 23 + 23 + 20,
                           "total_tokens": 597 + 637 + 674}


def test_usage_is_unknown_when_an_ai_message_has_none() -> None:
    import json
    from pathlib import Path

    state = json.loads((Path(__file__).parent / "fixtures" / "langgraph_state_lc.json")
                       .read_text(encoding="utf-8"))
    del state["messages"][3]["kwargs"]["usage_metadata"]
    trace, _ = parse_trace(state)
    assert trace.usage is None
    assert "usage_metadata on 2 of 3 AI messages: the run's token usage is unknown" in \
        trace.notes
