"""Google Gemini: ``functionCall`` / ``functionResponse`` parts (and Interactions ``steps``)."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore_formats.calls import CallTable, outcome, response_outcome
from toolscore_formats.messages import Conversation
from toolscore_formats.values import as_str, name_of

ROLES = frozenset(("user", "model", "function", "tool"))


def contents_of(document: Any) -> list[Any] | None:
    """``contents`` (a request or a saved history), a response's candidate, or a bare list."""
    if isinstance(document, dict):
        if isinstance(document.get("contents"), list):
            return document["contents"]
        candidates = document.get("candidates")
        if isinstance(candidates, list):
            first = candidates[0] if candidates else None
            content = first.get("content") if isinstance(first, dict) else None
            return [content] if isinstance(content, dict) else []
        return None
    return document if isinstance(document, list) else None


def _is_content(item: Any) -> bool:
    # Pydantic AI messages have "parts" too, but each part names its "part_kind".
    return isinstance(item, dict) and isinstance(item.get("parts"), list) and (
        item.get("role") is None or name_of(item, "role") in ROLES) and not any(
        isinstance(part, dict) and "part_kind" in part for part in item["parts"])


def detect(document: Any) -> str | None:
    if isinstance(document, dict):
        if document.get("object") == "interaction" and isinstance(document.get("steps"), list):
            return 'a Gemini Interactions API result ("object": "interaction" with "steps")'
        if isinstance(document.get("candidates"), list):
            return 'a Gemini generateContent response ("candidates")'
    contents = contents_of(document)
    if contents and all(_is_content(item) for item in contents):
        where = '"contents"' if isinstance(document, dict) else "a list"
        return f'Gemini contents ({where} of {{"role", "parts"}})'
    return None


def parse(document: Any) -> Trace:
    if isinstance(document, dict) and document.get("object") == "interaction":
        return _parse_interaction(document)
    contents = contents_of(document)
    if contents is None:
        raise InputError("not Gemini contents or a generateContent response", place="$",
                         fix='give {"contents": [...]}, {"candidates": [...]} or a list')
    talk = Conversation()
    table, notes = talk.table, talk.notes
    for index, content in talk.walk(contents, place="$.contents", list_key="parts",
                                    problem='a content is {"role", "parts": [...]}'):
        texts: list[str] = []
        called = False
        if content.get("role") == "user" and any(
                isinstance(part, dict) and "functionResponse" not in part and
                "function_response" not in part for part in content["parts"]):
            table.start_turn()  # the user spoke (function responses are no turn)
        for part in content["parts"]:
            if not isinstance(part, dict):
                continue
            # The REST API writes camelCase; the Python SDK's model_dump() snake_case.
            call = part.get("functionCall", part.get("function_call"))
            response = part.get("functionResponse", part.get("function_response"))
            if isinstance(call, dict) and isinstance(call.get("name"), str):
                # The part is the call as the model made it: without args, it has none.
                args = call.get("args")
                table.add(call["name"], {} if args is None else args, call_id=call.get("id"))
                called = True
            elif isinstance(response, dict):
                _read_response(response, table, notes, index)
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
        if content.get("role") == "model" or (content.get("role") is None and texts):
            reply = "".join(texts) or None
            talk.said(reply, final=None if called else reply)
    usage = model = None
    if isinstance(document, dict):
        usage = document.get("usageMetadata", document.get("usage_metadata"))
        model = as_str(document.get("modelVersion", document.get("model_version")))
    return talk.trace(model=model, usage=usage if isinstance(usage, dict) else None)


def _read_response(response: dict[str, Any], table: CallTable, notes: list[str],
                   index: int) -> None:
    result = response_outcome(response)
    name = response.get("name") if isinstance(response.get("name"), str) else None
    joined = table.answer(response["id"], **result) if table.has_id(response.get("id")) \
        else table.answer_next(name, **result)  # same-name parallel calls: by position
    if not joined:
        notes.append(f"content {index}: functionResponse for {name!r} with no open call")


def _parse_interaction(document: dict[str, Any]) -> Trace:
    table = CallTable()
    notes: list[str] = []
    steps = document["steps"]
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        kind = name_of(step, "type")
        if kind == "function_call" and isinstance(step.get("name"), str):
            table.add(step["name"], step.get("arguments"), call_id=step.get("id"))
        elif kind == "function_result":
            failed = step.get("is_error") is True
            if not table.answer(step.get("call_id"), **outcome(step.get("result"),
                                                               failed=failed or None)):
                notes.append(f"step {index}: function_result for unknown call_id")
    usage = document.get("usage")
    # The final text of an interaction is not read: its step shapes are still changing.
    return Trace(calls=table.calls(), final_answer=None, model=as_str(document.get("model")),
                 usage=usage if isinstance(usage, dict) else None, notes=tuple(notes))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="gemini",
        description="Google Gemini generateContent contents and responses (and Interactions)",
        reads='{"contents": [...]}, {"candidates": [...]} or a list of {"role", "parts"}: '
              'functionCall parts (function_call from the Python SDK) joined to '
              'functionResponse parts by id, else by position (same-name parallel calls); '
              'response.error as failure',
        detect=detect, parse=parse,
    )]
