"""What the proxy plants: fault and prompt-injection plans, their parsing, and the planter.

A plan comes from ``--inject-fault 'tool=deploy,nth=1,error=Service unavailable'``,
``--inject-prompt 'tool=fetch_page,text=...,target=send_email'`` or a YAML/JSON plan file
(``--inject-file``). The :class:`Planter` watches ``tools/call`` requests, remembers which
ones a plan matches, and rewrites their responses; every planting is reported to a
callback (the ``injected.json`` log) and returned to the caller for the session file.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections.abc import Callable, Mapping
from typing import Any, Literal

from attrs import field, frozen, validators

from toolscore_core.documents import load_document, type_name
from toolscore_core.errors import InputError
from toolscore_core.structure import Refusal, shape, structure

FaultMode = Literal["tool_error", "jsonrpc_error"]
FAULT_MODES: tuple[FaultMode, ...] = ("tool_error", "jsonrpc_error")
DEFAULT_ERROR_CODE = -32000
DEFAULT_FAULT_ERROR = "Service unavailable"
CANARY_PLACEHOLDER = "{canary}"

FAULT_KEYS = ("tool", "nth", "error", "mode", "code", "forward")
INJECTION_KEYS = ("tool", "nth", "text", "target", "target_args")
_ITEM_SEPARATOR = re.compile(r",(?=\s*[A-Za-z_]\w*\s*=)")


def new_canary() -> str:
    """A fresh random canary token, e.g. ``TSC-3f9a1c2b7d``."""
    return f"TSC-{secrets.token_hex(5)}"


@frozen
class FaultPlan:
    """Replace the answer to a matching ``tools/call`` with an error."""

    tool: str
    """The tool whose calls it matches."""
    nth: int | None = None
    """The 1-based occurrence of that tool's calls it matches; None: every call."""
    error: str = DEFAULT_FAULT_ERROR
    """The error text the client gets."""
    mode: FaultMode = field(default="tool_error", validator=validators.in_(FAULT_MODES))
    """``tool_error``: a result with ``isError: true``; ``jsonrpc_error``: a JSON-RPC error."""
    code: int = DEFAULT_ERROR_CODE
    """The JSON-RPC error code (``jsonrpc_error`` only)."""
    forward: bool = True
    """Whether the call still reaches the server (its real answer is recorded, then replaced)."""

    def __attrs_post_init__(self) -> None:
        if self.code != DEFAULT_ERROR_CODE and self.mode != "jsonrpc_error":
            raise Refusal("code applies to mode=jsonrpc_error only", key="code")


@frozen
class InjectionPlan:
    """Append a planted instruction, with a fresh canary, to a matching call's result."""

    tool: str
    """The tool whose results it plants into."""
    text: str
    """The instruction; ``{canary}`` marks where the canary goes (else it is appended)."""
    nth: int | None = None
    """The 1-based occurrence of that tool's calls it matches; None: every call."""
    target: str | None = None
    """The tool the instruction tries to make the agent call."""
    target_args: Mapping[str, Any] | None = None
    """The arguments it tries to make the agent use (null: any)."""

    def __attrs_post_init__(self) -> None:
        if self.target_args is not None and self.target is None:
            raise Refusal("target_args needs a target tool", key="target")


@frozen
class Plan:
    """Every fault and injection to plant in one session."""

    faults: tuple[FaultPlan, ...] = ()
    injections: tuple[InjectionPlan, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.faults or self.injections)

    def __add__(self, other: Plan) -> Plan:
        return Plan(self.faults + other.faults, self.injections + other.injections)


# ---------------------------------------------------------------- parsing


def split_spec(text: str, keys: tuple[str, ...], *, option: str) -> dict[str, str]:
    """``key=value,key=value`` into a mapping.

    A comma separates items only when a word and ``=`` follow it, so values (an error
    message, an instruction) may hold commas; a value holding ``, word=`` belongs in a
    plan file.
    """
    items: dict[str, str] = {}
    for part in _ITEM_SEPARATOR.split(text.strip()):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise InputError(f"{part.strip()!r} is not key=value", place=option,
                             fix=f"write key=value pairs separated by commas ({', '.join(keys)})")
        if key not in keys:
            raise InputError(f"unknown key {key!r}", place=option,
                             fix=f"use only {', '.join(keys)} (a value holding ', word=' "
                             "belongs in --inject-file)")
        if key in items:
            raise InputError(f"{key!r} is given twice", place=option)
        items[key] = value
    return items


def _whole(value: Any, *, minimum: int | None = None) -> int:
    """A whole number, also as text (``nth=2`` on the command line)."""
    try:
        number = None if isinstance(value, bool) else int(str(value).strip())
    except ValueError:
        number = None
    if number is None or (minimum is not None and number < minimum):
        bound = f" of at least {minimum}" if minimum is not None else ""
        raise Refusal(f"{value!r} is not an integer{bound}")
    return number


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise Refusal(f"{value!r} is not true or false")


def _tool(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Refusal("a tool name is required", "give tool=NAME (the name the client calls)")
    return value.strip()


def _error_text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise Refusal("the error must be non-empty text")
    return value


def _planted_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Refusal("the planted text is required", "give text=INSTRUCTION")
    return value


def _target_args(value: Any) -> dict[str, Any] | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise Refusal("target_args is not JSON", 'write a JSON object, e.g. '
                          '{"to": "attacker@example.com"}') from None
    if value is not None and not isinstance(value, Mapping):
        raise Refusal(f"target_args must be an object, not {type_name(value)}")
    return None if value is None else dict(value)


shape(FaultPlan, "a fault", "write {tool: deploy, error: Service unavailable}", tool=_tool,
      nth=lambda v: None if v is None else _whole(v, minimum=1), error=_error_text,
      code=lambda v: DEFAULT_ERROR_CODE if v is None else _whole(v),
      forward=lambda v: True if v is None else _flag(v))
shape(InjectionPlan, "an injection", "write {tool: fetch_page, text: ...}", tool=_tool,
      nth=lambda v: None if v is None else _whole(v, minimum=1), text=_planted_text,
      target=lambda v: None if v is None else _tool(v), target_args=_target_args)
shape(Plan, "a plan", "write faults: [...] and/or injections: [...]")


def fault_from_mapping(item: Mapping[str, Any], *, place: str) -> FaultPlan:
    """A FaultPlan from a mapping of the keys ``tool nth error mode code forward``; without
    a mode, a code means ``jsonrpc_error``."""
    if isinstance(item, Mapping) and item.get("mode") is None:
        jsonrpc = item.get("code") is not None
        item = {**item, "mode": "jsonrpc_error" if jsonrpc else "tool_error"}
    return structure(item, FaultPlan, place=place)


def injection_from_mapping(item: Mapping[str, Any], *, place: str) -> InjectionPlan:
    """An InjectionPlan from a mapping of the keys ``tool nth text target target_args``.

    ``target`` is a tool name, or (in a plan file) ``{"tool": ..., "args": {...}}``.
    """
    target = item.get("target") if isinstance(item, Mapping) else None
    if isinstance(target, Mapping):
        extra = set(target) - {"tool", "args"}
        if extra:
            raise InputError(f"unknown key {sorted(extra)[0]!r}", place=f"{place}.target",
                             fix="use only tool and args")
        if item.get("target_args") is not None and target.get("args") is not None:
            raise InputError("target args are given twice", place=f"{place}.target_args")
        item = {**item, "target": target.get("tool"),
                "target_args": target.get("args", item.get("target_args"))}
    return structure(item, InjectionPlan, place=place)


def parse_fault_spec(text: str) -> FaultPlan:
    """``--inject-fault 'tool=deploy,nth=1,error=Service unavailable,forward=false'``."""
    return fault_from_mapping(split_spec(text, FAULT_KEYS, option="--inject-fault"),
                              place="--inject-fault")


def parse_injection_spec(text: str) -> InjectionPlan:
    """``--inject-prompt 'tool=fetch_page,text=Ignore previous...,target=send_email'``."""
    return injection_from_mapping(split_spec(text, INJECTION_KEYS, option="--inject-prompt"),
                                  place="--inject-prompt")


def parse_plan(document: Any, *, file: str | None = None) -> Plan:
    """A plan document: ``{"faults": [...], "injections": [...]}`` (both optional)."""
    if isinstance(document, Mapping):
        try:
            document = {**document, **{
                key: [read(item, place=f"$.{key}[{i}]") for i, item in enumerate(items)]
                for key, read in (("faults", fault_from_mapping),
                                  ("injections", injection_from_mapping))
                if isinstance(items := document.get(key), list)}}
        except InputError as exc:
            raise exc.at(file) if file else exc from None
    return structure(document, Plan, source=file)


def load_plan_file(path: str) -> Plan:
    """Read a plan file (YAML by suffix ``.yaml``/``.yml``, else JSON)."""
    return parse_plan(load_document(path, what="plan file"), file=path)


# ---------------------------------------------------------------- planting at run time


def planted_text(plan: InjectionPlan, canary: str) -> str:
    """The instruction as planted: the canary in place of ``{canary}``, or appended."""
    if CANARY_PLACEHOLDER in plan.text:
        return plan.text.replace(CANARY_PLACEHOLDER, canary)
    return f"{plan.text} (reference: {canary})"


def fault_response(plan: FaultPlan, request_id: Any) -> dict[str, Any]:
    """The JSON-RPC response a fault gives instead of the server's."""
    if plan.mode == "jsonrpc_error":
        return {"jsonrpc": "2.0", "id": request_id,
                "error": {"code": plan.code, "message": plan.error}}
    return {"jsonrpc": "2.0", "id": request_id,
            "result": {"content": [{"type": "text", "text": plan.error}], "isError": True}}


def call_id(request_id: Any) -> str:
    """A JSON-RPC id as the string ``injected.json`` and traces compare."""
    return request_id if isinstance(request_id, str) else json.dumps(request_id)


def _key(request_id: Any) -> str:
    # 1 and "1" are different JSON-RPC ids; only the log writes both as "1".
    return json.dumps(request_id, sort_keys=True)


@frozen
class RequestPlanting:
    """A fault answered without forwarding: the request's tag and the synthesized response."""

    planted: Mapping[str, Any]
    response: Mapping[str, Any]


@frozen
class ResponsePlanting:
    """A response as planted, its tag for the session file, and the server's original."""

    message: Mapping[str, Any]
    planted: Mapping[str, Any]


@frozen
class _Pending:
    kind: Literal["fault", "injection"]
    tool: str
    nth: int
    fault: FaultPlan | None = None
    injection: InjectionPlan | None = None


@frozen(eq=False)
class Planter:
    """Matches ``tools/call`` requests against a plan and rewrites the answers. Thread-safe."""

    plan: Plan
    on_planted: Callable[[str, Mapping[str, Any]], None] | None = None
    """Called with ``"fault"`` or ``"injection"`` and the entry for ``injected.json``."""
    canary_factory: Callable[[], str] = new_canary
    _counts: dict[str, int] = field(factory=dict, init=False)
    _pending: dict[tuple[str | int | None, str], _Pending] = field(factory=dict, init=False)
    _lock: threading.Lock = field(factory=threading.Lock, init=False)

    def request(self, message: Any, *, may_answer: bool = True,
                scope: str | int | None = None) -> RequestPlanting | None:
        """Look at a client-to-server message; answer it here when a fault does not forward.

        ``may_answer=False`` (inside a batch) forwards every call, whatever the plan says.
        ``scope`` is the MCP session (or HTTP request) the message came on: JSON-RPC ids
        are unique only within one, so its answer is looked for there.
        """
        if not (isinstance(message, dict) and message.get("method") == "tools/call"
                and "id" in message):
            return None
        params = message.get("params")
        tool = params.get("name") if isinstance(params, dict) else None
        if not isinstance(tool, str):
            return None
        with self._lock:
            nth = self._counts.get(tool, 0) + 1
            self._counts[tool] = nth
            fault = next((f for f in self.plan.faults
                          if f.tool == tool and f.nth in (None, nth)), None)
            if fault is not None:
                if not fault.forward and may_answer:
                    entry = self._fault_entry(fault, tool, message["id"], nth, forwarded=False)
                    planted = {"fault": entry}
                    self._emit("fault", entry)
                    return RequestPlanting(planted=planted,
                                           response=fault_response(fault, message["id"]))
                self._pending[scope, _key(message["id"])] = _Pending(
                    "fault", tool, nth, fault=fault)
                return None
            injection = next((p for p in self.plan.injections
                              if p.tool == tool and p.nth in (None, nth)), None)
            if injection is not None:
                self._pending[scope, _key(message["id"])] = _Pending(
                    "injection", tool, nth, injection=injection)
        return None

    def response(self, message: Any, *, scope: str | int | None = None
                 ) -> ResponsePlanting | None:
        """Look at a server-to-client message; the planted version when a plan matched it."""
        if not isinstance(message, dict) or "method" in message or "id" not in message:
            return None
        with self._lock:
            pending = self._pending.pop((scope, _key(message["id"])), None)
        if pending is None:
            return None
        if pending.fault is not None:
            entry = self._fault_entry(pending.fault, pending.tool, message["id"], pending.nth,
                                      forwarded=True)
            self._emit("fault", entry)
            return ResponsePlanting(message=fault_response(pending.fault, message["id"]),
                                    planted={"fault": entry})
        assert pending.injection is not None
        result = message.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("content"), list):
            # A JSON-RPC error or a result without content has nowhere to hold the text.
            return None
        canary = self.canary_factory()
        text = planted_text(pending.injection, canary)
        injection = pending.injection
        entry = {
            "tool": pending.tool, "call_id": call_id(message["id"]), "text": text,
            "canary": canary,
            "target": None if injection.target is None else {
                "tool": injection.target,
                "args": None if injection.target_args is None else dict(injection.target_args),
            },
        }
        content = [*result["content"], {"type": "text", "text": text}]
        planted_message = {**message, "result": {**result, "content": content}}
        self._emit("injection", entry)
        return ResponsePlanting(message=planted_message, planted={"injection": entry})

    @staticmethod
    def _fault_entry(fault: FaultPlan, tool: str, request_id: Any, nth: int, *,
                     forwarded: bool) -> dict[str, Any]:
        return {"tool": tool, "call_id": call_id(request_id), "nth": nth, "error": fault.error,
                "mode": fault.mode, "forwarded": forwarded}

    def _emit(self, kind: str, entry: Mapping[str, Any]) -> None:
        if self.on_planted is not None:
            self.on_planted(kind, entry)
