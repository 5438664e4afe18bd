"""BFCL result files (Berkeley Function Calling Leaderboard): each answer's function calls
(single-turn, or multi-turn turn by turn), with the leaderboard's verdict from its score
file."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from toolscore import InputError, ToolCall, Trace, hookimpl
from toolscore_studies.importers import finite_number
from toolscore_studies.importers.bfcl_turns import is_multi_turn, read_turns

if TYPE_CHECKING:  # the importer's records load when runs are imported (read, the hook)
    from toolscore import ImportedRun, ImportSource, RunImporter

FIX = ('give a BFCL result file (BFCL_v*_<category>_result.json): one {"id", "result"} object '
       "a line")
SCORE_FIX = "give the score file of this result file (BFCL_v*_<category>_score.json)"


def _lines(path: str, fix: str) -> Iterator[tuple[int, Any]]:
    """(line number, decoded object) of a JSON Lines file; blank lines skipped."""
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except ValueError as exc:
                    raise InputError(f"not valid JSON ({exc})", file=path,
                                     place=f"line {number}", fix=fix) from None
                if not isinstance(item, dict):
                    raise InputError("not a JSON object", file=path, place=f"line {number}",
                                     fix=fix)
                yield number, item
    except FileNotFoundError:
        raise InputError("file not found", file=path, fix="check the path") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", file=path, fix=fix) from None


def scores(path: str) -> tuple[dict[str, Mapping[str, Any]], str | None]:
    """The failed answers of a score file by id (the first line is the summary; answers
    that passed are not listed), and the model it names."""
    failed: dict[str, Mapping[str, Any]] = {}
    model = None
    for number, item in _lines(path, SCORE_FIX):
        if "accuracy" in item and "id" not in item:
            continue
        if not isinstance(item.get("id"), str) or item.get("valid") is not False:
            raise InputError('an entry after the summary must have "id" and "valid": false',
                             file=path, place=f"line {number}", fix=SCORE_FIX)
        failed[item["id"]] = item
        if isinstance(item.get("model_name"), str):
            model = item["model_name"]
    return failed, model


def questions(path: str) -> dict[str, str]:
    """The user turns of each question of a BFCL data file, by id."""
    fix = 'give the BFCL data file of these answers (BFCL_v*_<category>.json, {"id", "question"})'
    found: dict[str, str] = {}
    for number, item in _lines(path, fix):
        turns = item.get("question")
        if not isinstance(item.get("id"), str) or not isinstance(turns, list):
            raise InputError('an entry must have "id" and a "question" list', file=path,
                             place=f"line {number}", fix=fix)
        found[item["id"]] = _user_turns(turns) or ""
    return found


def _user_turns(turns: Any) -> str | None:
    """The user messages of a BFCL question (a list of turns, each a list of messages)."""
    if not isinstance(turns, list):
        return None
    texts = [m.get("content") for turn in turns for m in (turn if isinstance(turn, list)
                                                            else [turn])
             if isinstance(m, Mapping) and m.get("role") == "user"]
    return "\n".join(t for t in texts if isinstance(t, str))


def calls_of(result: Any, place: str) -> tuple[tuple[ToolCall, ...], str | None, str | None]:
    """(calls, text answer, note) of one ``result``: function-calling models give a list of
    ``{name: arguments}`` (arguments an object or its JSON text); prompting models give the
    calls as Python text, ``[f(a=1), g(b="x")]``. Text that is no such list is the model's
    answer in words, with no call."""
    return read_calls(result, f"{place}.result")


def read_calls(result: Any, at: str) -> tuple[tuple[ToolCall, ...], str | None, str | None]:
    """``calls_of`` of a value at the place ``at`` (``line 3.result[0][1]``, a step of a
    multi-turn result)."""
    if isinstance(result, str):
        parsed = _python_calls(result)
        if parsed is None:
            return (), result, "the result is text, not function calls"
        return parsed, None, None
    if not isinstance(result, list):
        raise InputError("a result must be a list of calls or text", place=at, fix=FIX)
    out = []
    for i, item in enumerate(result):
        if isinstance(item, list):
            raise InputError("a list among calls (a multi-turn result is a list of turns, "
                             "each a list of steps, and nothing else)",
                             place=f"{at}[{i}]", fix=FIX)
        if not isinstance(item, Mapping) or len(item) != 1:
            raise InputError("a call must be an object with one key, the function's name",
                             place=f"{at}[{i}]", fix=FIX)
        ((name, arguments),) = item.items()
        raw = arguments if isinstance(arguments, str) else None
        if raw is not None:
            try:
                arguments = json.loads(raw)
            except ValueError:
                arguments = None
        out.append(ToolCall(tool=str(name), id=str(i + 1), raw_args=raw,
                            args=arguments if isinstance(arguments, dict) else None))
    return tuple(out), None, None


def _python_calls(text: str) -> tuple[ToolCall, ...] | None:
    """Calls written as Python (``[f(a=1), mod.g(b=[2])]``) with literal keyword arguments,
    read with ``ast`` (never executed); None when the text is not such a list."""
    import ast  # here: every evaluation loads the built-in plugins, few import results

    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    items = tree.elts if isinstance(tree, ast.List | ast.Tuple) else [tree]
    out = []
    for i, node in enumerate(items):
        if not isinstance(node, ast.Call) or node.args:
            return None
        try:
            args = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        out.append(ToolCall(tool=ast.unparse(node.func), id=str(i + 1), args=args))
    return tuple(out)


def _total(value: Any) -> float | None:
    """A number, or the sum of a multi-turn entry's per-step numbers (a list of turns, each
    a list of steps); None when any of them is not a number."""
    if not isinstance(value, list):
        return finite_number(value)
    if not value:
        return None  # nothing measured is no zero
    parts = [_total(v) for v in value]
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


def _verdict(entry: Mapping[str, Any] | None) -> dict[str, Any]:
    """BFCL's verdict on an answer: a single-turn failure has ``error_type`` and ``error``
    (the checker's messages); a multi-turn one has them inside ``error`` with ``details``
    (the executions or states the checker compared)."""
    if entry is None:
        return {"valid": True}
    error = entry.get("error")
    if isinstance(error, Mapping) and "error_type" in error:
        return {"valid": False, "error_type": error.get("error_type"),
                "error": error.get("error_message"), "details": error.get("details")}
    return {"valid": False, "error_type": entry.get("error_type"), "error": error}


def read(source: ImportSource) -> Iterator[ImportedRun]:
    from toolscore import ImportedRun

    failed, model = (scores(source.inputs["score"]) if "score" in source.inputs
                     else (None, None))
    asked = questions(source.inputs["questions"]) if "questions" in source.inputs else {}
    seen: set[str] = set()
    for number, item in _lines(source.path, FIX):
        place = f"line {number}"
        answer_id = item.get("id")
        if not isinstance(answer_id, str) or "result" not in item:
            raise InputError('an answer must have "id" and "result"', place=place, fix=FIX)
        seen.add(answer_id)
        result, error = item["result"], None
        calls: tuple[ToolCall, ...]
        notes: tuple[str, ...]
        if "traceback" in item and isinstance(result, str):
            # BFCL saves the exception of an inference that crashed in place of the answer
            calls, text, notes = (), None, ("BFCL's inference ended in an error",)
            error = result
        elif is_multi_turn(result):
            calls, text, notes = read_turns(result, item.get("inference_log"), place,
                                            read_calls)
        else:
            calls, text, note = calls_of(result, place)
            notes = () if note is None else (note,)
        tokens = {"input_tokens": _total(item.get("input_token_count")),
                  "output_tokens": _total(item.get("output_token_count"))}
        usage = {k: int(v) for k, v in tokens.items() if v is not None} \
            if all(v is not None and v == int(v) for v in tokens.values()) else None
        trace = Trace(calls=calls, final_answer=text, format="bfcl", model=model, usage=usage,
                      notes=notes)
        passed = verdict = entry = None
        if failed is not None:
            entry = failed.get(answer_id)
            passed = entry is None
            verdict = _verdict(entry)
        prompt = asked.get(answer_id)
        if prompt is None and entry is not None and isinstance(entry.get("prompt"), Mapping):
            prompt = _user_turns(entry["prompt"].get("question"))  # a failure repeats it
        yield ImportedRun(task_id=answer_id, trace=trace, prompt=prompt,
                          passed=passed, verdict=verdict or {}, place=place,
                          duration=_total(item.get("latency")), error=error)
    if failed is not None:
        stray = sorted(set(failed) - seen)
        if stray:
            raise InputError(f"the score file lists {stray[0]!r}, which the result file does "
                             "not hold", file=source.inputs["score"], fix=SCORE_FIX)


@hookimpl
def toolscore_register_run_importers() -> list[RunImporter]:
    from toolscore import RunImporter

    return [RunImporter(
        id="bfcl", description="BFCL (Berkeley Function Calling Leaderboard) results: each "
        "answer's function calls (multi-turn: turn by turn, with the simulated APIs' "
        "results); the verdict from the score file (--input score=...).",
        read=read,
        inputs={"score": "the score file of the result file (BFCL_v*_<category>_score.json): "
                         "the leaderboard's verdict; answers it does not list passed",
                "questions": "the BFCL data file (BFCL_v*_<category>.json): each answer's "
                             "prompt"},
        reads='{"id", "result": [{"name": "{json arguments}"}] or "[f(a=1)]" (multi-turn: '
              'a list of turns, each a list of steps, each such a result), "inference_log", '
              '"latency", "input_token_count", "output_token_count"} a line')]
