"""OpenAI Agents SDK: run items and serialized RunState (Python and JS), one call per call id;
and the SDK's own traces (``agents_sdk_traces``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore import count as plural
from toolscore_formats import agents_sdk_traces
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.content import text_of
from toolscore_formats.values import as_str, list_of, name_of

STATE_LISTS = ("generated_items", "generatedItems", "session_items", "sessionItems")
RESPONSE_LISTS = ("model_responses", "modelResponses")
LAST_RESPONSE = ("last_model_response", "lastModelResponse")
CALL_TYPES = frozenset(("function_call", "custom_tool_call", "mcp_call"))
OUTPUT_TYPES = frozenset(("function_call_output", "function_call_result",
                          "custom_tool_call_output"))
# What the SDK's default_tool_error_function tells the model when a function tool raises.
TOOL_FAILED = "An error occurred while running the tool."
NOT_READ = frozenset(("program", "program_output", "computer_call", "computer_call_output",
                      "hosted_tool_call", "web_search_call", "file_search_call",
                      "code_interpreter_call", "local_shell_call", "shell_call",
                      "apply_patch_call"))


def _raw(item: Any) -> Any:
    if isinstance(item, dict):
        return item.get("raw_item", item.get("rawItem"))
    return None


def _is_run_item(item: Any) -> bool:
    return isinstance(item, dict) and str(item.get("type", "")).endswith("_item") and \
        isinstance(_raw(item), dict)


def detect(document: Any) -> str | None:
    if isinstance(document, dict) and "$schemaVersion" in document and any(
            key in document for key in (*STATE_LISTS, *RESPONSE_LISTS)):
        return 'a serialized Agents SDK RunState ("$schemaVersion" with generated items)'
    if isinstance(document, list) and document and all(_is_run_item(i) for i in document):
        return "a list of Agents SDK run items (tool_call_item, ... with raw_item)"
    return agents_sdk_traces.detect(document)


def _raw_items(document: Any) -> Iterator[dict[str, Any]]:
    """Raw items in the order the state lists them; the same call may come several times."""
    if isinstance(document, list):
        yield from (r for r in map(_raw, document) if isinstance(r, dict))
        return
    for key in STATE_LISTS:
        yield from (r for r in map(_raw, list_of(document, key)) if isinstance(r, dict))
    responses = [r for key in RESPONSE_LISTS for r in list_of(document, key)]
    responses += [document[key] for key in LAST_RESPONSE if isinstance(document.get(key), dict)]
    for response in responses:
        if isinstance(response, dict):
            yield from (r for r in list_of(response, "output") if isinstance(r, dict))
    step = document.get("current_step") or document.get("currentStep")
    data = step.get("data") if isinstance(step, dict) else None
    if isinstance(data, dict):
        yield from (r for r in map(_raw, list_of(data, "interruptions")) if isinstance(r, dict))


def parse(document: Any) -> Trace:
    if agents_sdk_traces.meant(document) or agents_sdk_traces.detect(document) is not None:
        return agents_sdk_traces.parse_traces(document)
    if detect(document) is None:
        raise InputError("not an Agents SDK RunState or run item list", place="$",
                         fix="give a RunState JSON or a list of run items")
    table = CallTable()
    seen: set[str] = set()
    answered: set[str] = set()
    skipped: dict[str, int] = {}
    skipped_items: set[tuple[str, str | None]] = set()
    outputs: list[dict[str, Any]] = []
    final_answer: str | None = None
    replies: list[str] = []
    said: set[str] = set()  # the state repeats messages too: each id once
    for raw in _raw_items(document):
        kind = name_of(raw, "type")
        call_id = as_str(raw.get("call_id", raw.get("callId")))
        if kind in CALL_TYPES and isinstance(raw.get("name"), str):
            key = call_id or as_str(raw.get("id"))
            if key is not None and key in seen:
                continue
            if key is not None:
                seen.add(key)
            args = raw.get("arguments")
            if kind == "custom_tool_call":
                args = {"input": raw["input"]} if isinstance(raw.get("input"), str) \
                    else raw.get("input")
            row = table.add(raw["name"], args, call_id=key)
            if kind == "mcp_call" and raw.get("output") is not None:
                row.settle(**outcome(raw.get("output"), failed=None))
        elif kind in OUTPUT_TYPES:
            outputs.append(raw)
        elif kind in NOT_READ:
            # The state repeats items too: count each (type, id) once.
            item_key = (kind, call_id or as_str(raw.get("id")))
            if item_key not in skipped_items:
                skipped_items.add(item_key)
                skipped[kind] = skipped.get(kind, 0) + 1
        elif kind == "message" and raw.get("role") == "assistant":
            final_answer = text_of(raw.get("content")) or final_answer
            reply, message_id = text_of(raw.get("content")), as_str(raw.get("id"))
            if reply is not None and (message_id is None or message_id not in said):
                replies.append(reply)
                if message_id is not None:
                    said.add(message_id)
    for raw in outputs:
        call_id = as_str(raw.get("call_id", raw.get("callId")))
        if call_id is None or call_id in answered:
            continue
        answered.add(call_id)
        output = _output(raw.get("output"))
        # A run item has no error flag: a tool that raised answers the model with the SDK's
        # default failure text (unless the tool sets its own failure_error_function).
        failed = True if isinstance(output, str) and output.startswith(TOOL_FAILED) else None
        table.answer(call_id, **outcome(output, failed=failed))
    step = (document.get("current_step") or document.get("currentStep")) \
        if isinstance(document, dict) else None
    if isinstance(step, dict) and step.get("type") == "next_step_final_output" and isinstance(
            step.get("output"), str):
        final_answer = step["output"]
        if not replies or replies[-1] != final_answer:
            replies.append(step["output"])
    notes = tuple(f"{plural(count, f'{kind} item')} not read as calls (unsupported item type)"
                  for kind, count in sorted(skipped.items()))
    return Trace(calls=table.calls(), final_answer=final_answer, notes=notes,
                 replies=tuple(replies))


def _output(value: Any) -> Any:
    """The JS SDK wraps text outputs as ``{"type": "text", "text": ...}``."""
    if isinstance(value, dict) and value.get("type") in ("text", "output_text") and \
            isinstance(value.get("text"), str):
        return value["text"]
    return value


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="agents_sdk",
        description="OpenAI Agents SDK run items, serialized RunState and traces",
        reads="RunState JSON ($schemaVersion; generated items, model responses, "
              "interruptions) or a list of run items: function_call / custom_tool_call "
              "raw items, each call id once, joined to their outputs by call_id; or the "
              "SDK's own traces (span export() dicts as JSON lines, or the exporter's "
              '{"data": [...]}): function spans as calls, their input, output and error; '
              "generation spans' model, usage and final answer",
        detect=detect, parse=parse, near=agents_sdk_traces.near,
    )]
