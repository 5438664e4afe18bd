"""mini-swe-agent trajectories: each command the agent parsed a call of bash, the observation
that answered it the result (a non-zero returncode fails it), the submission the final
answer, instance_cost the run's cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.traces import load_trace, parse_trace
from toolscore_formats.mini_swe_agent import near

FIXTURES = Path(__file__).parent / "fixtures"
SUBMITTED = FIXTURES / "mini_swe_agent_submitted.traj.json"
SERVER_ERROR = FIXTURES / "mini_swe_agent_server_error.traj.json"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_each_bash_tool_call_is_a_call_with_its_id_and_command() -> None:
    trace = load_trace(SERVER_ERROR)[0]
    assert trace.format == "mini_swe_agent"
    assert [(c.tool, c.id, c.args) for c in trace.calls] == [
        ("bash", "call_00_OuHuwnzky8t9nZGQvAlBm7zu", {"command": "ls -la /testbed"}),
        ("bash", "call_00_M8rnSzIiRjz87DgXa474mH8t", {"command": "ls -la /testbed/pvlib/"}),
        ("bash", "call_00_5ij81mkkrNAixyAyA5PPxDUQ",
         {"command": 'grep -n "_golden_sect_DataFrame" /testbed/pvlib/tools.py'}),
        ("bash", "call_00_9dpTIPcbnpGzIUWuncKX5Pli",
         {"command": "sed -n '302,400p' /testbed/pvlib/tools.py"}),
    ]
    messages = _load(SERVER_ERROR)["messages"]
    # The tool message that answers each call, as the model read it.
    assert [c.result for c in trace.calls] == [messages[i]["content"] for i in (3, 5, 7, 9)]
    assert trace.calls[2].result == ("<returncode>0</returncode>\n<output>\n302:def "
                                     "_golden_sect_DataFrame(params, lower, upper, func, "
                                     "atol=1e-8):\n</output>")
    assert [c.is_error for c in trace.calls] == [False] * 4
    # From the model's answer to the observation, by the agent's own clock.
    assert trace.calls[0].timestamp == "2026-04-13T10:20:47.150651Z"
    assert trace.calls[0].duration == pytest.approx(1776075647.357009 - 1776075647.1506512)


def test_a_run_that_ended_on_an_error_has_no_answer_and_says_how_it_ended() -> None:
    trace = load_trace(SERVER_ERROR)[0]
    assert trace.final_answer is None
    assert trace.notes == ("the run ended with exit_status 'InternalServerError'",
                           "no submission (info.submission is empty): no final answer")
    assert (trace.model, trace.run_cost, trace.usage) == (
        "deepseek/deepseek-reasoner", 0.001055488, None)
    assert trace.replies is None


def test_a_non_zero_returncode_fails_the_call_and_keeps_its_output() -> None:
    trace = load_trace(SUBMITTED)[0]
    assert len(trace.calls) == 43  # one per model message, every one a bash tool call
    failed = [(i, c.error) for i, c in enumerate(trace.calls) if c.is_error]
    assert failed == [(10, "exit code 1"), (13, "exit code 1"), (30, "exit code 4")]
    assert trace.calls[10].result == (
        "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File "
        "\"/testbed/test_l060.py\", line 1, in <module>\n    import sqlfluff\n"
        "ModuleNotFoundError: No module named 'sqlfluff'\n</output>")
    assert sum(c.is_error is False for c in trace.calls) == 40


def test_the_submission_is_the_answer_and_the_submit_command_its_call() -> None:
    trace = load_trace(SUBMITTED)[0]
    document = _load(SUBMITTED)
    assert trace.final_answer == document["info"]["submission"]
    assert trace.final_answer.startswith("diff --git a/src/sqlfluff/rules/L060.py")
    last = trace.calls[-1]
    assert last.args == {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"}
    # No observation follows the submit command: the run's exit message carries its output.
    assert (last.result, last.is_error, last.duration) == (trace.final_answer, False, None)
    assert (trace.model, trace.run_cost, trace.notes) == (
        "deepseek/deepseek-chat", 0.015627724, ())


def test_a_contract_scores_the_run_and_its_cost(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", {"expected": [
        {"tool": "bash", "args": {"command": {"$regex": "^cat ./src/sqlfluff/rules/L060.py$"}}},
        {"tool": "bash", "args": {"command": {"$regex": "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}}},
    ]})
    result = run_cli("eval", str(gold), str(SUBMITTED), "--json", "-")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["metrics"]["required_call_recall"] == 1.0
    assert record["metrics"]["cost_metrics"]["run_cost"] == 0.015627724
    assert record["coverage"]["final_answer_known"] is True


def test_a_format_error_is_no_call_and_a_note() -> None:
    document = _load(SERVER_ERROR)
    # What the agent keeps when the model's answer holds no bash call: no model message,
    # a user message with its format-error prompt (agents/default.py, FormatError).
    document["messages"][4:6] = [{
        "role": "user", "content": "No tool calls found in the response.",
        "extra": {"interrupt_type": "FormatError"}}]
    trace = parse_trace(document)[0]
    assert [c.args["command"] for c in trace.calls] == [
        "ls -la /testbed", 'grep -n "_golden_sect_DataFrame" /testbed/pvlib/tools.py',
        "sed -n '302,400p' /testbed/pvlib/tools.py"]
    assert [c.is_error for c in trace.calls] == [False] * 3
    assert trace.notes[0] == ("1 format error (messages 4): the model's answer held no "
                              "command the agent could run, so no call")


def test_a_timed_out_command_fails_with_the_agents_exception_info() -> None:
    document = _load(SERVER_ERROR)
    document["messages"][5]["extra"]["returncode"] = -1
    document["messages"][5]["extra"]["exception_info"] = "action was not executed"
    trace = parse_trace(document)[0]
    assert (trace.calls[1].is_error, trace.calls[1].error) == (True, "action was not executed")


def test_missing_cost_is_unknown_not_zero() -> None:
    document = _load(SERVER_ERROR)
    del document["info"]["model_stats"]["instance_cost"]
    assert parse_trace(document)[0].run_cost is None


def test_a_malformed_message_is_told_and_one_line_when_forced(tmp_path: Path) -> None:
    document = _load(SERVER_ERROR)
    del document["messages"][3]["role"]
    with pytest.raises(InputError, match="no trace format recognises"):
        parse_trace(document)
    assert near(document) == ('a mini-swe-agent trajectory, but $.messages[3]: a message is '
                              'an object with a "role"')
    trace = write_json(tmp_path / "run.traj.json", document)
    gold = write_json(tmp_path / "gold.json", [{"tool": "bash"}])
    result = run_cli("eval", str(gold), str(trace), "--format", "mini_swe_agent")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f'error: {trace}: $.messages[3]: a message is an object with a "role"; give the '
        '.traj.json file mini-swe-agent wrote, unchanged: "messages" is a list of objects '
        'with a "role"']


def test_a_trajectory_without_parsed_actions_is_refused_not_read_as_no_calls() -> None:
    document = _load(SERVER_ERROR)
    for message in document["messages"]:
        message.get("extra", {}).pop("actions", None)
    with pytest.raises(InputError, match=r"\$\.messages\[2\].*extra\.actions"):
        parse_trace(document)


def test_a_run_saved_before_its_exit_message_is_still_mini_swe_agents() -> None:
    # The agent saves the file after every step: until the run ends, its messages are a
    # plain chat log, which openai_chat would read as a run of no calls.
    document = _load(SERVER_ERROR)
    document["messages"] = document["messages"][:-1]
    trace, choice = parse_trace(document)
    assert (choice.format, len(trace.calls)) == ("mini_swe_agent", 4)


def test_observations_answer_their_call_by_id_else_the_first_call_still_open() -> None:
    document = _load(SERVER_ERROR)
    messages = document["messages"]
    first, second = messages[2], messages[4]
    # One model message making both calls, answered second first: by id, then one without
    # an id, which goes to the first call still open.
    first["tool_calls"] = first["tool_calls"] + second["tool_calls"]
    first["extra"]["actions"] = first["extra"]["actions"] + second["extra"]["actions"]
    idless = {key: value for key, value in messages[3].items() if key != "tool_call_id"}
    document["messages"] = [*messages[:3], messages[5], idless, *messages[6:]]
    trace = parse_trace(document)[0]
    assert [(c.id, c.result) for c in trace.calls[:2]] == [
        (first["tool_calls"][0]["id"], messages[3]["content"]),
        (second["tool_calls"][0]["id"], messages[5]["content"])]
