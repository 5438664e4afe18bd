"""OpenAI Agents SDK: run items and RunState, each call id once."""

from __future__ import annotations

from toolscore_core.traces import parse_trace


def test_run_items(read) -> None:
    trace, choice = read("agents_sdk_items.json")
    assert choice.format == "agents_sdk"
    # refund raised; the SDK answered the model with its default failure text, in an output
    # item that has no error flag: that text is the SDK's own word that the tool failed.
    assert [(c.id, c.tool, c.args, c.result, c.is_error, c.error) for c in trace.calls] == [
        ("call_order", "get_order", {"order_id": 7}, '{"order_id": 7, "total": 0}', False,
         None),
        ("call_refund", "refund", {"order_id": 7}, None, True,
         "An error occurred while running the tool. Please try again."),
    ]
    assert trace.final_answer == "Order 7 totals 0; the refund failed: the window is closed."


def test_a_run_item_call_without_output_is_pending() -> None:
    # Constructed: two calls, only the first answered by an output item.
    items = [
        {"type": "tool_call_item", "raw_item": {"type": "function_call", "call_id": "call_1",
                                                "name": "get_order",
                                                "arguments": '{"order_id": 7}'}},
        {"type": "tool_call_item", "raw_item": {"type": "function_call", "call_id": "call_2",
                                                "name": "refund",
                                                "arguments": '{"order_id": 7}'}},
        {"type": "tool_call_output_item", "output": '{"total": 0}', "raw_item": {
            "type": "function_call_output", "call_id": "call_1", "output": '{"total": 0}'}}]
    trace, _ = parse_trace(items)
    assert [(c.id, c.result, c.is_error) for c in trace.calls] == [
        ("call_1", '{"total": 0}', False), ("call_2", None, None)]
    assert trace.final_answer is None


def test_run_state_counts_a_repeated_call_once_and_reads_js_results() -> None:
    call = {"type": "function_call", "callId": "c1", "name": "f", "arguments": "{}"}
    state = {"$schemaVersion": "1.17",
             "modelResponses": [{"output": [call]}], "lastModelResponse": {"output": [call]},
             "generatedItems": [
                 {"type": "tool_call_item", "rawItem": call},
                 {"type": "tool_call_output_item", "rawItem": {
                     "type": "function_call_result", "callId": "c1",
                     "output": {"type": "text", "text": "ok"}}}]}
    trace, choice = parse_trace(state)
    assert "RunState" in choice.reason
    assert [(c.id, c.result, c.is_error) for c in trace.calls] == [("c1", "ok", False)]


def test_unsupported_items_are_noted_once_however_often_the_state_repeats_them() -> None:
    program = {"type": "program", "call_id": "p1", "code": "lookup()"}
    call = {"type": "function_call", "call_id": "f1", "name": "lookup", "arguments": "{}"}
    state = {"$schemaVersion": "1.13",
             "generated_items": [{"type": "tool_call_item", "raw_item": program},
                                 {"type": "tool_call_item", "raw_item": call}],
             "model_responses": [{"output": [program, call]}],
             "last_model_response": {"output": [program, call]},
             "current_step": {"type": "next_step_final_output", "output": "done"}}
    trace, _ = parse_trace(state)
    assert [(c.id, c.is_error) for c in trace.calls] == [("f1", None)]
    assert trace.notes == ("1 program item not read as calls (unsupported item type)",)
    assert trace.final_answer == "done"
