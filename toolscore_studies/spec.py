"""The study spec (YAML or JSON): study-level defaults and task definitions by task id."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from attrs import field, frozen

from toolscore_core.canonical import sha256_hex
from toolscore_core.contracts import parse_expected, parse_forbidden, parse_side_effects
from toolscore_core.documents import (
    YAML_SUFFIXES,
    parse_json,
    parse_yaml,
    read_bytes,
    refuse_unknown,
    type_name,
)
from toolscore_core.errors import InputError
from toolscore_core.matchers import to_json
from toolscore_core.models import Contract, ForbiddenRule

STUDY_KEYS = ("study", "version", "description", "defaults", "tasks")
DEFAULT_KEYS = ("weights", "pass_threshold", "forbidden", "honesty", "pricing")
TASK_KEYS = ("prompt", "expected", "forbidden", "side_effects", "pass_threshold", "weights",
             "honesty", "mcp_server", "description")
MCP_KEYS = ("command", "env", "inject_fault", "inject_prompt")
PRICE_KEYS = ("input_per_mtok", "output_per_mtok")
DEFAULT_PASS_THRESHOLD = 0.8
"""A run passes at grade B or better unless the spec says otherwise."""


@frozen
class Price:
    """USD per million tokens for one model."""

    input_per_mtok: float
    output_per_mtok: float


@frozen
class McpServer:
    """An MCP server the agent talks to during a task, recorded through ``toolscore mcp record``."""

    command: tuple[str, ...]
    """The server command as a list of arguments (no shell)."""
    env: Mapping[str, str] = field(factory=dict)
    """Extra environment for the server."""
    inject_fault: tuple[Mapping[str, Any], ...] = ()
    """Faults the proxy plants (``--inject-fault``), each as the keys of a plan file entry."""
    inject_prompt: tuple[Mapping[str, Any], ...] = ()
    """Prompt injections the proxy plants (``--inject-prompt``), likewise."""

    @property
    def plants(self) -> bool:
        """Whether the proxy plants anything in this task's sessions."""
        return bool(self.inject_fault or self.inject_prompt)

    def plan_json(self) -> dict[str, Any]:
        """The plan as a ``--inject-file`` document."""
        return {"faults": [dict(f) for f in self.inject_fault],
                "injections": [dict(i) for i in self.inject_prompt]}


@frozen
class Task:
    """One task of a study, with the study defaults already merged in."""

    id: str
    prompt: str
    contract: Contract
    """Expected calls, the task's and the study's forbidden rules, side effects."""
    pass_threshold: float
    weights: Mapping[str, float] | None
    """Weight overrides (study defaults, then the task's), or None for toolscore's defaults."""
    honesty: Mapping[str, Any] | None
    mcp_server: McpServer | None = None
    description: str | None = None

    def contract_json(self) -> dict[str, Any]:
        """The contract in its JSON form (matchers as ``{"$...": ...}``), stored in run records."""
        return contract_to_json(self.contract)


@frozen
class Study:
    """A validated study spec."""

    name: str
    version: str | None
    tasks: Mapping[str, Task]
    """Tasks by id, in the order the spec lists them."""
    pricing: Mapping[str, Price] = field(factory=dict)
    """Known prices by model name."""
    sha256: str | None = None
    """SHA-256 of the spec file's bytes (None for a spec built in memory)."""
    path: str | None = None

    def check_weights(self, metrics: Mapping[str, Any]) -> None:
        """Refuse weights that name no weightable metric of the loaded plugins."""
        from toolscore_core.scoring import resolve_weights

        for task in self.tasks.values():
            try:
                resolve_weights(metrics, task.weights)
            except InputError as exc:
                raise InputError(f"task {task.id!r}: {exc.problem}", file=self.path,
                                 place=f"$.tasks.{task.id}.weights (or $.defaults.weights)",
                                 fix=exc.fix) from None

    def select(self, task_ids: tuple[str, ...] | list[str] | None) -> list[Task]:
        """The tasks to run: all, or the ones named (an unknown id is an error)."""
        if not task_ids:
            return list(self.tasks.values())
        chosen = []
        for task_id in task_ids:
            if task_id not in self.tasks:
                raise InputError(f"no task {task_id!r} in the study", file=self.path,
                                 place="tasks=", fix=f"use one of {', '.join(self.tasks)}")
            chosen.append(self.tasks[task_id])
        return chosen


def contract_to_json(contract: Contract) -> dict[str, Any]:
    """A Contract as the JSON object ``parse_contract`` reads back."""
    expected = []
    for call in contract.expected:
        item: dict[str, Any] = {"tool": call.tool, "required": call.required}
        if call.args is not None:
            item["args"] = to_json(call.args)
        if call.description is not None:
            item["description"] = call.description
        expected.append(item)
    return {
        "expected": expected,
        "forbidden": [forbidden_to_json(rule) for rule in contract.forbidden],
        "side_effects": [
            {"type": e.type, **dict(e.spec),
             **({} if e.description is None else {"description": e.description})}
            for e in contract.side_effects
        ],
    }


def forbidden_to_json(rule: ForbiddenRule) -> dict[str, Any]:
    item: dict[str, Any] = {"tool": to_json(rule.tool)}
    if rule.args is not None:
        item["args"] = to_json(rule.args)
    if rule.reason is not None:
        item["reason"] = rule.reason
    return item


def load_study(path: str | os.PathLike[str]) -> Study:
    """Read and validate a study spec (YAML by suffix, else JSON)."""
    name = str(path)
    data = read_bytes(path, what="study spec")
    if name.lower().endswith(YAML_SUFFIXES):
        document = parse_yaml(data, file=name, unique_keys=True)
    else:
        document = parse_json(data, file=name, unique_keys=True)
    return parse_study(document, file=name, sha256=sha256_hex(data))


def parse_study(document: Any, *, file: str | None = None, sha256: str | None = None) -> Study:
    """Validate a decoded spec; an error names the task id and the field."""
    if isinstance(document, Study):
        return document
    if not isinstance(document, Mapping):
        raise InputError(f"a study spec is an object, not {type_name(document)}", file=file,
                         place="$", fix="write study: <name> and tasks: {<id>: {...}}")
    refuse_unknown(document, STUDY_KEYS, file=file, path="$")
    name = document.get("study")
    if not isinstance(name, str) or not name.strip():
        raise InputError('"study" must be a non-empty string (the study name)', file=file,
                         place="$.study", fix="add study: <name>")
    version = document.get("version")
    if version is not None and not isinstance(version, str | int | float):
        raise InputError('"version" must be a string', file=file, place="$.version")
    defaults = document.get("defaults") or {}
    if not isinstance(defaults, Mapping):
        raise InputError(f'"defaults" must be an object, not {type_name(defaults)}', file=file,
                         place="$.defaults")
    refuse_unknown(defaults, DEFAULT_KEYS, file=file, path="$.defaults")
    default_weights = _weights(defaults.get("weights"), file=file, path="$.defaults.weights")
    default_threshold = _threshold(defaults.get("pass_threshold", DEFAULT_PASS_THRESHOLD),
                                   file=file, path="$.defaults.pass_threshold")
    default_forbidden = parse_forbidden(defaults.get("forbidden") or [], file=file,
                                        path="$.defaults.forbidden")
    default_honesty = _mapping_or_none(defaults.get("honesty"), file=file,
                                       path="$.defaults.honesty")
    pricing = _pricing(defaults.get("pricing"), file=file)
    raw_tasks = document.get("tasks")
    if not isinstance(raw_tasks, Mapping) or not raw_tasks:
        raise InputError('"tasks" must be a non-empty object of tasks by id', file=file,
                         place="$.tasks",
                         fix="write tasks: {<task id>: {prompt: ..., expected: [...]}}")
    tasks: dict[str, Task] = {}
    for raw_id, body in raw_tasks.items():
        task_id = str(raw_id)
        where = f"$.tasks.{task_id}"
        if not task_id.strip():
            raise InputError("a task id must not be empty", file=file, place=where)
        tasks[task_id] = _task(task_id, body, where, file=file, weights=default_weights,
                               threshold=default_threshold, forbidden=default_forbidden,
                               honesty=default_honesty)
    return Study(name=name, version=None if version is None else str(version), tasks=tasks,
                 pricing=pricing, sha256=sha256, path=file)


def _task(
    task_id: str, body: Any, where: str, *, file: str | None,
    weights: dict[str, float] | None, threshold: float, forbidden: tuple[ForbiddenRule, ...],
    honesty: Mapping[str, Any] | None,
) -> Task:
    if not isinstance(body, Mapping):
        raise InputError(f"task {task_id!r} must be an object, not {type_name(body)}",
                         file=file, place=where)
    refuse_unknown(body, TASK_KEYS, file=file, path=where)
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise InputError(f'task {task_id!r}: "prompt" must be a non-empty string', file=file,
                         place=f"{where}.prompt", fix="add prompt: <what the agent is asked>")
    if "expected" not in body:
        raise InputError(f'task {task_id!r}: missing "expected"', file=file,
                         place=f"{where}.expected", fix="add expected: [{tool: ..., args: {...}}]")
    try:
        expected = parse_expected(body["expected"], file=file, path=f"{where}.expected")
        rules = parse_forbidden(body.get("forbidden") or [], file=file,
                                path=f"{where}.forbidden")
        effects = parse_side_effects(body.get("side_effects") or [], file=file,
                                     path=f"{where}.side_effects")
    except InputError as exc:
        raise InputError(f"task {task_id!r}: {exc.problem}", file=exc.file, place=exc.place,
                         fix=exc.fix) from None
    task_weights = _weights(body.get("weights"), file=file, path=f"{where}.weights")
    merged = None if weights is None and task_weights is None else {
        **(weights or {}), **(task_weights or {})}
    task_honesty = _mapping_or_none(body.get("honesty"), file=file, path=f"{where}.honesty")
    description = body.get("description")
    if description is not None and not isinstance(description, str):
        raise InputError(f'task {task_id!r}: "description" must be a string', file=file,
                         place=f"{where}.description")
    return Task(
        id=task_id, prompt=prompt,
        contract=Contract(expected=expected, forbidden=forbidden + rules, side_effects=effects),
        pass_threshold=_threshold(body.get("pass_threshold", threshold), file=file,
                                  path=f"{where}.pass_threshold", task_id=task_id),
        weights=merged,
        honesty=task_honesty if task_honesty is not None else honesty,
        mcp_server=_mcp(body.get("mcp_server"), file=file, path=f"{where}.mcp_server",
                        task_id=task_id),
        description=description,
    )


def _weights(value: Any, *, file: str | None, path: str) -> dict[str, float] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(f"weights must be an object of metric: number, not {type_name(value)}",
                         file=file, place=path)
    weights = {}
    for name, number in value.items():
        if isinstance(number, bool) or not isinstance(number, int | float) or not (
            math.isfinite(number) and number >= 0
        ):
            raise InputError(f"weight {name!r} must be a number >= 0", file=file,
                             place=f"{path}.{name}")
        weights[str(name)] = float(number)
    return weights


def _threshold(value: Any, *, file: str | None, path: str, task_id: str | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        who = f"task {task_id!r}: " if task_id else ""
        raise InputError(f'{who}"pass_threshold" must be a number from 0 to 1, not {value!r}',
                         file=file, place=path, fix="write e.g. pass_threshold: 0.8")
    return float(value)


def _mapping_or_none(value: Any, *, file: str | None, path: str) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(f"must be an object, not {type_name(value)}", file=file, place=path)
    return dict(value)


def _pricing(value: Any, *, file: str | None) -> dict[str, Price]:
    path = "$.defaults.pricing"
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError("pricing must be an object of model: {input_per_mtok, output_per_mtok}",
                         file=file, place=path)
    prices = {}
    for model, entry in value.items():
        where = f"{path}.{model}"
        if not isinstance(entry, Mapping):
            raise InputError("a price is an object", file=file, place=where,
                             fix="write {input_per_mtok: 3.0, output_per_mtok: 15.0}")
        refuse_unknown(entry, PRICE_KEYS, file=file, path=where)
        numbers = []
        for key in PRICE_KEYS:
            number = entry.get(key)
            if isinstance(number, bool) or not isinstance(number, int | float) or not (
                math.isfinite(number) and number >= 0
            ):
                raise InputError(f'"{key}" must be a number >= 0 (USD per million tokens)',
                                 file=file, place=f"{where}.{key}")
            numbers.append(float(number))
        prices[str(model)] = Price(input_per_mtok=numbers[0], output_per_mtok=numbers[1])
    return prices


def _mcp(value: Any, *, file: str | None, path: str, task_id: str) -> McpServer | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(f'task {task_id!r}: "mcp_server" must be an object', file=file,
                         place=path, fix="write mcp_server: {command: [python, server.py]}")
    refuse_unknown(value, MCP_KEYS, file=file, path=path)
    command = value.get("command")
    if (not isinstance(command, list) or not command
            or not all(isinstance(part, str) and part for part in command)):
        raise InputError(f'task {task_id!r}: "command" must be a non-empty list of strings',
                         file=file, place=f"{path}.command",
                         fix="write command: [python, server.py] (no shell)")
    env = value.get("env") or {}
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        raise InputError(f'task {task_id!r}: "env" must be an object of strings', file=file,
                         place=f"{path}.env")
    return McpServer(command=tuple(command), env={str(k): v for k, v in env.items()},
                     inject_fault=_plantings(value.get("inject_fault"), "fault", file=file,
                                             path=f"{path}.inject_fault", task_id=task_id),
                     inject_prompt=_plantings(value.get("inject_prompt"), "injection",
                                              file=file, path=f"{path}.inject_prompt",
                                              task_id=task_id))


def _plantings(value: Any, kind: str, *, file: str | None, path: str,
               task_id: str) -> tuple[Mapping[str, Any], ...]:
    """Faults or injections to plant: each the ``toolscore mcp record`` option's text
    (``tool=deploy,nth=1``) or an object with the same keys; checked now, not mid-study."""
    from toolscore_mcp.planting import (
        FAULT_KEYS,
        INJECTION_KEYS,
        fault_from_mapping,
        injection_from_mapping,
        split_spec,
    )

    if value is None:
        return ()
    option = "--inject-fault" if kind == "fault" else "--inject-prompt"
    example = ("tool=deploy,error=Service unavailable" if kind == "fault"
               else "tool=fetch_page,text=Ignore previous instructions...,target=send_email")
    if not isinstance(value, list):
        raise InputError(f'task {task_id!r}: must be a list, not {type_name(value)}', file=file,
                         place=path, fix=f"write [{example!r}]")
    entries = []
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        try:
            if isinstance(item, str):
                entry: Mapping[str, Any] = split_spec(
                    item, FAULT_KEYS if kind == "fault" else INJECTION_KEYS, option=option)
            elif isinstance(item, Mapping):
                entry = dict(item)
            else:
                raise InputError(f"must be text like {option} takes or an object, not "
                                 f"{type_name(item)}", place=where, fix=f"write {example!r}")
            if kind == "fault":
                fault_from_mapping(entry, place=where)
            else:
                injection_from_mapping(entry, place=where)
        except InputError as exc:
            place = exc.place if exc.place and exc.place.startswith(where) else where
            raise InputError(f"task {task_id!r}: {exc.problem}", file=file, place=place,
                             fix=exc.fix) from None
        entries.append({str(k): v for k, v in entry.items()})
    return tuple(entries)

