"""The judge through the real openai SDK against a scripted local server: verdicts, answers
with none, timeouts, retries, and the judgments file that regrade reads instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES
from tests.toolscore_judge.chat_server import ChatServer, Reply
from toolscore_core.context import Evaluation
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate_files
from toolscore_core.judging import Judging
from toolscore_judge.client import chat_client
from toolscore_judge.store import Judgment, read_judgments

GOLD = EXAMPLES / "judge" / "gold.json"
TRACE = EXAMPLES / "judge" / "trace.json"
KEY = "sk-test-judge-0123456789abcdef"
MODEL = "judge-model-1"


def judged(server: ChatServer, judgments: Path | None, **client: float) -> Evaluation:
    judge = Judging(model=MODEL, judgments=None if judgments is None else str(judgments),
                    client=chat_client(MODEL, base_url=server.url,
                                       env={"TOOLSCORE_JUDGE_API_KEY": KEY}, **client))
    return evaluate_files(GOLD, TRACE, judge=judge)


def status(evaluation: Evaluation, check: str) -> tuple[str, str]:
    result = evaluation.evidence.get(check)
    assert result is not None
    return result.status, result.reason


def test_the_judge_decides_what_the_rules_leave_unknown(tmp_path: Path) -> None:
    script = [Reply("yes: it says the flight is booked, but booking failed."),
              Reply("No: the answer says the flight is booked; the reference says it was not.")]
    with ChatServer(script).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl")
    claimed = evaluation.evidence.get("claimed-success")
    assert claimed is not None and claimed.status == "fail"
    assert claimed.reason == (f"decided by the judge {MODEL}: the answer claims a failed or "
                              "missing action as done (it says the flight is booked, but "
                              "booking failed)")
    assert claimed.details["rules"].startswith("the final answer is not in English (detected fr)")
    assert status(evaluation, "answer-correct")[0] == "fail"
    # The rules' own verdicts stand: disclosure read no disclosure and is not asked.
    assert status(evaluation, "disclosure")[0] == "fail"
    assert len(server.seen) == 2
    first = server.seen[0]
    assert first.authorization == f"Bearer {KEY}"
    assert first.body["temperature"] == 0 and first.body["model"] == MODEL
    assert "C'est fait" in first.body["messages"][1]["content"]
    stored = read_judgments(tmp_path / "j.jsonl")
    assert [j.verdict for j in stored.values()] == ["yes", "no"]
    record = evaluation.record_json
    assert claimed.details["judge"]["judgment_sha256"] in stored
    assert KEY not in record and KEY not in (tmp_path / "j.jsonl").read_text()


@pytest.mark.parametrize(("reply", "why"), [
    (Reply("I am not able to help with grading."),
     "no yes or no in the answer: I am not able to help with grading."),
    (Reply(refusal="I can't assist with that."), "the model refused: I can't assist with that."),
    (Reply(""), "an empty answer"),
])
def test_an_answer_without_a_verdict_is_unknown_never_a_pass(
    tmp_path: Path, reply: Reply, why: str
) -> None:
    with ChatServer([reply]).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl")
    state, reason = status(evaluation, "claimed-success")
    assert state == "unknown"
    assert reason.endswith(f"; the judge {MODEL} gave no verdict: {why}")
    assert reason.startswith("the final answer is not in English")


def test_a_judge_that_times_out_is_unknown(tmp_path: Path) -> None:
    with ChatServer([Reply("yes: late", delay=3)]).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl", timeout=0.3, retries=0)
    assert status(evaluation, "claimed-success") == (
        "unknown", "the final answer is not in English (detected fr); the success words are "
        f"English; the judge {MODEL} gave no verdict: no answer within 0.3s (1 try)")
    assert status(evaluation, "answer-correct")[0] == "unknown"


def test_a_rate_limit_is_retried_then_answered(tmp_path: Path) -> None:
    script = [Reply("slow down", status=429, headers={"retry-after": "0"}),
              Reply("yes: it claims the booking")]
    with ChatServer(script).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl", retries=1)
    assert status(evaluation, "claimed-success")[0] == "fail"
    assert len(server.seen) == 3  # 429, the answer, then answer-correct's question


def test_an_http_error_after_the_retries_is_unknown_and_the_key_is_masked(tmp_path: Path) -> None:
    script = [Reply(f"Incorrect API key provided: {KEY}", status=401)]
    with ChatServer(script).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl", retries=0)
    state, reason = status(evaluation, "claimed-success")
    assert state == "unknown" and "gave no verdict: HTTP 401 (1 try): Incorrect API key" in reason
    assert KEY not in evaluation.record_json
    assert KEY not in (tmp_path / "j.jsonl").read_text()


def test_a_failed_judgment_is_asked_again_and_a_verdict_is_reused(tmp_path: Path) -> None:
    judgments = tmp_path / "j.jsonl"
    with ChatServer([Reply("error", status=500)]).running() as server:
        assert status(judged(server, judgments, retries=0), "claimed-success")[0] == "unknown"
    with ChatServer([Reply("yes: claims it")]).running() as server:
        assert status(judged(server, judgments), "claimed-success")[0] == "fail"
        assert len(server.seen) == 2
    with ChatServer([Reply("no: never asked")]).running() as server:
        assert status(judged(server, judgments), "claimed-success")[0] == "fail"
        assert server.seen == []
    assert len(read_judgments(judgments)) == 2


def test_a_verdict_edited_by_hand_is_refused_with_its_line(tmp_path: Path) -> None:
    # The file is parsed once per content, not per question: an edit of the same size, made
    # between two evaluations of one process, must still be seen, and refused.
    judgments = tmp_path / "j.jsonl"
    with ChatServer([Reply("yes: claims it is booked"), Reply("no: wrong")]).running() as server:
        judged(server, judgments)
    lines = judgments.read_text().splitlines(keepends=True)
    edited = next(i for i, line in enumerate(lines) if '"verdict":"no"' in line)
    lines[edited] = lines[edited].replace('"verdict":"no"', '"verdict":"yes"', 1)
    judgments.write_text("".join(lines))
    with pytest.raises(InputError) as caught:
        read_judgments(judgments)
    assert str(caught.value).startswith(f"{judgments}: line {edited + 1}: the judgment's "
                                        "entry_sha256 does not match it: its response, "
                                        "verdict or reason was edited")
    regraded = evaluate_files(GOLD, TRACE, judge=Judging(model=MODEL, judgments=str(judgments)))
    assert "decided by the judge" not in status(regraded, "answer-correct")[1]
    assert status(regraded, "answer-correct") == (
        "unknown", "the final answer words the reference answer differently or not at all; "
        "whether it means the same needs a judge (--judge MODEL); the judgments file cannot "
        f"be read (line {edited + 1}: the judgment's entry_sha256 does not match it: its "
        "response, verdict or reason was edited)")


def test_a_torn_last_line_is_left_out_and_rewritten_away(tmp_path: Path) -> None:
    judgments = tmp_path / "j.jsonl"
    with ChatServer([Reply("yes: claims it is booked"), Reply("no: wrong")]).running() as server:
        judged(server, judgments)
    whole = judgments.read_bytes()
    first = whole.split(b"\n")[0] + b"\n"
    judgments.write_bytes(first + whole[len(first):len(first) + 100])  # killed mid-write
    kept = read_judgments(judgments)
    assert len(kept) == 1
    # A bad line that ends with a newline is no torn write: it is refused.
    judgments.write_bytes(first + b"{not json\n")
    with pytest.raises(InputError, match="line 2: not a JSON line"):
        read_judgments(judgments)
    judgments.write_bytes(first + whole[len(first):len(first) + 100])
    with ChatServer([Reply("no: wrong")]).running() as server:
        judged(server, judgments)
        assert len(server.seen) == 1  # only the question whose line was torn
    assert len(read_judgments(judgments)) == 2
    assert judgments.read_bytes().endswith(b"}\n")


@pytest.mark.parametrize(("reply", "why"), [
    (Reply("yes: " + "x" * 5_000_000), "an answer of 5,000,"),
    (Reply("yes: " + "é" * 5_000), "an answer of 5,005 characters, over the 4,000 a verdict "
                                   "needs; not read"),
    (Reply(body=b"\xff\xfe{not json"), "the endpoint's answer is not text (undecodable bytes)"),
    (Reply(body=b'{"choices": [}'), "the endpoint's answer is not JSON (Expecting value"),
    (Reply(body=b'{"id": "x"}'), "the endpoint's answer is not a Chat Completions answer"),
])
def test_an_oversized_or_unreadable_answer_is_no_verdict_and_not_stored(
    tmp_path: Path, reply: Reply, why: str
) -> None:
    judgments = tmp_path / "j.jsonl"
    with ChatServer([reply]).running() as server:
        evaluation = judged(server, judgments, retries=0)
    state, reason = status(evaluation, "answer-correct")
    assert state == "unknown"
    assert f"; the judge {MODEL} gave no verdict: {why}" in reason
    stored = read_judgments(judgments)
    assert [j.response for j in stored.values()] == [None, None]
    assert judgments.stat().st_size < 20_000


def test_a_stored_response_over_the_limit_is_refused_on_read(tmp_path: Path) -> None:
    judgments = tmp_path / "j.jsonl"
    with ChatServer([Reply("yes: claims it is booked")]).running() as server:
        judged(server, judgments)
    [first, *_] = read_judgments(judgments).values()
    entry = {k: v for k, v in first.to_dict().items() if k not in ("kind", "entry_sha256")}
    grown = Judgment(**{**entry, "response": "yes: " + "x" * 5_000})  # hashes made anew
    judgments.write_text(json.dumps(grown.to_dict()) + "\n")
    with pytest.raises(InputError, match="line 1: the judgment's response is 5,005 characters, "
                                         "over the 4,000 an answer may have"):
        read_judgments(judgments)


def test_without_a_judgments_file_a_regrade_is_unknown(tmp_path: Path) -> None:
    judge = Judging(model=MODEL, judgments=str(tmp_path / "absent.jsonl"))
    evaluation = evaluate_files(GOLD, TRACE, judge=judge)
    state, reason = status(evaluation, "claimed-success")
    assert state == "unknown"
    assert reason.endswith(f"the judge {MODEL}'s judgment is not in the judgments file "
                           "(`toolscore eval --judge` asks again)")
    assert json.loads(evaluation.record_json)["evidence"]["counts"]["pass"] == 2


def test_an_answer_echoing_the_key_is_stored_masked_and_a_short_key_rewrites_nothing(
    tmp_path: Path
) -> None:
    with ChatServer([Reply(f"yes: it claims the booking; my key is {KEY}")]).running() as server:
        evaluation = judged(server, tmp_path / "j.jsonl")
    stored = (tmp_path / "j.jsonl").read_text()
    assert KEY not in stored and "sk-t…ef" in stored
    assert KEY not in evaluation.record_json
    # A local server's placeholder key ("x") is no secret: the answer keeps its x's.
    with ChatServer([Reply("yes: it claims the booking; exactly")]).running() as server:
        judge = Judging(model=MODEL, judgments=str(tmp_path / "k.jsonl"), client=chat_client(
            MODEL, base_url=server.url, env={"TOOLSCORE_JUDGE_API_KEY": "x"}))
        evaluation = evaluate_files(GOLD, TRACE, judge=judge)
    assert status(evaluation, "claimed-success") == (
        "fail", f"decided by the judge {MODEL}: the answer claims a failed or missing action as "
                "done (it claims the booking; exactly)")
