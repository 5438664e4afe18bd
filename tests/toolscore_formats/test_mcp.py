"""MCP JSON-RPC: tools/call requests and responses, proxy sessions, orphans."""

from __future__ import annotations

import pytest

from toolscore_core.errors import InputError
from toolscore_core.traces import parse_trace


def test_requests_pair_with_responses_by_id_and_non_tool_methods_are_not_calls(read) -> None:
    trace, choice = read("mcp_jsonrpc.json")
    assert choice.format == "mcp"
    assert [(c.id, c.tool) for c in trace.calls] == [
        ("3", "add"), ("3", "add"), ("q-4", "delete_all"), ("5", "slow")]
    ok, failed, unknown_tool, pending = trace.calls
    assert (ok.result, ok.is_error) == ({"sum": 0}, False)  # structuredContent, 0 kept
    assert (failed.is_error, failed.error) == (True, "a must be a number")  # reused id, in order
    assert (unknown_tool.is_error, unknown_tool.error) == (True, "Unknown tool: delete_all")
    assert (pending.args, pending.is_error) == (None, None)
    # The response to id 99 has no request: reported, never made into a call.
    assert trace.notes == ("1 tool response without their request (ids 99): reported, "
                           "not read as calls",)


def test_a_proxy_session_gives_durations_timestamps_and_direction_aware_ids(read) -> None:
    trace, choice = read("mcp_session.jsonl")
    assert "proxy session" in choice.reason
    read_file, write_file = trace.calls
    # The server's ping reused id 2; the client's answer to it does not answer the call.
    assert (read_file.id, read_file.result, read_file.is_error) == ("2", "hello", False)
    assert read_file.duration == pytest.approx(0.25)
    assert read_file.timestamp == "2026-12-02T10:00:01.000000Z"
    # The proxy was killed before write_file was answered: the call is kept, outcome unknown.
    assert (write_file.id, write_file.is_error, write_file.duration) == ("3", None, None)
    assert any("no end line" in note for note in trace.notes)


def test_a_completed_session_has_no_note() -> None:
    lines = [{"kind": "toolscore.mcp_session", "version": "1", "transport": "http",
              "server": "http://127.0.0.1:9/mcp", "started_at": "2026-12-02T10:00:00Z"},
             {"kind": "end", "ended_at": "2026-12-02T10:00:01Z", "exit_code": 0}]
    trace, _ = parse_trace(lines)
    assert trace.calls == () and trace.notes == ()


def test_only_orphan_responses_is_an_error_not_zero_calls() -> None:
    orphans = [{"jsonrpc": "2.0", "id": 4, "result": {"content": [], "isError": True}}]
    with pytest.raises(InputError, match="unsupported: the MCP log holds 1 tool response"):
        parse_trace(orphans)


def test_a_session_reads_batches_and_skips_unparsed_lines() -> None:
    def line(direction: str, clock: float, message: object) -> dict[str, object]:
        return {"kind": "message", "direction": direction, "monotonic": clock,
                "timestamp": f"2026-12-02T10:00:0{int(clock)}.000000Z", "message": message,
                "planted": None}

    lines = [{"kind": "toolscore.mcp_session", "version": "1", "transport": "stdio",
              "server": ["srv"], "started_at": "2026-12-02T10:00:00Z"},
             line("client_to_server", 1.0, [
                 {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "a", "arguments": {}}},
                 {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "b", "arguments": {}}}]),
             {"kind": "unparsed", "direction": "server_to_client", "monotonic": 1.5,
              "timestamp": "2026-12-02T10:00:01.500000Z", "raw": "debug: starting"},
             line("server_to_client", 2.0, [
                 {"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": True}},
                 {"jsonrpc": "2.0", "id": 1, "result": {"content": [
                     {"type": "text", "text": "ok"}]}}]),
             {"kind": "end", "ended_at": "2026-12-02T10:00:03Z", "exit_code": 0}]
    trace, _ = parse_trace(lines)
    assert [(c.tool, c.result, c.is_error, c.duration) for c in trace.calls] == [
        ("a", "ok", False, 1.0), ("b", None, True, 1.0)]
    assert trace.notes == ()
