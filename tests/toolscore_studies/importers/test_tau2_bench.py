"""The τ²-bench importer on real simulations (examples/benchmarks/tau2_bench): five airline
tasks of one agent, two telecom tasks of gpt-4o, whose simulated user calls tools too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.helpers import EXAMPLES, read_json, read_rows, run_cli
from tests.toolscore_studies.importers import assert_refused
from toolscore_cli.app import cli
from toolscore_core.errors import InputError
from toolscore_studies.importing import import_runs

HERE = EXAMPLES / "benchmarks" / "tau2_bench"
AIRLINE = HERE / "whissle-airline.json"
TELECOM = HERE / "gpt-4o-telecom.json"


def _imported(source: Path, tmp_path: Path) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    out = tmp_path / f"{source.stem}.jsonl"
    import_runs("tau2_bench", str(source), str(out))
    return {r["task_id"]: r for r in read_rows(out)}, read_json(source)


def _agent_texts(simulation: dict[str, Any]) -> list[str]:
    return [m["content"] for m in simulation["messages"]
            if m["role"] == "assistant" and m["content"]]


@pytest.mark.parametrize("source", [AIRLINE, TELECOM])
def test_each_simulation_is_a_run_with_the_benchmark_s_verdict(
        tmp_path: Path, source: Path) -> None:
    rows, document = _imported(source, tmp_path)
    assert len(rows) == len(document["simulations"])
    for simulation in document["simulations"]:
        row = rows[simulation["task_id"]]
        reward = simulation["reward_info"]["reward"]
        assert row["passed"] is (reward == 1.0)  # the rewards here are 0.0 and 1.0
        assert row["outcome"] == ("passed" if reward == 1.0 else "failed")
        verdict = row["imported"]["verdict"]
        assert verdict["reward"] == reward and verdict["passed"] is row["passed"]
        assert verdict["reward_breakdown"] == simulation["reward_info"]["reward_breakdown"]
        assert verdict["termination_reason"] == simulation["termination_reason"] == "user_stop"
        assert row["trial"] == simulation["trial"] + 1 == 1  # τ²-bench counts trials from 0
        assert row["duration"] == simulation["duration"]
        assert row["agent"] == document["info"]["agent_info"]["llm"]
        task = next(t for t in document["tasks"] if t["id"] == simulation["task_id"])
        assert task["user_scenario"]["instructions"]["reason_for_call"] in row["prompt"]
        # the agent's calls, in order, with their ids and arguments
        made = [c for m in simulation["messages"] if m["role"] == "assistant"
                for c in m["tool_calls"] or ()]
        assert [(c["id"], c["tool"], c["args"]) for c in row["calls"]] == [
            (c["id"], c["name"], c["arguments"]) for c in made]
        texts = _agent_texts(simulation)
        assert row["final_answer"] == texts[-1] and row["trace"]["replies"] == texts


def test_a_tool_message_flagged_error_is_a_failed_call(tmp_path: Path) -> None:
    """Task 9: the agent looked up IFOYWZ (the user said IFOYYZ); the tool raised."""
    rows, _ = _imported(AIRLINE, tmp_path)
    first, second, third, _ = rows["9"]["calls"]
    assert (first["is_error"], first["error"], first["result"]) == (
        True, "Error: Reservation IFOYWZ not found", None)
    # the agent gave the first and the third call the same id: each has its own result
    assert first["id"] == third["id"] == "gem_get_reservation_details_0"
    assert third["is_error"] is False and '"reservation_id": "M20IZO"' in third["result"]
    assert second["is_error"] is False
    assert [c["is_error"] for r in rows.values() for c in r["calls"]].count(True) == 1


def test_the_simulated_user_s_calls_are_not_the_agent_s(tmp_path: Path) -> None:
    """Telecom: the user toggles airplane mode on the phone; the agent only looks things up."""
    rows, document = _imported(TELECOM, tmp_path)
    fixed = rows["[service_issue]airplane_mode_on[PERSONA:None]"]
    assert [c["tool"] for c in fixed["calls"]] == ["get_customer_by_phone", "get_details_by_id"]
    assert all(c["result"] is not None and c["is_error"] is False for c in fixed["calls"])
    assert fixed["trace"]["notes"] == [
        "2 tool calls of the simulated user (requestor user) left out: they are not the agent's"]
    assert fixed["imported"]["verdict"]["action_checks"] == [
        {"action": "toggle_airplane_mode", "requestor": "user", "match": True}]
    # the agent's own cost, as τ²-bench recorded it (the user simulator's is not the agent's)
    assert fixed["cost"] == document["simulations"][0]["agent_cost"] == 0.063265
    assert fixed["cost_source"] == "trace"
    # the PIN-locked SIM: no transfer to a human agent, which the ACTION basis asked for
    locked = rows["[service_issue]lock_sim_card_pin[PERSONA:Hard]"]
    assert locked["calls"] == [] and locked["outcome"] == "failed"
    assert locked["imported"]["verdict"]["reward_breakdown"] == {
        "ENV_ASSERTION": 1.0, "ACTION": 0.0}


def test_no_recorded_cost_is_unknown_not_zero(tmp_path: Path) -> None:
    rows, _ = _imported(AIRLINE, tmp_path)
    assert all(r["cost"] is None and "cost" in r["unknown"] for r in rows.values())


def test_the_summary_gives_the_benchmark_s_pass_rate(tmp_path: Path) -> None:
    """3 of the 5 airline simulations have reward 1 (tasks 9, 19, 40), 1 of 2 telecom."""
    for source, rate in ((AIRLINE, 0.6), (TELECOM, 0.5)):
        out = tmp_path / f"{source.stem}.jsonl"
        import_runs("tau2_bench", str(source), str(out))
        rewards = [s["reward_info"]["reward"] for s in read_json(source)["simulations"]]
        assert rate == sum(r == 1.0 for r in rewards) / len(rewards)
        result = CliRunner().invoke(cli, ["summary", str(out), "--json",
                                          str(tmp_path / "summary.json")])
        assert result.exit_code == 0, result.output
        assert read_json(tmp_path / "summary.json")["total"]["pass_rate"] == rate


def test_importing_again_gives_the_same_bytes(tmp_path: Path) -> None:
    import_runs("tau2_bench", str(TELECOM), str(tmp_path / "a.jsonl"))
    import_runs("tau2_bench", str(TELECOM), str(tmp_path / "b.jsonl"))
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def _simulation(**fields: Any) -> dict[str, Any]:
    return {"task_id": "7", "trial": 0, "messages": [], **fields}


@pytest.mark.parametrize(("document", "message"), [
    ([], r"bad\.json: \$: not a τ²-bench results document \(an object\); give a τ²-bench"),
    ({"info": {}, "simulations": None, "simulation_index": []},
     r"\$\.simulations: the results\.json of a run saved as a folder"),
    ({"simulations": [{"messages": []}]}, r"\$\.simulations\[0\]: a simulation must be"),
    ({"simulations": [_simulation(messages=None, ticks=[{}])]},
     r"\$\.simulations\[0\]\.messages: a full-duplex \(voice\) simulation"),
    ({"simulations": [_simulation(trial=-1)]}, r"\$\.simulations\[0\]\.trial: "),
    ({"simulations": [_simulation(messages=[{"role": "assistant", "tool_calls": [{"id": "a"}]}])]},
     r"\$\.simulations\[0\]\.messages\[0\]\.tool_calls\[0\]: a tool call must be an object "
     r"with a \"name\""),
    ({"simulations": [_simulation(messages=[{"role": "narrator", "content": "x"}])]},
     r"\$\.simulations\[0\]\.messages\[0\]\.role: a message with role \"narrator\""),
])
def test_a_bad_file_is_one_line_naming_the_place_and_nothing_is_written(
        tmp_path: Path, document: object, message: str) -> None:
    assert_refused(tmp_path, "tau2_bench", document, message)


def test_the_cli_says_so_in_one_line_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "results.json"
    bad.write_text('{"simulations": {}}', encoding="utf-8")
    done = run_cli("runs", "import", "tau2_bench", str(bad), "-o", str(tmp_path / "r.jsonl"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f'error: {bad}: $.simulations: "simulations" must be the list of '
                           "simulations; give a τ²-bench results file: the JSON document "
                           '`tau2 run` saves, {"info", "tasks", "simulations": [...]}, each '
                           "simulation with task_id, messages and reward_info\n")


def test_a_simulation_that_ended_early_says_so_in_its_verdict(tmp_path: Path) -> None:
    """τ²-bench gives reward 0 to a simulation that ended other than by the agent or the
    user stopping (tau2/evaluator/evaluator.py), with a note."""
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"simulations": [_simulation(
        termination_reason="max_steps", duration=12.5, reward_info={
            "reward": 0.0, "reward_basis": None, "info": {
                "note": "Simulation terminated prematurely. Termination reason: max_steps"}})]}))
    out = tmp_path / "runs.jsonl"
    import_runs("tau2_bench", str(results), str(out))
    (row,) = read_rows(out)
    assert row["outcome"] == "failed" and row["imported"]["verdict"] == {
        "passed": False, "reward": 0.0, "termination_reason": "max_steps",
        "note": "Simulation terminated prematurely. Termination reason: max_steps"}


def test_a_simulation_that_never_ran_has_no_verdict(tmp_path: Path) -> None:
    """An infrastructure error (tau2/runner/controller.py, make_infra_failure_sim) has no
    reward_info, and τ²-bench leaves it out of its metrics: neither a pass nor a fail."""
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"simulations": [_simulation(
        termination_reason="infrastructure_error", duration=0.0, reward_info=None,
        info={"error": "worker died", "error_type": "WorkerFailure"})]}))
    with pytest.raises(InputError, match=r"\$\.simulations\[0\]: the file holds no verdict"):
        import_runs("tau2_bench", str(results), str(tmp_path / "runs.jsonl"))
    gold = tmp_path / "gold.json"
    gold.write_text("[]")
    out = tmp_path / "runs.jsonl"
    import_runs("tau2_bench", str(results), str(out), gold=str(gold))
    (row,) = read_rows(out)
    assert row["imported"]["verdict"] == {
        "passed": None, "reward": None, "termination_reason": "infrastructure_error",
        "error": "worker died"}
