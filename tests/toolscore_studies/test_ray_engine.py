"""The Ray engine against a real local Ray cluster (2 CPUs, one for the whole module).

Rows are compared with the local engine's: byte for byte for a regrade; for agent runs,
all but the two measured fields (``started_at``, ``duration``), sorted by run id (both
engines append runs as they finish).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import toolscore
from tests.helpers import AGENTS, run_cli
from tests.toolscore_judge.chat_server import ChatServer, Reply
from toolscore_core.models import ToolCall
from toolscore_core.plugins import default_registry
from toolscore_studies import ray_engine
from toolscore_studies.regrade import RegradeSettings, regrade_file
from toolscore_studies.runner import KILL_GRACE, CommandRunner, plan_runs
from toolscore_studies.spec import load_study

MEASURED = ("started_at", "duration")
NODE_KEY = "sk-the-clusters-own-key-0123"
pytestmark = [pytest.mark.slow, pytest.mark.ray]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local cluster for the module, shut down however the tests end; its address."""
    if os.environ.get("CI", "").lower() == "true":
        import ray  # CI installs the [ray] extra: a missing Ray fails there, never skips
    else:
        ray = pytest.importorskip("ray")
    with pytest.MonkeyPatch.context() as patch:
        # the nodes' own judge key, as a cluster's machines hold the keys their work needs
        patch.setenv("TOOLSCORE_JUDGE_API_KEY", NODE_KEY)
        ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _without_measured(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        for key in MEASURED:
            assert row.pop(key) is not None
    return sorted(rows, key=lambda row: row["run_id"])


def _study_dir(tmp_path: Path) -> Path:
    for name in ("plan_agent.py", "study.yaml", "study-v2.yaml"):
        shutil.copy(AGENTS / name, tmp_path / name)
    return tmp_path


def test_the_commands_write_the_local_engines_rows_on_ray(cluster: str, tmp_path: Path) -> None:
    folder = _study_dir(tmp_path)
    # a relative agent path: the agent runs in the driver's directory, not the worker's
    run = ("agent", "run", "--spec", "study.yaml", "--agent", "python plan_agent.py",
           "--trials", "3", "--jobs", "2", "--no-progress")
    local = run_cli(*run, "-o", "local.jsonl", cwd=folder)
    on_ray = run_cli(*run, "-o", "ray.jsonl", "--engine", "ray", "--ray-address", cluster,
                     cwd=folder)
    assert local.returncode == on_ray.returncode == 0, on_ray.stderr
    expected = _without_measured(folder / "local.jsonl")
    assert len(expected) == 9
    assert _without_measured(folder / "ray.jsonl") == expected

    # --resume on Ray: the same scan of the file, the torn last line cut off
    kept = (folder / "ray.jsonl").read_bytes().splitlines(keepends=True)[:4]
    (folder / "resumed.jsonl").write_bytes(b"".join(kept) + b'{"kind": "toolsc')
    resumed = run_cli(*run, "-o", "resumed.jsonl", "--resume", "--engine", "ray",
                      "--ray-address", cluster, cwd=folder)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming: 4 runs already in resumed.jsonl, 5 to go" in resumed.stderr
    assert _without_measured(folder / "resumed.jsonl") == expected

    regrade_args = ("regrade", "local.jsonl", "--spec", "study-v2.yaml", "--jobs", "2")
    local = run_cli(*regrade_args, "-o", "local.v2.jsonl", cwd=folder)
    on_ray = run_cli(*regrade_args, "-o", "ray.v2.jsonl", "--engine", "ray", "--ray-address",
                     cluster, cwd=folder)
    assert local.returncode == on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout == local.stdout
    assert (folder / "ray.v2.jsonl").read_bytes() == (folder / "local.v2.jsonl").read_bytes()


def test_a_judged_study_on_ray_asks_with_the_nodes_key_and_regrades_offline(
        cluster: str, tmp_path: Path) -> None:
    folder = _study_dir(tmp_path)
    spec = yaml.safe_load((folder / "study.yaml").read_text())
    spec["tasks"]["weather"]["expected_answer"] = "Paris is at 18 degrees Celsius."
    (folder / "judged.yaml").write_text(yaml.safe_dump(spec))
    driver = {"TOOLSCORE_JUDGE_API_KEY": "sk-the-drivers-own-key-0123", "OPENAI_API_KEY": ""}
    with ChatServer([Reply("yes: both say 18 degrees.")]).running() as server:
        run = run_cli("agent", "run", "--spec", "judged.yaml", "--agent", "python plan_agent.py",
                      "-o", "runs.jsonl", "--trials", "2", "--jobs", "2", "--no-progress",
                      "--engine", "ray", "--ray-address", cluster, "--judge", "judge-model-1",
                      "--judge-base-url", server.url, cwd=folder, env=driver)
    assert run.returncode == 0, run.stderr
    # the driver's key never left it: the workers asked with their own
    assert [seen.authorization for seen in server.seen] == [f"Bearer {NODE_KEY}"] * 2
    rows = _without_measured(folder / "runs.jsonl")
    weather = [row for row in rows if row["task_id"] == "weather"]
    assert [len(row["judge"]["judgments"]) for row in weather] == [1, 1]
    regrade = ("regrade", "runs.jsonl", "--spec", "judged.yaml", "--jobs", "2")
    local = run_cli(*regrade, "-o", "local.v2.jsonl", cwd=folder)
    on_ray = run_cli(*regrade, "-o", "ray.v2.jsonl", "--engine", "ray", "--ray-address",
                     cluster, cwd=folder)
    assert local.returncode == on_ray.returncode == 0, on_ray.stderr
    assert (folder / "ray.v2.jsonl").read_bytes() == (folder / "local.v2.jsonl").read_bytes()
    again = {row["run_id"]: row for row in _without_measured(folder / "ray.v2.jsonl")}
    assert [again[row["run_id"]]["record_sha256"] for row in rows] == [
        row["record_sha256"] for row in rows]


SPEC = {"study": "s", "version": "1", "defaults": {"pass_threshold": 0.9}, "tasks": {
    "find": {"prompt": "find x", "expected": [{"tool": "find", "args": {"q": "x"}}]},
    "add": {"prompt": "add 1 and 2", "expected": [{"tool": "add", "args": {"a": 1, "b": 2}}]},
    "boom": {"prompt": "explode", "expected": [{"tool": "find", "args": {}}]},
}}


def _agent(prompt: str) -> object:
    if prompt == "explode":
        raise RuntimeError("the model is down")
    if prompt.startswith("find"):
        return [ToolCall(tool="find", args={"q": "x"}, result="x=1", is_error=False)], "x is 1"
    return [ToolCall(tool="add", args={"a": 1, "b": 3}, result=4, is_error=False)], "4"


def test_run_study_on_ray_returns_and_writes_the_local_records(
        cluster: str, tmp_path: Path) -> None:
    local = toolscore.run_study(SPEC, _agent, trials=4, jobs=2, output=tmp_path / "l.jsonl")
    on_ray = toolscore.run_study(SPEC, _agent, trials=4, jobs=2, engine="ray",
                                 output=tmp_path / "r.jsonl")
    assert [r["run_id"] for r in on_ray] == [r["run_id"] for r in local]  # plan order
    assert [r["outcome"] for r in on_ray].count("error") == 4  # the agent's own exception
    for record in (*local, *on_ray):
        for key in MEASURED:
            record.pop(key)
    assert on_ray == local
    assert _without_measured(tmp_path / "r.jsonl") == _without_measured(tmp_path / "l.jsonl")


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """600 rows (about 1,100 bytes each), with some lines that are not runs."""
    out = tmp_path / "runs.jsonl"
    toolscore.run_study(SPEC, _agent, trials=200, output=out)
    lines = out.read_bytes().splitlines(keepends=True)
    lines[7:7] = [b"{not json\n", b"\n"]
    out.write_bytes(b"".join(lines))
    return out


def _spec_v2(tmp_path: Path) -> str:
    v2 = json.loads(json.dumps(SPEC))
    v2["tasks"]["add"]["expected"] = [{"tool": "add", "args": {"a": 1, "b": {"$type": "int"}}}]
    del v2["tasks"]["find"]
    path = tmp_path / "v2.yaml"
    path.write_text(yaml.safe_dump(v2))
    return str(path)


def test_a_regrade_on_ray_writes_the_same_bytes_in_the_same_order(
        cluster: str, runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = RegradeSettings(spec=_spec_v2(tmp_path))
    local = regrade_file(runs, tmp_path / "local.jsonl", settings)
    monkeypatch.setattr(ray_engine, "CHUNK_BYTES", 4096)  # about 150 chunks: order is at stake
    on_ray = regrade_file(runs, tmp_path / "ray.jsonl", settings, jobs=2, engine="ray")
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert on_ray.to_dict() == local.to_dict()
    assert local.regraded == 400 and local.written_through == 201  # "find" left the spec


def _ray_workers_running(function: str) -> list[int]:
    """The pids of the Ray workers running ``function`` now (Ray titles them ray::NAME)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            title = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if title.strip() == f"ray::{function}".encode():
            found.append(int(entry.name))
    return found


def test_a_worker_killed_mid_regrade_loses_and_repeats_no_row(
        cluster: str, runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = RegradeSettings(spec=_spec_v2(tmp_path))
    regrade_file(runs, tmp_path / "local.jsonl", settings)
    monkeypatch.setattr(ray_engine, "CHUNK_BYTES", 4096)
    done: list[Any] = []
    thread = threading.Thread(target=lambda: done.append(regrade_file(
        runs, tmp_path / "ray.jsonl", settings, jobs=2, engine="ray")))
    thread.start()
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and thread.is_alive() and time.monotonic() < deadline:
        for pid in _ray_workers_running("_call"):
            os.kill(pid, signal.SIGKILL)
            killed = pid
            break
        time.sleep(0.005)
    thread.join(120)
    assert killed is not None, "no worker was caught regrading a chunk"
    assert done and done[0].rows == 601
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


def _run_with_killer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     kills: dict[str, int]) -> list[dict[str, Any]]:
    """The test study on Ray through the worker-killing agent, run from ``tmp_path``."""
    folder = _study_dir(tmp_path)
    (folder / "kill-worker.json").write_text(json.dumps(kills))
    monkeypatch.chdir(folder)
    study = load_study(folder / "study.yaml")
    stop = threading.Event()
    runner = CommandRunner(study, [sys.executable, str(AGENTS / "worker_killer_agent.py")],
                           agent="killer", timeout=60, registry=default_registry(), stop=stop)
    records: list[dict[str, Any]] = []
    with ray_engine.executing(None, jobs=2, kill_grace=KILL_GRACE) as execute:
        execute(plan_runs(study, trials=2), runner, jobs=2, on_record=records.append,
                stop=stop)
    return sorted(records, key=lambda r: r["run_id"])


def test_a_run_whose_worker_is_killed_is_run_again_once(
        cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = _run_with_killer(tmp_path, monkeypatch, {"book:2": 1})
    assert [r["run_id"] for r in records] == [
        f"plan-agent:{task}:{trial}" for task in ("book", "flaky", "weather")
        for trial in (1, 2)]
    assert (tmp_path / "attempts-book-2").read_text().count("attempt") == 2
    book = {r["trial"]: r for r in records if r["task_id"] == "book"}
    assert book[2]["outcome"] == "passed"
    for record in book.values():
        for key in (*MEASURED, "run_id", "trial"):
            record.pop(key)
    assert book[1] == book[2]


def test_a_run_whose_worker_keeps_dying_is_an_error_run(
        cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray_engine, "RETRIES", 1)
    records = _run_with_killer(tmp_path, monkeypatch, {"weather:1": 5})
    assert len(records) == 6 and len({r["run_id"] for r in records}) == 6
    assert (tmp_path / "attempts-weather-1").read_text().count("attempt") == 2
    lost = next(r for r in records if r["run_id"] == "plan-agent:weather:1")
    assert lost["outcome"] == "error" and lost["error"]["kind"] == "worker"
    assert lost["error"]["message"].startswith("Ray lost the run: ")
    assert lost["duration"] is None and "duration" in lost["unknown"]
    assert lost["calls"] is None and lost["evaluation"] is None
    assert [r["outcome"] for r in records if r is not lost].count("error") == 0
