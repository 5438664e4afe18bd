"""``run_study(judge=...)`` and the row regrader with judgments: what a run's judge decided is
stored in its record, read back by a regrade, and asked again only when a client is given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolscore
from tests.helpers import check_in
from tests.toolscore_judge.chat_server import ChatServer, Reply
from toolscore_core.models import ToolCall
from toolscore_judge.client import chat_client
from toolscore_studies.regrade import RegradeSettings, RowRegrader
from toolscore_studies.runner import dump_row

KEY = "sk-test-judge-0123456789abcdef"
MODEL = "judge-model-1"
FRENCH = "C'est fait : votre vol AF7700 est réservé. Bon voyage !"
SPEC = {"study": "fr", "tasks": {"book": {
    "prompt": "Réserve le vol AF7700.",
    "expected": [{"tool": "book_flight", "args": {"flight_id": "AF7700"}}],
    "expected_answer": "The flight AF7700 could not be booked: no seat was available.",
}}}


def _agent(prompt: str) -> Any:
    return [ToolCall(tool="book_flight", args={"flight_id": "AF7700"}, is_error=True,
                     error="No seat available")], FRENCH


def _client(server: ChatServer, **options: Any) -> Any:
    return chat_client(MODEL, base_url=server.url, env={"TOOLSCORE_JUDGE_API_KEY": KEY},
                       **options)


@pytest.fixture
def spec(tmp_path: Path) -> str:
    """The study's spec as a file: a regrade under it keeps each run's judgment."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(SPEC), encoding="utf-8")
    return str(path)


def _regraded(record: dict[str, Any], spec: str, judge: Any = None) -> dict[str, Any]:
    regrader = RowRegrader(RegradeSettings(spec=spec, judge=judge))
    result = regrader.regrade((dump_row(record) + "\n").encode())
    assert result.problem is None, result.problem
    return json.loads(result.line)


def test_run_study_with_a_judge_stores_its_verdicts_and_a_regrade_reads_them(spec: str) -> None:
    script = [Reply("yes: the answer says the flight is booked, but the booking failed."),
              Reply("no: the reference says no seat was available.")]
    with ChatServer(script).running() as server:
        [record] = toolscore.run_study(SPEC, _agent, judge=_client(server))
    assert len(server.seen) == 2
    claimed = check_in(record, "claimed-success")
    assert (claimed["status"], claimed["details"]["language"]) == ("fail", "fr")
    assert claimed["reason"].startswith(f"decided by the judge {MODEL}: the answer claims")
    assert check_in(record, "answer-correct")["status"] == "fail"
    judgments = record["judge"]["judgments"]
    assert record["judge"]["model"] == MODEL
    assert sorted(j["template"] for j in judgments) == ["answer-correct", "claimed-success"]
    assert [j["sha256"] for j in judgments] == sorted(j["sha256"] for j in judgments)
    assert KEY not in dump_row(record)

    # No model now: the same spec, the verdicts read back from the row, the same evaluation
    again = _regraded(record, spec)
    assert again["record_sha256"] == record["record_sha256"]
    assert again["judge"] == record["judge"]


def test_a_judge_that_gave_no_verdict_is_stored_as_such_and_asked_again_on_request(
        spec: str) -> None:
    with ChatServer([Reply("slow", delay=2.0)]).running() as server:
        [record] = toolscore.run_study(SPEC, _agent, judge=_client(server, timeout=0.3,
                                                                   retries=0))
    claimed = check_in(record, "claimed-success")
    assert claimed["status"] == "unknown"
    assert claimed["reason"].endswith(f"the judge {MODEL} gave no verdict: no answer within "
                                      "0.3s (1 try)")
    assert {j["verdict"] for j in record["judge"]["judgments"]} == {None}
    # without a client the failure is what the row holds: the same unknown again
    assert _regraded(record, spec)["record_sha256"] == record["record_sha256"]
    script = [Reply("yes: it claims the booking."), Reply("no: the reference says not.")]
    with ChatServer(script).running() as server:
        asked = _regraded(record, spec, judge=_client(server))
    assert len(server.seen) == 2
    assert check_in(asked, "claimed-success")["status"] == "fail"
    assert {j["verdict"] for j in asked["judge"]["judgments"]} == {"yes", "no"}


def test_a_row_whose_judgments_are_not_judgments_is_written_through(spec: str) -> None:
    with ChatServer([Reply("yes: it claims it."), Reply("no: it does not.")]).running() as server:
        [record] = toolscore.run_study(SPEC, _agent, judge=_client(server))
    record["judge"]["judgments"][1]["verdict"] = "maybe"
    line = (dump_row(record) + "\n").encode()
    result = RowRegrader(RegradeSettings(spec=spec)).regrade(line)
    assert result.line == line
    assert result.problem == ("$.judge.judgments[1]: bad verdict 'maybe'; keep the judgments a "
                              "run record was written with")
    record["judge"]["judgments"][1]["verdict"] = "yes"
    record["judge"]["judgments"][1]["request"]["model"] = "another"  # no longer its address
    result = RowRegrader(RegradeSettings(spec=spec)).regrade(
        (dump_row(record) + "\n").encode())
    assert result.problem is not None and "does not match its request (edited?)" in result.problem


def test_a_run_without_a_judge_has_no_judge_member(spec: str) -> None:
    [record] = toolscore.run_study(SPEC, _agent)
    assert "judge" not in record
    assert check_in(record, "claimed-success")["status"] == "unknown"
    assert _regraded(record, spec)["record_sha256"] == record["record_sha256"]
