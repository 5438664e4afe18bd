"""Contracts (gold files): expected calls, forbidden rules and side effects, validated."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from typing import Any

from toolscore_core.batches import in_batches
from toolscore_core.documents import load_document, refuse_unknown, type_name
from toolscore_core.errors import InputError
from toolscore_core.matchers import Matcher, from_json, to_json
from toolscore_core.models import Contract, ExpectedCall, ForbiddenRule, SideEffect

CONTRACT_KEYS = ("expected", "forbidden", "side_effects", "name", "description")
EXPECTED_KEYS = ("tool", "args", "required", "description")
FORBIDDEN_KEYS = ("tool", "args", "reason")
SIDE_EFFECT_TYPES = ("file_exists", "file_contains", "http_get", "sqlite_query")
# type -> (required keys, optional keys) of a declared side effect
SIDE_EFFECT_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "file_exists": (("path",), ()),
    "file_contains": (("path",), ("text", "regex")),
    "http_get": (("url",), ("status", "body_contains", "timeout")),
    "sqlite_query": (("database", "query"), ("rows",)),
}


def load_contract(path: str | os.PathLike[str]) -> Contract:
    """Read a gold file (JSON or YAML) into a Contract."""
    return parse_contract(load_document(path, what="gold file"), file=str(path))


def parse_contract(data: Any, *, file: str | None = None) -> Contract:
    """A Contract from decoded JSON/YAML: a list of expected calls, or an object."""
    if isinstance(data, Contract):
        return data
    if isinstance(data, list | tuple):
        return Contract(expected=parse_expected(data, file=file, path="$"))
    if not isinstance(data, Mapping):
        raise InputError(
            f"a contract is a list of expected calls or an object, not {type_name(data)}",
            file=file, place="$",
            fix='write [{"tool": "name", "args": {...}}] or {"expected": [...]}',
        )
    refuse_unknown(data, CONTRACT_KEYS, file=file, path="$")
    if "expected" not in data:
        raise InputError('missing "expected"', file=file, place="$",
                         fix='add "expected": [...] (the expected calls)')
    return Contract(
        expected=parse_expected(data["expected"], file=file, path="$.expected"),
        forbidden=parse_forbidden(data.get("forbidden") or [], file=file, path="$.forbidden"),
        side_effects=parse_side_effects(data.get("side_effects") or [], file=file,
                                        path="$.side_effects"),
    )


def parse_expected(
    items: Any, *, file: str | None = None, path: str = "$"
) -> tuple[ExpectedCall, ...]:
    """Expected calls from a list of objects or ExpectedCall records."""
    if not isinstance(items, list | tuple):
        raise InputError(f"expected calls must be a list, not {type_name(items)}", file=file,
                         place=path, fix='write [{"tool": "name", "args": {...}}]')
    fast = in_batches(items, _plain_calls)
    if fast is not None:
        return fast
    calls = []
    for i, item in enumerate(items):
        if type(item) is dict and item.keys() <= _EXPECTED_KEYSET:
            plain = _plain_calls((item,))  # this one call may still be plain
            if plain is not None:
                calls.append(plain[0])
                continue
        calls.append(_expected_call(item, file=file, where=f"{path}[{i}]"))
    return tuple(calls)


_EXPECTED_KEYSET = frozenset(EXPECTED_KEYS)
_PLAIN = frozenset((str, int, float, bool, type(None)))
_STR = frozenset((str,))
_BOOL = frozenset((bool,))
_OPTIONAL_STR = frozenset((str, type(None)))
_OPTIONAL_DICT = frozenset((dict, type(None)))


def _plain_calls(items: Sequence[Any]) -> tuple[ExpectedCall, ...] | None:
    """The common contract read in whole-list passes: objects of the known keys, a tool
    name, arguments of plain scalars under ordinary keys (no matcher to parse). None sends
    the list the long way, which reports the first problem with its place."""
    if not items or set(map(type, items)) != {dict}:
        return None
    if not all(map(_EXPECTED_KEYSET.issuperset, items)):
        return None
    get = dict.get
    tools = list(map(get, items, repeat("tool")))
    args = list(map(get, items, repeat("args")))
    required = list(map(get, items, repeat("required"), repeat(True)))
    descriptions = list(map(get, items, repeat("description")))
    if not (set(map(type, tools)) <= _STR and all(tools)
            and set(map(type, required)) <= _BOOL
            and set(map(type, descriptions)) <= _OPTIONAL_STR
            and set(map(type, args)) <= _OPTIONAL_DICT):
        return None
    given = [a for a in args if a is not None]
    try:
        if not set(map(type, chain.from_iterable(map(dict.values, given)))) <= _PLAIN:
            return None
        if "$" in "".join(chain.from_iterable(given)):
            return None
    except TypeError:  # a key that is not a string: the long way reports it
        return None
    copies = [None if a is None else a.copy() for a in args]
    return tuple(map(ExpectedCall, tools, copies, required, descriptions))  # type: ignore[arg-type]


def _expected_call(item: Any, *, file: str | None, where: str) -> ExpectedCall:
    """One expected call, fully validated (matchers parsed, errors naming the place)."""
    if isinstance(item, ExpectedCall):
        if item.args is not None and not isinstance(item.args, Mapping):
            raise InputError(f"an expected call's args must be a dict of arguments, not "
                             f"{type(item.args).__name__}", file=file, place=f"{where}.args",
                             fix="give args={...} (matchers go on the values), or "
                             "args=None to not check arguments")
        return item
    if not isinstance(item, Mapping):
        raise InputError(f"an expected call is an object, not {type_name(item)}", file=file,
                         place=where, fix='write {"tool": "name", "args": {...}}')
    refuse_unknown(item, EXPECTED_KEYS, file=file, path=where)
    tool = item.get("tool")
    if not isinstance(tool, str) or not tool:
        raise InputError('"tool" must be a non-empty string', file=file, place=where,
                         fix='add "tool": "<tool name>"')
    args = item.get("args")
    if args is not None and not isinstance(args, Mapping):
        raise InputError(f'"args" must be an object, not {type_name(args)}', file=file,
                         place=f"{where}.args",
                         fix='write "args": {...}, or omit it to not check arguments')
    required = item.get("required", True)
    if not isinstance(required, bool):
        raise InputError('"required" must be true or false', file=file,
                         place=f"{where}.required")
    description = item.get("description")
    if description is not None and not isinstance(description, str):
        raise InputError('"description" must be a string', file=file,
                         place=f"{where}.description")
    return ExpectedCall(
        tool=tool,
        args=None if args is None else _arguments(dict(args), file=file, path=f"{where}.args"),
        required=required,
        description=description,
    )


def parse_forbidden(
    items: Any, *, file: str | None = None, path: str = "$"
) -> tuple[ForbiddenRule, ...]:
    """Forbidden-call rules: a list of ``{"tool", "args", "reason"}`` objects.

    ``{"forbidden": [...]}`` is read the same way.
    """
    if isinstance(items, Mapping) and set(items) == {"forbidden"}:
        items, path = items["forbidden"], f"{path}.forbidden"
    if not isinstance(items, list | tuple):
        raise InputError(f"forbidden rules must be a list, not {type_name(items)}", file=file,
                         place=path, fix='write [{"tool": "name", "reason": "why"}]')
    rules = []
    for i, item in enumerate(items):
        where = f"{path}[{i}]"
        if isinstance(item, ForbiddenRule):
            if item.args is not None and not isinstance(item.args, Mapping):
                raise InputError(f"a forbidden rule's args must be a dict of arguments, not "
                                 f"{type(item.args).__name__}", file=file, place=f"{where}.args",
                                 fix="give args={...} (matchers go on the values), or "
                                 "args=None for any arguments")
            rules.append(item)
            continue
        if not isinstance(item, Mapping):
            raise InputError(f"a forbidden rule is an object, not {type_name(item)}", file=file,
                             place=where, fix='write {"tool": "name", "reason": "why"}')
        refuse_unknown(item, FORBIDDEN_KEYS, file=file, path=where)
        tool = _matchers(item.get("tool"), file=file, path=f"{where}.tool")
        if not (isinstance(tool, Matcher) or (isinstance(tool, str) and tool)):
            raise InputError('"tool" must be a tool name or a matcher', file=file, place=where,
                             fix='add "tool": "<tool name>"')
        args = item.get("args")
        if args is not None and not isinstance(args, Mapping):
            raise InputError(f'"args" must be an object, not {type_name(args)}', file=file,
                             place=f"{where}.args")
        reason = item.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise InputError('"reason" must be a string', file=file, place=f"{where}.reason")
        rules.append(ForbiddenRule(
            tool=tool,
            args=None if args is None else _arguments(args, file=file, path=f"{where}.args"),
            reason=reason,
        ))
    return tuple(rules)


def parse_side_effects(
    items: Any, *, file: str | None = None, path: str = "$"
) -> tuple[SideEffect, ...]:
    """Declared side effects: a list of ``{"type": ..., ...}`` objects."""
    if not isinstance(items, list | tuple):
        raise InputError(f"side effects must be a list, not {type_name(items)}", file=file,
                         place=path, fix='write [{"type": "file_exists", "path": "..."}]')
    effects = []
    for i, item in enumerate(items):
        where = f"{path}[{i}]"
        if isinstance(item, SideEffect):
            effects.append(item)
            continue
        if not isinstance(item, Mapping) or item.get("type") not in SIDE_EFFECT_TYPES:
            raise InputError('a side effect needs "type"', file=file, place=where,
                             fix=f"use one of {', '.join(SIDE_EFFECT_TYPES)}")
        spec = {k: v for k, v in item.items() if k not in ("type", "description")}
        _check_side_effect(item["type"], spec, item.get("description"), file=file, path=where)
        effects.append(SideEffect(type=item["type"], spec=spec,
                                  description=item.get("description")))
    return tuple(effects)


def _check_side_effect(kind: str, spec: Mapping[str, Any], description: Any, *,
                       file: str | None, path: str) -> None:
    required, optional = SIDE_EFFECT_KEYS[kind]
    refuse_unknown(spec, required + optional, file=file, path=path)
    for key in required:
        if not isinstance(spec.get(key), str) or not spec[key].strip():
            raise InputError(f'a {kind} side effect needs "{key}" (a non-empty string)',
                             file=file, place=f"{path}.{key}", fix=f'add "{key}": "..."')
    if description is not None and not isinstance(description, str):
        raise InputError('"description" must be a string', file=file, place=f"{path}.description")
    if kind == "file_contains" and len([k for k in ("text", "regex") if k in spec]) != 1:
        raise InputError('a file_contains side effect needs exactly one of "text" or "regex"',
                         file=file, place=path, fix='add "text": "what the file must contain"')
    for key in ("text", "regex", "body_contains"):
        if key in spec and not isinstance(spec[key], str):
            raise InputError(f'"{key}" must be a string', file=file, place=f"{path}.{key}")
    if "regex" in spec:
        try:
            re.compile(spec["regex"])
        except re.error as exc:
            raise InputError(f"invalid regular expression ({exc})", file=file,
                             place=f"{path}.regex", fix="fix the pattern") from None
    if kind == "http_get" and not str(spec["url"]).startswith(("http://", "https://")):
        raise InputError("the url must start with http:// or https://", file=file,
                         place=f"{path}.url")
    for key, low in (("status", 100), ("rows", 0)):
        value = spec.get(key)
        if key in spec and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise InputError(f'"{key}" must be a whole number from {low}', file=file,
                             place=f"{path}.{key}")
    timeout = spec.get("timeout")
    if "timeout" in spec and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                              or not 0 < timeout <= 300):
        raise InputError('"timeout" must be seconds between 0 and 300', file=file,
                         place=f"{path}.timeout")


def contract_json(contract: Contract) -> list[dict[str, Any]]:
    """The expected calls in JSON form (matchers as ``{"$...": ...}``), for hashing."""
    return [expected_call_json(call) for call in contract.expected]


def expected_call_json(call: ExpectedCall) -> dict[str, Any]:
    data: dict[str, Any] = {"tool": call.tool, "required": call.required}
    if call.args is not None:
        data["args"] = to_json(call.args)
    if call.description is not None:
        data["description"] = call.description
    return data


def _arguments(args: Mapping[str, Any], *, file: str | None, path: str) -> Any:
    """Expected arguments: an object whose values may be matchers (the object itself is
    not one: ``"args": {"$any": true}`` would leave every metric nothing to compare)."""
    value = _matchers(args, file=file, path=path)
    if isinstance(value, Matcher):
        raise InputError(
            f"a matcher ({next(iter(args))}) stands for one argument's value, not for the "
            "whole arguments object", file=file, place=path,
            fix='put it under an argument\'s name, {"name": {"$...": ...}}, or omit "args" '
                "to not check arguments")
    return value


def _matchers(value: Any, *, file: str | None, path: str) -> Any:
    if isinstance(value, Matcher):
        return value
    return from_json(value, path=path, file=file)

