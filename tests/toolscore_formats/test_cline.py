"""The ``cline`` format: real Cline task histories (api_conversation_history.json)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.errors import InputError
from toolscore_core.models import FormatChoice, Trace
from toolscore_core.traces import load_trace, parse_trace

Read = Callable[[str], tuple[Trace, FormatChoice]]
FIXTURES = Path(__file__).parent / "fixtures"


def test_each_result_is_the_text_after_its_result_header(read: Read) -> None:
    trace, choice = read("cline_api_conversation_history.json")
    assert choice.format == "cline"
    assert [(call.tool, call.id, call.is_error) for call in trace.calls] == [
        ("execute_command", "tooluse_r5lNKAaKu3JfIhHSdhQXFz", False),
        ("read_file", "tooluse_cMBSkR3XhaCVTZgBRvx49Y", False)]
    create, gitignore = trace.calls
    assert isinstance(create.result, str) and isinstance(gitignore.result, str)
    assert create.result.startswith("Command executed successfully (exit code 0).\nOutput:\n")
    assert "Created database [dev_entanglement_db]." in create.result
    assert gitignore.result.startswith("1 | # dependencies\n2 | /node_modules\n")
    assert create.args is not None and create.args["requires_approval"] is True
    # Model and tokens from Cline's own fields: two assistant messages, both counted.
    assert trace.model == "claude_4_5_opus"
    assert trace.usage == {"input_tokens": 86085 + 86681, "output_tokens": 243 + 196}
    # Tool results are no user turn; the run ends waiting on a call: no final answer.
    assert {call.turn for call in trace.calls} == {None}
    assert trace.final_answer is None
    assert trace.replies == ("Step 1 complete. Now creating the dev database:",
                             "Now let me check the .gitignore file and create the "
                             ".env.local file:")
    assert any("2 environment_details blocks" in note for note in trace.notes)


def test_several_calls_in_one_message_are_answered_in_order(read: Read) -> None:
    trace, choice = read("cline_several_calls.json")
    assert choice.format == "cline"
    first, second = trace.calls
    assert (first.tool, second.tool) == ("search_files", "search_files")
    assert first.args is not None and second.args is not None
    assert first.args["regex"] == "from ['\"]@/lib/firebase-admin['\"]"
    assert second.args["regex"] == "from ['\"]@/lib/firebase['\"]"
    assert isinstance(first.result, str) and first.result.startswith("Found 4 results.")
    assert isinstance(second.result, str) and second.result.startswith("Found 1 result.")
    assert (first.is_error, second.is_error) == (False, False)


def test_attempt_completion_is_a_call_and_its_result_the_final_answer(read: Read) -> None:
    trace, _ = read("cline_attempt_completion.json")
    (completion,) = trace.calls
    assert completion.tool == "attempt_completion"
    assert (completion.result, completion.is_error) == ("Done", False)
    assert completion.args is not None
    assert trace.final_answer == completion.args["result"]
    assert isinstance(trace.final_answer, str)
    assert trace.final_answer.startswith("## Marine Response Application - Infrastructure "
                                         "Refactoring Complete")
    # Its result is what Cline shows the user last: a reply too, after the message's text.
    assert trace.replies == ("The user has approved all phases. Let me provide a completion "
                             "summary of the entire refactoring effort.", trace.final_answer)
    # The user's <feedback> after it starts a turn; the history ends there.
    assert completion.turn is None
    assert (trace.model, trace.usage) == ("claude_4_5_opus",
                                          {"input_tokens": 62702, "output_tokens": 718})


def _history(name: str) -> list[Any]:
    loaded = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    assert isinstance(loaded, list)
    return loaded


def _with_result(text: str) -> list[Any]:
    """The real history, its first result's output replaced by Cline's ``text``."""
    messages = _history("cline_api_conversation_history.json")
    block = messages[1]["content"][0]
    header = block["text"].split("] Result:")[0]
    block["text"] = f"{header}] Result:\n{text}"
    return messages


def test_cline_error_and_denial_texts_are_failures() -> None:
    failed, choice = parse_trace(_with_result(
        "The tool execution failed with the following error:\n<error>\nno such file\n</error>"))
    assert choice.format == "cline"
    assert (failed.calls[0].is_error, failed.calls[0].error, failed.calls[0].result) == (
        True, "no such file", None)
    denied, _ = parse_trace(_with_result("The user denied this operation."))
    assert (denied.calls[0].is_error, denied.calls[0].error) == (
        True, "The user denied this operation.")
    assert denied.calls[1].is_error is False


def test_missing_metrics_make_usage_unknown_and_no_result_leaves_the_outcome_unknown() -> None:
    messages = _history("cline_api_conversation_history.json")
    del messages[2]["metrics"]
    messages[3]["content"] = messages[3]["content"][1:]
    trace, _ = parse_trace(messages)
    assert trace.usage is None
    assert any("metrics.tokens on 1 of 2 assistant messages" in note for note in trace.notes)
    assert trace.calls[1].is_error is None and trace.calls[1].result is None
    assert trace.model == "claude_4_5_opus"


def test_a_message_that_is_not_an_object_is_one_input_error(tmp_path: Path) -> None:
    messages = list(_history("cline_api_conversation_history.json"))
    messages[1] = "not a message"
    path = tmp_path / "api_conversation_history.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_trace(path, trace_format="cline")
    line = str(caught.value)
    assert "\n" not in line
    assert str(path) in line and "$[1]" in line and "a message is not an object" in line
    assert 'give each message as {"role", "content"}' in line


def test_the_users_feedback_starts_a_turn_and_tool_results_do_not() -> None:
    # Two real stretches, one after the other: the calls after the user's <feedback> (a
    # block of its own beside "[attempt_completion] Result: Done") answer a new turn.
    messages = _history("cline_attempt_completion.json") + _history("cline_several_calls.json")
    trace, _ = parse_trace(messages)
    assert [(call.tool, call.turn) for call in trace.calls] == [
        ("attempt_completion", None), ("search_files", 1), ("search_files", 1)]
    assert trace.final_answer is None  # the run went on after the completion


def test_a_command_that_exits_non_zero_is_a_failure(read: Read) -> None:
    # Cline words a command's exit code itself: "Command failed with exit code 1."
    trace, choice = read("cline_failed_command.json")
    assert choice.format == "cline"
    (command,) = trace.calls
    assert command.args is not None
    assert command.args["command"] == (
        "gsutil mb -p ggn-nmfs-wcrmmrapp-dev-1 -l us-central1 gs://dev-nmfs-mra-media/")
    assert (command.is_error, command.result) == (True, None)
    assert isinstance(command.error, str)
    assert command.error.startswith("Command failed with exit code 1.\nOutput:\nERROR: (gsutil)")


def test_tool_result_blocks_newer_cline_writes_are_joined_by_id() -> None:
    # When Cline knows a call's id it wraps the same "[tool ...] Result:" text in a
    # tool_result block (ToolResultUtils in cline/cline): the real answers, so wrapped, and
    # given in the reverse order, still reach their own calls.
    messages = _history("cline_several_calls.json")
    calls = [block for block in messages[0]["content"] if block["type"] == "tool_use"]
    texts = messages[1]["content"][:2]
    messages[1]["content"] = [
        {"type": "tool_result", "tool_use_id": call["id"], "content": text["text"]}
        for call, text in reversed(list(zip(calls, texts, strict=True)))]
    trace, choice = parse_trace(messages)
    assert choice.format == "cline"
    first, second = trace.calls
    assert isinstance(first.result, str) and first.result.startswith("Found 4 results.")
    assert isinstance(second.result, str) and second.result.startswith("Found 1 result.")


def test_a_result_header_answers_its_tools_call_else_the_next_call_waiting() -> None:
    messages = _history("cline_several_calls.json")[:2]
    messages[0]["content"][1]["name"] = "read_file"  # calls: read_file, search_files
    first_text, second_text = (block["text"] for block in messages[1]["content"][:2])
    messages[1]["content"][2:] = [{"type": "text", "text": "[search_files] Result:\nmore"}]
    trace, _ = parse_trace(messages)
    read, search = trace.calls
    # The first search_files result skips read_file for the search_files call; the second
    # finds no search_files call open: the next call waiting (read_file) takes it.
    assert search.result == first_text.split("] Result:", 1)[1].lstrip("\n ")
    assert read.result == second_text.split("] Result:", 1)[1].lstrip("\n ")
    assert "message 1: the result headed 'search_files' read as 'read_file''s, the next call " \
        "waiting" in trace.notes
    assert "message 1: a result for 'search_files' answers no call (not joined)" in trace.notes


def test_a_content_block_that_is_not_an_object_is_passed_over() -> None:
    # Constructed from the real fixture: a null block beside the assistant's text.
    document = json.loads((FIXTURES / "cline_api_conversation_history.json").read_text("utf-8"))
    message = next(m for m in document if m["role"] == "assistant")
    message["content"].insert(0, None)
    trace, _ = parse_trace(document, trace_format="cline")
    assert trace.replies == ("Step 1 complete. Now creating the dev database:",
                             "Now let me check the .gitignore file and create the "
                             ".env.local file:")
