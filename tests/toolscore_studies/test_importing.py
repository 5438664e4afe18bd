"""Imported runs: rows other tools' results become, checked, and regraded like any run."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES
from toolscore_core.errors import InputError, PluginError
from toolscore_core.hookspecs import hookimpl
from toolscore_core.importers import ImportedRun, RunImporter
from toolscore_core.models import ToolCall, Trace
from toolscore_core.plugins import build_registry, get_plugin_manager
from toolscore_studies.importing import import_runs
from toolscore_studies.regrade import RegradeSettings, regrade_file
from toolscore_studies.summary import summarize_file

TAU = EXAMPLES / "benchmarks" / "tau_bench" / "gpt-4o-airline.json"


def _registry_with(read: object, **fields: object) -> object:
    module = types.ModuleType("acme")

    @hookimpl
    def toolscore_register_run_importers() -> list[RunImporter]:
        return [RunImporter(id="acme", description="test results", read=read, **fields)]

    module.toolscore_register_run_importers = toolscore_register_run_importers  # type: ignore[attr-defined]
    pm = get_plugin_manager(entry_points=False, env={})
    pm.register(module, name="acme")
    return build_registry(pm)


def _run(task: str, trial: int, place: str, passed: bool | None = True) -> ImportedRun:
    call = ToolCall(tool="lookup", args={"q": task}, id="1", result="found", is_error=False)
    return ImportedRun(task_id=task, trial=trial, trace=Trace(calls=(call,), final_answer="ok"),
                       passed=passed, place=place)


def test_the_same_task_and_trial_twice_names_both_places(tmp_path: Path) -> None:
    registry = _registry_with(lambda source: [_run("a", 1, "line 1"), _run("a", 1, "line 7")])
    (tmp_path / "r.txt").write_text("x")
    with pytest.raises(InputError, match=r"r\.txt: task 'a' trial 1 is both at line 1 and at "
                       r"line 7"):
        import_runs("acme", str(tmp_path / "r.txt"), str(tmp_path / "o.jsonl"),
                    registry=registry)  # type: ignore[arg-type]
    assert not (tmp_path / "o.jsonl").exists()


def test_an_importer_yielding_something_else_is_named(tmp_path: Path) -> None:
    registry = _registry_with(lambda source: [{"task_id": "a"}])
    (tmp_path / "r.txt").write_text("x")
    with pytest.raises(PluginError, match=r"plugin 'acme' returned dict from the read of run "
                       r"importer 'acme'; it must yield ImportedRun records"):
        import_runs("acme", str(tmp_path / "r.txt"), str(tmp_path / "o.jsonl"),
                    registry=registry)  # type: ignore[arg-type]


def test_an_input_the_importer_does_not_take_is_refused_before_reading(tmp_path: Path) -> None:
    def read(source: object) -> list[ImportedRun]:
        raise AssertionError("read before the inputs were checked")

    registry = _registry_with(read, inputs={"score": "the verdicts"})
    (tmp_path / "r.txt").write_text("x")
    with pytest.raises(InputError, match=r"--input: acme has no input 'scores'; it takes score"):
        import_runs("acme", str(tmp_path / "r.txt"), str(tmp_path / "o.jsonl"),
                    inputs={"scores": str(tmp_path / "r.txt")}, registry=registry)  # type: ignore[arg-type]


def test_the_output_may_not_be_the_results_file() -> None:
    with pytest.raises(InputError, match="the output is the results file"):
        import_runs("tau_bench", str(TAU), str(TAU))


def test_imported_rows_are_evaluated_by_a_regrade_not_turned_into_errors(tmp_path: Path) -> None:
    """Rows that were never evaluated (no evaluation, no pass threshold) are evaluated
    under the gold file at the default threshold 0.8."""
    runs = tmp_path / "runs.jsonl"
    import_runs("tau_bench", str(TAU), str(runs))
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "transfer_to_human_agents"}]))
    summary = regrade_file(runs, tmp_path / "v2.jsonl", RegradeSettings(gold=str(gold)))
    assert summary.regraded == 12 and summary.written_through == 0
    rows = [json.loads(line) for line in (tmp_path / "v2.jsonl").read_text().splitlines()]
    assert all(r["evaluation"] is not None and r["outcome"] in ("passed", "failed")
               for r in rows)
    assert {r["pass_threshold"] for r in rows} == {0.8}
    assert rows[0]["imported"]["verdict"]["reward"] is not None  # kept through the regrade
    after = summarize_file(tmp_path / "v2.jsonl").to_dict()
    assert after["total"]["errors"] == 0 and after["total"]["scored_runs"] == 12


def test_a_hand_written_row_without_evaluation_is_evaluated(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({
        "kind": "toolscore.agent_run", "task_id": "t", "trial": 1, "final_answer": "done",
        "calls": [{"tool": "lookup", "args": {"q": "x"}, "result": "r", "is_error": False}],
    }) + "\n")
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "lookup", "args": {"q": "x"}}]))
    summary = regrade_file(runs, tmp_path / "v2.jsonl", RegradeSettings(gold=str(gold)))
    assert summary.regraded == 1
    (row,) = [json.loads(line) for line in (tmp_path / "v2.jsonl").read_text().splitlines()]
    assert row["outcome"] == "passed" and row["evaluation"]["score"] == 1.0


def test_an_importer_id_taken_twice_names_both_providers() -> None:
    module = types.ModuleType("rival")

    @hookimpl
    def toolscore_register_run_importers() -> list[RunImporter]:
        return [RunImporter(id="bfcl", description="another BFCL", read=lambda source: [])]

    module.toolscore_register_run_importers = toolscore_register_run_importers  # type: ignore[attr-defined]
    pm = get_plugin_manager(entry_points=False, env={})
    pm.register(module, name="rival")
    registry = build_registry(pm)  # the run importers are collected when first asked for
    with pytest.raises(PluginError, match=r"run importer id 'bfcl' is provided by both plugin "
                       r"'toolscore_studies.importers.bfcl' \(toolscore .*\) and plugin 'rival'"):
        dict(registry.run_importers)
