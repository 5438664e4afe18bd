"""``toolscore agent run --judge`` and the regrade of its runs file: each row stores the
judgments its evaluation made, and a regrade reads them with no model to ask."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers import AGENTS, check_in, read_rows, run_cli
from tests.toolscore_judge.chat_server import ChatServer, Reply

KEY = "sk-test-judge-0123456789abcdef"
ENV = {"TOOLSCORE_JUDGE_API_KEY": KEY, "OPENAI_API_KEY": ""}
MODEL = "judge-model-1"
YES = "yes: both say it is 18 degrees Celsius in Paris."


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The test agent and its study, whose weather task has a reference answer the agent
    words differently (the rules leave answer-correct unknown: the judge decides) and whose
    book task's reference is the agent's answer (the rules decide: no question)."""
    shutil.copy(AGENTS / "plan_agent.py", tmp_path / "plan_agent.py")
    spec = yaml.safe_load((AGENTS / "study.yaml").read_text())
    spec["tasks"]["weather"]["expected_answer"] = "Paris is at 18 degrees Celsius."
    spec["tasks"]["book"]["expected_answer"] = "Booked UA123 for 1 passenger, confirmation ZX9K2."
    (tmp_path / "judged.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    return tmp_path


def _judged_run(folder: Path, *options: str) -> Path:
    with ChatServer([Reply(YES)]).running() as server:
        out = run_cli("agent", "run", "--spec", "judged.yaml", "--agent", "python plan_agent.py",
                      "-o", "runs.jsonl", "--trials", "2", "--jobs", "2", "--no-progress",
                      "--judge", MODEL, "--judge-base-url", server.url, *options,
                      cwd=folder, env=ENV)
    assert out.returncode == 0, out.stderr
    assert KEY not in out.stdout + out.stderr
    # one question per weather run: the book answers are the reference word for word
    assert len(server.seen) == 2, [(row["run_id"], row.get("outcome"), row.get("error"))
                                   for row in read_rows(folder / "runs.jsonl")]
    assert {seen.authorization for seen in server.seen} == {f"Bearer {KEY}"}
    return folder / "runs.jsonl"


def test_rows_store_their_judgments_and_a_regrade_gives_the_same_records_offline(
        folder: Path) -> None:
    runs = _judged_run(folder)
    assert KEY not in runs.read_text()
    rows = {row["run_id"]: row for row in read_rows(runs)}
    weather = rows["plan-agent:weather:1"]
    assert weather["judge"]["model"] == MODEL
    [judgment] = weather["judge"]["judgments"]
    assert judgment["verdict"] == "yes" and judgment["template"] == "answer-correct"
    assert judgment["response"] == YES
    assert "Paris is at 18 degrees Celsius." in judgment["request"]["messages"][1]["content"]
    correct = check_in(weather, "answer-correct")
    assert correct["status"] == "pass"
    assert correct["reason"] == (f"decided by the judge {MODEL}: the final answer gives the "
                                 "reference answer (both say it is 18 degrees Celsius in Paris)")
    assert correct["details"]["judge"]["judgment_sha256"] == judgment["sha256"]
    assert weather["contract"]["expected_answer"] == "Paris is at 18 degrees Celsius."
    # every row of a judged study names its judge; rows the rules decided hold no judgment
    book = rows["plan-agent:book:1"]
    assert book["judge"] == {"model": MODEL, "judgments": []}
    assert check_in(book, "answer-correct")["reason"] == "the final answer is the reference answer"

    # The server is gone: a regrade under the same spec, on one process or two, reads the
    # verdicts from the rows and gives every run the evaluation it was recorded with.
    for jobs in ("1", "2"):
        out = run_cli("regrade", "runs.jsonl", "--spec", "judged.yaml", "-o", f"same{jobs}.jsonl",
                      "--jobs", jobs, cwd=folder)
        assert out.returncode == 0, out.stderr
        assert "6 rows: 6 regraded, 0 written through unchanged. No task flipped." in out.stdout
        again = {row["run_id"]: row for row in read_rows(folder / f"same{jobs}.jsonl")}
        for run_id, row in rows.items():
            assert again[run_id]["record_sha256"] == row["record_sha256"], run_id
            assert again[run_id]["evaluation"] == row["evaluation"]
            assert again[run_id]["judge"] == row["judge"]


def test_a_judgment_removed_from_a_row_is_unknown_until_a_regrade_asks_again(
        folder: Path) -> None:
    runs = _judged_run(folder)
    rows = read_rows(runs)
    for row in rows:
        row["judge"]["judgments"] = []
    (folder / "bare.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = run_cli("regrade", "bare.jsonl", "--spec", "judged.yaml", "-o", "bare.v2.jsonl",
                  cwd=folder)
    assert out.returncode == 0, out.stderr
    for row in read_rows(folder / "bare.v2.jsonl"):
        if row["task_id"] != "weather":
            continue
        correct = check_in(row, "answer-correct")
        assert correct["status"] == "unknown"
        assert correct["reason"].endswith(
            f"the judge {MODEL}'s judgment is not in the run's stored judgments "
            "(`toolscore regrade --judge` asks again)")
        assert correct["details"]["judge"]["verdict"] is None

    # --judge asks only what the rows lack: the two weather trials made the same calls and
    # gave the same answer, so they are one question
    with ChatServer([Reply(YES)]).running() as server:
        out = run_cli("regrade", "bare.jsonl", "--spec", "judged.yaml", "-o", "asked.jsonl",
                      "--judge", MODEL, "--judge-base-url", server.url, cwd=folder, env=ENV)
    assert out.returncode == 0, out.stderr
    assert len(server.seen) == 1
    original = {row["run_id"]: row for row in rows}
    for row in read_rows(folder / "asked.jsonl"):
        assert row["record_sha256"] == original[row["run_id"]]["record_sha256"]
        assert len(row["judge"]["judgments"]) == (row["task_id"] == "weather")
    assert KEY not in (folder / "asked.jsonl").read_text()


def test_each_run_asks_its_own_questions_whichever_run_finishes_first(folder: Path) -> None:
    """On one worker the second weather trial starts after the first has its answer: it
    still asks (one question per run, as on two workers), and stores the same judgment."""
    rows = read_rows(_judged_run(folder, "--jobs", "1"))
    weather = [row for row in rows if row["task_id"] == "weather"]
    assert [len(row["judge"]["judgments"]) for row in weather] == [1, 1]
    assert weather[0]["judge"] == weather[1]["judge"]

def test_a_study_without_a_judge_has_no_judge_in_its_rows(folder: Path) -> None:
    out = run_cli("agent", "run", "--spec", "judged.yaml", "--agent", "python plan_agent.py",
                  "-o", "runs.jsonl", "--no-progress", cwd=folder)
    assert out.returncode == 0, out.stderr
    for row in read_rows(folder / "runs.jsonl"):
        assert "judge" not in row
    weather = next(r for r in read_rows(folder / "runs.jsonl") if r["task_id"] == "weather")
    assert check_in(weather, "answer-correct")["status"] == "unknown"


def test_judge_options_are_refused_where_they_cannot_work(folder: Path) -> None:
    runs = _judged_run(folder)
    no_key = {"TOOLSCORE_JUDGE_API_KEY": "", "OPENAI_API_KEY": ""}
    for args in (("agent", "run", "--spec", "judged.yaml", "--agent", "python plan_agent.py",
                  "-o", "other.jsonl", "--judge", MODEL),
                 ("regrade", str(runs), "-o", "x.jsonl", "--judge", MODEL)):
        out = run_cli(*args, cwd=folder, env=no_key)
        assert out.returncode == 2
        assert out.stderr == ("error: --judge: --judge needs an API key in "
                              "TOOLSCORE_JUDGE_API_KEY (or OPENAI_API_KEY); export "
                              "TOOLSCORE_JUDGE_API_KEY=... (any text for a local server that "
                              "needs none)\n")
    assert not (folder / "other.jsonl").exists() and not (folder / "x.jsonl").exists()
    out = run_cli("regrade", "runs.jsonl", "-o", "x.jsonl", "--judge-base-url", "http://x/v1",
                  cwd=folder)
    assert (out.returncode, out.stderr) == (2, "error: --judge-base-url: --judge-base-url needs "
                                               "--judge; add --judge MODEL, or leave it out\n")
    (folder / "trace.json").write_text('{"calls": []}')
    out = run_cli("regrade", "trace.json", "--gold", "judged.yaml", "--judge", MODEL,
                  cwd=folder, env=ENV)
    assert out.returncode == 2
    assert out.stderr == ("error: --judge: --judge is for agent-run JSONL files; to ask the "
                          "judge again for a receipt, evaluate again with `toolscore eval GOLD "
                          "TRACE --judge MODEL --receipt FILE`\n")
