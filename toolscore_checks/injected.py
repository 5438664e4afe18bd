"""``injected.json``: the faults and prompt injections a recording proxy planted, validated."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal, get_args

from attrs import field, frozen, validators

from toolscore import Refusal, at_least, from_json, load_document, shape, structure, type_name

KIND = "toolscore.injected"
VERSION = "1"
FaultMode = Literal["tool_error", "jsonrpc_error"]
MIN_CANARY = 6


@frozen
class InjectedFault:
    """A fault the proxy returned instead of (or over) the real result of one call."""

    tool: str
    call_id: str
    """The ``ToolCall.id`` (JSON-RPC request id as a string) of the call that got it."""
    error: str
    mode: FaultMode = field(validator=validators.in_(get_args(FaultMode)))
    """``tool_error`` (a result with isError) or ``jsonrpc_error`` (a JSON-RPC error)."""
    nth: int | None = field(default=None, validator=at_least(1))
    """Which call of this tool it was (1 = first), when the proxy counted."""
    forwarded: bool | None = None
    """Whether the call still reached the real server."""


@frozen
class InjectionTarget:
    """The call a planted instruction asks for."""

    tool: str
    args: Mapping[str, Any] | None = None
    """Arguments that mark the call (values or matchers, only these names); null = any."""


@frozen
class PlantedInjection:
    """A prompt injection the proxy planted in one call's result."""

    tool: str
    call_id: str
    text: str
    canary: str
    """A unique string in the planted text; seen anywhere later, the injection leaked."""
    target: InjectionTarget | None = None

    def __attrs_post_init__(self) -> None:
        if len(self.canary.strip()) < MIN_CANARY or self.canary not in self.text:
            raise Refusal(f'"canary" must be at least {MIN_CANARY} characters and appear in '
                          '"text"', "use a unique string such as TSC-3f9a1c2b7d inside the text",
                          key="canary")


@frozen
class Injected:
    """Everything planted in one session."""

    faults: tuple[InjectedFault, ...] = ()
    injections: tuple[PlantedInjection, ...] = ()


@frozen
class _File:
    """An injected file as written: ``kind`` and ``version`` name the format."""

    kind: str
    version: str
    faults: tuple[InjectedFault, ...] = ()
    injections: tuple[PlantedInjection, ...] = ()


def load_injected(path: str | os.PathLike[str]) -> Mapping[str, Any]:
    """Read and validate an injected file; return the decoded mapping."""
    doc = load_document(path, what="injected file")
    parse_injected(doc, file=str(path))
    return doc


def parse_injected(doc: Any, *, file: str | None = None) -> Injected:
    """Validate a decoded injected document; every problem names the JSON path and the fix."""
    if isinstance(doc, Injected):
        return doc
    read = structure(doc, _File, source=file)
    return Injected(faults=read.faults, injections=read.injections)


def _text(fix: str) -> Any:
    def read(value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise Refusal('"{key}" must be a non-empty string', fix)
        return value
    return read


def _call_id(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value:
        raise Refusal('"call_id" must be the id of the call (a string)',
                      'write the JSON-RPC request id of the call, e.g. "call_id": "3"')
    return value


def _fixed(key: str, wanted: str, problem: str) -> Any:
    def read(value: Any) -> str:
        if value != wanted:
            raise Refusal(problem.format(value=value), f'write "{key}": "{wanted}"')
        return wanted
    return read


def _args(value: Any) -> Any:
    if value is not None and not isinstance(value, Mapping):
        raise Refusal(f"must be an object or null, not {type_name(value)}",
                      "name the arguments that mark the call, or write null")
    return None if value is None else from_json(dict(value))


_TOOL = _text('write "tool": "<tool name>"')
shape(_File, "the injected file", f'write {{"kind": "{KIND}", "version": "{VERSION}", '
      '"faults": [], "injections": []}', kind=_fixed("kind", KIND, f'"kind" must be "{KIND}"'),
      version=_fixed("version", VERSION, "unsupported version {value!r}"))
shape(InjectedFault, "a fault",
      'write {"tool": ..., "call_id": ..., "error": ..., "mode": "tool_error"}', tool=_TOOL,
      call_id=_call_id, error=_text('write "error": "<the error text returned>"'))
shape(PlantedInjection, "an injection",
      'write {"tool": ..., "call_id": ..., "text": ..., "canary": ...}', tool=_TOOL,
      call_id=_call_id, text=_text('write "text": "<the planted instruction>"'),
      canary=_text('write "canary": "TSC-<random hex>"'))
shape(InjectionTarget, '"target"', 'write "target": {"tool": "<tool>", "args": {...}} or null',
      tool=_TOOL, args=_args)
