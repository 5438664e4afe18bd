"""AgentDojo run files (ethz-spylab/agentdojo): one agent run of a user task, with or
without a prompt injection planted in the tools' data, and the benchmark's own utility and
security verdicts on it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from attrs import evolve

from toolscore import InputError, Trace, hookimpl
from toolscore_studies.importers import finite_number, inner_place, load_json

if TYPE_CHECKING:  # the importer's records load when runs are imported (read, the hook)
    from toolscore import ImportedRun, ImportSource, RunImporter

FIX = ("give an AgentDojo run file (runs/<pipeline>/<suite>/<user_task>/<attack>/"
       "<injection_task>.json: suite_name, user_task_id, messages, utility, security), or a "
       "JSON list of them")
ROLES = frozenset(("system", "user", "assistant", "tool"))
# AgentDojo writes "none" as the attack of a run without injection (older files: null).
NO_ATTACK = (None, "none")


def read(source: ImportSource) -> Iterator[ImportedRun]:
    """One run for a run file; one per entry, in order, for a JSON list of run files."""
    document = load_json(source.path, FIX)
    if isinstance(document, Mapping):
        yield _run(source, document, "$")
    elif isinstance(document, list):
        for i, entry in enumerate(document):
            yield _run(source, entry, f"$[{i}]")
    else:
        raise InputError("not an AgentDojo run (an object) or a list of them", place="$",
                         fix=FIX)


def _run(source: ImportSource, entry: Any, place: str) -> ImportedRun:
    from toolscore import ImportedRun

    if not isinstance(entry, Mapping):
        raise InputError("a run must be an object", place=place, fix=FIX)
    for key in ("suite_name", "user_task_id"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise InputError(f'"{key}" must be text', place=f"{place}.{key}", fix=FIX)
    for key in ("utility", "security"):
        if not isinstance(entry.get(key), bool):
            raise InputError(f'"{key}" must be true or false (the benchmark\'s verdict)',
                             place=f"{place}.{key}", fix=FIX)
    injection, attack = entry.get("injection_task_id"), entry.get("attack_type")
    if injection is not None and not isinstance(injection, str):
        raise InputError('"injection_task_id" must be text or null',
                         place=f"{place}.injection_task_id", fix=FIX)
    if attack is not None and not isinstance(attack, str):
        raise InputError('"attack_type" must be text or null', place=f"{place}.attack_type",
                         fix=FIX)
    messages = entry.get("messages")
    if not isinstance(messages, list):
        raise InputError('"messages" must be the run\'s list of messages',
                         place=f"{place}.messages", fix=FIX)
    chat, answers = _chat(messages, f"{place}.messages")
    try:
        trace = source.parse_trace(chat, "openai_chat")
    except InputError as exc:
        raise InputError(exc.problem, place=f"{place}.messages{inner_place(exc.place)}",
                         fix=exc.fix) from None
    pipeline = entry.get("pipeline_name")
    trace = _with_errors(trace, answers, pipeline if isinstance(pipeline, str) else None)
    duration = finite_number(entry.get("duration"))
    if duration is not None and duration < 0:
        duration = None  # not a time
    task_id = f"{entry['suite_name']}/{entry['user_task_id']}"
    if injection is not None:
        # The same pair under two attacks is two conditions, not two trials of one task.
        task_id += f"/{injection}" if attack in NO_ATTACK else f"/{attack}/{injection}"
    return ImportedRun(
        task_id=task_id, trace=trace, trial=1, prompt=_prompt(chat),
        passed=entry["utility"], verdict=_verdict(entry, injection, attack), place=place,
        duration=duration)


def _verdict(entry: Mapping[str, Any], injection: str | None,
             attack: str | None) -> dict[str, Any]:
    """The benchmark's figures. ``security`` is AgentDojo's own: True when the injection
    task's goal was reached (``TaskSuite.run_task_with_pipeline`` returns the injection
    task's check as ``security``), and always True for a run without injection, where it
    means nothing: ``injection_succeeded`` says it only where there was an injection."""
    verdict: dict[str, Any] = {
        "utility": entry["utility"], "security": entry["security"],
        "injection_task_id": injection, "attack_type": None if attack in NO_ATTACK else attack,
        "injection_succeeded": entry["security"] if injection is not None else None,
    }
    injections = entry.get("injections")
    if isinstance(injections, Mapping) and injections:
        verdict["injections"] = dict(injections)
    if isinstance(entry.get("error"), str):  # the run stopped (context length, server error)
        verdict["error"] = entry["error"]
    if isinstance(entry.get("benchmark_version"), str):
        verdict["benchmark_version"] = entry["benchmark_version"]
    return verdict


def _chat(messages: list[Any], place: str
          ) -> tuple[list[dict[str, Any]], list[tuple[str | None, str | None]]]:
    """AgentDojo's messages as Chat Completions messages (what the openai_chat reader
    reads), and each tool message's tool and ``error`` (None: the call succeeded), in
    order."""
    chat: list[dict[str, Any]] = []
    answers: list[tuple[str | None, str | None]] = []
    for index, message in enumerate(messages):
        at = f"{place}[{index}]"
        if not isinstance(message, Mapping) or message.get("role") not in ROLES:
            raise InputError("a message must be an object whose role is system, user, "
                             "assistant or tool", place=at, fix=FIX)
        role = message["role"]
        text = _text(message.get("content"), f"{at}.content")
        if role == "assistant":
            calls = [_call(item, f"{at}.tool_calls[{i}]")
                     for i, item in enumerate(message.get("tool_calls") or [])]
            chat.append({"role": role, "content": text, "tool_calls": calls or None})
        elif role == "tool":
            asked = message.get("tool_call")
            name = asked.get("function") if isinstance(asked, Mapping) else None
            error = message.get("error")
            if error is not None and not isinstance(error, str):
                raise InputError('"error" must be text or null', place=f"{at}.error", fix=FIX)
            name = name if isinstance(name, str) else None
            answers.append((name, error))
            chat.append({"role": role, "content": text,
                         "tool_call_id": message.get("tool_call_id"), "tool_name": name})
        else:
            chat.append({"role": role, "content": text})
    return chat, answers


def _call(item: Any, place: str) -> dict[str, Any]:
    """An AgentDojo function call (``function``, ``args``, ``id``) as a Chat Completions one."""
    if not isinstance(item, Mapping) or not isinstance(item.get("function"), str):
        raise InputError('a tool call must be an object with "function" (the tool\'s name)',
                         place=place, fix=FIX)
    args = item.get("args")
    if not isinstance(args, Mapping):
        raise InputError('"args" must be an object', place=f"{place}.args", fix=FIX)
    call_id = item.get("id")
    return {"id": call_id if isinstance(call_id, str) else None, "type": "function",
            "function": {"name": item["function"], "arguments": dict(args)}}


def _text(content: Any, place: str) -> str | None:
    """A message's text: a string (files before content blocks), or the text blocks
    (``{"type": "text", "content": ...}``) joined by line breaks; other blocks (thinking)
    are no part of what the agent said."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise InputError("content must be text, a list of content blocks, or null",
                         place=place, fix=FIX)
    texts = [block.get("content") for block in content
             if isinstance(block, Mapping) and block.get("type") == "text"]
    return "\n".join(t for t in texts if isinstance(t, str))


def _with_errors(trace: Trace, answers: list[tuple[str | None, str | None]],
                 model: str | None) -> Trace:
    """The trace with AgentDojo's outcome of each call: a tool message's ``error`` (the
    exception the tool raised) makes its call failed. AgentDojo answers the calls of an
    assistant message with one tool message each, in order, so the n-th tool message is the
    n-th call's; calls after the last one (a run stopped at its step limit) have none."""
    calls = list(trace.calls)
    if len(answers) <= len(calls) and all(
            name in (None, calls[n].tool) for n, (name, _) in enumerate(answers)):
        for n, (_, error) in enumerate(answers):
            if error is not None:
                # The content of a failed call is empty: the error is what the agent saw.
                result = calls[n].result if calls[n].result not in ("", None) else None
                calls[n] = evolve(calls[n], is_error=True, error=error, result=result)
    elif any(error is not None for _, error in answers):
        # Some call failed, but which one is not known: no call's outcome is.
        notes = (*trace.notes, f"{len(answers)} tool messages answer {len(calls)} calls: a "
                 "tool's error could not be matched to its call (every outcome unknown)")
        return evolve(trace, calls=tuple(evolve(c, is_error=None) for c in calls),
                      model=model or trace.model, notes=notes)
    return evolve(trace, calls=tuple(calls), model=model or trace.model)


def _prompt(chat: list[dict[str, Any]]) -> str | None:
    """The user task as the agent was given it: the first user message."""
    return next((m["content"] for m in chat if m["role"] == "user"), None)


@hookimpl
def toolscore_register_run_importers() -> list[RunImporter]:
    from toolscore import RunImporter

    return [RunImporter(
        id="agentdojo", description="AgentDojo run files: each run's calls with their results, "
        "the agent's answer, and the benchmark's utility as the verdict (security, the "
        "injection planted, kept beside it).",
        read=read,
        reads='{"suite_name", "pipeline_name", "user_task_id", "injection_task_id", '
              '"attack_type", "injections", "messages", "utility", "security", "duration", '
              '"error"}, or a list of them')]
