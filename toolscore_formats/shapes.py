"""What some formats' documents look like: the tests a format's detector uses to leave
another format's documents alone (a Chat Completions log is not an Inspect sample or an AI
SDK UI message list), kept here so no format module imports another."""

from __future__ import annotations

import re
from typing import Any

from toolscore_formats.values import name_of


def is_sample(document: Any) -> bool:
    """An EvalSample: its id and epoch beside the conversation (``messages``)."""
    return (isinstance(document, dict) and type(document.get("epoch")) is int and
            isinstance(document.get("messages"), list) and "input" in document and
            "target" in document and type(document.get("id")) in (int, str))


def is_mini_swe_agent_trajectory(document: Any) -> bool:
    """A mini-swe-agent trajectory: ``info`` and ``messages``, with mini-swe-agent's own
    marks (its ``trajectory_format``, or ``info.mini_version``)."""
    if not isinstance(document, dict) or not isinstance(document.get("info"), dict) or \
            "messages" not in document:
        return False
    marker = document.get("trajectory_format")
    return (isinstance(marker, str) and marker.startswith("mini-swe-agent")) or \
        "mini_version" in document["info"]


SAMPLE_FIX = ('give the log (`inspect log dump LOG > log.json` writes any log as JSON) or one '
              'of its samples')
"""How to give an Inspect sample, for the errors of a document that is not one."""


def is_ui_tool_part(part: Any) -> bool:
    """A tool part of an AI SDK UI message: v4 ``tool-invocation``, v5+ ``tool-{name}`` (with
    its ``toolCallId`` and ``state``) or ``dynamic-tool``."""
    if not isinstance(part, dict):
        return False
    kind = name_of(part, "type") or ""
    return kind == "tool-invocation" or kind == "dynamic-tool" or (
        kind.startswith("tool-") and "toolCallId" in part and "state" in part)


MLFLOW_SPAN_KEYS = ("mlflow.spanType", "mlflow.traceRequestId")
"""The attributes MLflow Tracing writes on every span it records."""


def is_mlflow_span(item: Any) -> bool:
    """A span as MLflow Tracing serialises it (``Span.to_dict()``, MLflow 2 or 3): a name,
    and its attributes as a mapping holding MLflow's own keys."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return False
    attributes = item.get("attributes")
    return isinstance(attributes, dict) and any(key in attributes for key in MLFLOW_SPAN_KEYS)


# Cline's header of a tool's result, the text it sends back in a user message: "[<tool> for
# '<target>'] Result:", or "[<tool>] Result:" for a tool without a target (attempt_completion),
# as real task histories show; the target may hold any character, "]" and newlines too.
CLINE_RESULT = re.compile(r"\[(?P<tool>[A-Za-z0-9_.:-]+)(?: for .*?)?\] Result:", re.DOTALL)


def cline_result(block: Any) -> re.Match[str] | None:
    """The header of a Cline tool result, when a content block is one."""
    if not isinstance(block, dict) or block.get("type") != "text" or \
            not isinstance(block.get("text"), str):
        return None
    return CLINE_RESULT.match(block["text"])


def is_cline_history(document: Any) -> bool:
    """A Cline task's ``api_conversation_history.json``: a list of Anthropic messages whose
    assistant messages carry Cline's own ``modelInfo`` or ``metrics``, or whose user text
    answers a ``tool_use`` with Cline's ``[...] Result:`` header."""
    if not isinstance(document, list) or not document:
        return False
    called = False
    for message in document:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return False
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if message["role"] == "assistant":
            if isinstance(message.get("modelInfo"), dict) or isinstance(
                    message.get("metrics"), dict):
                return True
            called = any(name_of(block, "type") == "tool_use" for block in blocks
                         if isinstance(block, dict))
        elif called and any(cline_result(block) for block in blocks):
            return True
    return False
