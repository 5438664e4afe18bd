"""Codex CLI rollouts: the Responses items as calls joined to their outputs by call_id, a
command's exit code and duration from Codex's own lines, turns from the user's messages,
the session's tokens from the running totals."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.models import FormatChoice, Trace
from toolscore_core.traces import parse_trace
from toolscore_formats.codex import near

FIXTURES = Path(__file__).parent / "fixtures"
Read = Callable[[str], tuple[Trace, FormatChoice]]
ROLLOUT = ('a Codex CLI session rollout (a "session_meta" line, then "response_item" / '
           '"event_msg" lines)')
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"
ANSWERS = ("Let me look at the files.", "The folder holds notes.txt; missing.txt does not exist.",
           "You're welcome.")


def _lines(name: str) -> list[dict[str, Any]]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _write_lines(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _rows(trace: Trace) -> list[tuple[Any, ...]]:
    return [(c.tool, c.id, c.args, c.is_error, c.duration, c.timestamp, c.turn)
            for c in trace.calls]


def test_codex_0_171_calls_with_exit_codes_and_times_from_its_events(read: Read) -> None:
    trace, choice = read("codex_rollout.jsonl")
    assert (choice.format, choice.reason) == ("codex", ROLLOUT)
    assert _rows(trace) == [
        ("exec_command", "call_ls", {"cmd": "ls"}, False, 0.335925016,
         "2026-12-07T00:03:43.245Z", 1),
        ("exec_command", "call_cat", {"cmd": "cat missing.txt"}, True, 0.264912999,
         "2026-12-07T00:03:43.856Z", 1),
        # Codex has no such tool and answers so ("unsupported custom tool call: apply_patch"):
        # the call never ran, it failed.
        ("apply_patch", "call_patch", {"input": PATCH}, True, None,
         "2026-12-07T00:03:44.347Z", 1),
    ]
    ls, cat, patch = trace.calls
    # The result is what the model got; the exit code's error quotes the command's output.
    assert ls.result == ("Chunk ID: 557071\nWall time: 0.3361 seconds\nProcess exited with "
                         "code 0\nOriginal token count: 3\nOutput:\nnotes.txt\n")
    assert cat.error == "exit code 1: cat: missing.txt: No such file or directory"
    assert cat.result is not None and "Process exited with code 1" in cat.result
    assert patch.result == patch.error == "unsupported custom tool call: apply_patch"
    assert trace.notes == ()


def test_turns_answer_and_replies_come_from_the_users_and_agents_messages(read: Read) -> None:
    trace, _ = read("codex_rollout.jsonl")
    # The environment context Codex sends as a user message starts no turn: the three calls
    # answer the first prompt, and the resumed session's "Thanks" is turn 2 (no call).
    assert {call.turn for call in trace.calls} == {1}
    assert trace.replies == ANSWERS
    assert trace.final_answer == "You're welcome."
    assert trace.model == "gpt-5-codex"


def test_usage_is_the_sessions_running_total_across_a_resume(read: Read) -> None:
    trace, _ = read("codex_rollout.jsonl")
    # The scripted model's five responses sum to these counts; Codex 0.171's last total
    # holds them all, the resumed turn's included.
    assert trace.usage == {
        "input_tokens": 5010, "output_tokens": 110, "total_tokens": 5120,
        "input_token_details": {"cache_read": 1000, "cache_creation": 0},
        "output_token_details": {"reasoning": 0}}


def test_codex_0_47_shell_calls_take_exit_codes_from_the_outputs_json(read: Read) -> None:
    trace, choice = read("codex_rollout_shell.jsonl")
    assert choice.format == "codex"
    assert _rows(trace) == [
        ("shell", "call_ls", {"command": ["bash", "-lc", "ls"]}, False, 0.4,
         "2026-12-07T00:03:09.267Z", 1),
        ("shell", "call_cat", {"command": ["bash", "-lc", "cat missing.txt"]}, True, 0.3,
         "2026-12-07T00:03:09.616Z", 1),
        ("apply_patch", "call_patch", {"input": PATCH}, False, 0.0,
         "2026-12-07T00:03:09.719Z", 1),
    ]
    cat = trace.calls[1]
    assert cat.error == "exit code 1: cat: missing.txt: No such file or directory"
    assert cat.result == ('{"output":"cat: missing.txt: No such file or directory\\n",'
                          '"metadata":{"exit_code":1,"duration_seconds":0.3}}')
    # A turn_context line precedes each model request in 0.47: still one turn per prompt.
    assert trace.replies == ANSWERS and trace.final_answer == "You're welcome."


def test_counts_that_start_afresh_in_a_resumed_run_are_summed(read: Read) -> None:
    trace, _ = read("codex_rollout_shell.jsonl")
    # 0.47 ends the first run at 4092 tokens and counts the resumed one from zero (1028):
    # the session used both.
    assert trace.usage == {"input_tokens": 5010, "output_tokens": 110, "total_tokens": 5120,
                           "input_token_details": {"cache_read": 1000},
                           "output_token_details": {"reasoning": 0}}
    assert trace.notes == ("the token counts start afresh 1 time (a resumed session): usage "
                           "is the sum of each run's last total",)


def test_a_real_session_without_calls_gives_its_answer_model_and_usage(read: Read) -> None:
    trace, choice = read("codex_rollout_no_calls.jsonl")
    assert choice.format == "codex"
    assert trace.calls == ()
    # The agent_message event repeats the assistant message: one reply, not two.
    assert trace.replies == ("[REDACTED_ASSISTANT_TEXT]",)
    assert trace.final_answer == "[REDACTED_ASSISTANT_TEXT]"
    assert trace.model == "gpt-5.5"
    assert trace.usage == {"input_tokens": 22539, "output_tokens": 10, "total_tokens": 22549,
                           "input_token_details": {"cache_read": 20864},
                           "output_token_details": {"reasoning": 0}}


def test_without_a_token_count_the_usage_is_unknown() -> None:
    lines = [line for line in _lines("codex_rollout_no_calls.jsonl")
             if line["payload"].get("type") != "token_count"]
    trace, _ = parse_trace(lines)
    assert trace.usage is None


def test_codex_0_132_exit_codes_come_from_the_header_before_the_output(read: Read) -> None:
    """0.132 writes no event with the exit code: Codex's header of the output the model got
    (``Wall time: ... seconds``, ``Process exited with code N``, then ``Output:``) says it."""
    trace, choice = read("codex_rollout_0_132.jsonl")
    assert choice.format == "codex"
    assert [(c.tool, c.id, c.is_error, c.error, c.duration) for c in trace.calls] == [
        ("exec_command", "call_ls", False, None, 0.4771),
        ("exec_command", "call_cat", True,
         "exit code 1: cat: missing.txt: No such file or directory", 0.3549),
        ("apply_patch", "call_patch", True, "unsupported custom tool call: apply_patch", None),
    ]
    # 0.132 runs the totals on across the resumed turn, as 0.171 does.
    assert trace.usage is not None and trace.usage["total_tokens"] == 5120
    assert trace.notes == ()


def test_an_event_s_exit_code_and_duration_come_before_the_header() -> None:
    lines = _lines("codex_rollout.jsonl")
    trace, _ = parse_trace(lines)
    assert [c.duration for c in trace.calls[:2]] == [0.335925016, 0.264912999]
    # Without the CommandExecution events, the header's code and wall time.
    lines = [line for line in lines
             if line["payload"].get("item", {}).get("type") != "CommandExecution"]
    trace, _ = parse_trace(lines)
    assert [(c.is_error, c.duration) for c in trace.calls] == [
        (False, 0.3361), (True, 0.2651), (True, None)]


def test_a_call_codex_has_no_tool_for_failed(read: Read) -> None:
    """Codex 0.132 offers the model no ``shell`` tool: it answers the calls
    ``unsupported call: shell`` (no exit code, no error flag): they never ran."""
    trace, _ = read("codex_rollout_0_132_shell.jsonl")
    assert [(c.tool, c.id, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("shell", "call_ls", "unsupported call: shell", True, "unsupported call: shell"),
        ("shell", "call_cat", "unsupported call: shell", True, "unsupported call: shell"),
        ("apply_patch", "call_patch", "unsupported custom tool call: apply_patch", True,
         "unsupported custom tool call: apply_patch"),
    ]
    assert trace.notes == ()


def test_a_command_answered_without_an_exit_code_has_an_unknown_outcome() -> None:
    # Constructed from codex_rollout_0_132.jsonl: ls's output without the header line that
    # gives its exit code (the only place 0.132 writes it).
    lines = _lines("codex_rollout_0_132.jsonl")
    for line in lines:
        payload = line["payload"]
        if payload.get("type") == "function_call_output" and payload["call_id"] == "call_ls":
            payload["output"] = payload["output"].replace("Process exited with code 0\n", "")
    trace, _ = parse_trace(lines)
    assert [(c.id, c.is_error) for c in trace.calls[:2]] == [("call_ls", None),
                                                            ("call_cat", True)]
    assert trace.notes[0] == ("1 command call answered without an exit code (call_ls): "
                              "outcome unknown")


def test_a_call_with_no_output_has_an_unknown_outcome() -> None:
    lines = [line for line in _lines("codex_rollout.jsonl")
             if line["payload"].get("call_id") != "call_cat"
             or line["payload"].get("type") == "function_call"]
    trace, _ = parse_trace(lines)
    cat = trace.calls[1]
    # The CommandExecution event alone does not answer the call the model asked for.
    assert (cat.id, cat.result, cat.is_error) == ("call_cat", None, None)


def test_a_reasoning_item_is_noted_not_read() -> None:
    lines = _lines("codex_rollout.jsonl")
    # Codex writes the model's reasoning as a Responses item; this run's model sent none.
    reasoning = {"timestamp": lines[11]["timestamp"], "type": "response_item",
                 "payload": {"type": "reasoning", "summary": [], "content": None,
                             "encrypted_content": "gAAAA"}}
    trace, _ = parse_trace([*lines[:11], reasoning, *lines[11:]])
    assert trace.notes == ("1 reasoning item (the model's reasoning) not read",)
    assert len(trace.calls) == 3


def test_rollout_lines_without_the_session_meta_line_are_still_codex() -> None:
    lines = _lines("codex_rollout_0_132.jsonl")[1:]
    trace, choice = parse_trace(lines)
    assert (choice.format, choice.reason) == (
        "codex", 'Codex CLI rollout lines ("response_item" / "event_msg" with a "payload")')
    assert len(trace.calls) == 3


def test_a_broken_line_is_a_near_miss_and_one_error_line_naming_it(tmp_path: Path) -> None:
    lines: list[Any] = _lines("codex_rollout_shell.jsonl")
    del lines[9]["payload"]
    with pytest.raises(InputError, match="no trace format recognises"):
        parse_trace(lines)
    assert near(lines) == ("a Codex CLI rollout, but $[9] (line 10) is not a rollout line (an "
                           'object with a "type" and a "payload" object)')
    trace = _write_lines(tmp_path / "rollout.jsonl", lines)
    gold = write_json(tmp_path / "gold.json", [{"tool": "shell"}])
    result = run_cli("eval", str(gold), str(trace), "--format", "codex")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f'error: {trace}: $[9] (line 10): a rollout line is an object with a "type" and a '
        '"payload" object; give the rollout as Codex wrote it: one JSON object a line, each '
        'with a "type" and a "payload" object']


def test_eval_fails_the_command_that_exited_non_zero(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [
        {"tool": "exec_command", "args": {"cmd": "ls"}},
        {"tool": "exec_command", "args": {"cmd": "cat missing.txt"}},
    ])
    result = run_cli("eval", str(gold), str(FIXTURES / "codex_rollout.jsonl"), "--json", "-")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["trace"]["format"] == "codex"
    # The failed cat does not count as the required call made.
    assert record["required_call_recall"] == 0.5
    checks = {e["check"]: e for e in record["evidence"]["checks"]}
    assert (checks["call-errors"]["status"], checks["call-errors"]["reason"]) == (
        "fail", "2 calls failed: #2 exec_command (exit code 1: cat: missing.txt: No such file "
        "or directory), #3 apply_patch (unsupported custom tool call: apply_patch)")
    # apply_patch's time is unknown (no event times it): latency covers 2 of 3 calls.
    latency = record["metrics"]["latency_metrics"]
    assert (latency["status"], latency["measured_calls"], latency["total_duration"]) == (
        "partial", 2, 0.600838015)
