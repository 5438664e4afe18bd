"""What a contract's judgment keys do to a trace before it is paired: ``error_when`` rules
mark calls failed by their result, and ``judge_tools``/``ignore_tools`` leave calls out."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from attrs import evolve

from toolscore_core.contracts import parse_error_rules
from toolscore_core.matchers import Regex
from toolscore_core.models import Contract, ErrorRule, Setting, Settings, ToolCall, Trace

SECTION = "calls"
"""The ``--config`` section of what the core does to calls (``error_when``)."""


def config_rules(config: Mapping[str, Mapping[str, Any]]) -> tuple[ErrorRule, ...]:
    """The ``error_when`` rules a config gives (``calls: {error_when: [...]}``)."""
    given = config.get(SECTION, {}).get("error_when")
    return () if not given else parse_error_rules(given, path="$.calls.error_when")


def result_text(result: Any) -> str | None:
    """The text a rule reads: a string result as it is, any other as its JSON (sorted keys,
    not ASCII-escaped); None when the call has no result."""
    if result is None:
        return None
    if isinstance(result, str):
        return result
    return json.dumps(result, sort_keys=True, ensure_ascii=False, default=repr)


def apply_error_rules(trace: Trace, rules: Iterable[ErrorRule]) -> Trace:
    """``trace`` with every call whose result a rule matches marked failed: ``is_error``
    true, ``error`` the result's text, ``error_rule`` the first rule that matched. A call
    the trace already gives as failed keeps its own error."""
    compiled = [(rule, Regex(rule.result)) for rule in rules]
    if not compiled:
        return trace
    calls = list(trace.calls)
    changed = False
    for j, call in enumerate(calls):
        if call.is_error is True:
            continue
        text = result_text(call.result)
        if text is None:
            continue
        for rule, pattern in compiled:
            if (rule.tool is None or rule.tool == call.tool) and pattern.matches(text):
                calls[j] = evolve(call, is_error=True, error=text, error_rule=rule.describe())
                changed = True
                break
    return evolve(trace, calls=tuple(calls)) if changed else trace


def judged(trace: Trace, contract: Contract) -> tuple[Trace, tuple[tuple[int, ToolCall], ...]]:
    """The trace with only the calls the contract judges, and the others with their
    0-based place in the trace (nothing left out when the contract names no tools)."""
    if contract.judge_tools is None and contract.ignore_tools is None:
        return trace, ()
    kept: list[ToolCall] = []
    left_out: list[tuple[int, ToolCall]] = []
    for j, call in enumerate(trace.calls):
        if contract.judges(call.tool):
            kept.append(call)
        else:
            left_out.append((j, call))
    return evolve(trace, calls=tuple(kept)), tuple(left_out)


def _validate(value: Any) -> None:
    parse_error_rules(value)


def core_settings() -> list[Settings]:
    """The options of toolscore's own section of ``--config`` (no plugin declares them)."""
    return [Settings(id=SECTION, settings=(
        Setting(name="error_when", type=list, default=None, validate=_validate,
                help='Rules that mark a call failed by its result: [{result: "^Error:", '
                     "tool: name}] (tool omitted: every tool); added after the contract's."),))]
