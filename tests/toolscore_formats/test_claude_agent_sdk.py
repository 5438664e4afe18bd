"""Claude Agent SDK streams: tool_use / tool_result, run totals kept at run level."""

from __future__ import annotations

from toolscore_core.traces import parse_trace


def test_stream_with_result_message(read) -> None:
    trace, choice = read("claude_agent_sdk_stream.jsonl")
    assert choice.format == "claude_agent_sdk"
    # The user declined the Bash call: the tool_result says so with is_error.
    (bash,) = trace.calls
    assert (bash.id, bash.tool, bash.args) == (
        "toolu_0118PFpcs5HY61oLUqgBBSGM", "Bash",
        {"command": "rm -f scratch-tmp.txt", "description": "Remove scratch-tmp.txt if it exists"})
    assert (bash.is_error, bash.error, bash.result) == (True, "User declined tool execution.",
                                                        None)
    assert trace.final_answer == ("Understood \u2014 I won't run that. Let me know if you'd "
                                  "like a different approach.")
    # The run's cost and duration stay at run level; no call gets a share of them.
    assert (trace.run_cost, trace.run_duration) == (0.08094459999999999, 4.817)
    assert bash.cost is None and bash.duration is None
    assert trace.model == "claude-sonnet-5"
    # An SDK stream's assistant message carries no timestamp: the call's start is unknown.
    assert bash.timestamp is None


def test_a_transcript_message_timestamp_is_its_calls_start() -> None:
    # Constructed: a transcript-style assistant line with a timestamp and two calls.
    lines = [
        {"type": "assistant", "timestamp": "2026-12-02T09:00:00.500Z", "parent_tool_use_id": None,
         "message": {"model": "claude-sonnet-4-5", "role": "assistant", "content": [
             {"type": "tool_use", "id": "tu_1", "name": "Bash", "input": {"command": "ls"}},
             {"type": "tool_use", "id": "tu_2", "name": "Read", "input": {"file_path": "b"}}]}},
        {"type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu_2", "content": "File does not exist.",
             "is_error": True},
            {"type": "tool_result", "tool_use_id": "tu_1",
             "content": [{"type": "text", "text": "a.txt"}]}]}},
        {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 2500,
         "total_cost_usd": 0.0123, "result": "There is one file, a.txt."}]
    trace, _ = parse_trace(lines)
    bash, read_file = trace.calls
    assert (bash.result, bash.is_error) == ("a.txt", False)
    assert (read_file.is_error, read_file.error) == (True, "File does not exist.")
    assert bash.timestamp == read_file.timestamp == "2026-12-02T09:00:00.500Z"
    assert (trace.run_cost, trace.run_duration) == (0.0123, 2.5)


def test_claude_code_session_transcript(read) -> None:
    # A real ~/.claude/projects transcript: its progress, file-history-snapshot,
    # queue-operation and system lines are bookkeeping, not a reason to refuse the file.
    trace, choice = read("claude_code_transcript.jsonl")
    assert choice.format == "claude_agent_sdk"
    assert "Claude Code session transcript" in choice.reason
    assert [c.tool for c in trace.calls] == ["Bash", "Bash", "WebSearch", "Glob", "Read",
                                             "WebFetch"]
    start, _tail, _search, glob, _read, fetch = trace.calls
    assert start.id == "toolu_018GZVh9ymkrdx1TnR8reg5Y"
    assert start.args == {"command": "mix phx.server",
                          "description": "Start Phoenix server in background",
                          "run_in_background": True}
    assert start.result.startswith("Command running in background with ID: bae407b.")
    assert (glob.result, glob.is_error) == ("/home/marco/projects/spotter/assets/js/app.js",
                                            False)
    assert fetch.args["url"] == "https://github.com/xtermjs/xterm.js/issues/1343"
    assert fetch.result.startswith("# Scroll Issues in xterm.js")
    assert all(c.is_error is False for c in trace.calls)
    # Each call is stamped with the time of the line that asks for it; nothing times it.
    assert (start.timestamp, fetch.timestamp) == ("2026-02-10T22:57:57.941Z",
                                                  "2026-02-10T22:59:37.598Z")
    assert all(c.duration is None and c.cost is None for c in trace.calls)
    # The session ends on "[Request interrupted by user]" after the last call: no answer.
    assert trace.final_answer is None
    assert trace.model == "claude-opus-4-6"
    assert (trace.run_cost, trace.run_duration, trace.usage) == (None, None, None)
    # Its one text block before a call is a reply; a "\n\n" text block says nothing.
    assert trace.replies == ("Phoenix server is starting in the background.\n\n"
                             "Let me check the MCP servers status.",)


def test_claude_code_transcript_reads_sub_agent_progress(read) -> None:
    trace, choice = read("claude_code_subagent_progress.jsonl")
    assert choice.format == "claude_agent_sdk"
    task, skill, *sub = trace.calls
    # The main agent's Task and Skill calls, then the sub-agent's twelve, as they ran.
    assert (task.tool, task.id, skill.tool) == ("Task", "toolu_01Hf8v1Za7y4af8VUwSR4CXU",
                                                "Skill")
    assert task.args["subagent_type"] == "general-purpose"
    assert task.result.startswith("Perfect! I now have all the version information needed.")
    assert [c.tool for c in sub] == ["WebSearch"] * 6 + ["WebFetch"] * 6
    assert sub[0].args == {"query": "hex.pm opentelemetry_api elixir latest version 2026"}
    assert sub[6].result.startswith("The latest stable version number is **1.5.0**")
    # A sub-agent message is stamped with its own time, not the progress line's.
    assert sub[0].timestamp == "2026-02-12T14:12:35.862Z"
    assert all(c.is_error is False for c in trace.calls)
    assert trace.notes == ("12 calls of sub-agents read from the transcript's agent_progress "
                           "lines (agent aac57f5; the sub-agent's own transcript, "
                           "subagents/agent-<id>.jsonl, holds them too)",)
    # The sub-agent's text is not something the agent told the user.
    assert trace.replies == ("Now let me check available versions and look up the setup APIs.",)
    assert trace.final_answer is None


def test_unknown_line_types_need_claude_stamped_messages() -> None:
    # Only messages Claude stamped (a uuid and a session id) make other line types
    # Claude's own: an unstamped list with a line of an unknown type is not claimed.
    from toolscore_formats.claude_agent_sdk import detect

    stream = [{"type": "assistant", "message": {"content": []}}, {"type": "progress"}]
    assert detect(stream) is None
    stamped = [{**stream[0], "uuid": "u1", "session_id": "s1"}, {"type": "rate_limit_event"}]
    assert detect(stamped) is not None
    transcript = [{"type": "assistant", "uuid": "u1", "sessionId": "s1",
                   "message": {"content": []}}, {"type": "progress"}]
    assert detect(transcript) is not None
    assert detect([*transcript, {"progress": True}]) is None


def test_sdk_stream_with_rate_limit_and_lifecycle_lines(read) -> None:
    # A real Agent SDK stream (Claude Code 2.1.210) has rate_limit_event and
    # command_lifecycle lines among its messages; they are not a reason to refuse it.
    trace, choice = read("claude_agent_sdk_rate_limit_stream.jsonl")
    assert choice.format == "claude_agent_sdk"
    bash, read_file = trace.calls
    assert (bash.id, bash.tool, bash.args) == (
        "toolu_01VQm59wRkdm9WX5rYRBzkrD", "Bash",
        {"command": "ls a.txt 2>&1", "description": "Check if a.txt exists"})
    assert (bash.result, bash.is_error) == ("a.txt", False)
    assert read_file.args == {"file_path": "~/tmp/agent-chat-fixtures/claude/sandbox/a.txt"}
    assert (read_file.result, read_file.is_error) == ("1\talpha beta gamma\n2\t", False)
    # A stream stamps no assistant message: the calls have no time.
    assert all(c.timestamp is None and c.duration is None for c in trace.calls)
    assert trace.final_answer == "alpha"
    assert (trace.run_cost, trace.run_duration) == (0.0922831, 3.913)
    assert trace.model == "claude-sonnet-5"
