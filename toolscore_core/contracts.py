"""Contracts (gold files): expected calls, forbidden rules and side effects, validated."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from attrs import evolve

from toolscore_core.documents import parse_document, read_bytes, type_name
from toolscore_core.errors import InputError
from toolscore_core.matchers import Matcher, from_json, to_json
from toolscore_core.models import (
    Contract,
    ErrorRule,
    ExpectedCall,
    ForbiddenRule,
    SideEffect,
)
from toolscore_core.patterns import PatternError, compile_pattern
from toolscore_core.structure import Refusal, get_converter, shape, structure


def load_contract(path: str | os.PathLike[str]) -> Contract:
    """Read a gold file (JSON or YAML) into a Contract. The last few contracts read are
    kept by file name and bytes (a contract is immutable): a batch that evaluates many
    traces against one gold file reads it every time but parses it once."""
    name = str(path)
    data = read_bytes(path, what="gold file")
    found = _READ.get((name, data))
    if found is None:
        found = parse_contract(parse_document(data, file=name), file=name)
        if len(_READ) >= _KEPT:
            del _READ[next(iter(_READ))]
        _READ[name, data] = found
    return found


_READ: dict[tuple[str, bytes], Contract] = {}
_KEPT = 8


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
    if "expected" not in data:
        raise InputError('missing "expected"', file=file, place="$",
                         fix='add "expected": [...] (the expected calls)')
    rest = structure({k: v for k, v in data.items() if k != "expected"}, Contract,
                     source=file)
    if data["expected"] is None:
        raise InputError("expected calls must be a list, not null", file=file,
                         place="$.expected", fix='write [{"tool": "name", "args": {...}}]')
    contract = evolve(rest, expected=parse_expected(data["expected"], file=file,
                                                    path="$.expected"))
    check_judgment(contract, file)
    return contract


UNJUDGED_FIX = ("add the tool to judge_tools (or take it out of ignore_tools), or drop the "
                "rule")


def unjudged_rule(tool: str) -> str:
    """Why a forbidden rule for a tool the contract leaves out is refused."""
    return (f"a forbidden rule for {tool!r}, a tool the contract does not judge, could never "
            "fire: its calls are left out of every check")


def check_judgment(contract: Contract, file: str | None, path: str = "$",
                   forbidden_places: tuple[str, ...] | None = None) -> None:
    """Refuse what the trajectory keys cannot mean together. ``path`` is the contract's
    place in its file; ``forbidden_places``, the place of each forbidden rule when they do
    not all sit under ``path`` (a study's defaults and its task's)."""
    if contract.judge_tools is not None and contract.ignore_tools is not None:
        raise InputError('"judge_tools" and "ignore_tools" cannot both be given', file=file,
                         place=f"{path}.ignore_tools",
                         fix="keep one: the tools that count, or the tools left out")
    for i, call in enumerate(contract.expected):
        if not contract.judges(call.tool):
            raise InputError(
                f"the expected call of {call.tool!r} is of a tool the contract does not judge",
                file=file, place=f"{path}.expected[{i}].tool",
                fix=f"add {call.tool!r} to judge_tools (or take it out of ignore_tools), or "
                    "remove the expected call")
        if call.closed and contract.match is None:
            raise InputError('"closed" is judged by the trajectory check, which needs "match"',
                             file=file, place=f"{path}.expected[{i}].closed",
                             fix='add "match": "superset" (or another mode) to the contract')
    for i, rule in enumerate(contract.forbidden):
        if isinstance(rule.tool, str) and not contract.judges(rule.tool):
            where = f"{path}.forbidden[{i}]" if forbidden_places is None else forbidden_places[i]
            raise InputError(unjudged_rule(rule.tool), file=file, place=f"{where}.tool",
                             fix=UNJUDGED_FIX)
    if contract.closed and contract.match is None:
        raise InputError('"closed" is judged by the trajectory check, which needs "match"',
                         file=file, place=f"{path}.closed",
                         fix='add "match": "superset" (or another mode) to the contract')


def parse_expected(
    items: Any, *, file: str | None = None, path: str = "$"
) -> tuple[ExpectedCall, ...]:
    """Expected calls from a list of objects or ExpectedCall records."""
    return structure(items, tuple[ExpectedCall, ...], source=file, place=path)


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
    return structure(items, tuple[ForbiddenRule, ...], source=file, place=path)


def _arguments(value: Any, _: Any = None, *, judged: bool = True) -> dict[str, Any] | None:
    """Arguments: an object whose values may be matchers, ``$judge`` too when ``judged`` (an
    expected call's; a forbidden rule's are not), the object itself not one: ``"args":
    {"$any": true}`` would leave metrics nothing to compare."""
    if type(value) is not dict:  # most arguments are: one test
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise Refusal(f"must be an object, not {type_name(value)}",
                          'write "args": {...}, or omit it to not check arguments')
        value = dict(value)
    try:
        parsed = from_json(value, judged=judged)
    except RecursionError:
        raise Refusal("values nested too deeply to read", "flatten the arguments") from None
    if type(parsed) is not dict and isinstance(parsed, Matcher):
        raise Refusal(
            f"a matcher ({next(iter(value))}) stands for one argument's value, not for the "
            "whole arguments object",
            'put it under an argument\'s name, {"name": {"$...": ...}}, or omit "args" to not '
            "check arguments")
    return parsed


def _tool(value: Any, _: Any = None) -> str:
    if not isinstance(value, str) or not value:
        raise Refusal('"tool" must be a non-empty string', 'add "tool": "<tool name>"', up=True)
    return value


def _turn(value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or value < 1:
        raise Refusal(f'"turn" must be a whole number from 1, not {value!r}',
                      'write "turn": 2 for the second user turn, or omit it for any turn')
    return value


def _rule_tool(value: Any) -> Any:
    tool = from_json(value)
    if not (isinstance(tool, Matcher) or (isinstance(tool, str) and tool)):
        raise Refusal('"tool" must be a tool name or a matcher', 'add "tool": "<tool name>"',
                      up=True)
    return tool


def _error_pattern(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise Refusal('"result" must be a regular expression', 'write "result": "^Error:"',
                      up=True)
    try:
        compile_pattern(value)
    except PatternError as exc:
        raise Refusal(f"invalid regular expression ({exc})", "fix the pattern") from None
    return value


def parse_error_rules(items: Any, *, file: str | None = None,
                      path: str = "$") -> tuple[ErrorRule, ...]:
    """``error_when`` rules: a list of ``{"result": regex, "tool": name}`` objects."""
    return structure(items, tuple[ErrorRule, ...], source=file, place=path)


def _side_effect(item: Mapping[str, Any]) -> SideEffect:
    # Imported here: a contract without side effects loads none of the probes' records.
    from toolscore_core.probes import PROBE_SHAPES

    kind = item.get("type")
    if kind not in PROBE_SHAPES:
        raise Refusal('a side effect needs "type"', f"use one of {', '.join(PROBE_SHAPES)}")
    probe = get_converter().structure({k: v for k, v in item.items() if k != "type"},
                                      PROBE_SHAPES[kind])
    spec = {k: v for k, v in item.items() if k not in ("type", "description")}
    return SideEffect(type=kind, spec=spec, description=probe.description)


def _tool_names(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
        raise Refusal("must be a list of tool names", 'write ["tool_a", "tool_b"]')
    return tuple(value)


def _outputs(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
        raise Refusal("must be a list of non-empty strings",
                      'write ["a text the agent must tell the user"]')
    return tuple(value)


shape(Contract, "a contract", '{"expected": [...]}', judge_tools=_tool_names,
      ignore_tools=_tool_names, expected_outputs=_outputs)
shape(ErrorRule, "an error rule", 'write {"result": "^Error:"}',
      result=_error_pattern, tool=lambda value: None if value is None else _tool(value))
shape(ExpectedCall, "an expected call", 'write {"tool": "name", "args": {...}}', tool=_tool,
      args=_arguments, turn=_turn)
shape(ForbiddenRule, "a forbidden rule", 'write {"tool": "name", "reason": "why"}',
      tool=_rule_tool, args=lambda value: _arguments(value, judged=False))
shape(SideEffect, "a side effect", 'write {"type": "file_exists", "path": "..."}',
      read=_side_effect)


def contract_json(contract: Contract) -> list[dict[str, Any]]:
    """The expected calls in JSON form (matchers as ``{"$...": ...}``), for hashing."""
    return [expected_call_json(call) for call in contract.expected]


def expected_call_json(call: ExpectedCall) -> dict[str, Any]:
    data: dict[str, Any] = {"tool": call.tool, "required": call.required}
    if call.args is not None:
        data["args"] = to_json(call.args)
    if call.description is not None:
        data["description"] = call.description
    if call.closed:  # only when set: contracts without it keep their hashes
        data["closed"] = True
    if call.turn is not None:
        data["turn"] = call.turn
    return data


def judgment_json(contract: Contract) -> dict[str, Any]:
    """The contract's trajectory keys that are set, in JSON form (empty when none is)."""
    data: dict[str, Any] = {}
    if contract.match is not None:
        data["match"] = contract.match
    if contract.judge_tools is not None:
        data["judge_tools"] = list(contract.judge_tools)
    if contract.ignore_tools is not None:
        data["ignore_tools"] = list(contract.ignore_tools)
    if contract.closed:
        data["closed"] = True
    if contract.error_when:
        data["error_when"] = [{"result": r.result, **({} if r.tool is None else {"tool": r.tool})}
                              for r in contract.error_when]
    if contract.expected_outputs:
        data["expected_outputs"] = list(contract.expected_outputs)
    return data
