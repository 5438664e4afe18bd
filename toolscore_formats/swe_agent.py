"""SWE-agent trajectories (``.traj``): each step's action as a call, its observation as the
result, the submitted patch as the final answer.

A ``.traj`` file holds ``trajectory`` (the steps SWE-agent ran: ``action``, ``observation``,
``thought``, ``response``, ``state``, ``execution_time``), ``history`` (the messages it sent
the model) and ``info`` (``exit_status``, ``submission``, ``model_stats``).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from toolscore import InputError, Trace, TraceFormat, count, hookimpl
from toolscore_formats.calls import CallTable
from toolscore_formats.trajectories import submitted_answer
from toolscore_formats.values import as_float, as_int, as_str, dict_of, maybe_json

INFO_KEYS = frozenset(("exit_status", "submission", "model_stats"))
FIX = ("give the .traj file SWE-agent wrote, unchanged: its steps are objects with "
       '"action" and "observation" strings')


def _looks_like(document: Any) -> bool:
    """The three parts of a .traj file, with SWE-agent's own keys in ``info``."""
    return isinstance(document, dict) and isinstance(document.get("trajectory"), list) and \
        isinstance(document.get("history"), list) and isinstance(document.get("info"), dict) \
        and bool(INFO_KEYS & document["info"].keys())


def _is_step(step: Any) -> bool:
    return isinstance(step, dict) and isinstance(step.get("action"), str) and \
        isinstance(step.get("observation"), str)


def detect(document: Any) -> str | None:
    if not _looks_like(document) or not all(_is_step(step) for step in document["trajectory"]):
        return None
    return 'a SWE-agent trajectory ("trajectory", "history", "info")'


def near(document: Any) -> str | None:
    """What a .traj file with a malformed step misses."""
    if not _looks_like(document):
        return None
    for index, step in enumerate(document["trajectory"]):
        if not _is_step(step):
            return (f'a SWE-agent trajectory, but $.trajectory[{index}] is not a step (an '
                    'object with "action" and "observation" strings)')
    return None


def _model_requests(history: list[Any]) -> list[dict[str, Any]]:
    """The model's messages that carry an action, in order (demonstrations left out)."""
    return [item for item in history
            if isinstance(item, dict) and item.get("role") == "assistant"
            and not item.get("is_demo") and isinstance(item.get("action"), str)]


def _tool_call(step_action: str, requests: list[dict[str, Any]],
               by_action: dict[str, list[int]], start: int) -> tuple[dict[str, Any] | None, int]:
    """The function call the model made for this step, and where the next search starts.

    The history's messages are matched to the steps in order, by their action text: a step
    SWE-agent asked again for (a format error) is in the trajectory but not in the history.
    ``by_action``: the requests' places by their action text.
    """
    places = by_action.get(step_action, [])
    found = bisect_left(places, start)
    if found == len(places):
        return None, start
    index = places[found]
    calls = requests[index].get("tool_calls")
    one = calls[0] if isinstance(calls, list) and len(calls) == 1 else None
    return (one if isinstance(one, dict) and isinstance(one.get("function"), dict)
            else None), index + 1


def _model(document: dict[str, Any]) -> str | None:
    """The model named in the run's configuration (``replay_config``), when the file has it."""
    config = maybe_json(document.get("replay_config"))
    return as_str(dict_of(dict_of(config, "agent"), "model").get("name"))


def _usage(stats: dict[str, Any], notes: list[str]) -> dict[str, Any] | None:
    """``tokens_sent`` and ``tokens_received`` (summed over the run's model calls) as input
    and output tokens; unknown unless both are counts."""
    sent, received = as_int(stats.get("tokens_sent")), as_int(stats.get("tokens_received"))
    if sent is None and received is None:
        return None
    if sent is None or received is None or sent < 0 or received < 0:
        notes.append("info.model_stats lacks tokens_sent or tokens_received as a count: the "
                     "run's token usage is unknown")
        return None
    return {"input_tokens": sent, "output_tokens": received}


def _cost(stats: dict[str, Any]) -> float | None:
    """``instance_cost``: this run's cost (``total_cost`` in older files counts every
    instance of the batch so far)."""
    cost = as_float(stats.get("instance_cost"))
    return cost if cost is not None and cost >= 0 else None


def _duration(step: dict[str, Any]) -> float | None:
    seconds = as_float(step.get("execution_time"))
    return seconds if seconds is not None and seconds >= 0 else None


def parse(document: Any) -> Trace:
    if not _looks_like(document):
        raise InputError("not a SWE-agent trajectory", place="$",
                         fix='give a .traj file: an object with "trajectory", "history" and '
                             '"info" (exit_status, submission, model_stats)')
    for index, step in enumerate(document["trajectory"]):
        if not _is_step(step):
            raise InputError('a step is an object with "action" and "observation" strings',
                             place=f"$.trajectory[{index}]", fix=FIX)
    requests = _model_requests(document["history"])
    by_action: dict[str, list[int]] = {}
    for index, request in enumerate(requests):
        by_action.setdefault(request["action"], []).append(index)
    function_calling = any(item.get("tool_calls") for item in requests)
    table = CallTable()
    notes: list[str] = []
    no_action: list[int] = []
    text_read: list[int] = []
    start = 0
    for index, step in enumerate(document["trajectory"]):
        action = step["action"].strip()  # SWE-agent runs the action stripped
        if not action:
            no_action.append(index)
            continue
        call, start = _tool_call(step["action"], requests, by_action, start)
        if call is not None:
            function = call["function"]
            row = table.add(function.get("name"), function.get("arguments"),
                            call_id=call.get("id"))
        else:
            if function_calling:
                text_read.append(index)
            row = table.add(action.split()[0], {"command": action})
        # SWE-agent records no exit code or error flag per command: the output came back.
        row.settle(result=step["observation"], is_error=False, error=None,
                   duration=_duration(step))
    if no_action:
        notes.append(f"{count(len(no_action), 'step')} without an action (trajectory "
                     f"{', '.join(map(str, no_action))}): not calls")
    if text_read:
        notes.append(f"{count(len(text_read), 'step')} with no tool call in the history "
                     f"(trajectory {', '.join(map(str, text_read))}): the tool named by the "
                     "action's first word, the action as its command")
    info = document["info"]
    answer = submitted_answer(info, "submitted", notes)
    stats = dict_of(info, "model_stats")
    return Trace(calls=table.calls(), final_answer=answer, model=_model(document),
                 usage=_usage(stats, notes), run_cost=_cost(stats), notes=tuple(notes))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="swe_agent",
        description="SWE-agent trajectories (.traj): steps, history and info",
        reads='a SWE-agent .traj file ({"trajectory", "history", "info"}): each step\'s action '
              "as a call (with function calling, the tool call the history records for it: "
              "name, arguments, id; else the action's first word as the tool, the action as "
              '{"command": ...}), its observation as the result and execution_time as the '
              "duration; info.submission (the patch) as the final answer; tokens and cost "
              "from info.model_stats",
        detect=detect, parse=parse, near=near,
    )]
