"""LangSmith runs: tool runs in execution order, the ToolMessage's call id, the root's answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.traces import parse_trace
from toolscore_formats.langsmith import near

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_runs_query_response_reads_its_tool_run_timed_and_the_root_totals(read) -> None:
    trace, choice = read("langsmith_runs_flat.json")
    assert choice.format == "langsmith"
    assert choice.reason == 'a LangSmith runs query response ("runs")'
    assert [(c.tool, c.id, c.args, c.result, c.is_error, c.error, c.duration, c.timestamp)
            for c in trace.calls] == [
        ("processToolCalls", "child-uuid-2", None, None, False, None, 59.0,
         "2025-01-10T12:02:01.000Z"),
    ]
    # The tree fetch keeps no inputs or outputs: the root's answer is unknown, not "".
    assert trace.final_answer is None
    assert trace.run_cost == pytest.approx(0.4614)
    assert trace.run_duration == pytest.approx(232.12)
    assert trace.usage == {"prompt_tokens": 650000, "completion_tokens": 55401,
                           "total_tokens": 705401}


def test_the_documented_run_is_claimed_and_holds_no_call_and_no_answer(read) -> None:
    trace, choice = read("langsmith_run_docs.json")
    assert choice.format == "langsmith"
    assert trace.calls == ()
    assert trace.final_answer is None  # the run ended with an error
    assert trace.run_duration == pytest.approx(0.369)


def _run(run_id: str, name: str, run_type: str, start: str, end: str | None, *,
         parent: str | None = "root", **fields: Any) -> dict[str, Any]:
    dotted = "20250301T100000000000Zroot" if run_id == "root" else \
        f"20250301T100000000000Zroot.{start.replace('-', '').replace(':', '')}{run_id}"
    return {"id": run_id, "name": name, "run_type": run_type, "trace_id": "root",
            "parent_run_id": None if run_id == "root" else parent, "dotted_order": dotted,
            "start_time": start, "end_time": end, **fields}


def _tool_message(call_id: str, content: Any, status: str = "success") -> dict[str, Any]:
    return {"content": content, "additional_kwargs": {}, "response_metadata": {},
            "type": "tool", "name": None, "id": None, "tool_call_id": call_id,
            "artifact": None, "status": status}


def _langgraph_tree() -> dict[str, Any]:
    """A run tree as LangChain's tracer writes a LangGraph agent: tool inputs as the Python
    repr of the arguments, a ToolMessage (model_dump) as the output."""
    weather = _run("t2", "get_weather", "tool", "2025-03-01T10:00:03", "2025-03-01T10:00:04.5",
                   status="success", inputs={"input": "{'city': 'Paris', 'days': (1, 2)}"},
                   outputs={"output": _tool_message("call_w", "18C and sunny")})
    lookup = _run("t1", "lookup", "tool", "2025-03-01T10:00:01", "2025-03-01T10:00:02",
                  status="error", inputs={"order": 7}, outputs=None,
                  error="ValueError('no order 7')")
    pending = _run("t3", "notify", "tool", "2025-03-01T10:00:05", None, status="pending",
                   inputs={"input": "ada"})
    answer = {"lc": 1, "type": "constructor",
              "id": ["langchain", "schema", "messages", "AIMessage"],
              "kwargs": {"content": "It is 18C and sunny in Paris.", "tool_calls": []}}
    return _run("root", "LangGraph", "chain", "2025-03-01T10:00:00", "2025-03-01T10:00:09",
                status="success", outputs={"messages": [answer]},
                child_runs=[weather, lookup, pending])


def test_a_langgraph_tree_reads_ids_arguments_outcomes_order_and_answer() -> None:
    trace, choice = parse_trace(_langgraph_tree())
    assert choice.reason == "a LangSmith run tree (run_type, child_runs)"
    lookup, weather, notify = trace.calls  # dotted order, not the order of child_runs
    assert (lookup.tool, lookup.id, lookup.args, lookup.is_error, lookup.error) == (
        "lookup", "t1", {"order": 7}, True, "ValueError('no order 7')")
    assert lookup.duration == pytest.approx(1.0)
    assert (weather.id, weather.args, weather.result, weather.is_error) == (
        "call_w", {"city": "Paris", "days": [1, 2]}, "18C and sunny", False)
    assert weather.duration == pytest.approx(1.5)
    assert weather.timestamp == "2025-03-01T10:00:03"
    assert (notify.args, notify.result, notify.is_error, notify.duration) == (
        {"input": "ada"}, None, None, None)
    assert trace.final_answer == "It is 18C and sunny in Paris."
    assert trace.run_duration == pytest.approx(9.0)


def test_a_flat_list_of_one_trace_is_the_same_reading_as_its_tree() -> None:
    tree = _langgraph_tree()
    flat = [{k: v for k, v in tree.items() if k != "child_runs"}, *tree["child_runs"]]
    assert parse_trace(flat)[0].calls == parse_trace(tree)[0].calls
    assert parse_trace(flat)[1].reason == "a list of LangSmith runs"


def test_an_error_tool_message_fails_the_call_and_text_outputs_stay_as_they_are() -> None:
    root = _run("root", "agent", "chain", "2025-03-01T10:00:00", "2025-03-01T10:00:09",
                outputs={"output": "Done."}, child_runs=[
                    _run("a", "search", "tool", "2025-03-01T10:00:01", "2025-03-01T10:00:02",
                         inputs={"q": "x"},
                         outputs={"output": _tool_message("call_a", "Error: boom", "error")}),
                    _run("b", "count", "tool", "2025-03-01T10:00:03", "2025-03-01T10:00:04",
                         inputs={"input": "not python {"}, outputs={"output": 0}),
                    _run("c", "fetch", "tool", "2025-03-01T10:00:05", "2025-03-01T10:00:06",
                         inputs={}, outputs={"rows": 2, "ok": True})])
    search, count, fetch = parse_trace(root)[0].calls
    assert (search.id, search.is_error, search.error, search.result) == (
        "call_a", True, "Error: boom", None)
    assert (count.args, count.result, count.is_error) == ({"input": "not python {"}, 0, False)
    assert (fetch.args, fetch.result) == ({}, {"rows": 2, "ok": True})
    assert parse_trace(root)[0].final_answer == "Done."


def test_runs_of_several_traces_are_refused_with_the_fix() -> None:
    first = _run("root", "a", "chain", "2025-03-01T10:00:00", "2025-03-01T10:00:01")
    second = {**first, "id": "r2", "trace_id": "r2"}
    with pytest.raises(InputError, match="belong to 2 traces") as caught:
        parse_trace([first, second])
    assert caught.value.fix and "trace_id" in caught.value.fix


def test_langchain_messages_and_langsmith_runs_are_told_apart() -> None:
    messages = json.loads((FIXTURES / "langchain_messages.json").read_text(encoding="utf-8"))
    assert parse_trace(messages)[1].format == "langchain"
    assert parse_trace(_langgraph_tree())[1].format == "langsmith"


def test_near_misses_name_what_langsmith_runs_miss() -> None:
    post = {"id": "r1", "trace_id": "r1", "dotted_order": "20241008T045033887026Zr1",
            "name": "ChatOpenAI", "run_type": "llm", "inputs": {}}
    assert near([{"post": [post]}, {"patch": [{"id": "r1", "trace_id": "r1", "outputs": {}}]}]
                ).startswith('LangSmith ingest operations ("post"/"patch" halves of runs)')
    run = _run("a", "search", "tool", "2025-03-01T10:00:01", None)
    assert near({"runs": [run, run, {"name": "x"}]}) == (
        "LangSmith runs (2 of 3 items are), but $.runs[2] is not a run (a "
        '"name" and a run_type of chain, embedding, llm, parser, prompt, retriever, tool)')
    broken_tree = {**run, "child_runs": [{"name": "x", "run_type": "agent"}]}
    assert (near(broken_tree) or "").startswith(
        "a LangSmith run tree, but $.child_runs[0] is not a run")
    assert near({"runs": [{"a": 1}, {"b": 2}]}) is None and near({"hello": 1}) is None


def test_explain_format_says_why_the_export_was_claimed(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [{"tool": "processToolCalls"}])
    out = run_cli("eval", str(gold), str(FIXTURES / "langsmith_runs_flat.json"),
                  "--explain-format", "--json", "-")
    assert out.returncode == 0, out.stderr
    assert 'format: langsmith (a LangSmith runs query response ("runs"))' in out.stderr
    record = json.loads(out.stdout)
    assert record["trace"]["format"] == "langsmith"
