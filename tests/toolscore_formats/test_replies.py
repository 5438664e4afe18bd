"""Trace.replies: every text the agent wrote to the user, kept by the chat-style readers."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolscore
from toolscore_core.errors import InputError
from toolscore_core.traces import load_trace, parse_trace

FIXTURES = Path(__file__).parent / "fixtures"
CHAT = ("agents_sdk", "anthropic", "bedrock_converse", "claude_agent_sdk", "gemini",
        "inspect_ai", "langchain", "openai_chat", "openai_responses", "pydantic_ai", "vercel_ai")
CHAT = (*CHAT, "openhands")
CHAT = (*CHAT, "gemini_cli", "codex", "cline")
NO_REPLIES = ("google_adk", "jaeger", "langfuse", "langsmith", "mcp", "mlflow", "openinference",
              "otel", "swe_agent")
NO_REPLIES = (*NO_REPLIES, "mini_swe_agent")
# The Agents SDK's own trace spans are read by the agents_sdk format, as a span format reads
# them (replies unknown), beside its run items (a chat-style record).
SPAN_FILES = ("agents_sdk_trace",)
READ = []
for _path in sorted(FIXTURES.glob("*.json*")):
    try:
        READ.append((_path.name, load_trace(_path)[0]))
    except InputError:  # a fixture kept to show a refusal
        continue
CHAT_READ = [r for r in READ if r[1].format in CHAT and not r[0].startswith(SPAN_FILES)]
SPAN_READ = [r for r in READ if r[1].format in NO_REPLIES or r[0].startswith(SPAN_FILES)]


@pytest.mark.parametrize(("name", "trace"), CHAT_READ, ids=[r[0] for r in CHAT_READ])
def test_chat_readers_keep_the_replies_and_end_on_the_final_answer(name: str, trace) -> None:
    assert isinstance(trace.replies, tuple)
    assert all(isinstance(r, str) and r for r in trace.replies)
    if trace.final_answer is not None:
        assert trace.final_answer in trace.replies[-1]


@pytest.mark.parametrize(("name", "trace"), SPAN_READ, ids=[r[0] for r in SPAN_READ])
def test_formats_that_cannot_tell_replies_leave_them_unknown(name: str, trace) -> None:
    assert trace.replies is None


CONVERSATION = [
    {"role": "user", "content": "How much did order 8812 cost?"},
    {"role": "assistant", "content": "Let me look that order up.",
     "tool_calls": [{"id": "c1", "type": "function",
                     "function": {"name": "lookup_order", "arguments": '{"id": "8812"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"total": 23553}'},
    {"role": "assistant", "content": "Order 8812 came to $23,553."},
]


def test_an_intermediate_reply_is_kept_before_the_final_answer() -> None:
    trace, _ = parse_trace(CONVERSATION)
    assert trace.replies == ("Let me look that order up.", "Order 8812 came to $23,553.")
    assert trace.final_answer == "Order 8812 came to $23,553."


def test_anthropic_keeps_the_text_beside_a_tool_use() -> None:
    messages = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking the forecast."},
            {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Oslo"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "rain"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Rain in Oslo."}]},
    ]
    trace, _ = parse_trace(messages, trace_format="anthropic")
    assert trace.replies == ("Checking the forecast.", "Rain in Oslo.")


def test_replies_enter_the_record_only_for_a_contract_with_expected_outputs() -> None:
    plain = toolscore.evaluate([{"tool": "lookup_order"}], CONVERSATION).to_dict()
    assert "replies" not in plain
    asked = toolscore.evaluate({"expected": [{"tool": "lookup_order"}],
                                "expected_outputs": ["23553"]}, CONVERSATION).to_dict()
    assert asked["replies"] == ["Let me look that order up.", "Order 8812 came to $23,553."]


def test_the_native_format_takes_replies_and_refuses_a_bad_list() -> None:
    trace, _ = parse_trace({"calls": [], "replies": ["one", "two"], "final_answer": "two"})
    assert trace.replies == ("one", "two")
    assert parse_trace({"calls": []})[0].replies is None
    with pytest.raises(InputError) as caught:
        parse_trace({"calls": [], "replies": "one"})
    assert caught.value.place == "$.replies"
