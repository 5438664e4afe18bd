"""OpenAI Responses API: function_call items joined to outputs by call_id."""

from __future__ import annotations

from toolscore_core.traces import parse_trace


def test_parallel_calls_join_their_outputs_by_call_id(read) -> None:
    trace, choice = read("openai_responses_items.json")
    assert choice.format == "openai_responses"
    # A retry prompt is the tool's output: the Responses API has no error flag, so the
    # call is not marked failed.
    assert [(c.id, c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("call_LWVp74L5HaH2KNvgVz9PJsrj", "get_location", {"loc_name": "Londos"},
         'Wrong location, I only know about "London".\n\nFix the errors and try again.', False),
        ("call_YnRAWeTyxI91m5uNa5bxXwVO", "get_location", {"loc_name": "London"},
         '{"lat": 51, "lng": 0}', False),
    ]
    assert trace.final_answer is not None
    assert trace.final_answer.startswith('It seems "Londos" might be incorrect or unknown.')
    assert trace.notes == ()


def test_custom_tool_calls_and_hosted_items() -> None:
    # Constructed: outputs out of call order, a custom tool call with free-text input and
    # no output, and a hosted web search the provider ran.
    items = [
        {"role": "user", "content": "Where are Rome and Paris?"},
        {"type": "function_call", "call_id": "call_1", "name": "locate",
         "arguments": '{"city": "Rome"}'},
        {"type": "function_call", "call_id": "call_2", "name": "locate",
         "arguments": '{"city": "Paris"}'},
        {"type": "custom_tool_call", "call_id": "call_3", "name": "run_sql", "input": "SELECT 1"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "function_call_output", "call_id": "call_2", "output": "0"},
        {"type": "function_call_output", "call_id": "call_1", "output": '{"lat": 41.9}'},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Rome is at 41.9N."}]}]
    trace, choice = parse_trace(items)
    assert choice.format == "openai_responses"
    assert [(c.id, c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("call_1", "locate", {"city": "Rome"}, '{"lat": 41.9}', False),
        ("call_2", "locate", {"city": "Paris"}, "0", False),
        ("call_3", "run_sql", {"input": "SELECT 1"}, None, None),
    ]
    assert trace.final_answer == "Rome is at 41.9N."
    assert trace.notes == ("1 hosted web_search_call item run by the provider: "
                           "not read as calls",)


def test_a_response_object_reports_its_call_id_not_the_item_id() -> None:
    response = {"object": "response", "model": "gpt-5", "output": [
        {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "f",
         "arguments": "{\"a\": 1}"}], "usage": {"total_tokens": 3}}
    trace, _ = parse_trace(response)
    assert [(c.id, c.is_error) for c in trace.calls] == [("call_9", None)]
    assert trace.model == "gpt-5"


def test_hosted_mcp_call_carries_its_own_output_and_error() -> None:
    response = {"object": "response", "output": [
        {"type": "mcp_call", "id": "mcp_1", "name": "echo", "arguments": "{}", "output": "hi",
         "error": None},
        {"type": "mcp_call", "id": "mcp_2", "name": "echo", "arguments": "{}", "output": None,
         "error": {"message": "server down"}}]}
    trace, _ = parse_trace(response)
    assert [(c.result, c.is_error, c.error) for c in trace.calls] == [
        ("hi", False, None), (None, True, "server down")]
