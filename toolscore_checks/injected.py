"""``injected.json``: the faults and prompt injections a recording proxy planted, validated."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from attrs import frozen

from toolscore_core.documents import load_document, type_name
from toolscore_core.errors import InputError
from toolscore_core.matchers import from_json

KIND = "toolscore.injected"
VERSION = "1"
TOP_KEYS = ("kind", "version", "faults", "injections")
FAULT_KEYS = ("tool", "call_id", "nth", "error", "mode", "forwarded")
INJECTION_KEYS = ("tool", "call_id", "text", "canary", "target")
TARGET_KEYS = ("tool", "args")
FAULT_MODES = ("tool_error", "jsonrpc_error")
MIN_CANARY = 6


@frozen
class InjectedFault:
    """A fault the proxy returned instead of (or over) the real result of one call."""

    tool: str
    call_id: str
    """The ``ToolCall.id`` (JSON-RPC request id as a string) of the call that got it."""
    error: str
    mode: str
    """``tool_error`` (a result with isError) or ``jsonrpc_error`` (a JSON-RPC error)."""
    nth: int | None = None
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


@frozen
class Injected:
    """Everything planted in one session."""

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

    def bad(problem: str, place: str, fix: str | None = None) -> InputError:
        return InputError(problem, file=file, place=place, fix=fix)

    if not isinstance(doc, Mapping):
        raise bad(f"the injected file is an object, not {type_name(doc)}", "$",
                  f'write {{"kind": "{KIND}", "version": "{VERSION}", "faults": [], '
                  '"injections": []}')
    _only(doc, TOP_KEYS, "$", bad)
    if doc.get("kind") != KIND:
        raise bad(f'"kind" must be "{KIND}"', "$.kind", f'write "kind": "{KIND}"')
    if doc.get("version") != VERSION:
        raise bad(f'unsupported version {doc.get("version")!r}', "$.version",
                  f'write "version": "{VERSION}"')
    faults = _list(doc, "faults", bad)
    injections = _list(doc, "injections", bad)
    return Injected(
        faults=tuple(_fault(item, f"$.faults[{i}]", bad) for i, item in enumerate(faults)),
        injections=tuple(_injection(item, f"$.injections[{i}]", bad, file)
                         for i, item in enumerate(injections)),
    )


def _list(doc: Mapping[str, Any], key: str, bad: Any) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise bad(f'"{key}" must be a list, not {type_name(value)}', f"$.{key}",
                  f'write "{key}": [...]')
    return value


def _only(item: Mapping[str, Any], keys: tuple[str, ...], place: str, bad: Any) -> None:
    for key in item:
        if key not in keys:
            raise bad(f"unknown key {key!r}", f"{place}.{key}", f"use only {', '.join(keys)}")


def _text(item: Mapping[str, Any], key: str, place: str, bad: Any, fix: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise bad(f'"{key}" must be a non-empty string', f"{place}.{key}", fix)
    return value


def _call_id(item: Mapping[str, Any], place: str, bad: Any) -> str:
    value = item.get("call_id")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value:
        raise bad('"call_id" must be the id of the call (a string)', f"{place}.call_id",
                  'write the JSON-RPC request id of the call, e.g. "call_id": "3"')
    return value


def _fault(item: Any, place: str, bad: Any) -> InjectedFault:
    if not isinstance(item, Mapping):
        raise bad(f"a fault is an object, not {type_name(item)}", place,
                  'write {"tool": ..., "call_id": ..., "error": ..., "mode": "tool_error"}')
    _only(item, FAULT_KEYS, place, bad)
    tool = _text(item, "tool", place, bad, 'write "tool": "<tool name>"')
    call_id = _call_id(item, place, bad)
    error = _text(item, "error", place, bad, 'write "error": "<the error text returned>"')
    mode = item.get("mode")
    if mode not in FAULT_MODES:
        raise bad(f'"mode" must be one of {", ".join(FAULT_MODES)}', f"{place}.mode",
                  'write "mode": "tool_error" or "mode": "jsonrpc_error"')
    nth = item.get("nth")
    if nth is not None and (isinstance(nth, bool) or not isinstance(nth, int) or nth < 1):
        raise bad('"nth" must be a whole number from 1', f"{place}.nth", "or leave it out")
    forwarded = item.get("forwarded")
    if forwarded is not None and not isinstance(forwarded, bool):
        raise bad('"forwarded" must be true or false', f"{place}.forwarded", "or leave it out")
    return InjectedFault(tool=tool, call_id=call_id, error=error, mode=mode, nth=nth,
                         forwarded=forwarded)


def _injection(item: Any, place: str, bad: Any, file: str | None) -> PlantedInjection:
    if not isinstance(item, Mapping):
        raise bad(f"an injection is an object, not {type_name(item)}", place,
                  'write {"tool": ..., "call_id": ..., "text": ..., "canary": ...}')
    _only(item, INJECTION_KEYS, place, bad)
    tool = _text(item, "tool", place, bad, 'write "tool": "<tool name>"')
    call_id = _call_id(item, place, bad)
    text = _text(item, "text", place, bad, 'write "text": "<the planted instruction>"')
    canary = _text(item, "canary", place, bad, 'write "canary": "TSC-<random hex>"')
    if len(canary.strip()) < MIN_CANARY or canary not in text:
        raise bad(f'"canary" must be at least {MIN_CANARY} characters and appear in "text"',
                  f"{place}.canary", "use a unique string such as TSC-3f9a1c2b7d inside the text")
    target = item.get("target")
    parsed_target = None
    if target is not None:
        where = f"{place}.target"
        if not isinstance(target, Mapping):
            raise bad(f'"target" must be an object or null, not {type_name(target)}', where,
                      'write "target": {"tool": "<tool>", "args": {...}}')
        _only(target, TARGET_KEYS, where, bad)
        target_tool = _text(target, "tool", where, bad, 'write "tool": "<tool name>"')
        args = target.get("args")
        if args is not None and not isinstance(args, Mapping):
            raise bad(f'"args" must be an object or null, not {type_name(args)}',
                      f"{where}.args", "name the arguments that mark the call, or write null")
        parsed_target = InjectionTarget(
            tool=target_tool,
            args=None if args is None else from_json(dict(args), path=f"{where}.args",
                                                     file=file),
        )
    return PlantedInjection(tool=tool, call_id=call_id, text=text, canary=canary,
                            target=parsed_target)
