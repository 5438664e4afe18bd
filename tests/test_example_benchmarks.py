"""examples/benchmarks/: the contracts that state each benchmark's rules give, run by run,
the benchmark's own verdicts, for the reasons the benchmark gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.helpers import EXAMPLES, check_in
from toolscore_studies.importing import import_runs
from toolscore_studies.regrade import RegradeSettings, regrade_file

HERE = EXAMPLES / "benchmarks"


def _rows(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {(r["task_id"], r["trial"]): r for r in rows}


def _bfcl_regraded(tmp_path: Path, spec: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The seven BFCL answers, imported with the leaderboard's verdicts and regraded under
    ``spec``, which must flip none of them."""
    bfcl = HERE / "bfcl"
    rows: dict[tuple[str, int], dict[str, Any]] = {}
    for category in ("simple_python", "multiple", "parallel"):
        runs = tmp_path / f"{category}.jsonl"
        import_runs("bfcl", str(bfcl / "result" / f"BFCL_v4_{category}_result.json"), str(runs),
                    inputs={"score": str(bfcl / "score" / f"BFCL_v4_{category}_score.json"),
                            "questions": str(bfcl / f"BFCL_v4_{category}.json")})
        summary = regrade_file(runs, tmp_path / f"{category}.v2.jsonl",
                               RegradeSettings(spec=str(spec)))
        assert summary.written_through == 0 and not summary.flips
        rows.update(_rows(tmp_path / f"{category}.v2.jsonl"))
    return rows


def test_bfcl_verdicts_agree_answer_by_answer(tmp_path: Path) -> None:
    rows = _bfcl_regraded(tmp_path, HERE / "bfcl" / "study.yaml")
    outcomes = {task: r["outcome"] for (task, _), r in rows.items()}
    assert outcomes == {task: "passed" if r["imported"]["verdict"]["valid"] else "failed"
                        for (task, _), r in rows.items()}
    assert outcomes == {"simple_python_0": "passed", "simple_python_2": "passed",
                        "simple_python_13": "failed", "simple_python_51": "failed",
                        "multiple_0": "passed", "multiple_10": "failed", "parallel_0": "failed"}
    # the failures the checker names, each by the contract's own rule
    for task in ("simple_python_13", "simple_python_51", "multiple_10"):
        assert check_in(rows[(task, 1)], "trajectory")["status"] == "fail"
    # [1, 3] for a list of floats (type_error:nested), isothermal false where only true may
    # be given (value_error:others): the argument that differs
    assert rows[("simple_python_13", 1)]["evaluation"]["metrics"]["argument_f1"] == 0.5
    assert rows[("simple_python_51", 1)]["evaluation"]["metrics"]["argument_f1"] == 0.75
    # a call of the function not asked for (wrong_func_name)
    assert "database_create_backup" in check_in(rows[("multiple_10", 1)], "trajectory")["reason"]
    # one call of the two (wrong_count): the left-out call is optional, since a BFCL
    # answer has no outcome, so the score (argument F1 of the pair) fails it
    assert rows[("parallel_0", 1)]["evaluation"]["score"] < 1.0


def test_bfcl_study_made_from_the_possible_answers_gives_bfcls_verdicts(tmp_path: Path) -> None:
    bfcl = HERE / "bfcl"
    spec = tmp_path / "study.yaml"
    made = subprocess.run(
        [sys.executable, str(bfcl / "make_study.py"), "-o", str(spec),
         *(str(bfcl / f"BFCL_v4_{c}.json") for c in ("simple_python", "multiple", "parallel"))],
        capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    rows = _bfcl_regraded(tmp_path, spec)
    assert len(rows) == 7
    assert {task: r["outcome"] for (task, _), r in rows.items()} == {
        task: "passed" if r["imported"]["verdict"]["valid"] else "failed"
        for (task, _), r in rows.items()}
    # the rules study.yaml states by hand, made from the function docs
    expected = {(task, c["tool"]): c["args"] for (task, _), r in rows.items()
                for c in r["evaluation"]["calls"]["expected"]}
    assert expected[("simple_python_2", "math_hypot")]["z"] == \
        "Optional(AllOf([IsType('int'), 0]))"
    assert expected[("simple_python_13", "calculate_area_under_curve")]["interval"] == \
        "List([1.0, 3.0], order='same', extra='forbid', each=IsType('float'))"
    assert expected[("simple_python_51", "calculate_entropy_change")]["isothermal"] == \
        "Optional(True)"
    # a category the AST checker judges otherwise is refused
    refused = subprocess.run([sys.executable, str(bfcl / "make_study.py"),
                              str(bfcl / "BFCL_v4_multi_turn_base.json")],
                             capture_output=True, text=True, check=False)
    assert refused.returncode != 0
    assert "parallel_multiple, live_simple" in refused.stderr


def _write_lines(path: Path, items: list[Any]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def test_bfcl_study_states_the_checkers_quieter_rules(tmp_path: Path) -> None:
    """Answers BFCL's checker passes: calls of two functions in the other order, ``null``
    where the possible answer gives it for a float (the checker's "variable" case), ``[]``
    and ``""`` for optional parameters, which the checker compares with the ``""`` it lists,
    and ``""`` for an integer whose possible values are ``"dontcare"`` and ``""`` (live);
    and answers it fails: a parameter with no possible value (``[]``) left out, and a call
    where the question is irrelevant (no call passes)."""
    docs = [{"name": "math.power", "parameters": {"type": "dict", "required": ["base"],
                                                  "properties": {
             "base": {"type": "integer"}, "mod": {"type": "float"},
             "deck": {"type": "array", "items": {"type": "string"}},
             "unit": {"type": "string"}}}},
            {"name": "find", "parameters": {"type": "dict", "required": ["city"],
                                            "properties": {"city": {"type": "string"}}}}]
    music = [{"name": "music.lookup", "parameters": {"type": "dict", "required": ["artist"],
                                                     "properties": {
              "artist": {"type": "string"}, "year": {"type": "integer"},
              "queries": {"type": "array", "items": {"type": "string"}}}}}]
    power = [{"math.power": {"base": [2], "mod": [None, ""], "deck": [["a"], ""],
                             "unit": ["", "m"]}},
             {"find": {"city": ["Paris"]}}]
    # per category: (id, function docs, possible answer or None, the answer, BFCL's verdict)
    Case = tuple[str, list[Any], Any, list[Any], bool]
    cases: dict[str, list[Case]] = {
        "parallel_multiple": [
            ("parallel_multiple_0", docs, power,
             [{"find": {"city": "PARIS"}},
              {"math_power": {"base": 2, "mod": None, "deck": [], "unit": ""}}], True)],
        "live_simple": [
            ("live_simple_0-0-0", music,
             [{"music.lookup": {"artist": ["Pitbull"], "year": ["", "dontcare"]}}],
             [{"music_lookup": {"artist": "pitbull", "year": ""}}], True),
            ("live_simple_1-1-0", music,
             [{"music.lookup": {"artist": ["Pitbull"], "queries": []}}],
             [{"music_lookup": {"artist": "Pitbull"}}], False)],
        "irrelevance": [
            ("irrelevance_0", music, None, [], True),
            ("irrelevance_1", music, None, [{"music_lookup": {"artist": "Pitbull"}}], False)]}
    (tmp_path / "possible_answer").mkdir()
    verdicts = {}
    for category, items in cases.items():
        questions = _write_lines(tmp_path / f"BFCL_v4_{category}.json", [
            {"id": i, "function": d, "question": [[{"role": "user", "content": "..."}]]}
            for i, d, _, _, _ in items])
        if category != "irrelevance":
            _write_lines(tmp_path / "possible_answer" / questions.name,
                         [{"id": i, "ground_truth": p} for i, _, p, _, _ in items])
        result = _write_lines(tmp_path / f"{category}_result.json", [
            {"id": i, "result": [{n: json.dumps(a)} for c in r for n, a in c.items()]}
            for i, _, _, r, _ in items])
        score = _write_lines(tmp_path / f"{category}_score.json", [
            {"accuracy": 0.0, "correct_count": 0, "total_count": len(items)},
            *({"id": i, "valid": False} for i, _, _, _, ok in items if not ok)])
        subprocess.run([sys.executable, str(HERE / "bfcl" / "make_study.py"), str(questions),
                        "-o", str(tmp_path / f"{category}.yaml")], check=True)
        import_runs("bfcl", str(result), str(tmp_path / f"{category}.jsonl"),
                    inputs={"score": str(score), "questions": str(questions)})
        summary = regrade_file(tmp_path / f"{category}.jsonl", tmp_path / f"{category}.v2.jsonl",
                               RegradeSettings(spec=str(tmp_path / f"{category}.yaml")))
        assert not summary.flips
        verdicts.update({task: r["outcome"] for (task, _), r in
                         _rows(tmp_path / f"{category}.v2.jsonl").items()})
    assert verdicts == {i: "passed" if ok else "failed"
                        for items in cases.values() for i, _, _, _, ok in items}


def test_tau_bench_verdicts_agree_run_by_run(tmp_path: Path) -> None:
    runs = tmp_path / "tau.jsonl"
    import_runs("tau_bench", str(HERE / "tau_bench" / "gpt-4o-airline.json"), str(runs))
    summary = regrade_file(runs, tmp_path / "tau.v2.jsonl",
                           RegradeSettings(spec=str(HERE / "tau_bench" / "study.yaml")))
    assert summary.written_through == 0 and not summary.flips
    rows = _rows(tmp_path / "tau.v2.jsonl")
    assert len(rows) == 12
    assert {k: r["outcome"] for k, r in rows.items()} == {
        k: "passed" if r["imported"]["verdict"]["passed"] else "failed" for k, r in rows.items()}
    assert [k for k, r in sorted(rows.items()) if r["passed"]] == [
        ("1", 2), ("35", 1), ("35", 2), ("35", 3), ("35", 4), ("44", 1), ("44", 3)]
    # task 1: the cancellation not made fails by the trajectory (r_actions 0)
    for trial in (1, 3, 4):
        assert check_in(rows[("1", trial)], "trajectory")["status"] == "fail"
    # task 35: no write, and transfer_to_human_agents is not judged
    assert [c["tool"] for c in rows[("35", 4)]["evaluation"]["calls"]["ignored"]] == [
        "transfer_to_human_agents"]
    # task 44: "4" in no reply (r_outputs 0), found in a reply, not the final answer
    for trial, status in ((1, "pass"), (2, "fail"), (3, "pass"), (4, "fail")):
        assert check_in(rows[("44", trial)], "expected-outputs")["status"] == status


def test_tau_bench_study_made_from_the_tasks_gives_tau_benchs_verdicts(tmp_path: Path) -> None:
    tau = HERE / "tau_bench"
    spec = tmp_path / "study.yaml"
    subprocess.run([sys.executable, str(tau / "make_study.py"), str(tau / "gpt-4o-airline.json"),
                    "-o", str(spec)], check=True)
    runs = tmp_path / "tau.jsonl"
    import_runs("tau_bench", str(tau / "gpt-4o-airline.json"), str(runs))
    summary = regrade_file(runs, tmp_path / "tau.v2.jsonl", RegradeSettings(spec=str(spec)))
    assert summary.written_through == 0 and not summary.flips
    rows = _rows(tmp_path / "tau.v2.jsonl")
    assert len(rows) == 12
    assert {k: r["outcome"] for k, r in rows.items()} == {
        k: "passed" if r["imported"]["verdict"]["reward"] == 1.0 else "failed"
        for k, r in rows.items()}
    # the rules study.yaml states by hand, made from the tasks' actions and outputs
    made = yaml.safe_load(spec.read_text(encoding="utf-8"))
    assert made["defaults"]["judge_tools"][:2] == ["book_reservation", "cancel_reservation"]
    assert {k: made["defaults"][k] for k in ("match", "closed", "pass_threshold")} == {
        "match": "superset", "closed": True, "pass_threshold": 1.0}
    assert made["tasks"]["1"]["expected"] == [
        {"tool": "cancel_reservation", "args": {"reservation_id": "Z7GOZK"}}]
    assert made["tasks"]["35"]["expected"] == []  # a read and transfer_to_human_agents
    assert made["tasks"]["44"]["expected_outputs"] == ["4"]


def test_tau_bench_study_takes_the_writes_in_any_order_and_the_flights_looked_up(
        tmp_path: Path) -> None:
    """τ-bench's database keeps neither the order of these writes nor a flight's origin,
    destination and price as the call gave them (the tool looks them up): a run that
    makes the task's writes in another order, its flights with those keys, passes."""
    flights = [{"flight_number": "HAT056", "date": "2024-05-25"}]
    passengers = [{"first_name": "Omar", "last_name": "Rossi", "dob": "1970-06-06"}]
    actions: list[dict[str, Any]] = [
        {"name": "get_reservation_details", "kwargs": {"reservation_id": "FQ8APE"}},
        {"name": "update_reservation_flights", "kwargs": {
            "reservation_id": "FQ8APE", "cabin": "economy", "flights": flights,
            "payment_id": "gift_card_8190333"}},
        {"name": "update_reservation_passengers", "kwargs": {
            "reservation_id": "FQ8APE", "passengers": passengers}}]
    given = [{**flights[0], "origin": "EWR", "destination": "IAH"}]
    calls = [("update_reservation_passengers", actions[2]["kwargs"]),
             ("update_reservation_flights", {**actions[1]["kwargs"], "flights": given})]
    traj: list[dict[str, Any]] = [{"role": "user", "content": "Upgrade FQ8APE, please."}]
    for i, (name, args) in enumerate(calls):
        traj += [{"role": "assistant", "content": None, "tool_calls": [
                     {"id": f"c{i}", "type": "function",
                      "function": {"name": name, "arguments": json.dumps(args)}}]},
                 {"role": "tool", "tool_call_id": f"c{i}", "name": name, "content": "{}"}]
    results = tmp_path / "results.json"
    results.write_text(json.dumps([{"task_id": 5, "trial": 0, "reward": 1.0, "traj": traj,
                                    "info": {"task": {"user_id": "omar_rossi_1241",
                                                      "actions": actions, "outputs": [],
                                                      "instruction": "..."}}}]),
                       encoding="utf-8")
    spec = tmp_path / "study.yaml"
    subprocess.run([sys.executable, str(HERE / "tau_bench" / "make_study.py"), str(results),
                    "-o", str(spec)], check=True)
    import_runs("tau_bench", str(results), str(tmp_path / "runs.jsonl"))
    regrade_file(tmp_path / "runs.jsonl", tmp_path / "runs.v2.jsonl",
                 RegradeSettings(spec=str(spec)))
    assert _rows(tmp_path / "runs.v2.jsonl")[("5", 1)]["outcome"] == "passed"


def test_tau2_bench_verdicts_agree_run_by_run(tmp_path: Path) -> None:
    runs = tmp_path / "tau2.jsonl"
    import_runs("tau2_bench", str(HERE / "tau2_bench" / "whissle-airline.json"), str(runs))
    summary = regrade_file(runs, tmp_path / "tau2.v2.jsonl",
                           RegradeSettings(spec=str(HERE / "tau2_bench" / "study.yaml")))
    assert summary.written_through == 0 and not summary.flips
    rows = _rows(tmp_path / "tau2.v2.jsonl")
    assert {k: r["outcome"] for k, r in rows.items()} == {
        k: "passed" if r["imported"]["verdict"]["passed"] else "failed" for k, r in rows.items()}
    assert sorted(k for k, r in rows.items() if r["passed"]) == [("19", 1), ("40", 1), ("9", 1)]
    # task 0: a cancellation the policy forbids (db_match false) is a write no task asks for
    assert "cancel_reservation" in check_in(rows[("0", 1)], "trajectory")["reason"]
    # task 11: the downgrade not made (DB 0) and $5244 never said (COMMUNICATE 0)
    assert check_in(rows[("11", 1)], "required-calls")["status"] == "fail"
    assert check_in(rows[("11", 1)], "expected-outputs")["status"] == "fail"
    # task 9: the failed lookup is a read, not judged; no write is made, none is expected
    assert rows[("9", 1)]["evaluation"]["score"] == 1.0
