"""Gemini CLI session recordings: each gemini message's toolCalls as calls, the CLI's status
as their outcome, the last gemini text without calls as the answer, user messages as turns."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_core.models import FormatChoice, Trace
from toolscore_core.traces import parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
SESSION = "gemini_cli_pomodoro_session.json"
Read = Callable[[str], tuple[Trace, FormatChoice]]
PROJECT = "/Users/yoavfarhi/dev/pomodoro/gemini/"


def _load() -> Any:
    return json.loads((FIXTURES / SESSION).read_text(encoding="utf-8"))


def test_calls_are_the_tool_calls_of_the_gemini_messages(read: Read) -> None:
    trace, choice = read(SESSION)
    assert choice.format == "gemini_cli"
    assert [(c.tool, c.turn) for c in trace.calls] == [
        ("write_file", 1), ("write_file", 1), ("write_file", 1), ("replace", 2),
        ("replace", 3), ("replace", 3),
        # Turn 4 ("Anything else we should add?") was answered in text alone.
        ("replace", 5), ("replace", 5), ("replace", 5), ("replace", 5), ("replace", 5)]
    first = trace.calls[0]
    assert first.id == "write_file-1761077079637-de5db03a65079"
    assert first.args is not None
    assert first.args["file_path"] == PROJECT + "index.html"
    assert first.args["content"].startswith("<!DOCTYPE html>")
    assert first.timestamp == "2025-10-21T20:04:39.683Z"
    assert (first.is_error, first.error, first.duration, first.cost) == (False, None, None, None)
    # The functionResponse's {"output": ...} is the result, as the gemini format reads it.
    assert first.result == f"Successfully created and wrote to new file: {PROJECT}index.html."


def test_a_call_with_status_error_failed_with_the_responses_error_text(read: Read) -> None:
    trace, _ = read(SESSION)
    failed = [c for c in trace.calls if c.is_error]
    assert [c.id for c in failed] == ["replace-1761077322005-e180d6d44397f"]
    assert failed[0].result is None
    assert (failed[0].error or "").startswith(
        "A secondary check by an LLM determined that no changes were necessary")
    assert all(c.is_error is False for c in trace.calls if c is not failed[0])


def test_final_answer_replies_and_model(read: Read) -> None:
    trace, _ = read(SESSION)
    assert trace.final_answer == (
        "My apologies, `resetTimer` was already correct. I've now implemented the visual "
        "progress bar and long breaks, fixing the progress bar calculation. The task is "
        "complete.")
    assert trace.replies is not None and len(trace.replies) == 14
    assert trace.replies[0].startswith("Okay, I will build the Pomodoro timer.")
    assert trace.replies[-1] == trace.final_answer
    assert trace.model == "gemini-2.5-pro"


def test_a_message_with_a_zero_total_makes_the_usage_unknown(read: Read) -> None:
    # The first gemini message (three write_file calls) has every count 0: the CLI writes 0
    # for a count the API did not report, so the run's usage is not a sum of the other 13.
    trace, _ = read(SESSION)
    assert trace.usage is None
    assert trace.notes == (
        "message 1: tokens with a total of 0 (the CLI writes 0 for counts the API did not "
        "report): not counted",
        "tokens on 13 of 14 gemini messages: the run's token usage is unknown")


def test_usage_sums_the_messages_tokens_when_every_message_has_them() -> None:
    session = _load()
    session["messages"] = session["messages"][3:6]  # turn 2: two gemini messages
    trace, _ = parse_trace(session)
    assert trace.usage == {"cached": 5784 + 7238, "input": 7320 + 7598, "output": 250 + 23,
                           "thoughts": 62 + 41, "tool": 0, "total": 7632 + 7662}
    assert trace.notes == ()


def test_cancelled_and_unfinished_calls_have_no_outcome() -> None:
    session = _load()
    message = session["messages"][4]
    call = message["toolCalls"][0]
    message["toolCalls"] = [dict(call, status="cancelled", id="c1"),
                            dict(call, status="executing", id="c2"),
                            dict(call, result=None, id="c3")]
    session["messages"] = session["messages"][3:5]
    trace, _ = parse_trace(session)
    assert [(c.id, c.is_error, c.result, c.error) for c in trace.calls] == [
        ("c1", None, None, None), ("c2", None, None, None), ("c3", None, None, None)]
    assert trace.notes == (
        "$.messages[1].toolCalls[0] 'replace': cancelled (the user stopped it): outcome unknown",
        "$.messages[1].toolCalls[1] 'replace': status 'executing': outcome unknown",
        "$.messages[1].toolCalls[2] 'replace': success without a functionResponse result: "
        "outcome unknown")
    # The message made calls: it is no final answer.
    assert trace.final_answer is None


def test_info_and_error_messages_are_notes_not_calls() -> None:
    session = _load()
    session["messages"] = [*session["messages"][:3], {
        "id": "x", "timestamp": "2025-10-21T20:05:00.000Z", "type": "error",
        "content": "API Error: quota exceeded"}]
    trace, _ = parse_trace(session)
    assert len(trace.calls) == 3
    assert ("1 info, warning or error message of the CLI (not calls): message 3 (error): "
            "'API Error: quota exceeded'") in trace.notes


def test_content_as_parts_is_read_like_a_string() -> None:
    session = _load()
    session["messages"] = copy.deepcopy(session["messages"][10:12])
    answer = session["messages"][1]
    text = answer["content"]
    answer["content"] = [{"text": "thinking...", "thought": True}, {"text": text}]
    trace, _ = parse_trace(session)
    assert trace.final_answer == text


def test_a_checkpoint_and_other_formats_are_not_claimed() -> None:
    session = _load()
    assert parse_trace(session)[1].format == "gemini_cli"
    # /chat save writes the Gemini contents, which the gemini format reads.
    checkpoint = [{"role": "user", "parts": [{"text": "hi"}]},
                  {"role": "model", "parts": [{"text": "hello"}]}]
    assert parse_trace(checkpoint)[1].format == "gemini"
    session["messages"][0]["type"] = "human"
    with pytest.raises(InputError, match="no trace format recognises"):
        parse_trace(session)


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s["messages"].__setitem__(2, "text"),
     r'\$\.messages\[2\]: a message is \{"id", "type", "content", \.\.\.\}'),
    (lambda s: s["messages"][1].__setitem__("toolCalls", {"id": "x"}),
     r'\$\.messages\[1\]\.toolCalls: "toolCalls" is not a list'),
    (lambda s: s["messages"][1]["toolCalls"][2].pop("name"),
     r"\$\.messages\[1\]\.toolCalls\[2\]: a tool call has no name"),
])
def test_a_malformed_session_is_one_line_naming_the_place(
        tmp_path: Path, change: Callable[[Any], Any], message: str) -> None:
    session = _load()
    change(session)
    with pytest.raises(InputError, match=message):
        parse_trace(session, trace_format="gemini_cli")
    trace = write_json(tmp_path / "session.json", session)
    gold = write_json(tmp_path / "gold.json", [])
    result = run_cli("eval", str(gold), str(trace), "--format", "gemini_cli")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


LOG = "gemini_cli_session_log.jsonl"


def _log_records() -> list[Any]:
    text = (FIXTURES / LOG).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_the_jsonl_log_is_read_as_the_cli_loads_it(read: Read) -> None:
    trace, choice = read(LOG)
    assert choice.format == "gemini_cli"
    # The gemini message is written twice (then with its calls): its calls count once. The
    # session context the CLI sends first, and the function responses it records as a user
    # message, start no turn: the five calls answer the one prompt.
    assert [(c.tool, c.args, c.is_error, c.turn) for c in trace.calls] == [
        ("read_file", {"file_path": "file1.txt"}, False, 1),
        ("read_file", {"file_path": "file2.txt"}, False, 1),
        ("write_file", {"file_path": "output.txt", "content": "wave2"}, False, 1),
        ("read_file", {"file_path": "file3.txt"}, True, 1),
        ("read_file", {"file_path": "file4.txt"}, False, 1)]
    assert [c.result for c in trace.calls][:2] == ["c1", "c2"]
    assert trace.calls[3].id == "read_file__read_file_1796601959615_3"
    assert trace.calls[3].error == "File not found: /tmp/gcli/run/proj/file3.txt"
    assert trace.final_answer == ("Read file1, file2 and file4; file3.txt does not exist. "
                                  "Wrote output.txt.")
    assert trace.replies == (trace.final_answer,)
    assert trace.model == "gemini-3.1-pro-preview"
    # The scripted model reported 120 + 40 and 260 + 18 tokens.
    assert trace.usage == {"cached": 0, "input": 380, "output": 58, "thoughts": 0, "tool": 0,
                           "total": 438}
    assert trace.notes == ()


def test_a_rewind_drops_the_messages_from_the_one_it_names() -> None:
    records = _log_records()
    answer = records[4]["id"]  # the gemini message that made the calls
    records.append({"$rewindTo": answer})
    trace, _ = parse_trace(records)
    assert (trace.calls, trace.final_answer, trace.replies) == ((), None, ())
    assert trace.notes == ("1 rewind ($rewindTo): the messages rewound are not read, as the "
                           "CLI drops them",)


def test_a_rewind_keeps_the_messages_first_written_before_the_one_it_names() -> None:
    records = _log_records()
    results = records[7]["id"]  # the user message with the calls' results
    # The first user message written again keeps its first place, before the one rewound to.
    rewound, _ = parse_trace([*records, records[2], {"$rewindTo": results}])
    kept, _ = parse_trace([*records[:7], *records[8:9]])
    assert rewound.calls == kept.calls and rewound.calls
    assert all(call.turn == 1 for call in rewound.calls)
    assert rewound.final_answer is None
    gone, _ = parse_trace([*records, {"$rewindTo": "not a message"}])
    assert (gone.calls, gone.final_answer) == ((), None)


def test_a_bad_line_of_the_log_is_named(tmp_path: Path) -> None:
    records = _log_records()
    records.insert(3, {"note": "not a record"})
    with pytest.raises(InputError, match=r"line 4: a line of a Gemini CLI session log is"):
        parse_trace(records, trace_format="gemini_cli")
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    gold = write_json(tmp_path / "gold.json", [])
    result = run_cli("eval", str(gold), str(path), "--format", "gemini_cli")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
