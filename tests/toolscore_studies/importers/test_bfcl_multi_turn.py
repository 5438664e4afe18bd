"""The BFCL importer on real gpt-oss-120b multi-turn answers (examples/benchmarks/bfcl):
calls turn by turn with the simulated APIs' results, verdicts from the score file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, read_rows, run_cli
from toolscore_core.errors import InputError
from toolscore_studies.importing import import_runs

BFCL = EXAMPLES / "benchmarks" / "bfcl"
RESULT = BFCL / "result" / "BFCL_v4_multi_turn_base_result.json"
SCORE = BFCL / "score" / "BFCL_v4_multi_turn_base_score.json"
QUESTIONS = BFCL / "BFCL_v4_multi_turn_base.json"


def _import(tmp_path: Path, result: Path = RESULT, **inputs: str) -> dict[str, dict[str, Any]]:
    out = tmp_path / "runs.jsonl"
    import_runs("bfcl", str(result), str(out),
                inputs=inputs or {"score": str(SCORE), "questions": str(QUESTIONS)})
    return {r["task_id"]: r for r in read_rows(out)}


def _failures() -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in SCORE.read_text(encoding="utf-8").splitlines()]
    return {e["id"]: e for e in lines[1:]}


def test_calls_come_turn_by_turn_with_the_simulated_apis_results(tmp_path: Path) -> None:
    rows = _import(tmp_path)
    assert list(rows) == ["multi_turn_base_47", "multi_turn_base_50", "multi_turn_base_91",
                          "multi_turn_base_177"]
    calls = rows["multi_turn_base_47"]["calls"]
    assert [(c["turn"], c["tool"]) for c in calls] == [
        (1, "find"), (2, "cat"), (3, "standard_deviation")]  # one call a user turn
    assert calls[2]["args"] == {"numbers": [100, 95, 85, 90, 88, 92]}
    assert calls[2]["raw_args"] == '{"numbers": [100, 95, 85, 90, 88, 92]}'
    assert calls[2]["result"] == '{"result": 4.853406592853679}'
    assert calls[2]["is_error"] is False
    assert rows["multi_turn_base_47"]["trace"]["usage"] == {"input_tokens": 22170,
                                                             "output_tokens": 456}
    assert rows["multi_turn_base_47"]["prompt"].splitlines()[1] == (
        "Look at the student_record.txt and tell me the average score.")
    two = rows["multi_turn_base_50"]["calls"]
    assert [(c["turn"], c["tool"], c["id"]) for c in two] == [
        (1, "lockDoors", "1"), (1, "setHeadlights", "2")]  # two steps of the one turn
    assert two[1]["result"] == '{"headlightStatus": "on"}'


def test_a_call_the_simulated_api_raised_on_failed(tmp_path: Path) -> None:
    calls = _import(tmp_path)["multi_turn_base_91"]["calls"]
    assert [(c["turn"], c["tool"]) for c in calls] == [
        (1, "get_outside_temperature_from_google"), (1, "get_outside_temperature_from_google"),
        (1, "get_user_id"), (1, "send_message"), (2, "view_messages_sent")]
    assert calls[0]["args"] == {"": {}}  # as the model gave it
    assert calls[0]["is_error"] is True and calls[0]["result"] is None
    assert calls[0]["error"] == "Error during execution: invalid syntax (<string>, line 1)"
    assert calls[1]["is_error"] is False  # the retry answered
    # a refusal the API answers is its result, not a raised error
    refused = _import(tmp_path)["multi_turn_base_177"]["calls"][0]
    assert refused["is_error"] is False and '"booking_status": false' in refused["result"]


def test_verdicts_match_the_score_file_entry_by_entry(tmp_path: Path) -> None:
    rows = _import(tmp_path)
    failures = _failures()
    for task_id, row in rows.items():
        entry = failures.get(task_id)
        assert row["passed"] is (entry is None), task_id
        if entry is not None:
            verdict = row["imported"]["verdict"]
            assert verdict["error_type"] == entry["error"]["error_type"]
            assert verdict["error"] == entry["error"]["error_message"]
            assert verdict["details"] == entry["error"]["details"]
    assert rows["multi_turn_base_177"]["imported"]["verdict"]["error_type"] == (
        "multi_turn:instance_state_mismatch")
    assert rows["multi_turn_base_50"]["imported"]["verdict"] == {"passed": True, "valid": True}


def test_toolscore_summary_gives_the_score_file_s_accuracy(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    run_cli("runs", "import", "bfcl", str(RESULT), "-o", str(out),
            "--input", f"score={SCORE}", "--input", f"questions={QUESTIONS}")
    summary = json.loads(run_cli("summary", str(out), "--json", "-").stdout)
    answered = [json.loads(line)["id"] for line in RESULT.read_text("utf-8").splitlines()]
    accuracy = sum(i not in _failures() for i in answered) / len(answered)
    assert summary["total"]["pass_rate"] == accuracy == 0.5


def test_without_the_inference_log_the_results_are_unknown(tmp_path: Path) -> None:
    entry = json.loads(RESULT.read_text(encoding="utf-8").splitlines()[1])
    del entry["inference_log"]
    bare = tmp_path / "BFCL_v4_multi_turn_base_result.json"
    bare.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    summary_only = tmp_path / "BFCL_v4_multi_turn_base_score.json"  # lists no failure
    summary_only.write_text(SCORE.read_text("utf-8").splitlines()[0] + "\n", "utf-8")
    row = _import(tmp_path, bare, score=str(summary_only))["multi_turn_base_50"]
    assert [c["tool"] for c in row["calls"]] == ["lockDoors", "setHeadlights"]
    assert all(c["is_error"] is None and c["result"] is None for c in row["calls"])
    assert row["trace"]["notes"] == [
        "the result file holds no inference log: the calls' results are unknown"]
    assert row["passed"] is True


def test_an_inference_that_crashed_is_an_error_row(tmp_path: Path) -> None:
    crashed = tmp_path / "BFCL_v4_multi_turn_base_result.json"
    crashed.write_text(json.dumps({  # the shape BFCL saves when inference raises
        "id": "multi_turn_base_50", "result": "Error during inference: Holdout turn should "
        "not have user message.", "traceback": "Traceback (most recent call last): ..."})
        + "\n", encoding="utf-8")
    row = _import(tmp_path, crashed, questions=str(QUESTIONS))["multi_turn_base_50"]
    assert row["outcome"] == "error" and row["passed"] is False and row["calls"] == []
    assert row["error"]["message"].startswith("Error during inference: Holdout turn")


@pytest.mark.parametrize(("turns", "message"), [
    ([[[{"ls": "{}"}]], [[[{"ls": "{}"}]]]],
     r"line 1\.result\[1\]\[0\]: a step must be a list of calls or text"),
    ([[[{"ls": "{}"}], {"ls": "{}"}]],
     r"line 1\.result\[0\]\[1\]: a result must be a list of calls or text"),
])
def test_a_step_that_is_no_list_of_calls_is_refused_with_the_place(
        tmp_path: Path, turns: list[Any], message: str) -> None:
    bad = tmp_path / "BFCL_v4_multi_turn_base_result.json"
    bad.write_text(json.dumps({"id": "multi_turn_base_50", "result": turns}) + "\n",
                   encoding="utf-8")
    with pytest.raises(InputError, match=message):
        _import(tmp_path, bad, score=str(SCORE))
    assert not (tmp_path / "runs.jsonl").exists()


def test_answers_are_not_paired_with_calls_the_reader_cannot_read() -> None:
    """A prompting model's step with a positional argument: BFCL runs it, the reader, which
    needs argument names, reads the step as text; its answer is not given to another call."""
    from toolscore_studies.importers.bfcl import read_calls
    from toolscore_studies.importers.bfcl_turns import read_turns

    log = [{"begin_of_turn_query": [{"role": "user", "content": "Sort it."}],
            "step_0": [{"role": "assistant", "content": "[sort('a.txt')]"},
                       {"role": "tool", "content": '{"sorted_content": "b"}'}],
            "step_1": [{"role": "assistant", "content": "Done."}]}]
    calls, final, notes = read_turns([["[sort('a.txt')]", "Done."]], log, "line 1", read_calls)
    assert calls == () and final == "Done."
    assert notes == ("turn 1, step 1: BFCL ran 1 calls, the response reads as 0; their "
                     "results are unknown",)
