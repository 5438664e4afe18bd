"""Claude Agent SDK streams: tool_use / tool_result, run totals kept at run level."""

from __future__ import annotations


def test_stream_with_result_message(read) -> None:
    trace, choice = read("claude_agent_sdk_stream.jsonl")
    assert choice.format == "claude_agent_sdk"
    bash, read_file = trace.calls
    assert (bash.result, bash.is_error) == ("a.txt", False)
    assert (read_file.is_error, read_file.error) == (True, "File does not exist.")
    assert trace.final_answer == "There is one file, a.txt."
    # The run's cost and duration stay at run level; no call gets a share of them.
    assert (trace.run_cost, trace.run_duration) == (0.0123, 2.5)
    assert all(c.cost is None and c.duration is None for c in trace.calls)
    assert trace.model == "claude-sonnet-4-5"
    # A transcript's message timestamp is the start of the calls that message makes.
    assert bash.timestamp == read_file.timestamp == "2026-12-02T09:00:00.500Z"
