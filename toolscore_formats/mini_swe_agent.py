"""mini-swe-agent trajectories (``.traj.json``): each bash command the agent ran a call of
``bash``, the observation that answered it the result, the submitted patch the final answer.

A trajectory holds ``info`` (``exit_status``, ``submission``, ``model_stats`` with
``instance_cost`` and ``api_calls``, ``mini_version``, ``config``), ``messages`` (the chat
the agent held with the model, each with mini-swe-agent's ``extra``; the last one of role
``exit``) and ``trajectory_format`` (``mini-swe-agent-1.1`` since mini-swe-agent 2.0).
"""

from __future__ import annotations

import re
from typing import Any

from toolscore import InputError, Trace, TraceFormat, count, hookimpl
from toolscore_formats.calls import CallRow, CallTable, OpenCalls
from toolscore_formats.shapes import is_mini_swe_agent_trajectory
from toolscore_formats.times import iso_timestamp
from toolscore_formats.trajectories import submitted_answer
from toolscore_formats.values import as_float, as_int, as_str, dict_of

SUBMITTED = "Submitted"
FIX = ('give the .traj.json file mini-swe-agent wrote, unchanged: "messages" is a list of '
       'objects with a "role"')
# What the observation template writes before a command's output (config/*.yaml).
RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")


def _malformed(document: dict[str, Any]) -> tuple[str, str] | None:
    """What is wrong with the messages, and where; None when they can be read."""
    messages = document["messages"]
    if not isinstance(messages, list):
        return '"messages" is not a list', "$.messages"
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return "a message is an object with a \"role\"", f"$.messages[{index}]"
    return None


def detect(document: Any) -> str | None:
    if not is_mini_swe_agent_trajectory(document) or _malformed(document) is not None:
        return None
    return 'a mini-swe-agent trajectory ("info", "messages", "trajectory_format")'


def near(document: Any) -> str | None:
    """What a mini-swe-agent trajectory with malformed messages misses."""
    if not is_mini_swe_agent_trajectory(document):
        return None
    problem = _malformed(document)
    return None if problem is None else \
        f"a mini-swe-agent trajectory, but {problem[1]}: {problem[0]}"


def _actions(message: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The commands the agent parsed from this model message (``extra.actions``), each
    with its ``tool_call_id`` when the model called the bash tool; None when not recorded."""
    actions = dict_of(message, "extra").get("actions")
    if not isinstance(actions, list):
        return None
    return [action for action in actions
            if isinstance(action, dict) and isinstance(action.get("command"), str)]


def _tool_calls(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The model's tool calls by id (name and arguments as the model sent them)."""
    calls = message.get("tool_calls")
    by_id: dict[str, dict[str, Any]] = {}
    for call in calls if isinstance(calls, list) else ():
        if isinstance(call, dict) and isinstance(call.get("function"), dict):
            key = as_str(call.get("id"))
            if key is not None:
                by_id[key] = call["function"]
    return by_id


def _add_calls(table: CallTable, message: dict[str, Any], actions: list[dict[str, Any]]
               ) -> list[CallRow]:
    """One call per action: the model's tool call when it made one, else ``bash`` with the
    command the agent extracted from the text."""
    functions = _tool_calls(message)
    stamp = iso_timestamp(as_float(dict_of(message, "extra").get("timestamp")))
    rows = []
    for action in actions:
        call_id = as_str(action.get("tool_call_id"))
        function = functions.get(call_id) if call_id is not None else None
        if function is not None:
            row = table.add(function.get("name"), function.get("arguments"), call_id=call_id,
                            timestamp=stamp)
        else:
            row = table.add("bash", {"command": action["command"]}, call_id=call_id,
                            timestamp=stamp)
        row.clock = as_float(dict_of(message, "extra").get("timestamp"))
        rows.append(row)
    return rows


def _returncode(message: dict[str, Any]) -> int | None:
    """The command's exit code: ``extra.returncode``, else the observation's
    ``<returncode>`` tag; None when the observation gives neither."""
    code = as_int(dict_of(message, "extra").get("returncode"))
    if code is not None:
        return code
    content = message.get("content")
    found = RETURNCODE.search(content) if isinstance(content, str) else None
    return int(found.group(1)) if found else None


def _settle(row: CallRow, message: dict[str, Any]) -> None:
    """An observation answers the call: a non-zero exit code (or the agent's
    ``exception_info``: a timeout, a command it could not run) fails it."""
    extra = dict_of(message, "extra")
    code = _returncode(message)
    exception = extra.get("exception_info")
    failed = (code is not None and code != 0) or (isinstance(exception, str) and
                                                  bool(exception.strip()))
    error = None
    if failed:
        error = exception.strip() if isinstance(exception, str) and exception.strip() \
            else f"exit code {code}"
    # The observation is what the model read: the command's output, failed or not.
    fields: dict[str, Any] = {"result": message.get("content"), "is_error": failed,
                              "error": error}
    end = as_float(extra.get("timestamp"))
    fields["duration"] = end - row.clock if end is not None and row.clock is not None \
        and end >= row.clock else None
    row.settle(**fields)


def _read_messages(messages: list[dict[str, Any]], table: CallTable, notes: list[str],
                   status: str | None) -> None:
    """Walk the chat: model messages give calls, tool and user messages after them answer."""
    pending = OpenCalls()  # the last model message's calls still open
    format_errors: list[int] = []
    unparsed: list[int] = []
    for index, message in enumerate(messages):
        role = message["role"]
        if role == "assistant":
            pending = OpenCalls()
            actions = _actions(message)
            if actions is None:
                unparsed.append(index)
            else:
                pending = OpenCalls(_add_calls(table, message, actions))
        elif dict_of(message, "extra").get("interrupt_type") == "FormatError":
            # The agent keeps no model message for an answer it found no command in (or
            # several, or an unknown tool): only this user message, its format-error prompt.
            format_errors.append(index)
        elif role in ("tool", "user") and (first := pending.first()) is not None and \
                _returncode(message) is not None:
            call_id = as_str(message.get("tool_call_id"))
            row = (pending.first_with_id(call_id) if call_id is not None else None) or first
            _settle(row, message)
        elif role == "exit" and (first := pending.first()) is not None and status == SUBMITTED:
            # The environment ends the run when a command's output starts with the submit
            # marker and its exit code is 0: the output after the marker is the exit message.
            first.settle(result=message.get("content"), is_error=False, error=None)
    if format_errors:
        notes.append(f"{count(len(format_errors), 'format error')} (messages "
                     f"{', '.join(map(str, format_errors))}): the model's answer held no "
                     "command the agent could run, so no call")
    if unparsed and len(unparsed) == sum(m["role"] == "assistant" for m in messages):
        # mini-swe-agent 1.x kept no parsed actions: its commands are only in the model's
        # text, which this reader does not parse; 0 calls would be a false score.
        raise InputError("a model message without the agent's parsed actions (extra.actions)",
                         place=f"$.messages[{unparsed[0]}]",
                         fix="this reader reads mini-swe-agent 2.x trajectories (trajectory_"
                             "format mini-swe-agent-1.1), whose model messages record the "
                             "commands the agent ran in extra.actions")
    if unparsed:
        notes.append(f"{count(len(unparsed), 'model message')} without the agent's parsed "
                     f"actions (extra.actions; messages {', '.join(map(str, unparsed))}): "
                     "not read as calls")


def parse(document: Any) -> Trace:
    if not is_mini_swe_agent_trajectory(document):
        raise InputError("not a mini-swe-agent trajectory", place="$",
                         fix='give a .traj.json file: an object with "info" (exit_status, '
                             'submission, model_stats, mini_version) and "messages"')
    problem = _malformed(document)
    if problem is not None:
        raise InputError(problem[0], place=problem[1], fix=FIX)
    info = document["info"]
    status = as_str(info.get("exit_status"))
    table = CallTable()
    notes: list[str] = []
    _read_messages(document["messages"], table, notes, status)
    answer = submitted_answer(info, SUBMITTED, notes)
    stats = dict_of(info, "model_stats")
    cost = as_float(stats.get("instance_cost"))
    model = as_str(dict_of(dict_of(info, "config"), "model").get("model_name"))
    return Trace(calls=table.calls(), final_answer=answer, model=model,
                 run_cost=cost if cost is not None and cost >= 0 else None,
                 notes=tuple(notes))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="mini_swe_agent",
        description="mini-swe-agent trajectories (.traj.json): info and messages",
        reads='a mini-swe-agent .traj.json file ({"info", "messages", "trajectory_format"}): '
              "each command the agent parsed from a model message (extra.actions) as a call "
              "(the model's bash tool call, with its id, or bash with {\"command\": ...}), "
              "the observation that answered it as the result (a non-zero returncode fails "
              "it); info.submission (the patch) as the final answer; instance_cost as the "
              "run's cost, the model from info.config",
        detect=detect, parse=parse, near=near,
    )]
