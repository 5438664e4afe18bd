"""Reading an Inspect AI sample (toolscore_formats.inspect_ai) into a Trace: the calls of its
messages joined to its tool events, and the calls only its events hold."""

from __future__ import annotations

import json
from typing import Any

import attrs

from toolscore import InputError, ToolCall, Trace, count
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.content import block_content, text_of
from toolscore_formats.shapes import SAMPLE_FIX
from toolscore_formats.times import parse_time, seconds_between
from toolscore_formats.values import as_float, as_str, dict_of, list_of, name_of

SUBMIT = "submit"
"""The name Inspect's ``basic_agent`` and ``react`` give their submit tool (``answer: str``)."""


@attrs.define
class _Event:
    """A tool event of the sample, in event order, and whose call it is."""

    seq: int
    event: dict[str, Any]
    sub_agent: str | None
    """The sub-agent that made the call (None: the sample's own agent)."""
    scorer: bool
    """Made while scoring: not a call of the agent."""
    taken: bool = False
    """Joined to a call of the messages."""


def read_sample(sample: dict[str, Any], where: str, notes: list[str],
                 model: str | None) -> Trace:
    events = _tool_events(sample)
    by_id: dict[str, list[_Event]] = {}
    for event in events:
        call_id = as_str(event.event.get("id"))
        if call_id is not None and not event.scorer:
            by_id.setdefault(call_id, []).append(event)
    table = CallTable()
    anchors: list[int | None] = []
    final_answer: str | None = None
    replies: list[str] = []
    last_turn: dict[str, dict[str, Any]] = {}
    submissions: list[tuple[dict[str, Any], str]] = []
    for index, message in enumerate(sample["messages"]):
        place = f"{where}.messages[{index}]"
        if not isinstance(message, dict):
            raise InputError('a message is an object with a "role"', place=place,
                             fix=SAMPLE_FIX)
        role = message.get("role")
        if role == "user":
            table.start_turn()
        elif role == "assistant":
            last_turn = _read_calls(message, table, anchors, by_id, notes, index)
            final_answer = None if last_turn else text_of(message.get("content"))
            reply = text_of(message.get("content"))
            if reply is not None:
                replies.append(reply)
            submissions = []
        elif role == "tool":
            _read_result(message, table, anchors, notes, index)
            answered = last_turn.get(as_str(message.get("tool_call_id")) or "")
            text = text_of(message.get("content"))
            if answered is not None and text is not None and message.get("error") is None:
                submissions.append((answered, text))
    submitted = _submitted(sample, submissions)
    if submitted is not None:
        final_answer = submitted
        replies.append(submitted)  # what the agent answered through its submit tool
    calls = _with_event_calls(table, anchors, events, notes)
    _run_notes(sample, notes)
    usage = sample.get("model_usage")
    return Trace(calls=calls, final_answer=final_answer, model=model,
                 usage=usage if isinstance(usage, dict) and usage else None,
                 run_duration=as_float(sample.get("total_time")), notes=tuple(notes),
                 replies=tuple(replies))


def _read_calls(message: dict[str, Any], table: CallTable, anchors: list[int | None],
                by_id: dict[str, list[_Event]], notes: list[str],
                index: int) -> dict[str, dict[str, Any]]:
    """Record an assistant message's tool calls; the calls read, by id."""
    made: dict[str, dict[str, Any]] = {}
    for position, item in enumerate(list_of(message, "tool_calls")):
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, str):
            notes.append(f"message {index}: tool_calls[{position}] has no function name "
                         "(not read)")
            continue
        call_id = as_str(item.get("id"))
        timed = by_id.get(call_id) if call_id is not None else None
        event = timed.pop(0) if timed else None
        stamp, duration = None, None
        if event is not None:
            event.taken = True
            # A pending event is a call that never finished: no timing to give.
            if event.event.get("pending") is not True:
                stamp, duration = _timing(event.event)
        parse_error = item.get("parse_error")
        if isinstance(parse_error, str) and parse_error:
            # Inspect keeps {} as the arguments of a call whose JSON did not parse: those
            # arguments are unknown, and the error (which quotes the text) is what is left.
            row = table.add(function, None, call_id=call_id, timestamp=stamp)
            row.raw_args = parse_error
        else:
            row = table.add(function, item.get("arguments"), call_id=call_id, timestamp=stamp)
        row.duration = duration
        anchors.append(event.seq if event is not None else None)
        made[call_id or f"#{position}"] = item
    return made


def _read_result(message: dict[str, Any], table: CallTable, anchors: list[int | None],
                 notes: list[str], index: int) -> None:
    call_id = message.get("tool_call_id")
    function = name_of(message, "function")
    result = _outcome(message.get("content"), message.get("error"))
    if table.answer(call_id, **result):
        return
    if function is None:
        notes.append(f"message {index}: a tool result that names no function answers no call "
                     "(not read)")
        return
    # A result no assistant message asked for is still a call the tool ran: kept, its
    # arguments unknown (never only a note).
    table.add(function, None, call_id=call_id).settle(**result)
    anchors.append(None)
    notes.append(f"message {index}: a {function} result for {json.dumps(call_id)} that "
                 "answers no open call: read as a call with unknown arguments")


def _outcome(content: Any, error: Any) -> dict[str, Any]:
    """A tool message's or tool event's outcome; an ``error`` {type, message} is a failure."""
    content = block_content(content)
    if not isinstance(error, dict):
        return outcome(content, failed=None)
    text = error.get("message") if isinstance(error.get("message"), str) and \
        error["message"] else as_str(error.get("type"))
    # Inspect writes the error's text as the content too; other content (an output cut
    # at its limit) is a result that came back beside the error.
    beside = None if content in (None, "", text) else content
    return outcome(beside, failed=True, error=text)


def _submitted(sample: dict[str, Any],
               submissions: list[tuple[dict[str, Any], str]]) -> str | None:
    """The answer of a run whose last turn submitted one, else None.

    A submission is what Inspect's agents take as one: the text of a tool message, without
    an error, answering a call of the last assistant message to the submit tool (``submit``
    with an ``answer``; under another name, a result that is the sample's whole
    ``output.completion``). The answer is ``output.completion`` when it ends with the
    submission (Inspect builds it from it: the answer, or the model's text and the answer),
    else the submission.
    """
    completion = dict_of(sample, "output").get("completion")
    completion = completion if isinstance(completion, str) and completion.strip() else None
    for call, text in reversed(submissions):
        named = call.get("function") == SUBMIT and "answer" in dict_of(call, "arguments")
        if named or text == completion:
            return completion if completion is not None and completion.endswith(text) else text
    return None


def _with_event_calls(table: CallTable, anchors: list[int | None], events: list[_Event],
                      notes: list[str]) -> tuple[ToolCall, ...]:
    """The messages' calls, with the calls only the events hold put in event order.

    A sub-agent's calls (``as_tool()``, ``handoff()``) happen in its own conversation, not
    the sample's messages, and ``react()`` removes its submit calls from them: the tool
    events are the record of those calls. Each goes after the last call of the messages
    that started before it.
    """
    calls = table.calls()
    left = [e for e in events if not e.taken]
    if not left:
        return calls
    extra = CallTable()
    # A sample of one user message has one turn, the sub-agents' calls included; with more,
    # which turn an event's call answers is not told.
    extra.turn = table.turn if table.turn == 1 else None
    hosted: dict[int, list[ToolCall]] = {}
    own: list[str] = []
    sub_agents: dict[str, int] = {}
    scoring = nameless = 0
    # The messages' calls by the order of their events, swept once: the events left come in
    # event order, so each one's host (the last call started before it) is found in passing.
    started = sorted((seq, index) for index, seq in enumerate(anchors) if seq is not None)
    passed = 0
    host = -1
    for event in left:
        function = event.event.get("function")
        if event.scorer:
            scoring += 1
            continue
        if not isinstance(function, str):
            nameless += 1
            continue
        stamp, duration = _timing(event.event)
        row = extra.add(function, event.event.get("arguments"), call_id=event.event.get("id"),
                        timestamp=stamp)
        row.duration = duration
        if event.event.get("pending") is not True:
            row.settle(**_outcome(event.event.get("result"), event.event.get("error")))
        while passed < len(started) and started[passed][0] < event.seq:
            host = max(host, started[passed][1])
            passed += 1
        hosted.setdefault(host, []).append(row.frozen())
        if event.sub_agent is None:
            own.append(function)
        else:
            sub_agents[event.sub_agent] = sub_agents.get(event.sub_agent, 0) + 1
    merged = list(hosted.get(-1, ()))
    for index, call in enumerate(calls):
        merged += [call, *hosted.get(index, ())]
    for agent, made in sub_agents.items():
        notes.append(f"{count(made, 'call')} of the sub-agent {json.dumps(agent)} read from the "
                     "sample's events (a sub-agent's conversation is not in its messages)")
    if own:
        names = ", ".join(dict.fromkeys(own))
        notes.append(f"{count(len(own), 'tool call')} only in the sample's events, not its "
                     f"messages ({names}): read as {'a call' if len(own) == 1 else 'calls'}")
    if scoring:
        notes.append(f"{count(scoring, 'tool event')} made while scoring: not calls of the "
                     "agent, not read")
    if nameless:
        notes.append(f"{count(nameless, 'tool event')} in the sample's events names no "
                     "function: not read")
    return tuple(merged)


def _tool_events(sample: dict[str, Any]) -> list[_Event]:
    """The sample's tool events in order, each with the sub-agent (if any) that made it.

    Logs before the ``events`` field kept them in ``transcript.events``; logs before spans
    nested a tool's own events in its ``events`` (deprecated), read after it.
    """
    events = sample.get("events")
    if not isinstance(events, list):
        events = list_of(dict_of(sample, "transcript"), "events")
    spans = {span["id"]: span for span in events if isinstance(span, dict) and
             span.get("event") == "span_begin" and isinstance(span.get("id"), str)}
    made_by = _MadeBy(spans)
    found: list[_Event] = []

    def walk(level: list[Any], inside: str | None) -> None:
        for event in level:
            if not isinstance(event, dict) or event.get("event") != "tool":
                continue
            agent, scorer = made_by(event.get("span_id"))
            found.append(_Event(len(found), event, inside or agent, scorer))
            nested = list_of(event, "events")
            if nested:
                walk(nested, name_of(event, "agent") or name_of(event, "function"))

    walk(events, None)
    return found


SCORER_SPANS = ("scorers", "scorer")
SUB_AGENT_HOSTS = ("tool", "handoff")


@attrs.frozen
class _Above:
    """What the chain of spans from one span up to the top holds."""

    scorer: bool
    """A scoring span."""
    host: bool
    """A ``tool`` or ``handoff`` span (what runs an agent as a sub-agent)."""
    sub_agent: str | None
    """The sub-agent whose span holds an event in the first span (see ``_MadeBy``)."""


_TOP = _Above(scorer=False, host=False, sub_agent=None)


class _MadeBy:
    """The sub-agent whose span holds an event (None: the top agent's), and if it is scoring.

    A sub-agent is an ``agent`` span under a ``tool`` or ``handoff`` span (an agent run as
    a tool, or handed the conversation); the top agent's span has none above it. Each span's
    chain is read once, whatever the number of events in it or how deep it is: a span's
    answer is made from its parent's (a malformed export's spans that are each other's
    parents, in a cycle, are read around the cycle once).
    """

    def __init__(self, spans: dict[str, dict[str, Any]]) -> None:
        self.spans = spans
        self.above: dict[str, _Above] = {}

    def __call__(self, span_id: Any) -> tuple[str | None, bool]:
        found = self._above(span_id) if isinstance(span_id, str) else _TOP
        return (None, True) if found.scorer else (found.sub_agent, False)

    def _parent(self, span_id: str) -> str | None:
        parent = self.spans[span_id].get("parent_id")
        return parent if isinstance(parent, str) and parent in self.spans else None

    def _above(self, span_id: str) -> _Above:
        path: list[str] = []
        on_path: dict[str, int] = {}
        current = span_id if span_id in self.spans else None
        while current is not None and current not in self.above and current not in on_path:
            on_path[current] = len(path)
            path.append(current)
            current = self._parent(current)
        if current is not None and current in on_path:  # the path ends in a cycle
            start = on_path[current]
            self._cycle(path[start:])
            path = path[:start]
        for key in reversed(path):
            parent = self._parent(key)
            self.above[key] = _step(self.spans[key], self.above[parent] if parent else _TOP)
        return self.above.get(span_id, _TOP)

    def _cycle(self, cycle: list[str]) -> None:
        """Spans each the parent of the one before (the last the first's): the walk up from
        each goes once around the cycle."""
        size = len(cycle)
        kinds = [self.spans[key].get("type") for key in cycle]
        names = [name_of(self.spans[key], "name") if kind == "agent" else None
                 for key, kind in zip(cycle, kinds, strict=True)]
        scorer = any(kind in SCORER_SPANS for kind in kinds)
        host = any(kind in SUB_AGENT_HOSTS for kind in kinds)
        # Around the cycle twice: from each place, the next named agent span and the next
        # host span.
        never = 2 * size
        next_agent, next_host = [never] * (never + 1), [never] * (never + 1)
        for place in range(never - 1, -1, -1):
            next_agent[place] = place if names[place % size] is not None \
                else next_agent[place + 1]
            next_host[place] = place if kinds[place % size] in SUB_AGENT_HOSTS \
                else next_host[place + 1]
        for first, key in enumerate(cycle):
            last = first + size - 1
            agent = next_agent[first]
            sub_agent = names[agent % size] if agent <= last and \
                next_host[agent + 1] <= last else None
            self.above[key] = _Above(scorer=scorer, host=host, sub_agent=sub_agent)


def _step(span: dict[str, Any], parent: _Above) -> _Above:
    """A span's chain: the span, then its parent's."""
    kind = span.get("type")
    scorer = kind in SCORER_SPANS or parent.scorer
    host = kind in SUB_AGENT_HOSTS or parent.host
    name = name_of(span, "name") if kind == "agent" else None
    if name is not None:
        # The nearest named agent span: a sub-agent when a host span is above it.
        return _Above(scorer=scorer, host=host, sub_agent=name if parent.host else None)
    return _Above(scorer=scorer, host=host, sub_agent=parent.sub_agent)


def _timing(event: dict[str, Any]) -> tuple[str | None, float | None]:
    """A tool event's start, and its working time (else completed - start)."""
    stamp = event.get("timestamp") if isinstance(event.get("timestamp"), str) else None
    duration = as_float(event.get("working_time"))
    if duration is None:
        duration = _elapsed(stamp, event.get("completed"))
    return stamp, duration


def _elapsed(start: str | None, end: Any) -> float | None:
    """Seconds between two ISO 8601 times, or None when either is missing or unreadable."""
    if start is None or not isinstance(end, str):
        return None
    # Inspect writes times with their offset; two naive times differ the same in any zone.
    return seconds_between(parse_time(start, naive_utc=True), parse_time(end, naive_utc=True))


def _run_notes(sample: dict[str, Any], notes: list[str]) -> None:
    """What the sample says about how the run ended, when it did not end normally."""
    error = dict_of(sample, "error")
    if isinstance(error.get("message"), str):
        first = error["message"].strip().splitlines()[0] if error["message"].strip() else ""
        notes.append(f"the sample ended with an error: {first}".rstrip(": "))
    limit = dict_of(sample, "limit")
    if isinstance(limit.get("type"), str):
        notes.append(f"the sample stopped at its {limit['type']} limit "
                     f"({json.dumps(limit.get('limit'))})")
