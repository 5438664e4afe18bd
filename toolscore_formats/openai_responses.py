"""OpenAI Responses API: ``function_call`` and ``function_call_output`` items joined by call_id."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, hookimpl
from toolscore import count as plural
from toolscore_formats.calls import CallTable, outcome
from toolscore_formats.content import block_content, error_text, text_of
from toolscore_formats.values import as_str, name_of

CALL_ITEMS = frozenset(("function_call", "custom_tool_call", "mcp_call"))
OUTPUT_ITEMS = frozenset(("function_call_output", "custom_tool_call_output"))
# Items that are part of a Responses list but are not client tool calls.
OTHER_ITEMS = frozenset((
    "message", "reasoning", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response",
    "item_reference",
))
# Hosted tools the provider runs itself: listed in the notes, not read as calls.
HOSTED_ITEMS = frozenset((
    "web_search_call", "file_search_call", "computer_call", "computer_call_output",
    "code_interpreter_call", "image_generation_call", "local_shell_call",
    "local_shell_call_output", "shell_call", "shell_call_output", "apply_patch_call",
    "apply_patch_call_output",
))
KNOWN_ITEMS = CALL_ITEMS | OUTPUT_ITEMS | OTHER_ITEMS | HOSTED_ITEMS


def items_of(document: Any) -> list[Any] | None:
    """The item list: a response's ``output`` (after its ``input``, if any) or a bare list."""
    if isinstance(document, list):
        return document
    if isinstance(document, dict) and isinstance(document.get("output"), list):
        given = document.get("input")
        return [*given, *document["output"]] if isinstance(given, list) else document["output"]
    return None


def detect(document: Any) -> str | None:
    if isinstance(document, dict):
        if document.get("object") == "response" and isinstance(document.get("output"), list):
            return 'a Responses API response ("object": "response" with "output" items)'
        return None
    if not isinstance(document, list) or not document:
        return None
    typed = False
    for item in document:
        if not isinstance(item, dict):
            return None
        kind = name_of(item, "type")
        if kind in KNOWN_ITEMS:
            typed = typed or kind != "message"
        elif kind is not None or item.get("role") not in ("system", "developer", "user",
                                                          "assistant"):
            return None
    if not typed:
        return None
    return "a list of Responses API items (function_call / function_call_output ...)"


def parse(document: Any) -> Trace:
    items = items_of(document)
    if items is None:
        raise InputError("not a Responses API response or item list", place="$",
                         fix='give {"object": "response", "output": [...]} or a list of items')
    table = CallTable()
    notes: list[str] = []
    final_answer: str | None = None
    replies: list[str] = []
    hosted: dict[str, int] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise InputError("an item is an object", place=f"$[{index}]")
        kind = name_of(item, "type")
        if kind in CALL_ITEMS:
            _read_call(item, table, notes, index)
            final_answer = None
        elif kind in OUTPUT_ITEMS:
            result = block_content(item.get("output"))
            if not table.answer_result(item.get("call_id"), result):
                notes.append(f"item {index}: {kind} for unknown call_id "
                             f"{as_str(item.get('call_id'))!r} (not counted as a call)")
        elif kind in HOSTED_ITEMS:
            hosted[kind] = hosted.get(kind, 0) + 1
        elif (kind == "message" or kind is None) and item.get("role") == "assistant":
            final_answer = text_of(item.get("content"))
            if final_answer is not None:
                replies.append(final_answer)
        elif (kind == "message" or kind is None) and item.get("role") == "user":
            table.start_turn()
    for kind, count in sorted(hosted.items()):
        notes.append(f"{plural(count, f'hosted {kind} item')} run by the provider: not read "
                     "as calls")
    model = as_str(document.get("model")) if isinstance(document, dict) else None
    usage = document.get("usage") if isinstance(document, dict) else None
    return Trace(calls=table.calls(), final_answer=final_answer, model=model,
                 replies=tuple(replies),
                 usage=usage if isinstance(usage, dict) else None, notes=tuple(notes))


def _read_call(item: dict[str, Any], table: CallTable, notes: list[str], index: int) -> None:
    name = item.get("name")
    if not isinstance(name, str) or not name:
        notes.append(f"item {index}: {item.get('type')} without a name (not read)")
        return
    kind = item["type"]
    if kind == "custom_tool_call":
        # Free-form input is text, not JSON: kept whole under "input".
        value = item.get("input")
        table.add(name, {"input": value} if isinstance(value, str) else value,
                  call_id=item.get("call_id") or item.get("id"))
        return
    row = table.add(name, item.get("arguments"), call_id=item.get("call_id") or item.get("id"))
    if kind == "mcp_call":
        # A hosted MCP call carries its own output and error in the same item.
        if item.get("error") is not None:
            row.settle(**outcome(item.get("output"), failed=True,
                                 error=error_text(item["error"])))
        elif "output" in item and item.get("output") is not None:
            row.settle(**outcome(item["output"], failed=None))


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="openai_responses",
        description="OpenAI Responses API: responses and input/output item lists",
        reads='{"object": "response", "output": [...]} or a list of items: function_call, '
              'custom_tool_call and hosted mcp_call, with function_call_output joined by call_id',
        detect=detect, parse=parse,
    )]
