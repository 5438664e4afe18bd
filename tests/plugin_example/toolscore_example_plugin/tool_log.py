"""The "tool log" trace format: ``{"tool_log": [{"name", "input", "output", "failed"}]}``."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, ToolCall, Trace, TraceFormat, count, type_name


def detect(document: Any) -> str | None:
    if isinstance(document, dict) and isinstance(document.get("tool_log"), list):
        return 'an object with a "tool_log" list'
    return None


def near(document: Any) -> str | None:
    if isinstance(document, dict) and "tool_log" in document:
        return f'an object with "tool_log", but it is {type_name(document["tool_log"])}, not a list'
    return None


def _call(entry: Any, place: str) -> ToolCall:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise InputError(f"a tool log entry is {type_name(entry)}, not an object with a name",
                         place=place, fix='write each entry as {"name": "...", "input": {...}}')
    failed = entry.get("failed", False)
    return ToolCall(tool=entry["name"], args=entry.get("input"), result=entry.get("output"),
                    is_error=bool(failed) if "output" in entry else None)


def parse(document: Any) -> Trace:
    if detect(document) is None:
        raise InputError(f"a tool log is an object with a \"tool_log\" list, not "
                         f"{type_name(document)}", place="$",
                         fix='write {"tool_log": [...]}')
    entries = document["tool_log"]
    calls = tuple(_call(entry, f"$.tool_log[{i}]") for i, entry in enumerate(entries))
    answer = document.get("answer")
    notes = () if calls else (f"the tool log holds {count(len(calls), 'call')}",)
    return Trace(calls=calls, final_answer=answer if isinstance(answer, str) else None,
                 notes=notes)


TOOL_LOG = TraceFormat(id="tool_log", description="Example tool log", detect=detect,
                       parse=parse, near=near,
                       reads='{"tool_log": [{"name", "input", "output"}]}')
