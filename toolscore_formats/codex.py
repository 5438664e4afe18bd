"""Codex CLI session rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): the
Responses API items Codex records, read by the ``openai_responses`` reader, with each call's
time, a command's exit code and duration from Codex's own lines, and the session's tokens.

Each line is ``{"timestamp", "type", "payload"}``: ``session_meta`` first, then
``response_item`` (a Responses item), ``event_msg`` (what Codex showed: messages, finished
commands, token counts), ``turn_context`` (the model and settings of a turn, or in older
versions of each model request) and bookkeeping lines.
"""

from __future__ import annotations

import re
from typing import Any

from attrs import evolve

from toolscore import InputError, ToolCall, Trace, TraceFormat, count, hookimpl, parse_trace
from toolscore_formats.calls import outcome
from toolscore_formats.times import iso_timestamp
from toolscore_formats.values import as_float, as_int, as_str, dict_of, maybe_json, name_of

# What Codex answers a call of a tool it cannot dispatch (the call did not run).
UNSUPPORTED = re.compile(r"unsupported (?:custom tool )?call: \S+$")
ROLLOUT_LINES = frozenset(("session_meta", "response_item", "event_msg", "turn_context"))
CALL_ITEMS = frozenset(("function_call", "custom_tool_call"))
# The tools through which Codex runs a command (names of its versions): their outcome is
# the command's exit code.
COMMAND_TOOLS = frozenset(("shell", "exec_command", "shell_command", "container.exec"))
OUTPUT_ITEMS = frozenset(("function_call_output", "custom_tool_call_output"))
TURN_START: dict[str, Any] = {"type": "message", "role": "user", "content": []}
"""Where a turn starts, for the Responses reader: the event that says the user spoke."""
FIX = ("give the rollout as Codex wrote it: one JSON object a line, each with a \"type\" and "
       "a \"payload\" object")


def _is_line(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("type"), str) and \
        isinstance(item.get("payload"), dict)


def detect(document: Any) -> str | None:
    if not isinstance(document, list) or not document or \
            not all(_is_line(item) for item in document):
        return None
    kinds = {item["type"] for item in document}
    if "session_meta" in kinds:
        return 'a Codex CLI session rollout (a "session_meta" line, then "response_item" / ' \
            '"event_msg" lines)'
    if kinds & {"response_item", "event_msg"}:
        return 'Codex CLI rollout lines ("response_item" / "event_msg" with a "payload")'
    return None


def near(document: Any) -> str | None:
    """A rollout with a line that is not ``{"type", "payload"}``."""
    if not isinstance(document, list) or not any(
            _is_line(item) and item["type"] in ROLLOUT_LINES for item in document):
        return None
    for index, item in enumerate(document):
        if not _is_line(item):
            return (f"a Codex CLI rollout, but $[{index}] (line {index + 1}) is not a rollout "
                    'line (an object with a "type" and a "payload" object)')
    return None


def _seconds(duration: Any) -> float | None:
    """Codex's ``{"secs", "nanos"}`` (a Rust Duration), or seconds as a number."""
    if isinstance(duration, dict):
        secs, nanos = as_int(duration.get("secs")), as_int(duration.get("nanos"))
        return secs + nanos / 1e9 if secs is not None and nanos is not None else None
    seconds = as_float(duration)
    return seconds if seconds is not None and seconds >= 0 else None


class Ran:
    """What Codex says about a command a call ran: its exit code and duration."""

    __slots__ = ("code", "seconds", "text")

    def __init__(self, code: int | None, seconds: float | None, text: str | None = None) -> None:
        self.code, self.seconds = code, seconds
        self.text = text
        """The command's own output (what the model got wraps it: in JSON, or with Codex's
        header lines)."""


def _command_end(payload: dict[str, Any]) -> tuple[str | None, Ran] | None:
    """An ``item_completed`` event of a ``CommandExecution`` item: the call id it answers,
    the exit code, the duration."""
    item = dict_of(payload, "item")
    if name_of(payload, "type") != "item_completed" or name_of(item, "type") != \
            "CommandExecution":
        return None
    return as_str(item.get("id")), Ran(as_int(item.get("exit_code")),
                                       _seconds(item.get("duration")),
                                       as_str(item.get("aggregated_output")))


# The header Codex's exec_command puts before a command's output (``Chunk ID``, ``Wall
# time: 0.3030 seconds``, ``Process exited with code 1``, ``Original token count``), ended
# by an ``Output:`` line.
EXIT_LINE = re.compile(r"Process exited with code (-?\d+)")
WALL_LINE = re.compile(r"Wall time: (\d+(?:\.\d+)?) seconds")


def _header(text: Any) -> Ran | None:
    """The exit code and wall time in Codex's header of a command's output; None when the
    header has no exit code (a command still running answers with its session id)."""
    if not isinstance(text, str) or "\nOutput:\n" not in text:
        return None
    header, _, output = text.partition("\nOutput:\n")
    code = seconds = None
    for line in header.split("\n"):
        if (found := EXIT_LINE.fullmatch(line)) is not None:
            code = int(found.group(1))
        elif (found := WALL_LINE.fullmatch(line)) is not None:
            seconds = float(found.group(1))
    return Ran(code, seconds, output) if code is not None else None


USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "cached_input_tokens",
              "cache_write_input_tokens", "reasoning_output_tokens")


def _counts(total: dict[str, Any]) -> dict[str, int] | None:
    """A ``total_token_usage``'s counts; None without input and output counts."""
    counts = {key: value for key in USAGE_KEYS
              if (value := as_int(total.get(key))) is not None and value >= 0}
    return counts if "input_tokens" in counts and "output_tokens" in counts else None


def _usage(runs: list[dict[str, int]]) -> dict[str, Any] | None:
    """The session's tokens in the run usage shape: the sum of each run's last running
    total (a count some run lacks is left out). Cached and reasoning counts are parts of the
    input and output counts, as the API gives them."""
    if not runs:
        return None
    counts = {key: sum(run[key] for run in runs) for key in USAGE_KEYS
              if all(key in run for run in runs)}
    usage: dict[str, Any] = {key: counts[key] for key in
                             ("input_tokens", "output_tokens", "total_tokens") if key in counts}
    inputs = {name: counts[key] for name, key in (("cache_read", "cached_input_tokens"),
                                                  ("cache_creation", "cache_write_input_tokens"))
              if key in counts}
    if inputs:
        usage["input_token_details"] = inputs
    if "reasoning_output_tokens" in counts:
        usage["output_token_details"] = {"reasoning": counts["reasoning_output_tokens"]}
    return usage


def _turn_marker(document: list[dict[str, Any]]) -> str | None:
    """The event that says the user spoke: ``user_message`` (older versions), else an
    ``item_completed`` event of a ``UserMessage`` item; None when the rollout has neither."""
    kinds = {name_of(item["payload"], "type") for item in document if item["type"] == "event_msg"}
    if "user_message" in kinds:
        return "user_message"
    if any(item["type"] == "event_msg" and name_of(item["payload"], "type") == "item_completed"
           and name_of(dict_of(item["payload"], "item"), "type") == "UserMessage"
           for item in document):
        return "UserMessage"
    return None


class Reader:
    """The rollout's lines, read in order."""

    def __init__(self, turn_marker: str | None) -> None:
        self.turn_marker = turn_marker
        self.items: list[Any] = []
        self.started: dict[str, str | None] = {}
        self.ran: dict[str, Ran] = {}
        """Exit codes by call id, from Codex's CommandExecution events or an output's JSON
        metadata."""
        self.printed: dict[str, Ran] = {}
        """Exit codes by call id, from the header Codex puts before a command's output."""
        self.model: str | None = None
        self.runs: list[dict[str, int]] = []
        """The running token totals: the last of each run of Codex over the session."""
        self.fresh = True
        """Whether the next total starts a run (a process of Codex knows no usage yet)."""
        self.reasoning = 0

    def line(self, kind: str, payload: dict[str, Any], timestamp: Any) -> None:
        if kind == "response_item":
            self.item(payload, timestamp)
        elif kind == "turn_context":
            self.model = as_str(payload.get("model")) or self.model
        elif kind == "event_msg":
            self.event(payload)

    def item(self, payload: dict[str, Any], timestamp: Any) -> None:
        kind = name_of(payload, "type")
        if kind == "reasoning":
            self.reasoning += 1
        if self.turn_marker is not None and kind in (None, "message") and \
                payload.get("role") == "user":
            # Codex sends its context (the environment, AGENTS.md) as user messages too: a
            # turn starts where Codex's event says the user spoke.
            return
        if kind in CALL_ITEMS:
            call_id = as_str(payload.get("call_id"))
            if call_id is not None:
                self.started.setdefault(call_id, iso_timestamp(timestamp))
        elif kind in OUTPUT_ITEMS:
            self.output(payload)
        self.items.append(payload)

    def output(self, payload: dict[str, Any]) -> None:
        """An output as JSON text ``{"output", "metadata": {"exit_code",
        "duration_seconds"}}``, as the ``shell`` and ``apply_patch`` tools of some Codex
        versions answer, or as text after Codex's header (``exec_command``)."""
        call_id = as_str(payload.get("call_id"))
        printed = _header(payload.get("output"))
        if call_id is not None and printed is not None:
            self.printed[call_id] = printed
        decoded = maybe_json(payload.get("output"))
        metadata = dict_of(decoded, "metadata")
        code = as_int(metadata.get("exit_code"))
        if call_id is not None and code is not None:
            self.ran[call_id] = Ran(code, _seconds(metadata.get("duration_seconds")),
                                    as_str(decoded.get("output")))

    def event(self, payload: dict[str, Any]) -> None:
        kind = name_of(payload, "type")
        if kind == "token_count":
            self.tokens(payload)
        elif kind == self.turn_marker or (
                kind == "item_completed" and self.turn_marker == "UserMessage"
                and name_of(dict_of(payload, "item"), "type") == "UserMessage"):
            self.items.append(TURN_START)
        ended = _command_end(payload)
        if ended is not None and ended[0] is not None:
            self.ran.setdefault(ended[0], ended[1])

    def tokens(self, payload: dict[str, Any]) -> None:
        """A running total over the session; a run of Codex that resumes it may count
        afresh: its first total is smaller, or a total of ``null`` comes first."""
        info = payload.get("info")
        if info is None:
            self.fresh = True
            return
        counts = _counts(dict_of(info, "total_token_usage"))
        if counts is None:
            return
        last = self.runs[-1] if self.runs else None
        if self.fresh or last is None or counts.get("total_tokens", 0) < last.get(
                "total_tokens", 0):
            self.runs.append(counts)
        else:
            self.runs[-1] = counts
        self.fresh = False

    def call(self, call: ToolCall, unknown: list[str]) -> ToolCall:
        """The call with its time, and its outcome from its exit code when it has one."""
        started = self.started.get(call.id) if call.id is not None else None
        if isinstance(call.result, str) and UNSUPPORTED.match(call.result):
            # Codex answered that it has no such tool: the call never ran, it failed.
            return evolve(call, timestamp=started,
                          **outcome(call.result, failed=True, error=call.result))
        ran = None
        if call.id is not None and call.tool in COMMAND_TOOLS:
            # An event's exit code (and its finer duration) before the printed header.
            ran = self.ran.get(call.id) or self.printed.get(call.id)
        elif call.id is not None:
            ran = self.ran.get(call.id)
        if call.is_error is None or ((ran is None or ran.code is None)
                                     and call.tool not in COMMAND_TOOLS):
            return evolve(call, timestamp=started)
        if ran is None or ran.code is None:
            # The command's output came back, but no exit code says whether it failed.
            unknown.append(call.id or call.tool)
            return evolve(call, timestamp=started, is_error=None)
        if ran.code != 0:
            text = ran.text if ran.text is not None else call.result
            # The output's last line break ends the command's output, not the error.
            text = text.rstrip() if isinstance(text, str) and text.strip() else None
            failed = outcome(call.result, failed=True,
                             error=f"exit code {ran.code}" + (f": {text}" if text else ""))
            return evolve(call, timestamp=started, duration=ran.seconds, **failed)
        return evolve(call, timestamp=started, duration=ran.seconds)

    def notes(self, unknown: list[str]) -> list[str]:
        notes: list[str] = []
        if unknown:
            notes.append(f"{count(len(unknown), 'command call')} answered without an exit "
                         f"code ({', '.join(unknown)}): outcome unknown")
        if len(self.runs) > 1:
            notes.append(f"the token counts start afresh {count(len(self.runs) - 1, 'time')} "
                         "(a resumed session): usage is the sum of each run's last total")
        if self.reasoning:
            notes.append(f"{count(self.reasoning, 'reasoning item')} (the model's reasoning) "
                         "not read")
        return notes


def parse(document: Any) -> Trace:
    if not isinstance(document, list):
        raise InputError("a Codex rollout is a list of lines", place="$", fix=FIX)
    for index, item in enumerate(document):
        if not _is_line(item):
            raise InputError('a rollout line is an object with a "type" and a "payload" '
                             "object", place=f"$[{index}] (line {index + 1})", fix=FIX)
    reader = Reader(_turn_marker(document))
    for item in document:
        reader.line(item["type"], item["payload"], item.get("timestamp"))
    # the Responses items Codex recorded, read by the openai_responses format
    read, _ = parse_trace(reader.items, trace_format="openai_responses")
    unknown: list[str] = []
    calls = tuple(reader.call(call, unknown) for call in read.calls)
    notes = [*read.notes, *reader.notes(unknown)]
    return Trace(calls=calls, final_answer=read.final_answer, model=reader.model,
                 usage=_usage(reader.runs), replies=read.replies, notes=tuple(notes))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="codex",
        description="Codex CLI session rollouts (~/.codex/sessions/**/rollout-*.jsonl)",
        reads="a Codex CLI rollout (JSON Lines of {timestamp, type, payload}): its Responses "
              "items read as openai_responses reads them (function_call, custom_tool_call, "
              "joined to their outputs by call_id), each call's time from its line, a "
              "command's exit code and duration from Codex's events, the output's "
              "metadata or its header (non-zero: failed), turns from the user's "
              "messages, the model from turn_context and the tokens from the token_count "
              "events' running totals",
        detect=detect, parse=parse, near=near,
    )]
