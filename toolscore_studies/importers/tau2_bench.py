"""τ²-bench result files (sierra-research/tau2-bench): each simulation's messages, reward and
how it ended.

τ²'s messages are near Chat Completions messages but not quite: a tool call is
``{"id", "name", "arguments", "requestor"}`` (no ``function`` wrapper), a tool message
answers with ``id`` (not ``tool_call_id``) and flags a failure with ``error``, and in the
telecom domain the simulated user calls tools of its own (``requestor: "user"``). The
adapter here rewrites each simulation into Chat Completions messages, which the
``openai_chat`` reader reads, then sets the error flags the reader has no field for.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from attrs import evolve

from toolscore import InputError, ToolCall, count, hookimpl
from toolscore_studies.importers import finite_number, load_json

# τ²-bench's rule is τ-bench's (tau2/metrics/agent_metrics.py, is_successful): a reward
# within 1e-6 of 1 is a success; no reward (a simulation that never ran, which τ²-bench
# leaves out of its metrics) is no verdict.
from toolscore_studies.importers.tau_bench import is_success

if TYPE_CHECKING:  # the importer's records load when runs are imported (read, the hook)
    from toolscore import ImportedRun, ImportSource, RunImporter

FIX = ('give a τ²-bench results file: the JSON document `tau2 run` saves, {"info", "tasks", '
       '"simulations": [...]}, each simulation with task_id, messages and reward_info')
# The instruction fields of a structured user scenario, in the order τ²-bench prints them.
SCENARIO = (("reason_for_call", "Reason for call"), ("known_info", "Known info"),
            ("unknown_info", "Unknown info"), ("task_instructions", "Task instructions"))


class Adapted:
    """One simulation's messages as Chat Completions messages, and what the rewrite learnt:
    which of the agent's calls failed, which message each rewritten one was."""

    __slots__ = ("chat", "failed", "origin", "user_calls")

    def __init__(self) -> None:
        self.chat: list[dict[str, Any]] = []
        self.origin: list[int] = []
        """The index in the simulation's messages of each rewritten message."""
        self.failed: dict[int, str] = {}
        """The position (among the agent's calls) of each call a tool message flagged as
        failed, with the call's id."""
        self.user_calls = 0


def adapt(messages: list[Any], place: str) -> Adapted:
    """Rewrite τ² messages as Chat Completions messages: the agent's calls and their results;
    the simulated user's own calls and results are left out (they are not the agent's)."""
    out = Adapted()
    calls = 0
    open_ids: dict[str, deque[int]] = {}  # call id -> positions not yet answered, oldest first
    for index, message in enumerate(messages):
        at = f"{place}[{index}]"
        if not isinstance(message, Mapping):
            raise InputError("a message is an object", place=at, fix=FIX)
        role = message.get("role")
        if role in ("assistant", "user"):
            tool_calls = message.get("tool_calls")
            if tool_calls is not None and not isinstance(tool_calls, list):
                raise InputError('"tool_calls" must be a list or null', place=f"{at}.tool_calls",
                                 fix=FIX)
            if role == "user":
                out.user_calls += len(tool_calls or ())
                out.chat.append({"role": "user", "content": message.get("content")})
                out.origin.append(index)
                continue
            chat_calls = []
            for position, call in enumerate(tool_calls or ()):
                if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
                    raise InputError('a tool call must be an object with a "name"',
                                     place=f"{at}.tool_calls[{position}]", fix=FIX)
                call_id = call.get("id") if isinstance(call.get("id"), str) else None
                if call_id:
                    open_ids.setdefault(call_id, deque()).append(calls)
                chat_calls.append({"id": call_id or None, "type": "function", "function": {
                    "name": call["name"], "arguments": call.get("arguments")}})
                calls += 1
            chat: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
            if chat_calls:
                chat["tool_calls"] = chat_calls
            out.chat.append(chat)
        elif role == "tool":
            if message.get("requestor") == "user":
                continue
            call_id = message.get("id") if isinstance(message.get("id"), str) else None
            # The reader answers a reused id oldest call first: the same call is flagged here.
            waiting = open_ids.get(call_id or "")
            answered = waiting.popleft() if waiting else None
            if answered is not None and message.get("error") is True:
                out.failed[answered] = call_id or ""
            out.chat.append({"role": "tool", "tool_call_id": call_id or None,
                             "content": message.get("content")})
        elif role == "system":
            out.chat.append({"role": "system", "content": message.get("content")})
        else:
            raise InputError(f"a message with role {json.dumps(role)}", place=f"{at}.role",
                             fix="give τ²'s messages: role assistant, user, tool or system")
        out.origin.append(index)
    return out


def with_errors(calls: tuple[ToolCall, ...], failed: Mapping[int, str]) -> tuple[ToolCall, ...]:
    """The calls, those τ² flagged failed (``error: true``) with their result as the error."""
    out = list(calls)
    for position, call_id in failed.items():
        call = out[position] if position < len(out) else None
        if call is None or (call.id or "") != call_id:
            continue  # the reader paired it otherwise: its own reading stands
        text = (call.result if isinstance(call.result, str) or call.result is None
                else json.dumps(call.result, ensure_ascii=False))
        out[position] = evolve(call, result=None, is_error=True, error=text)
    return tuple(out)


def prompt_of(task: Mapping[str, Any]) -> str | None:
    """The task's user scenario, as the simulated user was given it: τ²'s instructions text,
    or its structured instructions (reason for call, known and unknown info, instructions)."""
    scenario = task.get("user_scenario")
    instructions = scenario.get("instructions") if isinstance(scenario, Mapping) else None
    if isinstance(instructions, str):
        return instructions
    if not isinstance(instructions, Mapping):
        return None
    parts = [f"{label}: {instructions[key]}" for key, label in SCENARIO
             if isinstance(instructions.get(key), str)]
    return "\n".join(parts) or None


def verdict_of(simulation: Mapping[str, Any]) -> dict[str, Any]:
    """τ²-bench's figures behind its verdict: the reward, how the simulation ended, and the
    reward's breakdown (each part of ``reward_basis``, the database check, each action,
    output and assertion check), as far as the file holds them."""
    verdict: dict[str, Any] = {"termination_reason": simulation.get("termination_reason")}
    info = simulation.get("info")
    if isinstance(info, Mapping) and isinstance(info.get("error"), str):
        verdict["error"] = info["error"]
    reward_info = simulation.get("reward_info")
    if not isinstance(reward_info, Mapping):
        verdict["reward"] = None
        return verdict
    verdict["reward"] = reward_info.get("reward")
    for key in ("reward_basis", "reward_breakdown"):
        if reward_info.get(key) is not None:
            verdict[key] = reward_info[key]
    db_check = reward_info.get("db_check")
    if isinstance(db_check, Mapping):
        verdict["db_match"] = db_check.get("db_match")
    checks = {
        "action_checks": lambda c: {"action": _get(c, "action", "name"),
                                    "requestor": _get(c, "action", "requestor"),
                                    "match": c.get("action_match")},
        "communicate_checks": lambda c: {"info": c.get("info"), "met": c.get("met")},
        "env_assertions": lambda c: {"assertion": _get(c, "env_assertion", "func_name"),
                                     "met": c.get("met")},
        "nl_assertions": lambda c: {"assertion": c.get("nl_assertion"), "met": c.get("met")},
    }
    for key, keep in checks.items():
        items = reward_info.get(key)
        if isinstance(items, list) and items:
            verdict[key] = [keep(c) for c in items if isinstance(c, Mapping)]
    note = _get(reward_info, "info", "note")
    if isinstance(note, str):  # "Simulation terminated prematurely. ...", "No evaluation ..."
        verdict["note"] = note
    return verdict


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def read(source: ImportSource) -> Iterator[ImportedRun]:
    from toolscore import ImportedRun

    document = load_json(source.path, FIX)
    if not isinstance(document, Mapping):
        raise InputError("not a τ²-bench results document (an object)", place="$", fix=FIX)
    simulations = document.get("simulations")
    if simulations is None and "simulation_index" in document:
        raise InputError("the results.json of a run saved as a folder: its simulations are "
                         "in simulations/ beside it", place="$.simulations",
                         fix="save the run as one JSON document (tau2 run's json format)")
    if not isinstance(simulations, list):
        raise InputError('"simulations" must be the list of simulations', place="$.simulations",
                         fix=FIX)
    tasks = {str(t["id"]): t for t in document.get("tasks") or ()
             if isinstance(t, Mapping) and "id" in t}
    model = _get(document, "info", "agent_info", "llm")
    for i, simulation in enumerate(simulations):
        place = f"$.simulations[{i}]"
        if not isinstance(simulation, Mapping) or "task_id" not in simulation:
            raise InputError('a simulation must be an object with "task_id"', place=place,
                             fix=FIX)
        messages = simulation.get("messages")
        if messages is None and simulation.get("ticks") is not None:
            raise InputError("a full-duplex (voice) simulation: its ticks are not read",
                             place=f"{place}.messages",
                             fix="import half-duplex (text) runs, which keep their messages")
        if not isinstance(messages, list):
            raise InputError('"messages" must be the simulation\'s list of messages',
                             place=f"{place}.messages", fix=FIX)
        trial = simulation.get("trial")
        if trial is not None and (isinstance(trial, bool) or not isinstance(trial, int)
                                  or trial < 0):
            raise InputError('"trial" must be a whole number from 0', place=f"{place}.trial",
                             fix=FIX)
        adapted = adapt(messages, f"{place}.messages")
        try:
            trace = source.parse_trace(adapted.chat, "openai_chat")
        except InputError as exc:
            raise InputError(exc.problem, place=f"{place}.messages{_inner(exc.place, adapted)}",
                             fix=exc.fix) from None
        notes = trace.notes
        if adapted.user_calls:
            notes = (*notes, f"{count(adapted.user_calls, 'tool call')} of the simulated user "
                     "(requestor user) left out: they are not the agent's")
        trace = evolve(trace, calls=with_errors(trace.calls, adapted.failed), notes=notes,
                       model=model if isinstance(model, str) else trace.model,
                       run_cost=finite_number(simulation.get("agent_cost")))
        verdict = verdict_of(simulation)
        task = tasks.get(str(simulation["task_id"]))
        yield ImportedRun(
            task_id=str(simulation["task_id"]), trace=trace,
            trial=1 if trial is None else trial + 1,
            prompt=prompt_of(task) if task is not None else None,
            passed=is_success(verdict["reward"]), verdict=verdict, place=place,
            duration=finite_number(simulation.get("duration")))


def _inner(place: str | None, adapted: Adapted) -> str:
    """A place inside the rewritten messages ($[2].content) as one in the simulation's own."""
    if not place or not place.startswith("$["):
        return ""
    index, _, rest = place[2:].partition("]")
    if index.isdigit() and int(index) < len(adapted.origin):
        return f"[{adapted.origin[int(index)]}]{rest}"
    return ""


@hookimpl
def toolscore_register_run_importers() -> list[RunImporter]:
    from toolscore import RunImporter

    return [RunImporter(
        id="tau2_bench", description="τ²-bench results: each simulation's calls (with results "
        "and error flags), the agent's replies, and its reward as the verdict.",
        read=read,
        reads='{"info": {"agent_info": {"llm"}}, "tasks": [{"id", "user_scenario"}], '
              '"simulations": [{"task_id", "trial", "messages", "reward_info", '
              '"termination_reason", "duration", "agent_cost"}]}')]
