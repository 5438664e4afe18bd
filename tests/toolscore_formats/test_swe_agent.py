"""SWE-agent trajectories: each step's action a call (the history's tool call with function
calling, the action's first word in thought/action mode), its observation the result, the
submitted patch the final answer, tokens and cost from info.model_stats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.traces import load_trace, parse_trace
from toolscore_formats.swe_agent import near

FIXTURES = Path(__file__).parent / "fixtures"
FUNCTION_CALLING = FIXTURES / "swe_agent_function_calling.traj.json"
THOUGHT_ACTION = FIXTURES / "swe_agent_thought_action.traj.json"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_function_calling_steps_are_the_tool_calls_the_history_records() -> None:
    trace = load_trace(FUNCTION_CALLING)[0]
    assert trace.format == "swe_agent"
    assert [(c.tool, c.id, c.args) for c in trace.calls] == [
        ("find_file", "call_fJuazlMUN5fQDQ73G6XSpYpx", {"file_name": "missing_colon.py"}),
        ("open", "call_OhmPHGZp0XJ6JRnNkQaYcBMs",
         {"path": "/SWE-agent__test-repo/tests/missing_colon.py"}),
        ("edit", "call_DVnbJcFrvwPsrPt3KfIMf7OH",
         {"search": "def division(a: float, b: float) -> float",
          "replace": "def division(a: float, b: float) -> float:", "replace-all": False}),
        ("bash", "call_dcF76aXH6e1pzqRwGxOwpuxb",
         {"command": "python3 /SWE-agent__test-repo/tests/missing_colon.py"}),
        # The file's history ends before the submit step: no tool call of it is recorded.
        ("submit", None, {"command": "submit"}),
    ]
    assert trace.notes == ("1 step with no tool call in the history (trajectory 4): the tool "
                           "named by the action's first word, the action as its command",)


def test_observations_are_results_and_execution_times_durations() -> None:
    trace = load_trace(FUNCTION_CALLING)[0]
    steps = _load(FUNCTION_CALLING)["trajectory"]
    # The trajectory's observation, not the history's message (which adds the prompt's
    # "(Open file: ...)" footer).
    assert [c.result for c in trace.calls] == [s["observation"] for s in steps]
    assert trace.calls[3].result == "8.2"
    assert [c.is_error for c in trace.calls] == [False] * 5
    assert [c.duration for c in trace.calls] == [
        0.2814128329991945, 0.29675291599960474, 0.4935787079994043, 0.2925790000008419,
        0.2691650420001679]
    assert [c.timestamp for c in trace.calls] == [None] * 5


def test_the_submission_is_the_answer_and_model_stats_the_usage_and_cost() -> None:
    trace = load_trace(FUNCTION_CALLING)[0]
    assert trace.final_answer is not None
    assert trace.final_answer.startswith("\r\ndiff --git a/tests/missing_colon.py")
    assert "+def division(a: float, b: float) -> float:" in trace.final_answer
    assert trace.model == "gpt-4o"
    assert trace.usage == {"input_tokens": 7141, "output_tokens": 243}
    assert trace.run_cost == pytest.approx(0.01952)
    assert trace.run_duration is None


def test_thought_action_steps_are_the_commands_by_their_first_word() -> None:
    trace = load_trace(THOUGHT_ACTION)[0]
    assert trace.format == "swe_agent"
    assert [(c.tool, c.id, c.args) for c in trace.calls] == [
        ("find_file", None, {"command": 'find_file "missing_colon.py"'}),
        ("open", None, {"command": "open tests/missing_colon.py"}),
        ("edit", None, {"command": "edit 4:4\ndef division(a: float, b: float) -> float:\n"
                                   "end_of_edit"}),
        ("python", None, {"command": "python tests/missing_colon.py"}),
        ("submit", None, {"command": "submit"}),
    ]
    assert [(c.result, c.is_error) for c in trace.calls][3] == ("8.2\n", False)
    # This older file has no execution_time: durations are unknown, not 0.
    assert [c.duration for c in trace.calls] == [None] * 5
    assert trace.final_answer is not None and trace.final_answer.startswith("\ndiff --git")
    assert (trace.model, trace.usage, trace.run_cost) == (
        None, {"input_tokens": 52861, "output_tokens": 326}, 0.53839)
    assert trace.notes == ()
    assert trace.replies is None


def test_a_contract_of_the_fix_scores_a_thought_action_run(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", {"expected": [
        {"tool": "open"}, {"tool": "edit", "args": {"command": {"$regex": "^edit 4:4"}}},
        {"tool": "submit"}]})
    result = run_cli("eval", str(gold), str(THOUGHT_ACTION), "--json", "-")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    metrics = record["metrics"]
    assert (metrics["required_call_recall"], metrics["argument_f1"]) == (1.0, 1.0)
    assert metrics["cost_metrics"]["run_cost"] == 0.53839
    assert metrics["latency_metrics"]["status"] == "unknown"  # no execution_time: not 0
    assert record["coverage"]["final_answer_known"] is True


def test_a_run_without_a_submission_has_no_answer_and_says_how_it_ended() -> None:
    document = _load(THOUGHT_ACTION)
    document["info"]["submission"] = None
    document["info"]["exit_status"] = "exit_cost"
    trace = parse_trace(document)[0]
    assert trace.final_answer is None
    assert trace.notes == ("the run ended with exit_status 'exit_cost'",
                           "no submission (info.submission is empty): no final answer")


def test_missing_token_counts_are_unknown_not_zero() -> None:
    document = _load(FUNCTION_CALLING)
    del document["info"]["model_stats"]["tokens_received"]
    del document["info"]["model_stats"]["instance_cost"]
    trace = parse_trace(document)[0]
    assert (trace.usage, trace.run_cost) == (None, None)
    assert "the run's token usage is unknown" in trace.notes[-1]


def test_a_step_without_an_action_is_no_call() -> None:
    document = _load(THOUGHT_ACTION)
    document["trajectory"][1]["action"] = ""
    trace = parse_trace(document)[0]
    assert [c.tool for c in trace.calls] == ["find_file", "edit", "python", "submit"]
    assert trace.notes == ("1 step without an action (trajectory 1): not calls",)


def test_a_malformed_step_is_told_and_one_line_when_forced(tmp_path: Path) -> None:
    document = _load(THOUGHT_ACTION)
    del document["trajectory"][2]["observation"]
    with pytest.raises(InputError, match="no trace format recognises"):
        parse_trace(document)
    assert near(document) == ('a SWE-agent trajectory, but $.trajectory[2] is not a step (an '
                              'object with "action" and "observation" strings)')
    trace = write_json(tmp_path / "run.traj", document)
    gold = write_json(tmp_path / "gold.json", [{"tool": "submit"}])
    result = run_cli("eval", str(gold), str(trace), "--format", "swe_agent")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f'error: {trace}: $.trajectory[2]: a step is an object with "action" and '
        '"observation" strings; give the .traj file SWE-agent wrote, unchanged: its steps '
        'are objects with "action" and "observation" strings']


def test_steps_take_the_historys_calls_in_order_past_a_step_it_does_not_hold() -> None:
    document = _load(FUNCTION_CALLING)
    steps = document["trajectory"]
    # A step asked again (not in the history) before the first; the first step's action
    # again after the second: the history's one find_file call is taken already.
    document["trajectory"] = [{**steps[1], "action": "open nowhere.py"}, steps[0], steps[1],
                              steps[0], *steps[2:]]
    trace = parse_trace(document)[0]
    assert [(c.tool, c.id) for c in trace.calls][:4] == [
        ("open", None), ("find_file", "call_fJuazlMUN5fQDQ73G6XSpYpx"),
        ("open", "call_OhmPHGZp0XJ6JRnNkQaYcBMs"), ("find_file", None)]
