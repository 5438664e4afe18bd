"""BFCL multi-turn results: a list of user turns, each a list of steps, each step one
model response (its calls, or text); each call's result from the entry's inference log."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolscore import InputError, ToolCall

FIX = ('give a BFCL multi-turn result file: "result" a list of turns, each a list of steps, '
       "each a list of calls or text")
# BFCL's executor catches what a simulated API raises and answers the model with this
# text (bfcl_eval/eval_checker/multi_turn_eval/multi_turn_utils.py); a domain refusal
# such as {"error": "cd: No such folder"} is an ordinary answer and stays a result.
RAISED = "Error during execution: "
# The handler's lines for a step that went as planned; any other line is reported.
ROUTINE = ("Successfully decoded model response.",
           "Empty response from the model. Proceed to next turn.")

Decode = Callable[[Any, str], "tuple[tuple[ToolCall, ...], str | None, str | None]"]


def is_multi_turn(result: Any) -> bool:
    """Whether a ``result`` is a multi-turn one: a non-empty list of lists (turns)."""
    return isinstance(result, list) and bool(result) and all(isinstance(t, list)
                                                             for t in result)


def read_turns(result: Sequence[Any], log: Any, place: str, decode: Decode,
               ) -> tuple[tuple[ToolCall, ...], str | None, tuple[str, ...]]:
    """(calls, final answer, notes) of a multi-turn ``result``: the calls in order, each
    with its ``turn`` (1-based) and, where the inference log records it, the result BFCL's
    simulated API gave; ``decode(step, place)`` reads one step as a single-turn result.
    The final answer is the last step's text when that step is text."""
    turn_logs, notes = _turn_logs(log, len(result))
    calls: list[ToolCall] = []
    final = None
    for t, turn in enumerate(result):
        for s, step in enumerate(turn):
            where = f"{place}.result[{t}][{s}]"
            if isinstance(step, list) and any(isinstance(c, list) for c in step):
                raise InputError("a step must be a list of calls or text, not of lists",
                                 place=where, fix=FIX)
            decoded, text, _ = decode(step, where)
            final = text if t == len(result) - 1 and s == len(turn) - 1 else None
            step_log = None if turn_logs is None else turn_logs[t].get(f"step_{s}")
            answers, step_notes = _answers(step_log, len(decoded), t + 1, s + 1)
            notes.extend(step_notes)
            for call, answer in zip(decoded, answers, strict=True):
                calls.append(ToolCall(tool=call.tool, args=call.args, raw_args=call.raw_args,
                                      id=str(len(calls) + 1), turn=t + 1, **answer))
    return tuple(calls), final, tuple(notes)


def _turn_logs(log: Any, turns: int) -> tuple[list[Mapping[str, Any]] | None, list[str]]:
    """The inference log's turn records (``begin_of_turn_query`` and ``step_N``), one per
    turn of the result, or None (with a note) when the file holds no such log."""
    if log is None:
        return None, ["the result file holds no inference log: the calls' results are "
                      "unknown"]
    found = [t for t in log if isinstance(t, Mapping) and "begin_of_turn_query" in t] \
        if isinstance(log, list) else []
    if len(found) != turns:
        return None, [f"the inference log holds {len(found)} turns and the result {turns}: "
                      "the calls' results are unknown"]
    return found, []


def _answers(step_log: Any, count: int, turn: int, step: int,
             ) -> tuple[list[dict[str, Any]], list[str]]:
    """The outcome fields of a step's ``count`` calls, from its log: the tool messages,
    one per call in order; unknown (no fields) when the log does not pair them."""
    unknown: list[dict[str, Any]] = [{} for _ in range(count)]
    if not isinstance(step_log, list):
        return unknown, []
    notes = [f"turn {turn}, step {step}: {m['content']}" for m in step_log
             if isinstance(m, Mapping) and m.get("role") == "handler_log"
             and isinstance(m.get("content"), str) and m["content"] not in ROUTINE]
    tools = [m.get("content") for m in step_log
             if isinstance(m, Mapping) and m.get("role") == "tool"]
    if len(tools) != count:
        # e.g. a call with a positional argument, which BFCL runs and this reader cannot
        # name: say so rather than pair answers with the wrong calls
        notes.append(f"turn {turn}, step {step}: BFCL ran {len(tools)} calls, the response "
                     f"reads as {count}; their results are unknown")
        return unknown, notes
    answers = [{"is_error": True, "error": content} if isinstance(content, str)
               and content.startswith(RAISED) else {"is_error": False, "result": content}
               for content in tools]
    return answers, notes
