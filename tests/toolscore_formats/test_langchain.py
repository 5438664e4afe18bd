"""LangChain: AIMessage tool_calls, ToolMessage status, invalid calls kept raw."""

from __future__ import annotations

from toolscore_core.traces import parse_trace


def test_tool_messages_join_by_id_and_status_error_is_a_failure(read) -> None:
    trace, choice = read("langchain_messages.json")
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
