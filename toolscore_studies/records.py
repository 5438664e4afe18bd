"""Run records: one JSON object per agent run, its cost, what is unknown, and its verdict."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from datetime import UTC, datetime
from typing import Any

from toolscore_core.config import with_shorthands
from toolscore_core.context import Evaluation, Options, call_dict
from toolscore_core.documents import type_name
from toolscore_core.errors import InputError
from toolscore_core.evaluation import run_evaluation
from toolscore_core.judging import Judging
from toolscore_core.models import Contract, ToolCall, Trace
from toolscore_core.plugins import Registry
from toolscore_secrets.redaction import redact, redact_text
from toolscore_studies.spec import Price, Study, Task

KIND = "toolscore.agent_run"
RUN_SCHEMA_VERSION = "1"
OUTCOMES = ("passed", "failed", "error")
STDERR_TAIL = 2000
"""Characters of an agent's stderr kept in an error record."""

_INPUT_KEYS = ("input_tokens", "prompt_tokens")
_OUTPUT_KEYS = ("output_tokens", "completion_tokens")


def now_iso() -> str:
    """The current time, UTC, ISO 8601 to the millisecond (a run's ``started_at``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def run_id(study: str, task_id: str, trial: int) -> str:
    """The run's id: the same study, task and trial always give the same id."""
    return f"{study}:{task_id}:{trial}"


def passes(evaluation: Evaluation, threshold: float) -> bool:
    """A run passes when its score is known and at least the threshold, no check failed, and
    the required calls are known to have succeeded.

    Missing evidence is never a pass: a run whose required calls were made but whose trace
    holds no result for them (``required-calls`` unknown) does not pass.
    """
    score = evaluation.score
    if score is None or score < threshold:
        return False
    if evaluation.evidence.counts["fail"]:
        return False
    required = evaluation.evidence.get("required-calls")
    return not (required is not None and required.status == "unknown"
                and required.details.get("required", 0) > 0)


def evaluate_trace(
    contract: Contract, trace: Trace, *, weights: Mapping[str, float] | None,
    honesty: Mapping[str, Any] | None, validate_side_effects: bool, registry: Registry,
    injected: Mapping[str, Any] | None = None, judge: Judging | None = None,
    calls_json: tuple[Sequence[Mapping[str, Any]], str] | None = None,
) -> Evaluation:
    """Evaluate a run's trace (its final answer already in ``trace.final_answer``).

    ``injected`` is what a recording proxy planted in the run (its injected.json), for the
    prompt-injection and disclosure checks; ``judge`` decides what the rules leave unknown;
    ``calls_json`` the row's calls the trace was read from and their canonical JSON, which
    the record reuses (``run_evaluation``).
    """
    config = with_shorthands({}, registry.settings, honesty_config=honesty, injected=injected,
                             validate_side_effects=validate_side_effects)
    options = Options(forbidden=contract.forbidden, config=config, judge=judge)
    return run_evaluation(contract, trace, options=options, weights=weights,
                          final_answer=trace.final_answer, choice=None, registry=registry,
                          calls_json=calls_json)


def usage_tokens(usage: Mapping[str, Any] | None) -> tuple[int | None, int | None]:
    """Input and output token counts from a trace's usage (OpenAI or Anthropic names)."""
    if not usage:
        return None, None

    def first(keys: tuple[str, ...]) -> int | None:
        for key in keys:
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
        return None

    return first(_INPUT_KEYS), first(_OUTPUT_KEYS)


def run_cost(trace: Trace, pricing: Mapping[str, Price]) -> tuple[float | None, str | None]:
    """The run's cost in USD and where it came from; (None, None) when the price is unknown.

    In order: a run total the trace gives; token usage priced by the spec's ``pricing`` for
    the trace's model; the sum of per-call costs when every call has one.
    """
    if trace.run_cost is not None:
        return trace.run_cost, "trace"
    tokens_in, tokens_out = usage_tokens(trace.usage)
    price = pricing.get(trace.model) if trace.model else None
    if price is not None and tokens_in is not None and tokens_out is not None:
        cost = (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1e6
        return round(cost, 12), "pricing"
    if trace.calls and all(c.cost is not None for c in trace.calls):
        return round(sum(c.cost for c in trace.calls if c.cost is not None), 12), "calls"
    return None, None


def unknowns(calls: Sequence[ToolCall] | None, final_answer: str | None,
             cost: float | None, duration: float | None) -> list[str]:
    """What the run record does not know, by name, sorted."""
    missing = set()
    if calls is None:
        missing.add("calls")
    else:
        if any(c.duration is None for c in calls):
            missing.add("call_durations")
        if any(c.is_error is None for c in calls):
            missing.add("call_outcomes")
        if any(c.cost is None for c in calls):
            missing.add("call_costs")
    if final_answer is None:
        missing.add("final_answer")
    if cost is None:
        missing.add("cost")
    if duration is None:
        missing.add("duration")
    return sorted(missing)


def trace_json(trace: Trace, *, replies: bool = False) -> dict[str, Any]:
    """The run-level data of a trace that is not calls or the final answer; with
    ``replies``, the agent's replies too (null when the format cannot tell them apart), so
    a regrade under ``expected_outputs`` searches what the first grade searched."""
    data: dict[str, Any] = {
        "format": trace.format, "model": trace.model,
        "usage": None if trace.usage is None else dict(trace.usage),
        "run_cost": trace.run_cost, "run_duration": trace.run_duration,
        "notes": list(trace.notes),
    }
    if replies:  # only then: the records of other runs keep their bytes
        data["replies"] = None if trace.replies is None else list(trace.replies)
    return data


def run_judge(client: Any) -> Judging | None:
    """The judge of one run: the model of ``client`` (a ``ChatClient``, or any object with a
    ``model`` and ``complete(request)``), asked afresh; the judgments its evaluation makes are
    held in memory and stored in the run's record. None without a client."""
    if client is None:
        return None
    fresh = getattr(client, "fresh", None)  # a ChatClient forgets other runs' answers
    return Judging(model=client.model, judgments={}, client=client if fresh is None else fresh())


def judge_member(judge: Judging) -> dict[str, Any]:
    """A record's ``judge``: the model, and every judgment its evaluation made or read."""
    from toolscore_judge.store import judgments_json

    assert isinstance(judge.judgments, MutableMapping)
    return {"model": judge.model, "judgments": judgments_json(judge.judgments)}


def task_fields(task: Task) -> dict[str, Any]:
    """The judgment a run was evaluated under, stored so a row can be regraded on its own."""
    return {
        "contract": task.contract_json(),
        "weights": None if task.weights is None else dict(task.weights),
        "pass_threshold": task.pass_threshold,
        "honesty": None if task.honesty is None else dict(task.honesty),
    }


def build_record(
    study: Study, task: Task, trial: int, *, agent: str, trace: Trace | None,
    started_at: str, duration: float | None, registry: Registry,
    final_answer_source: str | None = None, error: Mapping[str, Any] | None = None,
    validate_side_effects: bool = False, injected: Mapping[str, Any] | None = None,
    judge: Judging | None = None,
) -> dict[str, Any]:
    """The run record for one finished run; ``error`` set makes it an error record.

    ``injected`` (what the recording proxy planted) is evidence: kept in the record as the
    proxy wrote it, and fed to the evaluation. With a ``judge`` (``run_judge``) the record
    has a ``judge`` member naming its model and holding its judgments, which a regrade
    reads instead of asking the model; a record made without one has no such member.

    ``trace`` carries the final answer the run gave (from the trace or the agent's stdout).
    An error record keeps whatever trace the run left, but is not evaluated. The agent
    command and the error text (stderr) are redacted; the calls and the final answer are
    the evidence and are kept as recorded (the evaluation inside is redacted).
    """
    calls = None if trace is None else trace.calls
    final_answer = None if trace is None else trace.final_answer
    cost, cost_source = (None, None) if trace is None else run_cost(trace, study.pricing)
    evaluation = None
    if error is None and trace is not None:
        evaluation = evaluate_trace(task.contract, trace, weights=task.weights,
                                    honesty=task.honesty,
                                    validate_side_effects=validate_side_effects,
                                    registry=registry, injected=injected, judge=judge)
    missing = unknowns(calls, final_answer, cost, duration)
    if evaluation is None:
        missing = sorted({*missing, "evaluation"})
    record: dict[str, Any] = {
        "kind": KIND,
        "schema_version": RUN_SCHEMA_VERSION,
        "run_id": run_id(study.name, task.id, trial),
        "study": study.name,
        "study_version": study.version,
        "task_id": task.id,
        "trial": trial,
        "agent": redact_text(agent),
        "prompt": task.prompt,
        "calls": None if calls is None else [call_dict(c) for c in calls],
        "final_answer": final_answer,
        "final_answer_source": final_answer_source if final_answer is not None else None,
        "trace": None if trace is None else trace_json(
            trace, replies=bool(task.contract.expected_outputs)),
        "injected": None if injected is None else dict(injected),
        "started_at": started_at,
        "duration": duration,
        "cost": cost,
        "cost_source": cost_source,
        "unknown": missing,
        **task_fields(task),
        **verdict(evaluation, task.pass_threshold),
        "error": None if error is None else redact(dict(error)),
    }
    if judge is not None:
        record["judge"] = judge_member(judge)
    return record


def verdict(evaluation: Evaluation | None, threshold: float) -> dict[str, Any]:
    """The fields a (re)grade sets: evaluation, record_sha256, outcome, passed."""
    if evaluation is None:
        return {"evaluation": None, "record_sha256": None, "outcome": "error", "passed": False}
    passed = passes(evaluation, threshold)
    return {"evaluation": evaluation.to_dict(), "record_sha256": evaluation.record_sha256,
            "outcome": "passed" if passed else "failed", "passed": passed}


_NUMBER = (int, float)
_CALL_FIELDS: tuple[tuple[str, tuple[type, ...], str], ...] = (
    ("id", (str,), "a string"), ("is_error", (bool,), "true or false"),
    ("error", (str,), "a string"), ("duration", _NUMBER, "a number of seconds"),
    ("cost", _NUMBER, "a number (USD)"), ("timestamp", (str,), "an ISO 8601 string"),
    ("raw_args", (str,), "a string"), ("turn", (int,), "a whole number from 1"),
)
"""The call fields a record holds with a type (or null), as ``toolscore agent run`` writes
them: a row holding another is reported with its place, not evaluated."""
_TRACE_FIELDS: tuple[tuple[str, tuple[type, ...], str], ...] = (
    ("format", (str,), "a string"), ("model", (str,), "a string"),
    ("run_cost", _NUMBER, "a number (USD)"), ("run_duration", _NUMBER, "a number of seconds"),
    ("notes", (list,), "a list of strings"), ("replies", (list,), "a list of strings"),
)
"""The same for a record's ``trace`` object."""


def _refuse_wrong_types(item: Mapping[str, Any],
                        fields: tuple[tuple[str, tuple[type, ...], str], ...], *,
                        place: str, index: int | None = None) -> None:
    """An InputError at the first of ``fields`` that ``item`` holds with another type
    (true is no number; a list is one of strings); its place is ``place``, followed by
    ``[index]`` when an index is given (the place is written only for an error)."""
    for name, types, what in fields:
        value = item.get(name)
        if value is None or (type(value) in types and type(value) is not list):
            continue  # absent, or exactly of a type the field holds (no list to look into)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            shown = type_name(value)
        elif isinstance(value, list) and not all(isinstance(n, str) for n in value):
            shown = "a list holding other values"
        else:
            continue
        where = place if index is None else f"{place}[{index}]"
        raise InputError(f'"{name}" must be {what} or null, not {shown}',
                         place=f"{where}.{name}")


def calls_from_row(calls: Any, *, place: str) -> tuple[ToolCall, ...]:
    """The ToolCalls of a run record, exactly as recorded."""
    if not isinstance(calls, list):
        raise InputError('"calls" must be a list', place=place)
    out = []
    for i, item in enumerate(calls):
        if (type(item) is not dict and not isinstance(item, Mapping)) \
                or not isinstance(item.get("tool"), str):
            raise InputError('a call must be an object with "tool"', place=f"{place}[{i}]")
        _refuse_wrong_types(item, _CALL_FIELDS, place=place, index=i)
        get = item.get
        args = get("args")
        out.append(ToolCall(
            tool=item["tool"], args=args if isinstance(args, dict) else None,
            id=get("id"), result=get("result"), is_error=get("is_error"),
            error=get("error"), duration=get("duration"), cost=get("cost"),
            timestamp=get("timestamp"), raw_args=get("raw_args"), turn=get("turn"),
        ))
    return tuple(out)


def trace_from_row(row: Mapping[str, Any], *, place: str = "$") -> Trace:
    """The trace a run record holds: its calls, final answer and run-level data."""
    info = row.get("trace") or {}
    if not isinstance(info, Mapping):
        raise InputError('"trace" must be an object', place=f"{place}.trace")
    final_answer = row.get("final_answer")
    if final_answer is not None and not isinstance(final_answer, str):
        raise InputError('"final_answer" must be a string or null', place=f"{place}.final_answer")
    _refuse_wrong_types(info, _TRACE_FIELDS, place=f"{place}.trace")
    usage = info.get("usage")
    return Trace(
        calls=calls_from_row(row.get("calls"), place=f"{place}.calls"),
        final_answer=final_answer, format=info.get("format"), model=info.get("model"),
        usage=usage if isinstance(usage, Mapping) else None, run_cost=info.get("run_cost"),
        run_duration=info.get("run_duration"), notes=tuple(info.get("notes") or ()),
        replies=None if info.get("replies") is None else tuple(info["replies"]),
    )
