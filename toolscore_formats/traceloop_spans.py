"""OpenLLMetry's (Traceloop's) tool spans: a span with ``traceloop.span.kind`` ``tool``, as the
fields of the call it ran, for the GenAI reader to join with the model's request.

Two writers, told apart by the shape of ``traceloop.entity.input``:

- traceloop-sdk's ``@tool`` decorator: a span ``{name}.tool`` whose input is the decorated
  function's ``{"args": [...], "kwargs": {...}}`` and whose output is the return value's
  JSON. Keyword arguments are named; positional ones are not (the span does not say which
  parameter each one is), so a call given any is read with unknown arguments.
- the LangChain instrumentation: an ``execute_tool {name}`` span whose input is the tool
  callback's ``{"input_str", "inputs", "kwargs": {"tool_call_id"}, ...}`` and whose output
  is ``{"output": ToolMessage or value, "kwargs"}`` (the same JSON is in
  ``gen_ai.tool.call.arguments`` / ``.result``): the arguments are ``inputs``, the call id
  ``tool_call_id``, the result the ToolMessage's content (status ``error``: a failure).

Any other input (other OpenLLMetry instrumentations write their own) is not read as the
arguments, never the wrapper itself: the span is then read as any tool span, by its GenAI
attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from toolscore import JSON_FAILURES, loads
from toolscore_formats.content import block_content
from toolscore_formats.lc_messages import message_fields
from toolscore_formats.values import as_str, maybe_json

if TYPE_CHECKING:
    from toolscore_formats.spans import Attributes

KIND = "traceloop.span.kind"
ENTITY_NAME = "traceloop.entity.name"
ENTITY_INPUT = "traceloop.entity.input"
ENTITY_OUTPUT = "traceloop.entity.output"
TOOL = "tool"
# A tool span below one of these spans is an agent's call, whatever encloses the agent.
AGENT_KINDS = frozenset(("agent", "workflow"))
DECORATOR_INPUT = frozenset(("args", "kwargs"))


class EntityCall(NamedTuple):
    """What a Traceloop tool span's input and output say of its call."""

    shape: str | None  # whose input it is: "decorator", "langchain"; None: not read
    unread: bool  # an input in no shape read
    positional: bool  # the decorator's input gives arguments by position: not named
    args: dict[str, Any] | None
    call_id: str | None
    result: tuple[Any] | None  # (value,) when the output holds one
    failed: bool  # the output is a LangChain ToolMessage with status "error"


def kind(attributes: Attributes) -> str | None:
    """The span's ``traceloop.span.kind`` (None without one: most spans are not Traceloop's)."""
    return attributes.text(KIND) if KIND in attributes.raw else None


def _decode(value: Any) -> tuple[bool, Any]:
    """An attribute's JSON: (decoded, value). Text cut short by the SDK's attribute length
    limit is not JSON: not decoded."""
    if not isinstance(value, str):
        return False, None
    try:
        return True, loads(value)
    except JSON_FAILURES:
        return False, None


def entity_call(attributes: Attributes) -> EntityCall:
    """The call's fields from ``traceloop.entity.input`` / ``.output``. The output is read
    only when the input says which writer wrote it; without an input (content tracing off)
    nothing is known but the span's own."""
    raw_input = attributes.get(ENTITY_INPUT)
    ok, given = _decode(raw_input)
    out_ok, output = _decode(attributes.get(ENTITY_OUTPUT))
    if ok and isinstance(given, dict) and set(given) == DECORATOR_INPUT and \
            isinstance(given["args"], list) and isinstance(given["kwargs"], dict):
        positional = bool(given["args"])
        return EntityCall("decorator", False, positional,
                          None if positional else given["kwargs"], None,
                          (output,) if out_ok else None, False)
    if ok and isinstance(given, dict) and "input_str" in given:
        inputs, extra = given.get("inputs"), given.get("kwargs")
        call_id = as_str(extra.get("tool_call_id")) if isinstance(extra, dict) else None
        result, failed = _callback_output(output) if out_ok else (None, False)
        return EntityCall("langchain", False, False, inputs if isinstance(inputs, dict) else None,
                          call_id, result, failed)
    return EntityCall(None, raw_input is not None, False, None, None, None, False)


def _callback_output(output: Any) -> tuple[tuple[Any] | None, bool]:
    """LangChain's ``{"output", "kwargs"}``: the ToolMessage's content (and whether its
    status is ``error``), else the value the tool returned."""
    if not isinstance(output, dict) or "output" not in output:
        return None, False
    value = output["output"]
    fields = message_fields(value)
    if fields is None or fields[0] != "tool":
        return (maybe_json(value),), False
    data = fields[1]
    return (maybe_json(block_content(data.get("content"))),), data.get("status") == "error"
