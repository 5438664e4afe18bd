"""Pydantic AI: ModelMessagesTypeAdapter JSON; retry prompts and failed outcomes as failures."""

from __future__ import annotations

from toolscore_core.traces import parse_trace


def test_a_real_history_with_json_string_arguments_and_a_text_answer(read) -> None:
    trace, choice = read("pydantic_ai_messages.json")
    assert choice.format == "pydantic_ai"
    (call,) = trace.calls
    assert (call.tool, call.id, call.args) == (
        "secret_plan", "call_8vnYkl9oL2oW09LaWsgvQFoM", {"password": 42})
    assert (call.result, call.is_error, call.error) == ("The secret plan is revealed.", False, None)
    # The call is stamped with the response that asked for it; the history times no call.
    assert (call.timestamp, call.duration, call.cost) == ("2025-10-24T02:46:37Z", None, None)
    assert trace.final_answer == ("The secret plan has been revealed! If you need any details or "
                                  "have further questions about it, feel free to ask.")
    assert trace.model == "gpt-4o-mini-2024-07-18"


def test_an_output_tool_run_has_no_text_answer_and_a_null_return_is_kept(read) -> None:
    trace, _ = read("pydantic_ai_output_tool.json")
    assert [(c.tool, c.id, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("roll_dice", "pyd_ai_6c8e6f11c43d49b09d5f3720fd4d5a7e", {}, "2", False),
        ("get_player_name", "pyd_ai_4f3022da34c24d5b8d34fb7ba49a9ffb", {}, None, False),
        ("final_result", "pyd_ai_fffb29090909493a86bbfe4dc12d65fd",
         {"player_name": "Mickey", "result": "2"}, "Final result processed.", False),
    ]
    assert trace.final_answer is None
    assert any("ends on a tool return" in note for note in trace.notes)


def _history(*messages: tuple[str, list[dict[str, object]]]) -> list[dict[str, object]]:
    return [{"kind": kind, "parts": parts} for kind, parts in messages]


def test_a_tool_bound_retry_prompt_fails_its_call_and_the_retry_is_a_new_call() -> None:
    history = _history(
        ("request", [{"part_kind": "user-prompt", "content": "go"}]),
        ("response", [{"part_kind": "tool-call", "tool_name": "foo_tool", "args": {"bar": 0},
                       "tool_call_id": "c1"}]),
        ("request", [{"part_kind": "retry-prompt", "tool_name": "foo_tool", "tool_call_id": "c1",
                      "content": [{"type": "value_error", "loc": ["bar"],
                                   "msg": "Value error, bar cannot be 0", "input": 0}]}]),
        ("response", [{"part_kind": "tool-call", "tool_name": "foo_tool", "args": '{"bar": 1}',
                       "tool_call_id": "c2"}]),
        ("request", [{"part_kind": "tool-return", "tool_name": "foo_tool", "tool_call_id": "c2",
                      "content": 1}]),
        ("response", [{"part_kind": "text", "content": "bar is 1"}]),
    )
    trace, choice = parse_trace(history)
    assert choice.format == "pydantic_ai"
    first, second = trace.calls
    assert (first.is_error, first.result) == (True, None)
    assert first.error == ('[{"input": 0, "loc": ["bar"], "msg": "Value error, bar cannot be 0", '
                           '"type": "value_error"}]')
    assert (second.args, second.result, second.is_error) == ({"bar": 1}, 1, False)
    assert trace.final_answer == "bar is 1"


def test_failed_and_denied_outcomes_are_failures_and_a_text_retry_is_no_answer() -> None:
    history = _history(
        ("response", [{"part_kind": "tool-call", "tool_name": "rm", "args": None,
                       "tool_call_id": "a"},
                      {"part_kind": "tool-call", "tool_name": "ls", "tool_call_id": "b"},
                      {"part_kind": "tool-call", "tool_name": "cat", "tool_call_id": "c"}]),
        ("request", [{"part_kind": "tool-return", "tool_name": "rm", "tool_call_id": "a",
                      "content": "The tool call was denied.", "outcome": "denied"},
                     {"part_kind": "tool-return", "tool_name": "ls", "tool_call_id": "b",
                      "content": "disk gone", "outcome": "failed"}]),
        ("response", [{"part_kind": "text", "content": "done"}]),
        ("request", [{"part_kind": "retry-prompt", "tool_name": None, "content": "be brief"}]),
    )
    trace, _ = parse_trace(history)
    rm, ls, cat = trace.calls
    assert (rm.args, rm.is_error, rm.error) == (None, True, "The tool call was denied.")
    assert (ls.is_error, ls.error) == (True, "disk gone")
    assert (cat.result, cat.is_error) == (None, None)  # no return: outcome unknown
    assert trace.final_answer is None  # the text was sent back for a retry


def test_builtin_tools_and_orphan_returns_are_reported_not_counted() -> None:
    history = _history(
        ("response", [{"part_kind": "builtin-tool-call", "tool_name": "web_search",
                       "tool_call_id": "w"},
                      {"part_kind": "builtin-tool-return", "tool_name": "web_search",
                       "tool_call_id": "w", "content": []},
                      {"part_kind": "text", "content": "found it"}]),
        ("request", [{"part_kind": "tool-return", "tool_name": "x", "tool_call_id": "zz",
                      "content": "?"}]),
    )
    trace, _ = parse_trace(history)
    assert trace.calls == ()
    assert "2 builtin-tool part(s) run by the provider: not read as calls" in trace.notes
    assert any("tool-return for 'x'" in note and "no open call" in note for note in trace.notes)


def test_gemini_contents_are_not_claimed_and_pydantic_ai_is_not_gemini() -> None:
    contents = [{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}]
    assert parse_trace(contents)[1].format == "gemini"
    history = _history(("request", [{"part_kind": "user-prompt", "content": "hi"}]))
    assert parse_trace(history)[1].format == "pydantic_ai"
