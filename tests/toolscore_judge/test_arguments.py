"""``{"$judge": ...}`` arguments decided by the judge through the real openai SDK against
the scripted local server: yes, no, no verdict, no judge, and regrades from the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.toolscore_judge.chat_server import ChatServer, Reply
from toolscore_core.context import Evaluation
from toolscore_core.evaluation import evaluate, evaluate_files
from toolscore_core.judging import Judging
from toolscore_core.receipts import build_receipt
from toolscore_judge.client import chat_client
from toolscore_judge.store import read_judgments

KEY = "sk-test-judge-0123456789abcdef"
ENV = {"TOOLSCORE_JUDGE_API_KEY": KEY, "OPENAI_API_KEY": ""}
MODEL = "judge-model-1"
GOLD = {"expected": [
    {"tool": "search_hotels", "args": {"city": {"$judge": "the same city as Paris, France"},
                                       "nights": 2}},
    {"tool": "book_hotel", "args": {"hotel_id": "H-77"}},
]}


def trace(city: Any = "Paname") -> dict[str, Any]:
    return {"calls": [
        {"id": "c1", "tool": "search_hotels", "args": {"city": city, "nights": 2},
         "result": "[H-77]"},
        {"id": "c2", "tool": "book_hotel", "args": {"hotel_id": "H-77"}, "result": "booked"},
    ]}


def judged(server: ChatServer, judgments: Path | None, city: Any = "Paname",
           **client: float) -> Evaluation:
    judge = Judging(model=MODEL, judgments=None if judgments is None else str(judgments),
                    client=chat_client(MODEL, base_url=server.url,
                                       env={"TOOLSCORE_JUDGE_API_KEY": KEY}, **client))
    return evaluate(GOLD, trace(city), judge=judge)


def check(evaluation: Evaluation) -> tuple[str, str]:
    result = evaluation.evidence.get("judged-arguments")
    assert result is not None
    return result.status, result.reason


def test_a_judged_yes_is_a_match_asked_once(tmp_path: Path) -> None:
    with ChatServer([Reply("yes: Paname is a nickname of Paris.")]).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl")
    assert evaluation.metrics["argument_f1"] == 1.0
    assert evaluation.unscored == ()
    # the judge's yes makes the call the required one: made with its arguments
    assert evaluation.evidence.get("required-calls").status == "pass"  # type: ignore[union-attr]
    assert evaluation.required_call_recall == 1.0
    assert check(evaluation) == ("pass", f"decided by the judge {MODEL}: the judged argument "
                                 "meets what the contract says")
    # argument_f1 and the check ask one question, once.
    assert len(server.seen) == 1
    asked = server.seen[0].body["messages"][1]["content"]
    assert 'The argument: "city"\nIt should be: "the same city as Paris, France"' in asked
    assert '(JSON):\n"Paname"\n' in asked and 'The tool: "search_hotels"' in asked
    stored = read_judgments(tmp_path / "j.jsonl")
    assert [(j.template, j.verdict) for j in stored.values()] == [("judged-argument", "yes")]
    details = evaluation.evidence.get("judged-arguments").details  # type: ignore[union-attr]
    assert details["arguments"] == [{
        "expected": 1, "call": 1, "tool": "search_hotels", "argument": "city",
        "claim": "the same city as Paris, France", "verdict": "yes",
        "why": "Paname is a nickname of Paris", "judgment_sha256": next(iter(stored))}]
    assert json.loads(evaluation.record_json)["calls"]["expected"][0]["args"]["city"] == (
        "Judged('the same city as Paris, France')")


def test_a_judged_no_is_a_mismatch(tmp_path: Path) -> None:
    with ChatServer([Reply("no: Lyon is another city.")]).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl", city="Lyon")
    # search_hotels matched nights only: F1 2*1/(2+2); book_hotel 1.0.
    assert evaluation.metrics["argument_f1"] == 0.75
    required = evaluation.evidence.get("required-calls")
    assert required is not None and required.status == "fail"
    assert required.reason == ("not made: search_hotels (call #1: argument 'city' differs "
                               "(the judge said no))")
    assert check(evaluation) == ("fail", f"decided by the judge {MODEL}: city of call #1 "
                                 "search_hotels is not 'the same city as Paris, France' "
                                 "(Lyon is another city)")


@pytest.mark.parametrize(("reply", "why"), [
    (Reply("error", status=500), "HTTP 500 (1 try): error"),
    (Reply("Paris, probably."), "no yes or no in the answer: Paris, probably."),
    (Reply(body=b"\x80\x81 not text"), "the endpoint's answer is not text (undecodable bytes)"),
    (Reply(body=b"<html>Bad gateway</html>"),
     "the endpoint's answer is not JSON (Expecting value: line 1 column 1 (char 0))"),
    (Reply("yes: " + "Paris " * 1_000), "an answer of 6,005 characters, over the 4,000 a "
                                        "verdict needs; not read"),
])
def test_a_judge_that_cannot_answer_leaves_the_metric_unknown(
    tmp_path: Path, reply: Reply, why: str
) -> None:
    with ChatServer([reply]).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl", retries=0)
    assert len(server.seen) == 1  # the check heard the metric's answer, not a second one
    reason = (f"1 judged argument undecided: city of call #1 search_hotels: the judge {MODEL} "
              f"gave no verdict: {why}")
    assert evaluation.metrics["argument_f1"] == {"unknown": reason}
    assert evaluation.unscored == ("argument_f1",)
    assert check(evaluation) == ("unknown", reason)
    # The score is the other metrics' alone, never argument_f1 counted as 0 or 1.
    without = evaluate(GOLD, trace(), weights={"argument_f1": 0})
    assert evaluation.score == without.score


def test_without_a_judge_a_judged_argument_is_unknown_not_an_error(tmp_path: Path) -> None:
    evaluation = evaluate(GOLD, trace())
    reason = ("1 judged argument undecided: city of call #1 search_hotels: no judge was given "
              "(--judge MODEL)")
    assert evaluation.metrics["argument_f1"] == {"unknown": reason}
    assert check(evaluation) == ("unknown", reason)
    assert evaluation.score is not None and "argument_f1" in evaluation.unscored
    # Pairing went by the other arguments: the call of the tool was made, but whether with
    # its arguments only the judge can say, and nothing asks one.
    required = evaluation.evidence.get("required-calls")
    assert required is not None and required.status == "unknown"
    assert required.reason == (
        "1 required call made with arguments only the judge decides: search_hotels (call #1: "
        "argument 'city' is the judge's to decide: no judge was given (--judge MODEL))")
    assert evaluation.required_call_recall is None
    (tmp_path / "gold.json").write_text(json.dumps(GOLD))
    (tmp_path / "trace.json").write_text(json.dumps(trace()))
    out = run_cli("eval", "gold.json", "trace.json", "--receipt", "r.json", cwd=tmp_path,
                  env=ENV)
    assert out.returncode == 0, out.stderr
    assert f"unknown judged-arguments: {reason}" in out.stdout
    out = run_cli("verify", "--recompute", "r.json", cwd=tmp_path)
    assert out.returncode == 0 and "reproduced" in out.stdout


def test_a_call_without_the_argument_asks_no_judge(tmp_path: Path) -> None:
    calls = trace()
    del calls["calls"][0]["args"]["city"]
    with ChatServer([Reply("yes: never asked")]).running() as server:
        judge = Judging(model=MODEL, judgments=str(tmp_path / "j.jsonl"),
                        client=chat_client(MODEL, base_url=server.url,
                                           env={"TOOLSCORE_JUDGE_API_KEY": KEY}))
        evaluation = evaluate(GOLD, calls, judge=judge)
    assert server.seen == []
    assert evaluation.evidence.get("judged-arguments") is None
    assert evaluation.metrics["argument_f1"] == round((2 * 1 / 3 + 1.0) / 2, 12)


def test_a_credential_in_the_argument_is_masked_before_it_is_sent(tmp_path: Path) -> None:
    secret = "sk-proj-abcdefghijklmnopqrstuvwx0123456789"
    with ChatServer([Reply("no: a key is no city.")]).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl", city=secret)
    assert secret not in json.dumps(server.seen[0].body)
    assert secret not in (tmp_path / "j.jsonl").read_text()
    assert check(evaluation)[0] == "fail"


def test_regrade_with_the_server_stopped_gives_the_same_record(tmp_path: Path) -> None:
    (tmp_path / "gold.json").write_text(json.dumps(GOLD))
    (tmp_path / "trace.json").write_text(json.dumps(trace()))
    with ChatServer([Reply("yes: Paname is Paris.")]).running() as server:
        out = run_cli("eval", "gold.json", "trace.json", "--judge", MODEL, "--judge-base-url",
                      server.url, "--receipt", "run.receipt.json", cwd=tmp_path, env=ENV)
    assert out.returncode == 0, out.stderr
    assert "judged-arguments" not in out.stdout  # passed: the console lists the others
    stored = read_judgments(tmp_path / "run.judgments.jsonl")
    assert [j.verdict for j in stored.values()] == ["yes"]
    receipt = json.loads((tmp_path / "run.receipt.json").read_text())
    out = run_cli("verify", "--recompute", "run.receipt.json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout
    assert f"reproduced: record_sha256 {receipt['result']['record_sha256']} matches" in out.stdout
    out = run_cli("regrade", "run.receipt.json", "--json", "-", cwd=tmp_path)
    after = json.loads(out.stdout)["regrade"][0]["after"]
    assert after["record_sha256"] == receipt["result"]["record_sha256"]
    # A file-only judge in Python reads the same verdict; an emptied file decides nothing.
    judge = Judging(model=MODEL, judgments=str(tmp_path / "run.judgments.jsonl"))
    again = evaluate_files(tmp_path / "gold.json", tmp_path / "trace.json", judge=judge)
    assert again.metrics["argument_f1"] == 1.0
    (tmp_path / "run.judgments.jsonl").write_text("")
    emptied = evaluate_files(tmp_path / "gold.json", tmp_path / "trace.json", judge=judge)
    assert emptied.metrics["argument_f1"] == {"unknown": (
        f"1 judged argument undecided: city of call #1 search_hotels: the judge {MODEL}'s "
        "judgment is not in the judgments file (`toolscore eval --judge` asks again)")}
    assert build_receipt(emptied)["settings"]["judge_model"] == MODEL


def test_what_went_wrong_names_the_judged_argument_by_its_verdict(tmp_path: Path) -> None:
    from toolscore_formats.reports.diagnosis import findings

    assert findings(evaluate(GOLD, trace())) == [
        "call #1 search_hotels arguments differ: city: waits for a judge"]
    with ChatServer([Reply("no: Lyon is another city.")]).running() as server:
        refused = judged(server, tmp_path / "no.jsonl", city="Lyon")
    assert findings(refused) == ["call #1 search_hotels arguments differ: city: the judge "
                                 "says it is not 'the same city as Paris, France'"]
    with ChatServer([Reply("yes: the same city.")]).running() as server:
        assert findings(judged(server, tmp_path / "yes.jsonl")) == []


def test_the_call_table_shows_a_judged_argument_by_its_verdict(tmp_path: Path) -> None:
    from toolscore_formats.reports.view import call_rows

    def matches(evaluation: Evaluation) -> list[str]:
        return [row.match for row in call_rows(evaluation, evaluation.to_dict())]

    assert matches(evaluate(GOLD, trace())) == ["waits for a judge", "match"]
    with ChatServer([Reply("no: Lyon is another city.")]).running() as server:
        assert matches(judged(server, tmp_path / "no.jsonl", city="Lyon")) == [
            "arguments differ", "match"]
    with ChatServer([Reply("yes: the same city.")]).running() as server:
        assert matches(judged(server, tmp_path / "yes.jsonl")) == ["match", "match"]
    assert matches(evaluate(GOLD, trace() | {"calls": [
        {"id": "c1", "tool": "search_hotels", "args": {"city": "Paname", "nights": 3}},
        trace()["calls"][1]]})) == ["arguments differ", "match"]
