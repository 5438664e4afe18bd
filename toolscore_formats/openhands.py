"""OpenHands trajectories: the agent's actions that run a tool as calls, each answered by the
observation whose ``cause`` is its id."""

from __future__ import annotations

from typing import Any, NamedTuple

from toolscore import InputError, Trace, TraceFormat, count, hookimpl
from toolscore_formats.calls import CallRow, CallTable, outcome
from toolscore_formats.content import block_content
from toolscore_formats.times import iso_timestamp, parse_time, seconds_between
from toolscore_formats.usage import RunUsage
from toolscore_formats.values import as_float, as_int, as_str, dict_of, list_of, maybe_json

SOURCES = frozenset(("agent", "user", "environment"))
# Actions that run a tool even when no tool_call_metadata names the function the model
# called (an agent without function calling writes them as tagged text).
TOOL_ACTIONS = frozenset(("run", "run_ipython", "read", "write", "edit", "browse",
                          "browse_interactive", "call_tool_mcp", "delegate", "think",
                          "finish", "reject", "task_tracking"))
EDITOR_ERROR = "ERROR:\n"
EVENT_FIX = ("give the trajectory as OpenHands saves it (the UI's download, or "
             "--save-trajectory-path): a list of events, each with an id, a source and an "
             "action or observation")


def is_event(item: Any) -> bool:
    """An OpenHands event: an integer id, a source, and an action or an observation type."""
    if not isinstance(item, dict) or as_str(item.get("source")) not in SOURCES:
        return False
    kind = item.get("action", item.get("observation"))
    return as_int(item.get("id")) is not None and isinstance(kind, str) and \
        ("action" in item) != ("observation" in item)


class Layout(NamedTuple):
    """Where a document keeps its events, and the evaluation row around them."""

    events: list[Any]
    place: str
    what: str
    row: dict[str, Any] | None
    """The evaluation harness's output row (its ``error``), or None."""


def _is_row(item: Any) -> bool:
    """A row of the evaluation harness's output.jsonl: an instance id and its history."""
    return isinstance(item, dict) and "instance_id" in item and \
        isinstance(item.get("history"), list)


def _layout(document: Any) -> Layout | None:
    if isinstance(document, list) and document:
        if all(_is_row(item) for item in document):
            return Layout(document[0]["history"], "$[0].history",
                          "rows of an OpenHands evaluation output.jsonl", document[0])
        return Layout(document, "$", "an OpenHands trajectory", None)
    if _is_row(document):
        return Layout(document["history"], "$.history",
                      "a row of an OpenHands evaluation output.jsonl (its history)", document)
    if isinstance(document, dict) and isinstance(document.get("trajectory"), list) and \
            len(document) == 1:
        return Layout(document["trajectory"], "$.trajectory",
                      "OpenHands' trajectory API response (\"trajectory\")", None)
    return None


def detect(document: Any) -> str | None:
    found = _layout(document)
    if found is None or not found.events or not all(is_event(item) for item in found.events):
        return None
    if found.place == "$":
        return "an OpenHands trajectory (events with id, source, action/observation)"
    return found.what


def near(document: Any) -> str | None:
    """What a list holding OpenHands events, but not only them, misses."""
    found = _layout(document)
    if found is None or not any(is_event(item) for item in found.events):
        return None
    for index, item in enumerate(found.events):
        if not is_event(item):
            return (f"{found.what}, but {found.place}[{index}] is not an OpenHands event (an "
                    "integer id, a source of agent, user or environment, and an action or "
                    "observation)")
    return None


def _metadata(event: dict[str, Any]) -> dict[str, Any]:
    return dict_of(event, "tool_call_metadata")


def _requested_arguments(metadata: dict[str, Any]) -> Any:
    """The arguments the model sent for this call: the model response's tool call with the
    metadata's tool_call_id (None when the response does not hold it)."""
    call_id = as_str(metadata.get("tool_call_id"))
    if call_id is None:
        return None
    for choice in list_of(dict_of(metadata, "model_response"), "choices"):
        for call in list_of(dict_of(choice, "message"), "tool_calls"):
            if isinstance(call, dict) and call.get("id") == call_id:
                return dict_of(call, "function").get("arguments")
    return None


def _exit_code(observation: dict[str, Any]) -> int | None:
    """A command's exit code: ``extras.metadata.exit_code``, else the older
    ``extras.exit_code``."""
    extras = dict_of(observation, "extras")
    code = as_int(dict_of(extras, "metadata").get("exit_code"))
    return code if code is not None else as_int(extras.get("exit_code"))


def _settle(row: CallRow, observation: dict[str, Any], started: int | None) -> None:
    """The observation's content as the call's result; an ``error`` observation, a user's
    rejection, a browser error flag, the file editor's ``ERROR:`` or a non-zero exit code as
    its failure."""
    kind = observation["observation"]
    content = observation.get("content")
    failed = kind in ("error", "user_rejected") or dict_of(observation, "extras").get(
        "error") is True
    error = None
    if kind in ("read", "edit") and isinstance(content, str) and \
            content.startswith(EDITOR_ERROR):
        # OpenHands' file editor answers a tool error as a read or edit observation
        # holding "ERROR:" and the error.
        failed, error = True, content[len(EDITOR_ERROR):]
    if kind == "mcp":
        # OpenHands writes the MCP server's CallToolResult as JSON text, or
        # {"isError": true, "error": ...} when the call timed out or the server refused it.
        answer = maybe_json(content)
        if isinstance(answer, dict) and answer.get("isError") is True:
            failed = True
            error = _text(answer.get("error")) or block_content(answer.get("content")) or \
                content
    code = _exit_code(observation) if kind == "run" else None
    if code is not None and code != 0:
        # OpenHands' own success flag is false for any non-zero code (-1: still running when
        # the runtime stopped waiting).
        failed = True
        error = f"exit code {code}" + (f": {content}" if as_str(content) else "")
    ended = parse_time(observation.get("timestamp"), naive_utc=True)
    row.settle(**outcome(content, failed=failed or None, error=error),
               duration=seconds_between(started, ended))


def _text(value: Any) -> str | None:
    text = as_str(value)
    return text if text is not None and text.strip() else None


def _finish_text(event: dict[str, Any]) -> str | None:
    """The finish action's words: ``final_thought``, else the model's text beside the finish
    call (``thought``), else ``outputs.content``."""
    args = dict_of(event, "args")
    return _text(args.get("final_thought")) or _text(args.get("thought")) or \
        _text(dict_of(args, "outputs").get("content"))


class Reader:
    """The trajectory's events being read in order."""

    def __init__(self) -> None:
        self.table = CallTable()
        self.rows: dict[int, tuple[CallRow, int | None]] = {}
        self.replies: list[str] = []
        self.answer: str | None = None
        self.finished = False
        self.usage = RunUsage("usage on tool_call_metadata.model_response", "model calls",
                              common_only=True)
        self.responses: set[str] = set()
        self.model: str | None = None
        self.metrics: dict[str, Any] | None = None
        self.skipped: dict[str, int] = {}
        self.unanswering: list[str] = []

    def model_call(self, event: dict[str, Any]) -> None:
        """Count a model response once: every call it asked for, and each call's observation,
        repeat it."""
        response = dict_of(_metadata(event), "model_response")
        key = as_str(response.get("id"))
        if key is None or key in self.responses:
            return
        self.responses.add(key)
        usage = response.get("usage")
        self.usage.add(usage if isinstance(usage, dict) else None)
        self.model = as_str(response.get("model")) or self.model

    def action(self, event: dict[str, Any]) -> None:
        kind, source = event["action"], event["source"]
        if isinstance(event.get("llm_metrics"), dict):
            self.metrics = event["llm_metrics"]  # accumulated: the last one counts them all
        if kind == "message":
            self.message(event, source)
            return
        metadata = _metadata(event)
        if source != "agent" or (not metadata and kind not in TOOL_ACTIONS):
            # The system prompt is the agent's first event, not something it did.
            if source == "agent" and kind != "system":
                self.skipped[kind] = self.skipped.get(kind, 0) + 1
            return
        self.model_call(event)
        args = dict_of(event, "args")
        name = as_str(metadata.get("function_name")) or (
            as_str(args.get("name")) if kind == "call_tool_mcp" else None) or kind
        arguments = _requested_arguments(metadata)
        if arguments is None:
            # An MCP action keeps the tool's own arguments apart from OpenHands' fields.
            arguments = args.get("arguments") if kind == "call_tool_mcp" and \
                isinstance(args.get("arguments"), dict) else event.get("args")
        row = self.table.add(name, arguments, call_id=metadata.get("tool_call_id"),
                             timestamp=iso_timestamp(event.get("timestamp")))
        # OpenHands writes local times without a zone: read alike, they still time a call.
        started = parse_time(event.get("timestamp"), naive_utc=True)
        event_id = as_int(event["id"])
        if event_id is not None:  # always: is_event checked it
            self.rows[event_id] = (row, started)
        if kind == "finish":
            text = _finish_text(event)
            self.finished = True
            if text is not None:
                self.replies.append(text)
            self.answer = text
            return
        thought = _text(args.get("thought"))
        if thought is not None:
            self.replies.append(thought)

    def message(self, event: dict[str, Any], source: str) -> None:
        """A user's message starts a turn; the agent's is a reply, and a model call whose
        usage the file does not hold."""
        if source == "user":
            self.table.start_turn()
            self.answer = None
            self.finished = False
        elif source == "agent":
            text = _text(dict_of(event, "args").get("content")) or _text(event.get("message"))
            if text is not None:
                self.replies.append(text)
                self.answer = text
            self.usage.add(None)

    def observation(self, event: dict[str, Any]) -> None:
        cause = as_int(event.get("cause"))
        if cause is not None and cause in self.rows:
            row, started = self.rows[cause]
            if not row.answered:
                _settle(row, event, started)
        elif event["observation"] == "error":
            # OpenHands refused a call before it became an action (arguments its tools do not
            # take): the error answers a request the file does not hold.
            self.unanswering.append(f"{event['id']} ({_text(event.get('content')) or 'no text'})")

    def run_cost(self, notes: list[str]) -> float | None:
        """The accumulated cost when OpenHands priced every model call (``costs`` holds one
        entry per call); otherwise unknown: an unpriced call adds nothing to the sum."""
        if self.metrics is None:
            return None
        costs = self.metrics.get("costs")
        cost = as_float(self.metrics.get("accumulated_cost"))
        calls = len(self.responses)
        if not calls:
            notes.append("llm_metrics' accumulated_cost not read: no model response in the "
                         "file says how many model calls it should cover")
            return None
        if isinstance(costs, list) and cost is not None and calls and len(costs) >= calls:
            return cost
        priced = len(costs) if isinstance(costs, list) else 0
        notes.append(f"llm_metrics prices {priced} of {count(calls, 'model call')} "
                     "(accumulated_cost counts only those): the run's cost is unknown")
        return None

    def notes(self, events: int) -> list[str]:
        notes: list[str] = []
        if self.skipped:
            kinds = ", ".join(sorted(self.skipped))
            notes.append(f"{count(sum(self.skipped.values()), 'agent action')} that run no tool "
                         f"({kinds}): not read as calls")
        if self.unanswering:
            notes.append(f"{count(len(self.unanswering), 'error observation')} with no action "
                         f"as its cause (event {'; event '.join(self.unanswering)}): a call "
                         "OpenHands refused before running it, not read as a call")
        if not len(self.table):
            notes.append(f"no tool call in {count(events, 'event')}")
        if self.finished and self.answer is None:
            notes.append("the finish action holds no text: no final answer")
        return notes


def parse(document: Any) -> Trace:
    found = _layout(document)
    if found is None or not found.events:
        raise InputError("not an OpenHands trajectory", place="$", fix=EVENT_FIX)
    if isinstance(document, list) and found.row is not None and len(document) > 1:
        raise InputError(f"{count(len(document), 'row')} of an OpenHands evaluation output; "
                         "toolscore reads one agent run at a time", place="$",
                         fix="give one row (one line of output.jsonl) per file")
    for index, item in enumerate(found.events):
        if not is_event(item):
            raise InputError("an OpenHands event has an integer id, a source (agent, user or "
                             "environment) and an action or an observation",
                             place=f"{found.place}[{index}]", fix=EVENT_FIX)
    reader = Reader()
    for event in found.events:
        if "action" in event:
            reader.action(event)
        else:
            reader.observation(event)
    notes = reader.notes(len(found.events))
    error = as_str(found.row.get("error")) if found.row is not None else None
    if error:
        notes.append(f"the run ended in error: {error}")
    usage = reader.usage.result(notes)
    return Trace(calls=reader.table.calls(), final_answer=reader.answer, model=reader.model,
                 usage=usage, run_cost=reader.run_cost(notes), notes=tuple(notes),
                 replies=tuple(reader.replies))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="openhands",
        description="OpenHands trajectories: the events of a run (actions and observations)",
        reads="an OpenHands trajectory (the UI's download, --save-trajectory-path, the "
              "trajectory API's response, or a row of the evaluation harness's output.jsonl): "
              "the agent's actions that run a tool as calls (tool_call_metadata's function "
              "and arguments, else the action and its args), answered by the observation "
              "whose cause is the action's id; an error observation or a non-zero exit code "
              "as failure; the finish action's text (else the agent's last message) as the "
              "final answer; usage from the model responses",
        detect=detect, parse=parse, near=near,
    )]
