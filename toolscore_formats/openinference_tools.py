"""An OpenInference TOOL span's name, arguments and outcome, as the framework instrumentations
write them (LangChain, LlamaIndex, DSPy, smolagents): the openinference reader's TOOL spans."""

from __future__ import annotations

from typing import Any

from toolscore import JSON_FAILURES, loads
from toolscore_formats.calls import outcome
from toolscore_formats.content import block_content
from toolscore_formats.lc_messages import message_fields
from toolscore_formats.values import as_str, decode_args, maybe_json

# DSPy names a tool's span after the tool and the method run: "get_weather.__call__".
METHOD_SUFFIXES = (".__call__", ".acall")
# The fields of LlamaIndex's ToolOutput, as its instrumentation writes a tool's output.
TOOL_OUTPUT_FIELDS = frozenset(("tool_name", "raw_input", "raw_output"))
# smolagents' input.value: its Tool.__call__(*args, sanitize_inputs_outputs, **kwargs) bound.
SMOLAGENTS_CALL = frozenset(("args", "kwargs", "sanitize_inputs_outputs"))


def tool_name(attributes: dict[str, Any], span_name: str | None) -> str:
    """``tool.name``, else the span's name without the method DSPy's span names add."""
    name = as_str(attributes.get("tool.name"))
    if name:
        return name
    for suffix in METHOD_SUFFIXES:
        if span_name and span_name.endswith(suffix) and len(span_name) > len(suffix):
            return span_name[:-len(suffix)]
    return span_name or ""


def tool_arguments(attributes: dict[str, Any]
                   ) -> tuple[dict[str, Any] | None, str | None, bool]:
    """The arguments (an object, or the raw text) a TOOL span says the tool was given, and
    whether it gave them by position (smolagents: they name no parameter, so unknown)."""
    # input.value is what the tool was given; tool.parameters is, by the spec, the tool's
    # JSON schema, but some instrumentations write the arguments there.
    raw = attributes.get("input.value")
    parameters = maybe_json(attributes.get("tool.parameters"))
    bound, named = _smolagents_call(maybe_json(raw), parameters)
    if bound:
        return named, None, named is None
    if raw is None:
        raw = None if _is_schema(parameters) else parameters
    args, raw_args = decode_args(raw)
    if args is not None and _bound_keywords(args, attributes):
        # LlamaIndex and DSPy write the instrumented method's bound arguments,
        # {"kwargs": {...}}: the tool's own arguments are the keywords.
        return args["kwargs"], None, False
    return args, raw_args, False


def _smolagents_call(value: Any, parameters: Any) -> tuple[bool, dict[str, Any] | None]:
    """smolagents' TOOL spans: ``input.value`` is ``{"args", "kwargs",
    "sanitize_inputs_outputs"}``. (True, the keyword arguments) for that shape, (True, None)
    when it gives positional ones (they name no parameter), (False, None) for any other."""
    if not (isinstance(value, dict) and set(value) == SMOLAGENTS_CALL and
            isinstance(value["args"], list) and isinstance(value["kwargs"], dict)):
        return False, None
    given, named = value["args"], value["kwargs"]
    if not given:
        return True, named
    # smolagents' own rule: one dict whose keys are all the tool's inputs is its keywords.
    if len(given) == 1 and not named and isinstance(given[0], dict) and \
            isinstance(parameters, dict) and all(key in parameters for key in given[0]):
        return True, given[0]
    return True, None


def _bound_keywords(args: dict[str, Any], attributes: dict[str, Any]) -> bool:
    if not isinstance(args.get("kwargs"), dict) or set(args) - {"args", "kwargs"} or \
            args.get("args", []) != []:
        return False
    schema = maybe_json(attributes.get("tool.parameters"))
    # A tool whose own parameter is named "kwargs" keeps it.
    return not (_is_schema(schema) and "kwargs" in (schema.get("properties") or {}))


def _is_schema(value: Any) -> bool:
    """A tool's JSON schema; or smolagents' ``inputs`` (each parameter's ``{"type",
    "description"}`` by name), which its instrumentation writes as ``tool.parameters``."""
    if not isinstance(value, dict):
        return False
    return value.get("type") == "object" or isinstance(value.get("properties"), dict) or (
        bool(value) and all(isinstance(v, dict) and isinstance(v.get("type"), str) and
                            "description" in v for v in value.values()))


def tool_outcome(attributes: dict[str, Any], *, failed: bool, error: str | None,
                 ended: bool) -> tuple[str | None, dict[str, Any]]:
    """The call id the output names (or None), and the outcome fields (``result``,
    ``is_error``, ``error``) of a TOOL span."""
    if failed:
        return None, {"result": _output(attributes), "is_error": True, "error": error}
    if "output.value" not in attributes:
        # Ended without an output: completed, its result not recorded; not ended: unknown.
        return None, {"result": None, "is_error": False if ended else None, "error": None}
    output = _output(attributes)
    message = message_fields(output)
    if message is not None and message[0] == "tool":
        # LangChain's ToolMessage: the tool's content, the call it answers, and its status
        # ("error" when the tool handled its own exception).
        data = message[1]
        content = maybe_json(block_content(data.get("content")))
        return as_str(data.get("tool_call_id")), outcome(
            content, failed=data.get("status") == "error" or None)
    if isinstance(output, dict) and output.keys() >= TOOL_OUTPUT_FIELDS:
        # LlamaIndex's ToolOutput: what the function returned, and its error flag.
        return None, outcome(output.get("raw_output"), failed=output.get("is_error") is True
                             or None)
    return None, {"result": output, "is_error": False, "error": None}


def _output(attributes: dict[str, Any]) -> Any:
    value = attributes.get("output.value")
    if isinstance(value, str) and attributes.get("output.mime_type") == "application/json":
        try:
            return loads(value)  # a JSON string or number too, as its mime type says
        except JSON_FAILURES:
            return value
    return maybe_json(value)
