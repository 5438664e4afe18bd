"""Turns: a contract may pin an expected call to a turn, and pairing respects it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolscore
from toolscore_core.contracts import contract_json, parse_contract
from toolscore_core.errors import InputError
from toolscore_core.models import ToolCall
from toolscore_core.pairing import pair_calls
from toolscore_core.traces import parse_trace

FIXTURES = Path(__file__).parents[1] / "toolscore_formats" / "fixtures"


def test_a_pinned_call_pairs_only_with_a_call_of_its_turn() -> None:
    contract = parse_contract([{"tool": "get_weather", "args": {"city": "Paris"}, "turn": 2},
                               {"tool": "get_time"}])
    calls = [ToolCall("get_weather", {"city": "Paris"}, turn=1),
             ToolCall("get_time", {}, turn=1),
             ToolCall("get_weather", {"city": "Pariss"}, turn=2)]
    pairing = pair_calls(contract.expected, calls)
    # The identical call of turn 1 does not count for the call expected in turn 2.
    assert [(p.expected, p.actual) for p in pairing.pairs] == [(0, 2), (1, 1)]
    assert pairing.unpaired_actual == (0,)
    # A call whose turn the trace cannot tell never answers a pinned expected call.
    unknown = [ToolCall("get_weather", {"city": "Paris"})]
    assert pair_calls(contract.expected[:1], unknown).unpaired_expected == (0,)


@pytest.mark.parametrize("bad", ["2", 0, True, 1.5])
def test_a_turn_is_a_whole_number_from_one(bad: object) -> None:
    with pytest.raises(InputError, match=r'\$\[0\]\.turn: "turn" must be a whole number from 1'):
        parse_contract([{"tool": "f", "turn": bad}])


def test_contracts_and_traces_without_turns_hash_as_before() -> None:
    plain = parse_contract([{"tool": "f", "args": {"x": 1}}])
    assert contract_json(plain) == [{"tool": "f", "required": True, "args": {"x": 1}}]
    assert contract_json(parse_contract([{"tool": "f", "turn": 3}]))[0]["turn"] == 3
    trace, _ = parse_trace({"calls": [{"tool": "f", "args": {}}]})
    record = toolscore.evaluate(plain, trace).to_dict()
    calls = record["calls"]
    assert "turn" not in calls["actual"][0] and "turn" not in calls["expected"][0]


def test_an_adk_run_graded_against_a_contract_pinned_to_turns(tmp_path) -> None:
    trace = FIXTURES / "google_adk_otel_span_only.json"
    right = [{"tool": "get_weather", "args": {"city": "Paris"}, "turn": 1},
             {"tool": "get_time", "args": {"city": "Tokyo"}, "turn": 1},
             {"tool": "get_weather", "args": {"city": "Atlantis"}, "turn": 2}]
    wrong = [{**call, "turn": 3 - call["turn"]} for call in right]
    scores = []
    for name, contract in (("right", right), ("wrong", wrong)):
        gold = tmp_path / f"{name}.json"
        gold.write_text(json.dumps(contract))
        evaluation = toolscore.evaluate_files(str(gold), str(trace))
        scores.append((evaluation.metrics["argument_f1"], evaluation.metrics[
            "required_call_recall"]))
        assert [c["turn"] for c in evaluation.to_dict()["calls"]["actual"]] == [1, 1, 2]
    # Pinned to the wrong turns, get_time has no call in turn 2 and each get_weather is
    # paired with the other turn's call, whose arguments differ.
    assert scores[0] == (1.0, pytest.approx(2 / 3))  # the failed call is not a success
    assert scores[1][0] < 0.5 and scores[1][1] < scores[0][1]


def test_the_native_format_and_chat_messages_carry_turns() -> None:
    trace, _ = parse_trace({"calls": [{"tool": "f", "turn": 2}, {"tool": "g"}]})
    assert [c.turn for c in trace.calls] == [2, None]
    with pytest.raises(InputError, match=r"\$\.calls\[0\]\.turn: "):
        parse_trace({"calls": [{"tool": "f", "turn": 0}]})
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {
            "name": "weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "sunny"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "and tomorrow?"},
        {"role": "assistant", "tool_calls": [{"id": "b", "type": "function", "function": {
            "name": "forecast", "arguments": "{}"}}]},
    ]
    chat, _ = parse_trace(messages)
    assert [(c.id, c.turn) for c in chat.calls] == [("a", 1), ("b", 2)]
    # Anthropic: a user message of tool results only is no new turn.
    anthropic = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "weather",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a",
                                      "content": "sunny"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "b", "name": "weather",
                                           "input": {"day": 2}}]},
    ]
    claude, _ = parse_trace(anthropic)
    assert [(c.id, c.turn) for c in claude.calls] == [("a", 1), ("b", 1)]


def test_adk_sessions_and_converse_messages_carry_turns() -> None:
    from toolscore_core.traces import load_trace

    adk, _ = load_trace(FIXTURES / "google_adk_parallel_events.json")
    assert [c.turn for c in adk.calls] == [1, 1]  # both answer the user's one message
    # A session of agent events alone (no user event) cannot tell the turn.
    alone, _ = load_trace(FIXTURES / "google_adk_run_events.json")
    assert [c.turn for c in alone.calls] == [None]
    converse = [
        {"role": "user", "content": [{"text": "song?"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "a", "name": "top_song",
                                                       "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "a", "content": [
            {"text": "x"}]}}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "b", "name": "top_song",
                                                       "input": {"n": 2}}}]},
        {"role": "user", "content": [{"text": "another?"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c", "name": "top_song",
                                                       "input": {"n": 3}}}]},
    ]
    trace, choice = parse_trace(converse)
    assert choice.format == "bedrock_converse"
    assert [(c.id, c.turn) for c in trace.calls] == [("a", 1), ("b", 1), ("c", 2)]


def test_responses_input_items_carry_turns() -> None:
    items = [{"role": "user", "content": "hi"},
             {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
             {"type": "function_call_output", "call_id": "a", "output": "x"},
             {"role": "user", "content": "again"},
             {"type": "function_call", "call_id": "b", "name": "f", "arguments": "{}"}]
    trace, choice = parse_trace(items)
    assert choice.format == "openai_responses"
    assert [(c.id, c.turn) for c in trace.calls] == [("a", 1), ("b", 2)]


def test_pydantic_ai_vercel_ai_and_inspect_ai_carry_turns() -> None:
    from toolscore_core.traces import load_trace

    pydantic, _ = load_trace(FIXTURES / "pydantic_ai_messages.json")
    assert [c.turn for c in pydantic.calls] == [1]
    # A sub-agent's calls (read from the tool events) share the sample's one turn.
    inspect, _ = load_trace(FIXTURES / "inspect_ai_react_as_tool.json")
    assert [c.turn for c in inspect.calls] == [1, 1, 1, 1]
    vercel = [{"role": "user", "content": "weather?"},
              {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "a",
                                                 "toolName": "weather", "input": {}}]},
              {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "a",
                                            "toolName": "weather", "output": {
                                                "type": "text", "value": "sun"}}]},
              {"role": "user", "content": "tomorrow?"},
              {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "b",
                                                 "toolName": "weather", "input": {"d": 2}}]}]
    trace, choice = parse_trace(vercel)
    assert choice.format == "vercel_ai"
    assert [(c.id, c.turn) for c in trace.calls] == [("a", 1), ("b", 2)]
