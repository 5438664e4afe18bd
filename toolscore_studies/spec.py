"""The study spec (YAML or JSON): study-level defaults and task definitions by task id."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from attrs import evolve, field, frozen

from toolscore_core.canonical import sha256_hex
from toolscore_core.contracts import check_judgment, judgment_json, parse_expected
from toolscore_core.documents import YAML_SUFFIXES, parse_json, parse_yaml, read_bytes, type_name
from toolscore_core.errors import InputError
from toolscore_core.matchers import to_json
from toolscore_core.models import Contract, ForbiddenRule, SideEffect
from toolscore_core.structure import Refusal, at_least, shape, structure

DEFAULT_PASS_THRESHOLD = 0.8
"""A run passes at grade B or better unless the spec says otherwise."""

JUDGMENT_KEYS = ("match", "judge_tools", "ignore_tools", "closed", "error_when",
                 "expected_outputs")
"""A task's keys read exactly as a contract's (the converter's Contract shape); in the
study's ``defaults`` they are every task's unless the task gives the key itself."""


@frozen
class Price:
    """USD per million tokens for one model."""

    input_per_mtok: float = field(validator=at_least(0))
    output_per_mtok: float = field(validator=at_least(0))


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
        if call.closed:
            item["closed"] = True
        expected.append(item)
    return {
        "expected": expected,
        "forbidden": [forbidden_to_json(rule) for rule in contract.forbidden],
        "side_effects": [
            {"type": e.type, **dict(e.spec),
             **({} if e.description is None else {"description": e.description})}
            for e in contract.side_effects
        ],
        # only when given: the records of tasks without one keep their bytes
        **({} if contract.expected_answer is None
           else {"expected_answer": contract.expected_answer}),
        **judgment_json(contract),
    }


def forbidden_to_json(rule: ForbiddenRule) -> dict[str, Any]:
    item: dict[str, Any] = {"tool": to_json(rule.tool)}
    if rule.args is not None:
        item["args"] = to_json(rule.args)
    if rule.reason is not None:
        item["reason"] = rule.reason
    if not rule.count_failed:
        item["count_failed"] = False
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
    shared: dict[str, Any] = {}
    if isinstance(document, Mapping) and isinstance(document.get("defaults"), Mapping):
        shared = {k: v for k, v in document["defaults"].items() if k in JUDGMENT_KEYS}
        document = {**document, "defaults": {k: v for k, v in document["defaults"].items()
                                             if k not in JUDGMENT_KEYS}}
    spec = structure(document, StudySpec, source=file)
    if shared:  # refused here, at its own place, rather than under the first task
        structure(shared, Contract, source=file, place="$.defaults")
    defaults = spec.defaults or Defaults()
    tasks = {}
    for task_id, body in spec.tasks.items():
        place = f"$.tasks.{task_id}"
        try:
            task = structure({k: v for k, v in body.items() if k not in JUDGMENT_KEYS},
                             TaskSpec, source=file, place=place)
            judged = {**shared, **{k: body[k] for k in JUDGMENT_KEYS if k in body}}
            rest = structure(judged, Contract, source=file, place=place) if judged else Contract()
            if "expected" not in body:
                raise InputError('missing "expected"', file=file,
                                 place=f"$.tasks.{task_id}.expected",
                                 fix="add expected: [{tool: ..., args: {...}}]")
            contract = evolve(
                rest, expected=parse_expected(body["expected"], file=file,
                                              path=f"{place}.expected"),
                forbidden=defaults.forbidden + task.forbidden, side_effects=task.side_effects,
                expected_answer=task.expected_answer)
            check_judgment(contract, file, place, forbidden_places=(
                tuple(f"$.defaults.forbidden[{i}]" for i in range(len(defaults.forbidden)))
                + tuple(f"{place}.forbidden[{i}]" for i in range(len(task.forbidden)))))
        except InputError as exc:
            raise InputError(f"task {task_id!r}: {exc.problem}", file=exc.file, place=exc.place,
                             fix=exc.fix) from None
        weights = None if defaults.weights is None and task.weights is None else {
            **(defaults.weights or {}), **(task.weights or {})}
        tasks[task_id] = Task(
            id=task_id, prompt=task.prompt, contract=contract,
            pass_threshold=(defaults.pass_threshold if task.pass_threshold is None
                            else task.pass_threshold),
            weights=weights,
            honesty=task.honesty if task.honesty is not None else defaults.honesty,
            mcp_server=task.mcp_server, description=task.description)
    return Study(name=spec.study, version=spec.version, tasks=tasks, pricing=defaults.pricing,
                 sha256=sha256, path=file)


def _weights(_: Any, attribute: Any, value: Mapping[str, float] | None) -> None:
    for name, number in (value or {}).items():
        if number < 0:
            raise Refusal(f"weight {name!r} must be a number >= 0", key=f"{attribute.name}.{name}")


@frozen
class Defaults:
    """A study's ``defaults``: what every task has unless it says otherwise."""

    weights: Mapping[str, float] | None = field(default=None, validator=_weights)
    pass_threshold: float = field(default=DEFAULT_PASS_THRESHOLD, validator=at_least(0, 1))
    forbidden: tuple[ForbiddenRule, ...] = ()
    honesty: Mapping[str, Any] | None = None
    pricing: Mapping[str, Price] = field(factory=dict)


@frozen
class TaskSpec:
    """A task as the spec writes it (``expected`` and the ``JUDGMENT_KEYS`` are read as a
    contract's)."""

    prompt: str
    expected: Any = None
    forbidden: tuple[ForbiddenRule, ...] = ()
    side_effects: tuple[SideEffect, ...] = ()
    expected_answer: str | None = None
    pass_threshold: float | None = field(default=None, validator=at_least(0, 1))
    weights: Mapping[str, float] | None = field(default=None, validator=_weights)
    honesty: Mapping[str, Any] | None = None
    mcp_server: McpServer | None = None
    description: str | None = None


@frozen
class StudySpec:
    """A study spec as written: the tasks are read one by one, to name the task."""

    study: str
    tasks: Mapping[str, Mapping[str, Any]]
    version: str | None = None
    description: str | None = None
    defaults: Defaults | None = None


def _filled(what: str, fix: str) -> Any:
    def read(value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise Refusal(f'"{{key}}" must be a non-empty string ({what})', fix)
        return value
    return read


def _tasks(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not value:
        raise Refusal('"tasks" must be a non-empty object of tasks by id',
                      "write tasks: {<task id>: {prompt: ..., expected: [...]}}")
    for task_id in value:
        if not str(task_id).strip():
            raise Refusal("a task id must not be empty")
        if not isinstance(value[task_id], Mapping):
            raise Refusal(f"task {str(task_id)!r} must be an object, not "
                          f"{type_name(value[task_id])}")
    return {str(k): v for k, v in value.items()}


def _version(value: Any) -> str | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, str | int | float)):
        raise Refusal(f"must be a string, not {type_name(value)}")
    return None if value is None else str(value)


def _command(value: Any) -> tuple[str, ...]:
    if (not isinstance(value, list) or not value
            or not all(isinstance(part, str) and part for part in value)):
        raise Refusal('"command" must be a non-empty list of strings',
                      "write command: [python, server.py] (no shell)")
    return tuple(value)


def _plantings(kind: str) -> Any:
    """Faults or injections to plant: each the ``toolscore mcp record`` option's text
    (``tool=deploy,nth=1``) or an object with the same keys; checked now, not mid-study."""
    def read(value: Any) -> tuple[Mapping[str, Any], ...]:
        from toolscore_mcp import planting

        option, keys, check = {
            "fault": ("--inject-fault", planting.FAULT_KEYS, planting.fault_from_mapping),
            "injection": ("--inject-prompt", planting.INJECTION_KEYS,
                          planting.injection_from_mapping)}[kind]
        example = ("tool=deploy,error=Service unavailable" if kind == "fault"
                   else "tool=fetch_page,text=Ignore previous instructions...,target=send_email")
        if value is None:
            return ()
        if not isinstance(value, list):
            raise Refusal(f"must be a list, not {type_name(value)}", f"write [{example!r}]")
        entries = []
        for i, item in enumerate(value):
            where = f"$[{i}]"
            if isinstance(item, str):
                try:
                    entry: Mapping[str, Any] = planting.split_spec(item, keys, option=option)
                except InputError as exc:  # placed at the entry, not at the option
                    raise InputError(exc.problem, place=where, fix=exc.fix) from None
            elif isinstance(item, Mapping):
                entry = dict(item)
            else:
                raise InputError(f"must be text like {option} takes or an object, not "
                                 f"{type_name(item)}", place=where, fix=f"write {example!r}")
            check(entry, place=where)
            entries.append({str(k): v for k, v in entry.items()})
        return tuple(entries)
    return read


shape(StudySpec, "a study spec", "write study: <name> and tasks: {<id>: {...}}",
      study=_filled("the study name", "add study: <name>"), tasks=_tasks, version=_version)
shape(TaskSpec, "a task", "write {prompt: ..., expected: [...]}",
      prompt=_filled("what the agent is asked", "add prompt: <what the agent is asked>"))
shape(Defaults, "the defaults", "write defaults: {weights: ..., pass_threshold: ...}")
shape(Price, "a price", "write {input_per_mtok: 3.0, output_per_mtok: 15.0}")
shape(McpServer, "an MCP server", "write mcp_server: {command: [python, server.py]}",
      command=_command, inject_fault=_plantings("fault"), inject_prompt=_plantings("injection"))
