"""Google ADK: session and event dumps, snake_case and camelCase, timed from event to event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolscore_cli.app import cli
from toolscore_core.errors import InputError
from toolscore_core.traces import load_trace, parse_trace
from toolscore_formats import gemini, google_adk

FIXTURES = Path(__file__).parent / "fixtures"


def test_the_api_servers_run_output_is_read_with_the_calls_duration(read) -> None:
    trace, choice = read("google_adk_run_events.json")
    assert choice.format == "google_adk"
    (call,) = trace.calls
    assert (call.tool, call.id, call.args, call.is_error, call.error) == (
        "get_weather", "af-e75e946d-c02a-4aad-931e-49e4ab859838", {"city": "new york"}, False,
        None)
    assert call.result == {"status": "success", "report": "The weather in New York is sunny "
                           "with a temperature of 25 degrees Celsius (41 degrees Fahrenheit)."}
    # From the call event (1743712220.385936) to its response event (1743712221.895042).
    assert call.duration == 1.509106
    assert call.timestamp == "2025-04-03T20:30:20.385936Z"
    assert trace.final_answer == ("OK. The weather in New York is sunny with a temperature of "
                                  "25 degrees Celsius (41 degrees Fahrenheit).\n")
    assert trace.notes == ()


def test_parallel_calls_join_by_id_and_a_dump_without_timestamps_has_no_durations(read) -> None:
    trace, choice = read("google_adk_parallel_events.json")
    assert choice.format == "google_adk"
    assert [(c.tool, c.id, c.args, c.is_error, c.duration, c.timestamp)
            for c in trace.calls] == [
        ("get_weather", "fc-1", {"city": "New York"}, False, None, None),
        ("get_weather", "fc-2", {"city": "London"}, False, None, None)]
    assert trace.calls[1].result == {"city": "London", "condition": "cloudy", "humidity": 80,
                                     "temperature": 60}
    assert trace.final_answer is not None
    assert trace.final_answer.startswith("The weather in New York is sunny")


def _event(author: str, role: str, *parts: dict[str, Any], when: float | None = None,
           **extra: Any) -> dict[str, Any]:
    """An event as ``Event.model_dump(mode="json", exclude_none=True)`` writes it."""
    event: dict[str, Any] = {"content": {"parts": list(parts), "role": role},
                             "invocation_id": "e-1", "author": author, "actions": {},
                             "id": f"ev-{author}-{when}", **extra}
    if when is not None:
        event["timestamp"] = when
    return event


def _call(call_id: str | None, name: str, **args: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"args": args, "name": name}
    if call_id is not None:
        call["id"] = call_id
    return {"function_call": call}


def _response(call_id: str | None, name: str, response: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "response": response}
    if call_id is not None:
        body["id"] = call_id
    return {"function_response": body}


def _session(*events: dict[str, Any]) -> dict[str, Any]:
    return {"id": "s_123", "app_name": "dice", "user_id": "u_123", "state": {},
            "events": list(events), "last_update_time": 1750052469.8702555}


def test_a_snake_case_session_reads_errors_wrapped_results_and_unanswered_calls() -> None:
    session = _session(
        _event("user", "user", {"text": "Roll a die and check 7"}, when=100.0),
        _event("dice_agent", "model", _call("adk-1", "roll_die", sides=6),
               _call("adk-2", "check_prime"), _call("adk-3", "notify"), when=101.0),
        _event("dice_agent", "user", _response("adk-1", "roll_die", {"result": 4}),
               _response("adk-2", "check_prime", {"error": "Invoking `check_prime()` failed "
                                                  "as the following mandatory input "
                                                  "parameters are not present:\nnums"}),
               when=101.25))
    trace, choice = parse_trace(session)
    assert choice.format == "google_adk"
    assert choice.reason.startswith("a Google ADK session")
    roll, prime, notify = trace.calls
    assert (roll.result, roll.is_error, roll.duration) == (4, False, 0.25)
    assert (prime.result, prime.is_error, prime.duration) == (None, True, 0.25)
    assert prime.error is not None and prime.error.startswith("Invoking `check_prime()` failed")
    # No response reached it: the outcome is unknown, and so is its time.
    assert (notify.result, notify.is_error, notify.duration) == (None, None, None)
    assert trace.final_answer is None


def test_the_final_answer_is_the_last_agent_text_with_nothing_pending() -> None:
    answered = [_event("agent", "model", _call("c1", "f"), when=1.0),
                _event("agent", "user", _response("c1", "f", {"result": 0}), when=2.0),
                _event("agent", "model", {"text": "thinking", "thought": True},
                       {"text": "It is 0."}, when=3.0)]
    trace, _ = parse_trace(answered)
    assert trace.calls[0].result == 0 and trace.final_answer == "It is 0."
    # A new user message after it: the question it asks is not answered.
    trace, _ = parse_trace([*answered, _event("user", "user", {"text": "and 2?"}, when=4.0)])
    assert trace.final_answer is None
    # A call no response reached (a long-running tool): its text is not the run's answer.
    waiting = [_event("agent", "model", _call("c1", "approve"), when=1.0),
               _event("agent", "model", {"text": "Waiting for approval."}, when=2.0)]
    trace, _ = parse_trace(waiting)
    assert trace.calls[0].is_error is None and trace.final_answer is None


def test_camel_case_ids_reused_calls_without_ids_and_partial_events() -> None:
    events = [
        {"author": "a", "invocationId": "e-1", "timestamp": 10.0, "content": {"role": "model",
         "parts": [{"functionCall": {"name": "f", "args": {"n": 1}}},
                   {"functionCall": {"name": "f", "args": {"n": 2}}}]}},
        {"author": "a", "invocationId": "e-1", "timestamp": 12.0, "content": {"role": "user",
         "parts": [{"functionResponse": {"name": "f", "response": {"v": "one"}}},
                   {"functionResponse": {"name": "f", "response": {"v": "two"}}}]}},
        {"author": "a", "invocationId": "e-1", "partial": True, "content": {"role": "model",
         "parts": [{"text": "Do"}]}},
        {"author": "a", "invocationId": "e-1", "modelVersion": "gemini-2.5-flash",
         "content": {"role": "model", "parts": [{"text": "Done."}]}},
    ]
    trace, choice = parse_trace({"events": events})
    assert choice.format == "google_adk"
    assert [(c.args, c.result, c.duration, c.timestamp) for c in trace.calls] == [
        ({"n": 1}, {"v": "one"}, 2.0, "1970-01-01T00:00:10.000000Z"),
        ({"n": 2}, {"v": "two"}, 2.0, "1970-01-01T00:00:10.000000Z")]
    assert (trace.final_answer, trace.model) == ("Done.", "gemini-2.5-flash")
    assert trace.notes == ("1 partial (streamed) event(s) not read: the complete events repeat "
                           "their content",)


def test_json_lines_with_one_event_a_line_is_read(tmp_path: Path) -> None:
    events = json.loads((FIXTURES / "google_adk_run_events.json").read_text(encoding="utf-8"))
    log = tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    trace, choice = load_trace(log)
    assert choice.format == "google_adk"
    assert [(c.tool, c.duration) for c in trace.calls] == [("get_weather", 1.509106)]


def test_millisecond_timestamps_are_no_time_and_no_duration() -> None:
    events = [_event("a", "model", _call("c1", "f"), when=1743712220385.0),
              _event("a", "user", _response("c1", "f", {"ok": True}), when=1743712221895.0)]
    (call,) = parse_trace(events)[0].calls
    assert (call.result, call.timestamp, call.duration) == ({"ok": True}, None, None)


def test_a_response_for_no_open_call_and_a_model_error_are_noted_not_counted() -> None:
    events = [_event("a", "model", _call("c1", "f"), when=1.0),
              _event("a", "user", _response("zz", "g", {"result": 1}), when=2.0),
              _event("a", "model", when=3.0, error_code="MAX_TOKENS")]
    trace, _ = parse_trace(events)
    assert len(trace.calls) == 1 and trace.calls[0].is_error is None
    assert trace.notes == (
        "event 1: function_response for 'g' with no open call (not counted as a call)",
        "event 2: a ended with error MAX_TOKENS (a model or agent error, not a tool's)")


def test_gemini_contents_and_adk_events_are_disjoint() -> None:
    contents = json.loads((FIXTURES / "gemini_contents.json").read_text(encoding="utf-8"))
    events = json.loads((FIXTURES / "google_adk_run_events.json").read_text(encoding="utf-8"))
    assert google_adk.detect(contents) is None and gemini.detect(events) is None
    assert parse_trace(contents)[1].format == "gemini"
    # The same content without the event's author and invocation id is Gemini's.
    assert parse_trace([event["content"] for event in events])[1].format == "gemini"


def test_near_misses_name_what_an_adk_dump_misses() -> None:
    events = json.loads((FIXTURES / "google_adk_run_events.json").read_text(encoding="utf-8"))
    stripped = [{k: v for k, v in e.items() if k != "invocationId"} for e in events]
    with pytest.raises(InputError, match="closest: google_adk \\(ADK-style events"):
        parse_trace(stripped)
    # Read all the same when the user says so.
    assert len(parse_trace(stripped, trace_format="google_adk")[0].calls) == 1
    assert google_adk.near({"events": [*events, {"kind": "x"}]}) == (
        'a list of Google ADK events, but $.events[3] is not one (an object with "author" '
        'and "invocation_id"/"invocationId")')
    eval_set = {"eval_set_id": "home", "eval_cases": [{"eval_id": "1", "conversation": []}]}
    with pytest.raises(InputError, match="an ADK eval set \\(expected conversations"):
        parse_trace(eval_set)
    assert google_adk.near([{"role": "user"}]) is None and google_adk.near({"a": 1}) is None


def test_explain_format_says_why_it_was_claimed(tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "get_weather", "args": {"city": "new york"}}]', encoding="utf-8")
    result = CliRunner().invoke(cli, ["eval", str(gold), str(FIXTURES / "google_adk_run_events"
                                                             ".json"), "--explain-format"])
    assert result.exit_code == 0, result.output
    assert ('format: google_adk (a list of Google ADK events (each with "author" and an '
            'invocation id))') in result.output


def test_a_function_call_without_args_was_made_with_none() -> None:
    # Constructed: FunctionCall.args is optional, and exclude_none drops it for a tool of no
    # parameters. The part is the call as made: no arguments, known (not missing evidence).
    call = _call("c1", "get_time")
    del call["function_call"]["args"]
    events = [_event("a", "model", call, when=1.0),
              _event("a", "user", _response("c1", "get_time", {"now": "12:00"}), when=2.0)]
    (read,) = parse_trace(events)[0].calls
    assert (read.tool, read.args, read.raw_args) == ("get_time", {}, None)
