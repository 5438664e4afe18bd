from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolscore_core.errors import InputError
from toolscore_core.models import ToolCall, Trace
from toolscore_core.plugins import default_registry
from toolscore_studies.records import (
    build_record,
    run_cost,
    trace_from_row,
    unknowns,
)
from toolscore_studies.regrade import RegradeSettings, regrade_file
from toolscore_studies.spec import Price, parse_study

PRICES = {"m": Price(input_per_mtok=3.0, output_per_mtok=15.0)}
STUDY = parse_study({
    "study": "s", "defaults": {"pass_threshold": 0.9,
                               "pricing": {"m": {"input_per_mtok": 3, "output_per_mtok": 15}}},
    "tasks": {"t": {"prompt": "Find x", "expected": [{"tool": "find", "args": {"q": "x"}}]}},
})


def test_cost_from_usage_and_a_known_price() -> None:
    trace = Trace(model="m", usage={"input_tokens": 2000, "output_tokens": 100})
    assert run_cost(trace, PRICES) == (0.0075, "pricing")
    openai = Trace(model="m", usage={"prompt_tokens": 1_000_000, "completion_tokens": 0})
    assert run_cost(openai, PRICES) == (3.0, "pricing")


def test_an_unknown_price_makes_the_cost_null() -> None:
    trace = Trace(model="other", usage={"input_tokens": 2000, "output_tokens": 100})
    assert run_cost(trace, PRICES) == (None, None)
    assert run_cost(Trace(model="m"), PRICES) == (None, None)
    partly_priced = Trace(calls=(ToolCall(tool="a", cost=0.1), ToolCall(tool="b")))
    assert run_cost(partly_priced, PRICES) == (None, None)


def test_a_run_total_or_every_call_priced_gives_the_cost() -> None:
    assert run_cost(Trace(run_cost=0.5, model="other"), PRICES) == (0.5, "trace")
    calls = (ToolCall(tool="a", cost=0.1), ToolCall(tool="b", cost=0.2))
    assert run_cost(Trace(calls=calls), PRICES) == (0.3, "calls")


def test_unknowns_lists_what_is_missing() -> None:
    calls = (ToolCall(tool="a", duration=1.0, is_error=False), ToolCall(tool="b"))
    assert unknowns(calls, None, None, 2.0) == [
        "call_costs", "call_durations", "call_outcomes", "cost", "final_answer"]
    assert unknowns(None, "ok", 0.0, None) == ["calls", "duration"]


def _record(trace: Trace | None, **kw: object) -> dict:
    task = STUDY.tasks["t"]
    return build_record(STUDY, task, 1, agent="a", trace=trace, started_at="x", duration=1.0,
                        registry=default_registry(), **kw)  # type: ignore[arg-type]


def test_a_record_passes_or_fails_by_the_threshold() -> None:
    good = Trace(calls=(ToolCall(tool="find", args={"q": "x"}, result="1", is_error=False),),
                 final_answer="x is 1")
    record = _record(good, final_answer_source="trace")
    assert record["kind"] == "toolscore.agent_run" and record["schema_version"] == "1"
    assert record["run_id"] == "s:t:1"
    assert record["outcome"] == "passed" and record["passed"] is True
    assert record["evaluation"]["score"] == 1.0
    assert record["cost"] is None and "cost" in record["unknown"]
    bad = Trace(calls=(ToolCall(tool="find", args={"q": "y"}, result="1", is_error=False),))
    record = _record(bad)
    assert record["outcome"] == "failed" and record["passed"] is False
    assert record["final_answer"] is None and "final_answer" in record["unknown"]


def test_an_error_record_is_kept_without_evaluation() -> None:
    error = {"kind": "timeout", "message": "m", "exit_code": -9, "stderr_tail": "tail"}
    record = _record(None, error=error)
    assert record["outcome"] == "error" and record["passed"] is False
    assert record["evaluation"] is None and record["calls"] is None
    assert {"calls", "evaluation", "final_answer", "cost"} <= set(record["unknown"])
    assert record["error"]["stderr_tail"] == "tail"


def test_a_row_gives_back_the_trace_it_recorded() -> None:
    trace = Trace(calls=(ToolCall(tool="find", args={"q": "x"}, id="c1", result={"n": 1},
                                  is_error=False, duration=0.2, timestamp="2026-01-01T00:00:00Z"),
                         ToolCall(tool="find", raw_args="{bad", error="boom", is_error=True)),
                  final_answer="done", format="toolscore", model="m",
                  usage={"input_tokens": 1, "output_tokens": 2}, notes=("n1",))
    record = _record(trace)
    assert trace_from_row(record) == trace


def test_credentials_in_the_agent_command_and_stderr_are_redacted() -> None:
    key = "sk-proj-" + "A" * 40
    error = {"kind": "exit", "message": "m", "exit_code": 1, "stderr_tail": f"bad key {key}"}
    task = STUDY.tasks["t"]
    record = build_record(STUDY, task, 1, agent=f"agent --key {key}", trace=None,
                          started_at="x", duration=1.0, registry=default_registry(), error=error)
    assert key not in record["agent"] and key not in record["error"]["stderr_tail"]
    assert "sk-p…AA" in record["agent"]


def test_a_task_with_expected_outputs_keeps_the_replies_a_regrade_searches(
        tmp_path: Path) -> None:
    spec = {"study": "s", "tasks": {"t": {
        "prompt": "How many bags?", "expected": [], "expected_outputs": ["4"]}}}
    study = parse_study(spec)
    said = Trace(replies=("Let me look.", "You can take 4 bags."), final_answer="Anything else?",
                 format="openai_chat")
    record = build_record(study, study.tasks["t"], 1, agent="a", trace=said, started_at="x",
                          duration=1.0, registry=default_registry())
    assert record["trace"]["replies"] == ["Let me look.", "You can take 4 bags."]
    assert trace_from_row(record) == said
    assert record["outcome"] == "passed"
    # regraded from the row alone: the reply is still there to find
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    (tmp_path / "runs.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    regrade_file(tmp_path / "runs.jsonl", tmp_path / "v2.jsonl",
                 RegradeSettings(spec=str(tmp_path / "spec.json")))
    again = json.loads((tmp_path / "v2.jsonl").read_text(encoding="utf-8"))
    assert again["outcome"] == "passed"
    assert again["evaluation"]["evidence"]["checks"] == record["evaluation"]["evidence"]["checks"]
    # a task without expected_outputs keeps the record as it was
    assert "replies" not in _record(said)["trace"]


@pytest.mark.parametrize(("row", "problem"), [
    ({"calls": [{"tool": "f", "duration": True}]},
     '$.calls[0].duration: "duration" must be a number of seconds or null, not a boolean'),
    ({"calls": [{"tool": "f", "turn": 1.0}]},
     '$.calls[0].turn: "turn" must be a whole number from 1 or null, not a number'),
    ({"calls": [], "trace": {"notes": ["fine", 3]}},
     '$.trace.notes: "notes" must be a list of strings or null, not a list holding other '
     "values"),
])
def test_a_row_value_of_a_near_type_is_refused_with_its_place(row: dict, problem: str) -> None:
    with pytest.raises(InputError) as caught:
        trace_from_row(row)
    assert caught.value.one_line() == problem


def test_a_row_of_well_typed_values_reads_as_recorded() -> None:
    call = {"tool": "f", "id": "c1", "is_error": False, "duration": 1, "cost": 0.5,
            "turn": 2, "raw_args": "{}", "timestamp": "2026-01-01T00:00:00Z", "error": None}
    trace = trace_from_row({"calls": [call], "trace": {"notes": ["a"], "run_cost": 2}})
    assert (trace.calls[0].duration, trace.calls[0].turn, trace.notes) == (1, 2, ("a",))
