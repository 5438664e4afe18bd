"""Gemini: functionCall / functionResponse parts, same-name parallel calls by position."""

from __future__ import annotations

from toolscore_core.traces import parse_trace


def test_same_name_parallel_calls_without_ids_join_by_position(read) -> None:
    trace, choice = read("gemini_contents.json")
    assert choice.format == "gemini"
    delhi, san_francisco = trace.calls
    assert (delhi.tool, delhi.id, delhi.args) == (
        "get_current_weather", None, {"location": "New Delhi"})
    assert (delhi.result, delhi.is_error) == (
        {"content": '{"temperature": 35, "unit": "C"}'}, False)
    assert (san_francisco.args, san_francisco.result, san_francisco.is_error) == (
        {"location": "San Francisco"}, {"content": '{"temperature": 25, "unit": "C"}'}, False)
    assert trace.final_answer == (
        "The current temperature in New Delhi is 35\u00b0C, and in San Francisco, it is 25\u00b0C.")


def test_an_error_response_an_unanswered_call_and_split_text() -> None:
    # Constructed: the second same-name call's response is an error, a third call gets
    # no response, and the answer comes in two text parts.
    contents = {"contents": [
        {"role": "user", "parts": [{"text": "Temperature in Delhi and Oslo?"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "temp", "args": {"city": "Delhi"}}},
            {"functionCall": {"name": "temp", "args": {"city": "Oslo"}}},
            {"functionCall": {"name": "humidity", "args": {"city": "Oslo"}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "temp", "response": {"output": 35}}},
            {"functionResponse": {"name": "temp", "response": {"error": "station offline"}}}]},
        {"role": "model", "parts": [{"text": "Delhi is 35C; "}, {"text": "Oslo is unknown."}]}]}
    trace, _ = parse_trace(contents)
    delhi, oslo, humidity = trace.calls
    assert (delhi.args, delhi.result, delhi.is_error) == ({"city": "Delhi"}, 35, False)
    assert (oslo.args, oslo.is_error, oslo.error) == ({"city": "Oslo"}, True, "station offline")
    assert (humidity.result, humidity.is_error) == (None, None)
    assert trace.final_answer == "Delhi is 35C; Oslo is unknown."


def test_ids_join_when_present_and_a_response_candidate_is_read() -> None:
    contents = {"contents": [
        {"role": "model", "parts": [{"functionCall": {"id": "b", "name": "f", "args": {}}},
                                    {"functionCall": {"id": "a", "name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "a", "name": "f",
                                                         "response": {"v": False}}}]}]}
    trace, _ = parse_trace(contents)
    assert [(c.id, c.result, c.is_error) for c in trace.calls] == [
        ("b", None, None), ("a", {"v": False}, False)]
    response = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}}]}}],
        "modelVersion": "gemini-3-pro"}
    trace, choice = parse_trace(response)
    assert choice.format == "gemini" and trace.model == "gemini-3-pro"
    assert [(c.tool, c.id, c.is_error) for c in trace.calls] == [("weather", None, None)]


def test_python_sdk_snake_case_dump_is_read_too() -> None:
    dump = {"contents": [
        {"role": "model", "parts": [{"function_call": {"name": "f", "args": {"x": 1}}}]},
        {"role": "user", "parts": [{"function_response": {"name": "f",
                                                          "response": {"result": 0}}}]}],
        "model_version": "gemini-2.5-flash"}
    trace, choice = parse_trace(dump)
    assert choice.format == "gemini" and trace.model == "gemini-2.5-flash"
    assert [(c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("f", {"x": 1}, 0, False)]


def test_a_function_call_without_args_was_made_with_none() -> None:
    # Constructed: the API leaves out "args" for a function of no parameters; the part is
    # the call as the model made it, so its arguments are known to be none.
    contents = {"contents": [
        {"role": "user", "parts": [{"text": "What time is it?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "get_time"}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "get_time", "response": {"output": "12:00"}}}]},
        {"role": "model", "parts": [{"text": "It is noon."}]}]}
    (call,) = parse_trace(contents)[0].calls
    assert (call.tool, call.args, call.result) == ("get_time", {}, "12:00")
