from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

import toolscore
from toolscore_core.errors import InputError
from toolscore_core.models import ToolCall, Trace
from toolscore_core.plugins import default_registry
from toolscore_studies.runner import (
    ENV_MCP_COMMAND,
    ENV_MCP_ENV,
    CommandRunner,
    Planned,
    agent_environment,
    execute,
    mcp_record_command,
    open_run_log,
    plan_runs,
    planting_paths,
    read_injected,
    scan_existing,
    write_plan,
)
from toolscore_studies.spec import load_study, parse_study

VOLATILE = ("started_at", "duration")


def _run(study_dir: Path, agent_command: list[str], task: str, trial: int = 1,
         timeout: float | None = 10, env: dict[str, str] | None = None) -> dict:
    study = load_study(study_dir / "study.yaml")
    runner = CommandRunner(study, agent_command, agent="plan", timeout=timeout,
                           registry=default_registry(), stop=threading.Event())
    old = dict(os.environ)
    os.environ.update(env or {})
    try:
        return runner(Planned(study.tasks[task], trial))
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_a_run_reads_the_trace_and_takes_stdout_as_the_answer(
        study_dir: Path, agent_command: list[str]) -> None:
    record = _run(study_dir, agent_command, "book")
    assert record["outcome"] == "passed"
    assert [c["tool"] for c in record["calls"]] == ["search_flights", "book_flight"]
    assert record["calls"][1]["result"] == {"confirmation": "ZX9K2"}
    assert record["final_answer"] == "Booked UA123 for 1 passenger, confirmation ZX9K2."
    assert record["final_answer_source"] == "stdout"
    # 1000 input tokens at $3/M + 200 output tokens at $15/M
    assert record["cost"] == 0.006 and record["cost_source"] == "pricing"
    assert record["duration"] > 0 and record["started_at"].endswith("Z")
    assert record["trace"]["model"] == "test-model"


def test_records_are_deterministic_but_for_the_clock(
        study_dir: Path, agent_command: list[str]) -> None:
    first = _run(study_dir, agent_command, "weather")
    second = _run(study_dir, agent_command, "weather")
    for key in VOLATILE:
        first.pop(key), second.pop(key)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def test_a_failing_run_is_failed(study_dir: Path, agent_command: list[str]) -> None:
    record = _run(study_dir, agent_command, "flaky", trial=2)
    assert record["outcome"] == "failed" and record["passed"] is False
    assert record["evaluation"]["score"] == 0.0


def test_a_hanging_agent_times_out_and_is_recorded(
        study_dir: Path, agent_command: list[str]) -> None:
    record = _run(study_dir, agent_command, "weather", timeout=1.0,
                  env={"PLAN_AGENT_MODE": "hang"})
    assert record["outcome"] == "error" and record["passed"] is False
    assert record["error"]["kind"] == "timeout"
    assert "thinking forever" in record["error"]["stderr_tail"]
    assert 1.0 <= record["duration"] < 8


def test_a_crashing_agent_is_an_error_with_its_stderr_and_trace(
        study_dir: Path, agent_command: list[str]) -> None:
    record = _run(study_dir, agent_command, "weather", env={"PLAN_AGENT_MODE": "crash"})
    assert record["outcome"] == "error"
    assert record["error"]["kind"] == "crash" and "SIGABRT" in record["error"]["message"]
    assert "the agent fell over" in record["error"]["stderr_tail"]
    assert [c["tool"] for c in record["calls"]] == ["get_weather"]  # what it left is kept
    assert record["evaluation"] is None and "evaluation" in record["unknown"]


def test_a_non_zero_exit_is_an_error(study_dir: Path, agent_command: list[str]) -> None:
    record = _run(study_dir, agent_command, "weather", env={"PLAN_AGENT_MODE": "exit"})
    assert record["error"]["kind"] == "exit" and record["error"]["exit_code"] == 3
    assert "giving up" in record["error"]["stderr_tail"]


def test_an_agent_that_writes_no_trace_is_an_error(study_dir: Path) -> None:
    record = _run(study_dir, [sys.executable, "-c", "print('hello')"], "weather")
    assert record["outcome"] == "error" and record["error"]["kind"] == "trace"
    assert "TOOLSCORE_TRACE" in record["error"]["message"]


def test_a_missing_agent_is_an_error_run(study_dir: Path) -> None:
    record = _run(study_dir, ["/nonexistent/agent"], "weather")
    assert record["outcome"] == "error" and record["error"]["kind"] == "start"


def test_mcp_tasks_hand_the_agent_a_wrapped_server_command(tmp_path: Path) -> None:
    study = parse_study({"study": "s", "tasks": {"t": {
        "prompt": "p", "expected": [],
        "mcp_server": {"command": ["python", "server.py", "--db", "x"], "env": {"K": "v"}}}}})
    task = study.tasks["t"]
    session = str(tmp_path / "session.jsonl")
    env = agent_environment(task, 2, "s:t:2", study, str(tmp_path / "trace.json"), session)
    wrapped = json.loads(env[ENV_MCP_COMMAND])
    assert wrapped == mcp_record_command(session, task.mcp_server)  # type: ignore[arg-type]
    assert wrapped[1:] == ["-m", "toolscore_cli", "mcp", "record", "-o", session, "--",
                           "python", "server.py", "--db", "x"]
    assert json.loads(env[ENV_MCP_ENV]) == {"K": "v"}
    assert env["TOOLSCORE_TRIAL"] == "2" and env["TOOLSCORE_RUN_ID"] == "s:t:2"
    plain = agent_environment(task.__class__(id="u", prompt="p", contract=task.contract,
                                             pass_threshold=0.8, weights=None, honesty=None),
                              1, "s:u:1", study, "t.json", None)
    assert ENV_MCP_COMMAND not in plain


def test_a_task_that_plants_hands_the_proxy_its_plan(tmp_path: Path) -> None:
    from toolscore_mcp.planting import load_plan_file

    study = parse_study({"study": "s", "tasks": {"t": {
        "prompt": "p", "expected": [],
        "mcp_server": {"command": ["python", "server.py"],
                       "inject_fault": ["tool=deploy,error=Service unavailable"]}}}})
    server = study.tasks["t"].mcp_server
    assert server is not None
    session = str(tmp_path / "session.jsonl")
    plan_path, injected_path = planting_paths(session)
    assert mcp_record_command(session, server)[3:] == [
        "mcp", "record", "-o", session, "--inject-file", plan_path, "--injected", injected_path,
        "--", "python", "server.py"]
    write_plan(session, server)
    [fault] = load_plan_file(plan_path).faults
    assert (fault.tool, fault.error) == ("deploy", "Service unavailable")
    assert read_injected(session) == (None, None)
    (tmp_path / "injected.json").write_text('{"kind": "toolscore.injected", "faults": 3}')
    injected, problem = read_injected(session)
    assert injected is None and problem is not None and "$.version" in problem


def test_resume_skips_runs_in_the_file_and_cuts_a_torn_line(study_dir: Path) -> None:
    study = load_study(study_dir / "study.yaml")
    out = study_dir / "runs.jsonl"
    rows = [{"kind": "toolscore.agent_run", "study": "plan-agent", "task_id": "weather",
             "trial": t} for t in (1, 2)]
    whole = "".join(json.dumps(r) + "\n" for r in rows)
    out.write_text(whole + '{"kind": "toolscore.agent_ru')
    assert scan_existing(out, study) == {("weather", 1), ("weather", 2)}
    assert out.read_text() == whole
    plan = plan_runs(study, trials=2, done={("weather", 1), ("weather", 2)})
    assert [(p.task.id, p.trial) for p in plan] == [("book", 1), ("book", 2), ("flaky", 1),
                                                     ("flaky", 2)]


def test_resume_refuses_another_study_and_an_existing_file_without_resume(
        study_dir: Path) -> None:
    study = load_study(study_dir / "study.yaml")
    out = study_dir / "runs.jsonl"
    out.write_text(json.dumps({"kind": "toolscore.agent_run", "study": "other",
                               "task_id": "weather", "trial": 1}) + "\n")
    with pytest.raises(InputError, match="study 'other'"), \
            open_run_log(out, study, resume=True):
        pass
    with pytest.raises(InputError, match="--resume"), open_run_log(out, study, resume=False):
        pass


def test_execute_runs_in_parallel_and_hands_over_every_record() -> None:
    study = parse_study({"study": "s", "tasks": {f"t{i}": {"prompt": "p", "expected": []}
                                                 for i in range(4)}})
    plan = plan_runs(study, trials=2)
    active = []
    peak = []
    lock = threading.Lock()

    def run_one(p: Planned) -> dict:
        with lock:
            active.append(1)
            peak.append(len(active))
        threading.Event().wait(0.05)
        with lock:
            active.pop()
        return {"task_id": p.task.id, "trial": p.trial}

    got: list[dict] = []
    execute(plan, run_one, jobs=3, on_record=got.append, stop=threading.Event())
    assert sorted((r["task_id"], r["trial"]) for r in got) == sorted(
        (p.task.id, p.trial) for p in plan)
    assert max(peak) == 3


def test_run_study_with_python_agents(tmp_path: Path) -> None:
    spec = {"study": "py", "defaults": {"pass_threshold": 1.0}, "tasks": {
        "a": {"prompt": "say hi", "expected": [{"tool": "greet", "args": {"who": "you"}}]}}}
    trials = iter(range(100))

    def agent(prompt: str) -> object:
        n = next(trials)
        if n == 0:
            return [ToolCall(tool="greet", args={"who": "you"}, result="hi", is_error=False)], "hi"
        if n == 1:
            return {"calls": [{"tool": "greet", "args": {"who": "me"}, "result": "hi"}],
                    "final_answer": "hi"}
        if n == 2:
            return Trace(calls=(ToolCall(tool="greet", args={"who": "you"}),))
        raise RuntimeError("model overloaded")

    out = tmp_path / "runs.jsonl"
    records = toolscore.run_study(spec, agent, trials=4, output=out)
    # trial 3 made the call but its outcome is unknown: missing evidence never passes
    assert [r["outcome"] for r in records] == ["passed", "failed", "failed", "error"]
    assert records[0]["agent"].startswith("python:") and records[0]["final_answer"] == "hi"
    assert records[2]["final_answer"] is None and "call_outcomes" in records[2]["unknown"]
    assert "model overloaded" in records[3]["error"]["message"]
    assert "RuntimeError" in records[3]["error"]["stderr_tail"]
    lines = out.read_text().splitlines()
    assert len(lines) == 4 and {json.loads(x)["trial"] for x in lines} == {1, 2, 3, 4}


def _chat_completion(arguments: dict[str, str], content: str | None = None) -> dict:
    """A raw OpenAI Chat Completions response, as the API returns it."""
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": content, "tool_calls": [{
                    "id": "call_abc", "type": "function", "function": {
                        "name": "get_weather", "arguments": json.dumps(arguments)}}]}}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200}}


def test_run_study_takes_a_provider_response_a_trace_or_calls_and_an_answer() -> None:
    spec = {"study": "py", "defaults": {
        "pricing": {"gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}},
        "tasks": {
            "response": {"prompt": "Weather in Paris?", "expected": [
                {"tool": "get_weather", "args": {"city": "Paris"}}]},
            "response+answer": {"prompt": "Weather in Lyon?", "expected": [
                {"tool": "get_weather", "args": {"city": "Lyon"}}]},
            "native": {"prompt": "Weather in Nice?", "expected": [
                {"tool": "get_weather", "args": {"city": "Nice"}}]},
            "calls+answer": {"prompt": "Weather in Brest?", "expected": [
                {"tool": "get_weather", "args": {"city": "Brest"}}]},
        }}

    def agent(prompt: str) -> object:
        city = prompt.split()[-1].rstrip("?")
        if city == "Paris":
            return _chat_completion({"city": city})
        if city == "Lyon":
            return _chat_completion({"city": "Lyon"}), "Sunny in Lyon."
        if city == "Nice":
            return {"calls": [{"id": "c1", "tool": "get_weather", "args": {"city": city},
                               "result": {"temp_c": 21}, "is_error": False, "duration": 0.25,
                               "cost": 0.001}], "final_answer": "21°C in Nice."}
        return ([ToolCall(tool="get_weather", args={"city": "Paris"}, result={"temp_c": 9},
                          is_error=False)], "9°C in Brest.")

    records = {r["task_id"]: r for r in toolscore.run_study(spec, agent, jobs=2)}
    response = records["response"]
    assert response["trace"]["format"] == "openai_chat"
    assert [(c["id"], c["tool"], c["args"]) for c in response["calls"]] == [
        ("call_abc", "get_weather", {"city": "Paris"})]
    assert response["cost"] == pytest.approx((1000 * 0.15 + 200 * 0.6) / 1e6)
    assert response["cost_source"] == "pricing"
    # A response has no tool results and no answer yet: both are unknown, not passes.
    assert response["final_answer"] is None
    assert {"final_answer", "call_outcomes"} <= set(response["unknown"])
    checks = {c["check"]: c["status"] for c in response["evaluation"]["evidence"]["checks"]}
    assert checks["required-calls"] == "unknown" and checks["claimed-success"] == "unknown"
    assert records["response+answer"]["final_answer"] == "Sunny in Lyon."
    assert records["response+answer"]["final_answer_source"] == "trace"
    native = records["native"]
    assert native["trace"]["format"] == "toolscore" and native["outcome"] == "passed"
    assert native["calls"][0]["duration"] == 0.25 and native["cost"] == 0.001
    assert native["cost_source"] == "calls" and native["final_answer"] == "21°C in Nice."
    pair = records["calls+answer"]
    assert pair["final_answer"] == "9°C in Brest." and pair["outcome"] == "failed"
    assert pair["evaluation"]["score"] < response["evaluation"]["score"]


def test_run_study_refuses_mcp_tasks(tmp_path: Path) -> None:
    spec = {"study": "py", "tasks": {
        "plain": {"prompt": "p", "expected": []},
        "mcp": {"prompt": "q", "expected": [], "mcp_server": {"command": ["python", "s.py"]}}}}
    with pytest.raises(InputError, match="'mcp' names an MCP server") as info:
        toolscore.run_study(spec, lambda prompt: ([], "ok"), output=tmp_path / "runs.jsonl")
    assert "toolscore agent run" in info.value.one_line()
    assert not (tmp_path / "runs.jsonl").exists()
    [record] = toolscore.run_study(spec, lambda prompt: ([], "ok"), tasks=["plain"])
    assert record["outcome"] == "passed"


def test_run_study_refuses_what_is_not_a_trace() -> None:
    spec = {"study": "py", "tasks": {"a": {"prompt": "p", "expected": []}}}
    [record] = toolscore.run_study(spec, lambda prompt: 42)
    assert record["outcome"] == "error" and "returned int" in record["error"]["message"]


def test_run_study_resumes_and_refuses_to_overwrite_by_default(tmp_path: Path) -> None:
    spec = {"study": "py", "tasks": {"a": {"prompt": "p", "expected": []}}}
    out = tmp_path / "runs.jsonl"
    calls: list[str] = []

    def agent(prompt: str) -> object:
        calls.append(prompt)
        return [], "ok"

    toolscore.run_study(spec, agent, trials=2, output=out)
    with pytest.raises(InputError, match="already exists"):
        toolscore.run_study(spec, agent, trials=2, output=out)
    records = toolscore.run_study(spec, agent, trials=3, output=out, resume=True)
    assert [r["trial"] for r in records] == [3] and len(calls) == 3
    assert len(out.read_text().splitlines()) == 3


def test_an_mcp_task_whose_agent_never_starts_the_server_is_an_error(tmp_path: Path) -> None:
    study = parse_study({"study": "s", "tasks": {"t": {
        "prompt": "p", "expected": [], "mcp_server": {"command": ["python", "server.py"]}}}})
    code = ("import json, os, sys; sys.stdin.read(); "
            "print(json.loads(os.environ['TOOLSCORE_MCP_SERVER_COMMAND'])[3:5])")
    runner = CommandRunner(study, [sys.executable, "-c", code], agent="a", timeout=10,
                           registry=default_registry(), stop=threading.Event())
    record = runner(Planned(study.tasks["t"], 1))
    assert record["outcome"] == "error" and record["error"]["kind"] == "trace"
    assert "TOOLSCORE_MCP_SERVER_COMMAND" in record["error"]["message"]
    assert record["final_answer"] is None


def test_run_study_on_ray_without_ray_names_the_extra_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` does without [ray]
    calls: list[str] = []
    spec = {"study": "s", "version": "1", "tasks": {
        "t": {"prompt": "p", "expected": [{"tool": "x", "args": {}}]}}}
    with pytest.raises(InputError, match=r"pip install 'toolscore\[ray\]'"):
        toolscore.run_study(spec, calls.append, engine="ray", output=tmp_path / "r.jsonl")
    with pytest.raises(InputError, match="unknown engine 'spark'; use local or ray"):
        toolscore.run_study(spec, calls.append, engine="spark")
    assert not calls and not (tmp_path / "r.jsonl").exists()


def test_stdout_past_the_limit_is_cut_and_not_taken_as_the_answer(
        study_dir: Path, agent_command: list[str]) -> None:
    from toolscore_studies.runner import OUTPUT_LIMIT

    record = _run(study_dir, agent_command, "weather", env={
        "PLAN_AGENT_MODE": "flood", "PLAN_AGENT_FLOOD": str(3 * OUTPUT_LIMIT)})
    assert record["error"] is None
    assert record["final_answer"] is None and "final_answer" in record["unknown"]
    assert any("stdout was cut" in note for note in record["trace"]["notes"])
    assert record["calls"][0]["tool"] == "get_weather"


def test_an_agent_that_never_stops_printing_is_killed_at_its_timeout(
        study_dir: Path, agent_command: list[str]) -> None:
    import time

    began = time.monotonic()
    record = _run(study_dir, agent_command, "weather", timeout=1.0,
                  env={"PLAN_AGENT_MODE": "flood_forever"})
    assert record["error"]["kind"] == "timeout"
    # SIGTERM at 1 s, SIGKILL 2 s later at the latest: never the minutes a buffered read took
    assert time.monotonic() - began < 15


def test_a_runs_file_being_written_is_refused_to_a_second_writer(study_dir: Path) -> None:
    study = load_study(study_dir / "study.yaml")
    out = study_dir / "runs.jsonl"
    with open_run_log(out, study, resume=False):
        for resume in (False, True):
            with pytest.raises(InputError, match="another command is writing this runs file"), \
                    open_run_log(out, study, resume=resume):
                pass
    with open_run_log(out, study, resume=True) as (_, done):  # released with the first
        assert done == set()
