"""OpenHands trajectories: the agent's tool actions as calls, answered by the observation they
caused; exit codes and the file editor's errors as failures; the finish text as the answer."""

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
from toolscore_core.traces import parse_trace
from toolscore_formats.openhands import near

FIXTURES = Path(__file__).parent / "fixtures"
Read = Callable[[str], tuple[Trace, FormatChoice]]
TRAJECTORY = "an OpenHands trajectory (events with id, source, action/observation)"


def _load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _rows(trace: Trace) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.is_error, c.error, c.duration, c.timestamp, c.turn)
            for c in trace.calls]


def test_calls_take_the_function_and_arguments_the_model_sent(read: Read) -> None:
    trace, choice = read("openhands_wrong_initial_state.json")
    assert (choice.format, choice.reason) == ("openhands", TRAJECTORY)
    view = {"command": "view", "path": "/workspace"}
    # The model sent is_input as the text "false" (the action's args hold False): the call's
    # arguments are what the model sent.
    move = {"command": "mv /workspace/game_2048.py /workspace/2048.py", "is_input": "false"}
    assert _rows(trace) == [
        ("str_replace_editor", "toolu_01USom24cuiyvAembLhEryrn", view, False, None, 0.035473,
         "2025-01-27T23:16:54.105108", 1),
        ("execute_bash", "toolu_01PuY3mXrE6fm3j52GscR4rj", move, False, None, 0.648763,
         "2025-01-27T23:16:56.951967", 1),
        ("str_replace_editor", "toolu_01DodVjoeVmEY3gU5ALbqmGj", view, False, None, 0.020823,
         "2025-01-27T23:16:59.803261", 1),
        # finish is a function the model called; no observation answers it.
        ("finish", "toolu_01G98EmHEC8HgktRjJBYXqEa", {}, None, None, None,
         "2025-01-27T23:17:02.182015", 1),
    ]
    assert trace.calls[0].result == (
        "Here's the files and directories up to 2 levels deep in /workspace, excluding hidden "
        "items:\n/workspace/\n/workspace/game_2048.py")
    assert trace.calls[1].result == ""
    assert trace.final_answer == (
        "The file has been successfully renamed from `game_2048.py` to `2048.py`. Is there "
        "anything else you need help with?")
    assert trace.model == "claude-3-5-sonnet-20241022"
    # Four model responses, each counted once (an action and its observation repeat it).
    assert trace.usage == {
        "cache_creation_input_tokens": 3471 + 139 + 188 + 129,
        "cache_read_input_tokens": 0 + 3471 + 3610 + 3798,
        "completion_tokens": 95 + 111 + 85 + 67,
        "prompt_tokens": 3475 + 3616 + 3804 + 3933,
        "prompt_tokens_details": {"cached_tokens": 0 + 3471 + 3610 + 3798},
        "total_tokens": 3570 + 3727 + 3889 + 4000,
    }
    assert trace.run_cost is None
    assert trace.notes == ()
    assert trace.replies is not None and trace.replies[-1] == trace.final_answer


def test_a_non_zero_exit_code_fails_the_command_and_the_agents_message_answers(
        read: Read) -> None:
    trace, _ = read("openhands_basic_gui_mode.json")
    assert [(c.tool, c.is_error) for c in trace.calls] == [
        ("execute_bash", False), ("str_replace_editor", False), ("str_replace_editor", False),
        ("execute_bash", True)]
    server = trace.calls[3]
    assert server.args == {"command": "cd /workspace/todo-app && python3 -m http.server 8000"}
    # Still serving when the runtime stopped waiting: OpenHands reports exit code -1.
    assert server.error == ("exit code -1: Serving HTTP on 0.0.0.0 port 8000 "
                            "(http://0.0.0.0:8000/) ...")
    assert server.result == "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ..."
    assert server.duration == 30.58023
    # The environment's state changes and change_agent_state are not calls.
    assert len(trace.calls) == 4
    assert trace.final_answer is not None and trace.final_answer.startswith(
        "I've created a complete Vue.js todo application with all the requested features.")
    # The agent's last reply is a model call whose usage the file does not hold.
    assert trace.usage is None
    assert trace.notes == ("usage on tool_call_metadata.model_response on 4 of 5 model calls: "
                           "the run's token usage is unknown",)


def test_user_messages_start_turns_and_a_finish_without_text_is_no_answer(read: Read) -> None:
    trace, _ = read("openhands_basic_interactions.json")
    assert _rows(trace) == [("finish", "call_IpyczPgEAwtpRWFZ2RNokTdH", {}, None, None, None,
                             "2025-02-01T00:19:01.168854", 3)]
    # The event's message is OpenHands' placeholder ("All done! What's next on the
    # agenda?"), not the agent's; the agent's replies answered earlier turns.
    assert trace.final_answer is None
    assert trace.replies == ("1 + 1 equals 2.", (
        "Goldbach's conjecture is an unsolved problem in number theory that suggests every "
        "even integer greater than 2 can be expressed as the sum of two prime numbers. "
        "However, it doesn't directly apply to the sum of 1 + 1, as 1 is not considered a "
        "prime number. The conjecture is more relevant to larger even numbers."))
    assert trace.notes == (
        "the finish action holds no text: no final answer",
        "usage on tool_call_metadata.model_response on 1 of 3 model calls: the run's token "
        "usage is unknown")


def test_an_evaluation_row_reads_its_history(read: Read) -> None:
    trace, choice = read("openhands_multi_swe_bench_row.json")
    assert choice.reason == "a row of an OpenHands evaluation output.jsonl (its history)"
    assert len(trace.calls) == 33
    assert [c.id for c in trace.calls] == [f"toolu_{n:02d}" for n in range(1, 34)]
    assert {c.tool for c in trace.calls} == {"execute_bash", "str_replace_editor", "finish"}
    assert {c.turn for c in trace.calls} == {1}
    failed = [(c.id, c.error) for c in trace.calls if c.is_error]
    assert failed[:2] == [
        ("toolu_02", "exit code 2: ls: cannot access 'src/lib': No such file or directory"),
        ("toolu_08", "exit code 1"),  # grep found nothing: the exit code says so
    ]
    # The file editor answers a tool error as a read/edit observation holding "ERROR:".
    assert failed[2] == ("toolu_14", "Invalid `view_range` parameter: [100, 150]. Its second "
                         "element `150` should be smaller than the number of lines in the "
                         "file: `122`.")
    # 2 non-zero exit codes and 11 editor errors; the rest came back, but finish (no
    # observation answers it).
    assert len(failed) == 13
    assert [c.is_error for c in trace.calls].count(False) == 33 - 13 - 1
    assert trace.calls[-1].is_error is None
    # The finish's final_thought, not the model's text beside the call (its thought).
    assert trace.final_answer == (
        "Unable to make necessary changes to the file /workspace/ponylang__ponyc__0.1/"
        "packages/cli/command_parser.pony using the str_replace_editor tool. The issue is "
        "related to the handling of parent default options when parsing a subcommand.")
    assert trace.model == "meta-llama/llama-4-maverick"
    # The model responses' usage sums to what the row's metrics accumulated.
    row = _load("openhands_multi_swe_bench_row.json")
    accumulated = row["metrics"]["accumulated_token_usage"]
    assert trace.usage == {"completion_tokens": accumulated["completion_tokens"],
                           "prompt_tokens": accumulated["prompt_tokens"],
                           "total_tokens": 415325}
    # accumulated_cost is 0.0, but no model call was priced: unknown, not free.
    assert row["metrics"]["accumulated_cost"] == 0.0
    assert trace.run_cost is None
    assert trace.notes == (
        "1 error observation with no action as its cause (event 29 (Parameter 'command' is "
        "expected to be one of ['view', 'create', 'str_replace', 'insert', 'undo_edit'].)): a "
        "call OpenHands refused before running it, not read as a call",
        "llm_metrics prices 0 of 33 model calls (accumulated_cost counts only those): the "
        "run's cost is unknown")


def test_the_trajectory_api_response_reads_as_the_saved_list() -> None:
    events = _load("openhands_wrong_initial_state.json")
    saved, _ = parse_trace(events)
    served, choice = parse_trace({"trajectory": events})
    assert choice.reason == "OpenHands' trajectory API response (\"trajectory\")"
    assert served.calls == saved.calls
    assert served.final_answer == saved.final_answer


def test_without_function_calling_the_action_names_the_call() -> None:
    events = _load("openhands_wrong_initial_state.json")
    for event in events:
        event.pop("tool_call_metadata", None)
    trace, _ = parse_trace(events)
    assert [c.tool for c in trace.calls] == ["read", "run", "read", "finish"]
    assert [c.id for c in trace.calls] == [None] * 4
    assert trace.calls[1].args is not None
    assert trace.calls[1].args["command"] == "mv /workspace/game_2048.py /workspace/2048.py"
    assert trace.calls[1].args["is_input"] is False
    assert trace.usage is None and trace.model is None


def test_several_evaluation_rows_are_refused_with_the_fix() -> None:
    row = _load("openhands_multi_swe_bench_row.json")
    with pytest.raises(InputError, match="2 rows of an OpenHands evaluation output") as caught:
        parse_trace([row, row], trace_format="openhands")
    assert caught.value.fix == "give one row (one line of output.jsonl) per file"


def test_a_list_with_a_non_event_is_left_unclaimed_and_told_why() -> None:
    events = _load("openhands_basic_interactions.json")
    broken = copy.deepcopy(events)
    del broken[2]["source"]
    with pytest.raises(InputError, match="no trace format recognises"):
        parse_trace(broken)
    assert near(broken) == (
        "an OpenHands trajectory, but $[2] is not an OpenHands event (an integer id, a source "
        "of agent, user or environment, and an action or observation)")


def test_a_broken_event_read_as_openhands_is_one_line_naming_it(tmp_path: Path) -> None:
    events = _load("openhands_basic_interactions.json")
    del events[2]["source"]
    trace = write_json(tmp_path / "trace.json", events)
    gold = write_json(tmp_path / "gold.json", [{"tool": "finish"}])
    result = run_cli("eval", str(gold), str(trace), "--format", "openhands")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {trace}: $[2]: an OpenHands event has an integer id, a source (agent, user "
        "or environment) and an action or an observation; give the trajectory as OpenHands "
        "saves it (the UI's download, or --save-trajectory-path): a list of events, each "
        "with an id, a source and an action or observation"]


def test_eval_scores_an_openhands_trajectory_against_a_contract(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [
        {"tool": "str_replace_editor", "args": {"command": "view", "path": "/workspace"}},
        {"tool": "execute_bash",
         "args": {"command": "mv /workspace/game_2048.py /workspace/2048.py",
                  "is_input": "false"}},
    ])
    trace = FIXTURES / "openhands_wrong_initial_state.json"
    result = run_cli("eval", str(gold), str(trace), "--json", "-")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["trace"]["format"] == "openhands"
    assert record["required_call_recall"] == 1.0
    # finish has no observation: its time is unknown, so latency covers 3 of 4 calls.
    latency = record["metrics"]["latency_metrics"]
    assert (latency["status"], latency["measured_calls"], latency["total_duration"]) == (
        "partial", 3, 0.705059)
    assert record["coverage"]["with_outcome"] == 3


def _event(event_id: int, **fields: Any) -> dict[str, Any]:
    return {"id": event_id, "timestamp": f"2025-05-01T10:00:0{event_id}.000000",
            "source": "agent", **fields}


def test_an_mcp_error_and_an_error_observation_fail_their_calls() -> None:
    """No fixture holds an MCP call: these events are in the shape OpenHands' code writes
    (an MCP action's name and arguments; the CallToolResult, or {"isError": true, "error"},
    as the observation's JSON text)."""
    fetched = json.dumps({"meta": None, "content": [{"type": "text", "text": "<html>"}],
                          "isError": False})
    timed_out = json.dumps({"isError": True, "error": 'Tool "fetch" timed out after 30 '
                            "seconds", "content": []})
    events = [
        {"id": 0, "timestamp": "2025-05-01T10:00:00.000000", "source": "user",
         "action": "message", "args": {"content": "fetch it"}},
        _event(1, action="call_tool_mcp",
               args={"name": "fetch", "arguments": {"url": "https://example.org"},
                     "thought": ""}),
        _event(2, observation="mcp", cause=1, content=fetched, extras={"name": "fetch"}),
        _event(3, action="call_tool_mcp",
               args={"name": "fetch", "arguments": {"url": "https://example.com"},
                     "thought": ""}),
        _event(4, observation="mcp", cause=3, content=timed_out, extras={"name": "fetch"}),
        _event(5, action="run_ipython", args={"code": "1/0", "thought": ""}),
        _event(6, observation="error", cause=5, content="the kernel is not running",
               extras={"error_id": ""}),
    ]
    trace, choice = parse_trace(events)
    assert choice.format == "openhands"
    assert [(c.tool, c.args, c.is_error, c.error, c.turn) for c in trace.calls] == [
        ("fetch", {"url": "https://example.org"}, False, None, 1),
        ("fetch", {"url": "https://example.com"}, True,
         'Tool "fetch" timed out after 30 seconds', 1),
        ("run_ipython", {"code": "1/0", "thought": ""}, True, "the kernel is not running", 1),
    ]
    assert trace.calls[0].result == fetched
    assert [c.duration for c in trace.calls] == [1.0, 1.0, 1.0]
