"""Cline task histories (``api_conversation_history.json``): the Anthropic messages Cline
sent, whose ``tool_use`` blocks are the calls and whose results come back as user text,
``[<tool> for '<target>'] Result:`` and the output (or a ``tool_result`` block holding that
text, when Cline knows the call's id)."""

from __future__ import annotations

from typing import Any

from toolscore import InputError, Trace, TraceFormat, count, hookimpl
from toolscore_formats.calls import CallRow, OpenCalls, outcome
from toolscore_formats.content import block_content, text_of
from toolscore_formats.messages import Conversation
from toolscore_formats.shapes import CLINE_RESULT, cline_result, is_cline_history
from toolscore_formats.usage import RunUsage
from toolscore_formats.values import as_int, as_str, name_of

# Cline's own texts for a call that gave no result (cline/cline
# src/core/prompts/responses.ts: formatResponse.toolError and toolDenied; a file tool adds
# what became of the file after the denial, and feedback comes in a block of its own).
TOOL_ERROR = "The tool execution failed with the following error:"
DENIED = "The user denied this operation."
# A command's exit code as Cline words it (src/integrations/terminal/CommandOrchestrator.ts):
# "Command failed with exit code N." starts the result of a command that failed.
EXIT_FAILED = "Command failed with exit code "
# The user's own words in a user message: the task (<task>), feedback after a result
# (<feedback>, src/core/task/tools/utils/ToolResultUtils.ts), a message on resuming the
# task (<user_message>, responses.ts taskResumption).
SPOKEN = ("<task>", "<feedback>", "<user_message>")
COMPLETION = "attempt_completion"


def detect(document: Any) -> str | None:
    if is_cline_history(document):
        return ("a Cline task history (Anthropic messages with Cline's modelInfo / metrics, "
                "or its \"[tool] Result:\" user text after a tool_use)")
    return None


def parse(document: Any) -> Trace:
    if not isinstance(document, list):
        raise InputError("not a Cline task history", place="$",
                         fix='give api_conversation_history.json: a list of {"role", '
                             '"content"} messages')
    talk = Conversation()
    notes = talk.notes
    usage = RunUsage("metrics.tokens", "assistant messages", common_only=True)
    model: str | None = None
    waiting: list[CallRow] = []  # the last assistant message's calls, in order
    skipped = {"environment_details": 0, "image": 0}
    for index, message in enumerate(document):
        if not isinstance(message, dict):
            raise InputError('a message is not an object', place=f"$[{index}]",
                             fix='give each message as {"role", "content"}, as Cline saves it')
        role = message.get("role")
        content = message.get("content")
        blocks = content if isinstance(content, list) else [
            {"type": "text", "text": content}] if isinstance(content, str) else []
        if role == "assistant":
            waiting = _calls(blocks, talk)
            model = as_str(_get(message, "modelInfo", "modelId")) or model
            usage.add(_tokens(message, index, notes))
            completion = next((row for row in waiting if row.tool == COMPLETION), None)
            reply = text_of([block for block in blocks
                             if isinstance(block, dict) and name_of(block, "type") == "text"])
            final = completion.args.get("result") if completion is not None and isinstance(
                completion.args, dict) else None
            talk.said(reply, final=None if waiting else reply)
            if isinstance(final, str) and final:
                # Cline shows the result to the user as the task's outcome: the last thing
                # the agent said, and its final answer.
                talk.said(final, final=final)
        elif role == "user":
            if _spoken(blocks):
                talk.table.start_turn()
            waiting = _answer(blocks, waiting, index, notes, skipped)
        else:
            raise InputError(f"role {role!r} is not one Cline writes",
                             place=f"$[{index}].role", fix="use user or assistant")
    for row in waiting:
        notes.append(f"{row.tool!r} ({row.id}): the history ends before its result: "
                     "outcome unknown")
    if skipped["environment_details"]:
        notes.append(f"{count(skipped['environment_details'], 'environment_details block')} "
                     "Cline appends to user messages (editor state, time, mode): not read")
    if skipped["image"]:
        notes.append(f"{count(skipped['image'], 'image block')} in user messages: not read")
    return talk.trace(model=model, usage=usage.result(notes))


def _get(message: dict[str, Any], *keys: str) -> Any:
    value: Any = message
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _tokens(message: dict[str, Any], index: int, notes: list[str]) -> dict[str, Any] | None:
    """The message's counts from Cline's ``metrics.tokens``, or None when it lacks them.

    Cline writes ``prompt`` (its provider's input tokens), ``completion``, and ``cached``
    (cache writes plus reads: cline/cline src/core/task/index.ts). Whether ``prompt``
    includes the cached tokens depends on the provider, so when ``cached`` is not 0 the
    input count is unknown (left out) and only the output count is read."""
    tokens = _get(message, "metrics", "tokens")
    if not isinstance(tokens, dict):
        return None
    prompt, completion = as_int(tokens.get("prompt")), as_int(tokens.get("completion"))
    if prompt is None or completion is None:
        return None
    if as_int(tokens.get("cached")) not in (None, 0):
        notes.append(f"message {index}: {tokens['cached']} cached tokens, which Cline's "
                     "prompt count may or may not include: input tokens not counted")
        return {"output_tokens": completion}
    return {"input_tokens": prompt, "output_tokens": completion}


def _calls(blocks: list[Any], talk: Conversation) -> list[CallRow]:
    """The assistant message's ``tool_use`` blocks, added as calls."""
    return [talk.table.add(block["name"], block.get("input"), call_id=block.get("id"))
            for block in blocks if isinstance(block, dict)
            and name_of(block, "type") == "tool_use" and isinstance(block.get("name"), str)]


def _spoken(blocks: list[Any]) -> bool:
    """Whether the user message holds the user's words (the task, feedback, a new message),
    rather than only tool results and what Cline adds around them."""
    return any(isinstance(block, dict) and isinstance(block.get("text"), str)
               and cline_result(block) is None and any(
                   line.startswith(SPOKEN) for line in block["text"].splitlines())
               for block in blocks)


def _answer(blocks: list[Any], waiting: list[CallRow], index: int, notes: list[str],
            skipped: dict[str, int]) -> list[CallRow]:
    """Settle the waiting calls with the user message's results: ``tool_result`` blocks by
    ``tool_use_id``, ``[...] Result:`` text blocks in order (one block per call). Returns
    no call: a call not answered here never is."""
    left = OpenCalls(waiting)
    resumed = False
    for block in blocks:
        kind = name_of(block, "type") if isinstance(block, dict) else None
        text = block.get("text") if isinstance(block, dict) else None
        if kind == "image":
            skipped["image"] += 1
        elif isinstance(text, str) and text.startswith("<environment_details>"):
            skipped["environment_details"] += 1
        elif isinstance(text, str) and text.startswith("[TASK RESUMPTION]"):
            resumed = True
        elif kind == "tool_result" and isinstance(block, dict):
            key = as_str(block.get("tool_use_id"))
            row = left.first_with_id(key) if key is not None else None
            if row is None:
                notes.append(f"message {index}: tool_result for unknown tool_use_id "
                             f"{key!r} (not counted as a call)")
                continue
            output = block_content(block.get("content"), separator="\n")
            if isinstance(output, str):
                header = CLINE_RESULT.match(output)
                output = output[header.end():].lstrip("\n ") if header else output
                _settle(row, output, failed=block.get("is_error") is True)
            else:
                row.settle(**outcome(output, failed=block.get("is_error") is True or None))
        elif (header := cline_result(block)) is not None and isinstance(text, str):
            first = left.first()
            if first is None:
                notes.append(f"message {index}: a result for {header['tool']!r} answers no "
                             "call (not joined)")
                continue
            # The header names the call's tool; a few differ from the tool's name
            # ("[subagents]" answers use_subagents): then the next call in order.
            row = left.first(header["tool"]) or first
            if row.tool != header["tool"]:
                notes.append(f"message {index}: the result headed {header['tool']!r} read as "
                             f"{row.tool!r}'s, the next call waiting")
            _settle(row, text[header.end():].lstrip("\n "), failed=False)
    why = ("the task was interrupted ([TASK RESUMPTION]) before it" if resumed
           else "no result for it")
    notes.extend(f"message {index}: {row.tool!r} ({row.id}): {why}: outcome unknown"
                 for row in waiting if not row.answered)
    return []


def _settle(row: CallRow, output: str, *, failed: bool) -> None:
    """A call's outcome from Cline's text: its tool-error, user-denied and non-zero exit code
    texts are failures (the whole text the error), any other text the result."""
    if output.startswith(TOOL_ERROR):
        error = output[len(TOOL_ERROR):].strip()
        if error.startswith("<error>") and error.endswith("</error>"):
            error = error[len("<error>"):-len("</error>")].strip()
        row.settle(result=None, is_error=True, error=error or None)
    elif output.startswith((DENIED, EXIT_FAILED)) or failed:
        row.settle(result=None, is_error=True, error=output)
    else:
        row.settle(result=output, is_error=False, error=None)


@hookimpl
def toolscore_register_trace_formats() -> list[TraceFormat]:
    return [TraceFormat(
        id="cline",
        description="Cline task histories (api_conversation_history.json)",
        reads="Anthropic messages with Cline's fields: tool_use blocks the calls, each "
              "answered by the next user message's \"[tool ...] Result:\" text (Cline's "
              "tool-error and user-denied texts a failure); attempt_completion's result the "
              "final answer; modelInfo.modelId the model, metrics.tokens summed",
        detect=detect, parse=parse,
    )]
