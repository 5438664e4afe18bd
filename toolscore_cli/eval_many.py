"""``toolscore eval`` of many traces in one process: ``GOLD TRACE...`` or ``--cases DIR``.

One table (a row per trace), one JSON document, one JUnit suite per trace, a receipt per
trace, the gates over all. With ``--jobs N`` chunks of traces are evaluated by a pool of N
processes, each building its registry once; results come back in input order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from toolscore_cli.gates import gate_failures
from toolscore_core.errors import InputError

CHUNK = 64
"""Traces a worker evaluates per task handed to it (amortizes the hand-over)."""


@frozen
class Item:
    """One trace to evaluate: a case folder's files, or a trace against the one contract."""

    id: str
    gold: str
    trace: str
    final_answer: str | None = None
    forbidden: str | None = None
    config: str | None = None
    honesty_config: str | None = None
    injected: str | None = None
    final_answer_file: str | None = None
    """The case's ``final_answer.txt``, read into ``final_answer``."""


@frozen
class Settings:
    """What every trace of the batch is evaluated and gated with."""

    trace_format: str = "auto"
    weights: dict[str, float] | None = None
    forbidden: str | None = None
    config: str | None = None
    honesty_config: str | None = None
    injected: str | None = None
    validate_side_effects: bool = False
    threshold: float | None = None
    fail_under: str | None = None
    gated: tuple[str, ...] | None = None
    strict_unknown: bool = False
    fail_on_violations: bool = False
    want_record: bool = False
    want_junit: bool = False
    receipt_dir: str | None = None


@frozen
class Outcome:
    """What the batch keeps of one evaluation (small: it crosses process boundaries)."""

    id: str
    score: float | None
    grade: str | None
    counts: dict[str, int]
    gates: tuple[tuple[str, str], ...]
    """The gates this trace fails: (flag, the line saying why); empty: none."""
    entry_json: str | None
    """The trace's entry in the JSON document (built where it was evaluated, so that the
    batch's process only joins the entries); None without ``--json``."""
    row: tuple[str, str, str, str]
    """The trace's row of the table: id (credentials masked), score, evidence, gates."""
    junit_suite: str | None
    junit_verdicts: tuple[str | None, ...]
    receipt: str | None


def items_from_traces(gold: str, traces: Sequence[str]) -> list[Item]:
    """Each trace against the one contract; ids are the traces' paths as given."""
    seen: set[str] = set()
    for trace in traces:
        if trace in seen:
            raise InputError("the same trace is given twice", file=trace,
                             fix="give each trace once")
        seen.add(trace)
    return [Item(id=trace, gold=gold, trace=trace) for trace in traces]


def items_from_cases(root: str) -> list[Item]:
    """Every case folder below ``root`` (see ``toolscore.cases``)."""
    from toolscore_core.cases import cases

    items = []
    for case in cases(root):
        items.append(Item(
            id=case.id, gold=str(case.contract), trace=str(case.trace),
            final_answer=case.final_answer_text(), forbidden=_str(case.forbidden),
            config=_str(case.config), honesty_config=_str(case.honesty_config),
            injected=_str(case.injected), final_answer_file=_str(case.final_answer)))
    return items


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)


def evaluate_item(item: Item, settings: Settings, registry: Any) -> Outcome:
    """Evaluate one trace and keep what the batch's outputs need."""
    from toolscore_core.evaluation import evaluate_files

    forbidden = item.forbidden or settings.forbidden
    config = item.config or settings.config
    honesty = item.honesty_config or settings.honesty_config
    injected = item.injected or settings.injected
    flags = registry.config_with(injected_path=injected, honesty_config_path=honesty,
                                 validate_side_effects=settings.validate_side_effects)
    evaluation = evaluate_files(
        item.gold, item.trace, trace_format=settings.trace_format, weights=settings.weights,
        forbidden_path=forbidden, final_answer=item.final_answer, config_path=config,
        config=flags, registry=registry)
    gates = gate_failures(evaluation, threshold=settings.threshold,
                          fail_under=settings.fail_under, gated=settings.gated,
                          strict_unknown=settings.strict_unknown,
                          fail_on_violations=settings.fail_on_violations)
    receipt = None
    if settings.receipt_dir is not None:
        from toolscore_core.receipts import write_evaluation_receipt

        receipt = str(Path(settings.receipt_dir) / receipt_name(item.id))
        write_evaluation_receipt(receipt, evaluation, gold=item.gold, trace=item.trace,
                                 forbidden=forbidden, honesty_config=honesty,
                                 injected=injected, config=config,
                                 final_answer=item.final_answer)
    suite: str | None = None
    verdicts: list[str | None] = []
    if settings.want_junit:
        from toolscore_formats.reports.junit import evaluation_suite

        suite, verdicts = evaluation_suite(evaluation, name=item.id, gates=gates)
    counts = dict(evaluation.evidence.counts)
    entry = None
    if settings.want_record:
        entry = entry_json(item.id, evaluation.score, evaluation.grade, gates, receipt,
                           evaluation.record_json)
    return Outcome(id=item.id, score=evaluation.score, grade=evaluation.grade,
                   counts=counts, gates=gates, entry_json=entry,
                   row=table_row(item.id, evaluation.score, evaluation.grade, counts, gates),
                   junit_suite=suite, junit_verdicts=tuple(verdicts), receipt=receipt)


def entry_json(item_id: str, score: float | None, grade: str | None,
               gates: tuple[tuple[str, str], ...], receipt: str | None, record: str) -> str:
    """A trace's entry in the batch's JSON document: its id, score, grade, gates, receipt
    and, last, its full record (``record`` is the record's canonical JSON)."""
    head = _json({"id": item_id, "score": score, "grade": grade,
                  "gates": [why for _, why in gates], "receipt": receipt})
    return head[:-1] + ',"record":' + record + "}"


def receipt_name(item_id: str) -> str:
    """A receipt's file name for a trace or case id (its path made one safe name)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in item_id).strip("_.")
    return f"{safe or 'trace'}.receipt.json"


_WORKER: tuple[Settings, Any] | None = None
"""A worker process's settings and registry, built once by :func:`_start_worker`."""


def _start_worker(settings: Settings) -> None:
    from toolscore_core.plugins import default_registry

    global _WORKER
    _WORKER = (settings, default_registry())


def _evaluate_chunk(items: list[Item]) -> list[Outcome | str]:
    assert _WORKER is not None
    return evaluate_chunk(items, *_WORKER)


def evaluate_chunk(items: list[Item], settings: Settings, registry: Any) -> list[Outcome | str]:
    """Each item's outcome, or the one line of bad input it is."""
    from toolscore_cli.console import error_line

    out: list[Outcome | str] = []
    for item in items:
        try:
            out.append(evaluate_item(item, settings, registry))
        except InputError as exc:
            out.append(error_line(exc.at(item.trace)))
    return out


def evaluate_all(items: Sequence[Item], settings: Settings, *, jobs: int,
                 advance: Callable[[Outcome], None]) -> Iterator[Outcome]:
    """Every item's outcome in input order; the first bad input stops the batch."""
    from toolscore_core.plugins import default_registry

    chunks = [list(items[i:i + CHUNK]) for i in range(0, len(items), CHUNK)]
    if jobs == 1 or len(chunks) == 1:
        registry = default_registry()
        results: Iterator[list[Outcome | str]] = (
            evaluate_chunk(chunk, settings, registry) for chunk in chunks)
        yield from _checked(results, advance)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(settings,)) as pool:
        try:
            yield from _checked(pool.map(_evaluate_chunk, chunks), advance)
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


def _checked(results: Iterator[list[Outcome | str]],
             advance: Callable[[Outcome], None]) -> Iterator[Outcome]:
    for chunk in results:
        for result in chunk:
            if isinstance(result, str):
                raise BadCase(result)
            advance(result)
            yield result


class BadCase(Exception):
    """A trace of the batch is bad input: its one line, as the CLI prints it."""


def batch_json(outcomes: Sequence[Outcome]) -> str:
    """The JSON document of a batch: each trace's id, score, grade, gates and full record."""
    parts = [o.entry_json or entry_json(o.id, o.score, o.grade, o.gates, o.receipt, "null")
             for o in outcomes]
    summary = _json(summary_of(outcomes))
    return ('{"kind":"toolscore.evaluations","summary":' + summary + ',"evaluations":['
            + ",".join(parts) + "]}\n")


def _json(value: Any) -> str:
    from toolscore_core.canonical import canonical_json

    return canonical_json(value)


def summary_of(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Counts over the batch: traces, traces failing a gate, evidence, mean known score."""
    scores = [o.score for o in outcomes if o.score is not None]
    evidence = {"pass": 0, "fail": 0, "unknown": 0}
    for o in outcomes:
        for status, n in o.counts.items():
            evidence[status] = evidence.get(status, 0) + n
    return {"traces": len(outcomes), "failing_gates": sum(1 for o in outcomes if o.gates),
            "mean_score": round(sum(scores) / len(scores), 12) if scores else None,
            "scored": len(scores), "evidence": evidence}


def batch_junit(outcomes: Sequence[Outcome]) -> str:
    """One JUnit suite per trace (its checks and, when failed, its gates)."""
    from toolscore_formats.reports.junit import document

    return document("toolscore", [o.junit_suite or "" for o in outcomes],
                    [v for o in outcomes for v in o.junit_verdicts])


def write_text(path: str, text: str) -> None:
    """A report file, whole or not at all; ``-`` is stdout."""
    import sys

    if path == "-":
        sys.stdout.write(text)
        return
    from toolscore_core.atomic import write_text_atomic

    try:
        write_text_atomic(path, text)
    except OSError as exc:
        raise InputError(f"cannot write the report: {exc.strerror or exc}", file=path,
                         fix="choose a path in a folder you can write to") from None


def check_receipt_dir(receipt_dir: str | None) -> None:
    """A receipt folder is a folder (made when missing), never a file."""
    if receipt_dir is not None and os.path.exists(receipt_dir) and not os.path.isdir(
            receipt_dir):
        raise InputError("--receipt-dir is a file, not a folder", file=receipt_dir,
                         fix="give a folder for the receipts")


def _inputs(item: Item) -> Iterator[tuple[str, str | None]]:
    """The files one trace of the batch reads, named as an error names them."""
    yield "gold file", item.gold
    yield "trace", item.trace
    yield "final answer file", item.final_answer_file
    yield "forbidden rules", item.forbidden
    yield "config", item.config
    yield "honesty config", item.honesty_config
    yield "injected file", item.injected


def run_many(
    paths: Sequence[str], *, cases_dir: str | None, jobs: int, receipt_dir: str | None,
    no_progress: bool, refused: dict[str, Any], trace_format: str, weights: tuple[str, ...],
    fail_under: str | None, json_path: str | None, junit_path: str | None,
    forbidden_path: str | None, config_path: str | None, injected_path: str | None,
    honesty_path: str | None, validate_side_effects: bool, fail_on_violations: bool,
    fail_on_evidence: str | None, strict_unknown: bool,
) -> int:
    """``toolscore eval`` of many traces: the table, the reports, the exit code."""
    from toolscore_cli import console
    from toolscore_cli.eval_run import evidence_gate
    from toolscore_cli.options import parse_fail_under, weights_from
    from toolscore_cli.paths import refuse_outputs_over_inputs
    from toolscore_core.plugins import default_registry

    for flag, value in refused.items():
        if value is not None:
            raise InputError(f"{flag} is for one trace", place=flag,
                             fix="evaluate that trace alone, or leave it out (many traces "
                             "take --json, --junit and --receipt-dir)")
    if cases_dir is not None:
        if paths:
            raise InputError("--cases takes no GOLD or TRACE", place="--cases",
                             fix="give either a folder of cases or GOLD TRACE...")
        items = items_from_cases(cases_dir)
    elif len(paths) < 2:
        raise InputError("give the contract and a trace: toolscore eval GOLD TRACE...",
                         place="GOLD TRACE...", fix="or evaluate a folder of cases with --cases")
    else:
        items = items_from_traces(paths[0], paths[1:])
    if sum(1 for p in (json_path, junit_path) if p == "-") > 1:
        raise InputError("more than one report is going to stdout (-)",
                         fix="write all reports but one to files")
    check_receipt_dir(receipt_dir)
    refuse_outputs_over_inputs(
        [("--json", json_path), ("--junit", junit_path),
         *(("--receipt-dir", None if receipt_dir is None
            else os.path.join(receipt_dir, receipt_name(item.id))) for item in items)],
        [("forbidden rules", forbidden_path), ("config", config_path),
         ("injected file", injected_path), ("honesty config", honesty_path),
         *((what, path) for item in items for what, path in _inputs(item))])
    registry = default_registry()
    settings = Settings(
        trace_format=trace_format, weights=weights_from(weights), forbidden=forbidden_path,
        config=config_path, honesty_config=honesty_path, injected=injected_path,
        validate_side_effects=validate_side_effects,
        threshold=parse_fail_under(fail_under) if fail_under is not None else None,
        fail_under=fail_under, gated=evidence_gate(registry.checks, fail_on_evidence,
                                                   strict_unknown),
        strict_unknown=strict_unknown, fail_on_violations=fail_on_violations,
        want_record=json_path is not None, want_junit=junit_path is not None,
        receipt_dir=receipt_dir)
    out = console.stderr() if "-" in (json_path, junit_path) else console.stdout()
    with _progress(len(items), disable=no_progress) as advance:
        try:
            outcomes = list(evaluate_all(items, settings, jobs=jobs, advance=advance))
        except BadCase as exc:
            console.stderr().print(str(exc), markup=False, soft_wrap=True)
            return 2
    if json_path is not None:
        write_text(json_path, batch_json(outcomes))
    if junit_path is not None:
        write_text(junit_path, batch_junit(outcomes))
    out.file.write(table_text(outcomes))
    summary = summary_of(outcomes)
    mean = summary["mean_score"]
    out.print(f"{len(outcomes)} traces; mean score "
              f"{'unknown' if mean is None else f'{mean:.1%}'}; evidence "
              f"{summary['evidence']['pass']} pass, {summary['evidence']['fail']} fail, "
              f"{summary['evidence']['unknown']} unknown", markup=False)
    failing = [o for o in outcomes if o.gates]
    if failing:
        out.print(f"{len(failing)} of {len(outcomes)} traces failed a gate: "
                  + ", ".join(o.id for o in failing[:10])
                  + (" …" if len(failing) > 10 else ""), markup=False, soft_wrap=True)
        return 1
    return 0


HEADER = ("Trace", "Score", "Evidence pass/fail/unknown", "Gates")


def table_row(item_id: str, score: float | None, grade: str | None, counts: dict[str, int],
              gates: tuple[tuple[str, str], ...]) -> tuple[str, str, str, str]:
    """A trace's row of the table. The id is shown with credentials masked and control
    characters as ``\\xNN``."""
    from toolscore_formats.reports.text import score_text, visible
    from toolscore_secrets.redaction import redact_text

    return (visible(redact_text(item_id)), score_text(score, grade),
            f"{counts.get('pass', 0)}/{counts.get('fail', 0)}/{counts.get('unknown', 0)}",
            ", ".join(flag for flag, _ in gates) or "ok")


def table_text(outcomes: Sequence[Outcome]) -> str:
    """The batch's table as plain aligned text, a row per trace (each built where the trace
    was evaluated): written in one go, as a rich table of 10,000 rows takes seconds to lay
    out."""
    rows = [HEADER] + [o.row for o in outcomes]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    lines = []
    for number, row in enumerate(rows):
        cells = [row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2].rjust(widths[2]),
                 row[3]]
        lines.append("  ".join(cells).rstrip())
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def _progress(total: int, *, disable: bool) -> Any:
    """A bar on stderr (only on a terminal): traces done, failing gates."""
    import contextlib

    from toolscore_cli.progress import progress_bar

    @contextlib.contextmanager
    def bar() -> Iterator[Callable[[Outcome], None]]:
        failing = 0
        with progress_bar("traces", total, disable=disable, failing=0,
                          status="{task.fields[failing]} failing a gate") as move:
            def advance(outcome: Outcome) -> None:
                nonlocal failing
                failing += bool(outcome.gates)
                move(failing=failing)

            yield advance

    return bar()
