"""A third-party plugin: one trace format (a JSON 'tool log') and one check."""

from __future__ import annotations

from typing import Any

from toolscore import Check, CheckOutcome, ToolCall, Trace, TraceFormat, hookimpl


def detect(document: Any) -> str | None:
    if isinstance(document, dict) and isinstance(document.get("tool_log"), list):
        return 'an object with a "tool_log" list'
    return None


def parse(document: Any) -> Trace:
    calls = tuple(
        ToolCall(tool=entry["name"], args=entry.get("input"), result=entry.get("output"),
                 is_error=entry.get("failed", False) if "output" in entry else None)
        for entry in document["tool_log"]
    )
    return Trace(calls=calls, final_answer=document.get("answer"))


def short_answer(context: Any) -> CheckOutcome:
    if context.final_answer is None:
        return CheckOutcome("unknown", "no final answer")
    words = len(context.final_answer.split())
    status = "pass" if words <= 50 else "fail"
    return CheckOutcome(status, f"the final answer has {words} words", {"words": words})


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(id="tool_log", description="Example tool log", detect=detect,
                        parse=parse, reads='{"tool_log": [{"name", "input", "output"}]}')]


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id="short-answer", description="The final answer has at most 50 words.",
                  run=short_answer)]
