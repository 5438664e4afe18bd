"""``toolscore regrade``: re-score receipts or traces under a new contract or new weights."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolscore_cli import console
from toolscore_cli.options import (
    check_otel,
    check_sign_key,
    engine_options,
    final_answer_option,
    final_answer_text,
    judge_client,
    otel_options,
    parse_fail_under,
    run_judge_options,
    sign_option,
    weight_option,
    weights_from,
    write_otel,
)
from toolscore_cli.paths import FILE, refuse_outputs_over_inputs
from toolscore_core.errors import InputError

if TYPE_CHECKING:
    from toolscore_core.regrade import Regrade

NOTHING_RERUN = "Nothing was re-run: same traces, new contract or weights."


@click.command("regrade")
@click.argument("sources", nargs=-1, required=True, type=FILE)
@click.option("--gold", "gold", type=FILE,
              help="The new contract (replaces a receipt's gold file; needed for a bare trace).")
@weight_option
@click.option("--forbidden", "forbidden", type=FILE,
              help="Forbidden-call rules replacing the receipt's.")
@click.option("--config", "config", type=FILE,
              help="Options of checks, metrics and formats replacing the receipt's (a section "
                   "per id).")
@click.option("--no-verify", is_flag=True,
              help="Regrade even when a receipt's inputs no longer match (problems printed).")
@click.option("--inputs-anywhere", is_flag=True,
              help="Read inputs a receipt binds outside its folder too (refused by default).")
@final_answer_option
@click.option("--json", "json_path", metavar="PATH|-", type=FILE,
              help="Write the table as JSON (- = stdout).")
@click.option("--receipt-dir", type=click.Path(file_okay=False),
              help="Write a new receipt per source here (settings.regraded_from names the old).")
@sign_option("--receipt-dir")
@click.option("--spec", type=FILE,
              help="Agent-run JSONL only: new task definitions by task id (study YAML).")
@click.option("-o", "--output", type=FILE,
              help="Agent-run JSONL only: where to write the regraded rows.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Agent-run JSONL only: rows evaluated in parallel.")
@engine_options("Agent-run JSONL only: ")
@run_judge_options("Agent-run JSONL only: ask this LLM what a row's stored judgments lack")
@click.option("--junit", "junit_path", metavar="PATH|-", type=FILE,
              help="Agent-run JSONL only: write the regraded runs as JUnit XML (- = stdout).")
@click.option("--fail-under", metavar="SCORE|RATE",
              help="Exit 1 when a new score is below SCORE (0.8, 80% or a grade), or for "
                   "agent-run JSONL, when the regraded pass rate is below RATE.")
@click.option("--no-progress", is_flag=True,
              help="Agent-run JSONL only: no progress bar (drawn only on a terminal).")
@otel_options
@click.pass_context
def regrade_command(
    ctx: click.Context, sources: tuple[str, ...], gold: str | None, weights: tuple[str, ...],
    forbidden: str | None, config: str | None, no_verify: bool, inputs_anywhere: bool,
    final_answer: str | None,
    json_path: str | None,
    receipt_dir: str | None, sign_key: str | None, spec: str | None, output: str | None,
    jobs: int, engine: str,
    ray_address: str | None, judge_model: str | None, judge_base_url: str | None,
    judge_timeout: float, judge_retries: int, junit_path: str | None, fail_under: str | None,
    otel: bool, otel_file: str | None, no_progress: bool,
) -> None:
    """Re-score each SOURCE (a receipt, or a trace with --gold) without re-running anything.

    A receipt's gold file, format, weights, forbidden rules and config are the defaults;
    --gold, --weight, --forbidden and --config replace them. A receipt whose inputs no
    longer match its hashes is refused (exit 1) unless --no-verify.
    """
    overrides = weights_from(weights)
    runs_files = [_is_runs_file(s) for s in sources]
    if any(runs_files):
        # Options that mean something only for receipts are refused, not silently dropped.
        for name, value, fix in (
            ("--forbidden", forbidden, "put forbidden rules in a study spec and use --spec"),
            ("--config", config, "put the honesty words in a study spec and use --spec"),
            ("--receipt-dir", receipt_dir, "each regraded row carries regraded.from_sha256"),
            ("--sign", sign_key, "runs files carry no receipts to sign"),
            ("--final-answer", final_answer, "rows keep the final answers they recorded"),
            ("--no-verify", no_verify or None, "rows are regraded as they are"),
            ("--inputs-anywhere", inputs_anywhere or None, "rows hold their evidence"),
        ):
            if value is not None:
                raise InputError(f"{name} is for receipts and traces, not agent-run JSONL files",
                                 place=name, fix=f"leave it out: {fix}")
        if not all(runs_files):
            raise InputError("agent-run JSONL files cannot be regraded with receipts or traces",
                             place="SOURCE", fix="regrade the .jsonl files in a separate call")
        judge = judge_client(judge_model, base_url=judge_base_url, timeout=judge_timeout,
                             retries=judge_retries)
        ctx.exit(_regrade_jsonl(sources, output=output, spec=spec, gold=gold,
                                weights=overrides, jobs=jobs, engine=engine, judge=judge,
                                ray_address=ray_address, json_path=json_path,
                                junit_path=junit_path, fail_under=fail_under, otel=otel,
                                otel_file=otel_file, no_progress=no_progress))
        return
    for name, value in (("--spec", spec), ("-o/--output", output), ("--junit", junit_path),
                        ("--engine ray", "ray" if engine == "ray" else None),
                        ("--ray-address", ray_address)):
        if value is not None:
            raise InputError(f"{name} is for agent-run JSONL files", place=name,
                             fix="give runs.jsonl, or use --gold/--weight for receipts and traces")
    for name, value in (("--judge", judge_model), ("--judge-base-url", judge_base_url)):
        if value is not None:
            # a receipt's regrade reads its judgments file only; a new receipt that asks
            # again is a new evaluation
            raise InputError(f"{name} is for agent-run JSONL files", place=name,
                             fix="to ask the judge again for a receipt, evaluate again with "
                             "`toolscore eval GOLD TRACE --judge MODEL --receipt FILE`")

    from toolscore_core.regrade import inspect_source, receipt_target, regrade_checked

    threshold = None if fail_under is None else parse_fail_under(fail_under)
    events = check_otel(otel, otel_file)
    answer = final_answer_text(final_answer)
    check_sign_key(sign_key, receipt_dir, "--receipt-dir")
    if receipt_dir is not None:
        _refuse_name_clashes(sources, receipt_dir, receipt_target)
    checks = [inspect_source(source, final_answer=answer, inputs_anywhere=inputs_anywhere)
              for source in sources]
    _refuse_outputs_over_inputs(checks, gold=gold, forbidden=forbidden, config=config,
                                json_path=json_path, receipt_dir=receipt_dir,
                                sign_key=sign_key)
    bare = [c.source for c in checks if c.kind == "trace"]
    if bare and gold is None:
        raise InputError("a bare trace needs --gold", file=bare[0],
                         fix="give the contract to grade it against: --gold GOLD "
                         "(or regrade a receipt made with `toolscore eval --receipt`)")
    from toolscore_formats.reports.text import score_text, visible

    err = console.stderr()
    refused = [c for c in checks if c.refusal or (c.problems and not no_verify)]
    if refused:
        for check in refused:
            for problem in check.refusal or check.problems:
                err.print(visible(f"{check.source}: {problem.message}"), markup=False,
                          soft_wrap=True)
        why = ("the lines above are not overridden by --no-verify"
               if all(c.refusal for c in refused) else
               "the evidence no longer matches its receipt (--no-verify regrades anyway)")
        err.print(f"refused to regrade {len(refused)} of {len(checks)} source"
                  f"{'' if len(checks) == 1 else 's'}: {why}", markup=False, soft_wrap=True)
        ctx.exit(1)
        return
    for check in checks:
        for problem in check.problems:
            err.print(visible(f"{check.source}: warning: {problem.message}"), markup=False,
                      soft_wrap=True)
    results = [regrade_checked(check, gold=gold, weights=overrides, forbidden=forbidden,
                               config=config, receipt_dir=receipt_dir, final_answer=answer)
               for check in checks]
    if sign_key is not None:
        from toolscore_core.signing import sign_receipt

        for result in results:
            if result.receipt_path is not None:
                sign_receipt(result.receipt, sign_key, result.receipt_path)
    out = err if json_path == "-" else console.stdout()
    out.print(_table(results))
    for line in _change_lines(results):
        out.print(line, markup=False, soft_wrap=True)
    out.print(NOTHING_RERUN, markup=False, soft_wrap=True)
    for result in results:
        if result.receipt_path is not None:
            out.print(visible(f"receipt: {result.receipt_path.as_posix()}"), markup=False,
                      soft_wrap=True)
    if json_path:
        from toolscore_cli.output import write_json

        write_json(json_path, {"regrade": [r.to_dict() for r in results],
                               "note": NOTHING_RERUN})
    if events:
        from toolscore_otel.events import evaluation_events

        write_otel((event for r in results for event in evaluation_events(
            r.result, receipt_sha256=None if r.receipt_path is None
            else r.receipt["receipt_sha256"])), otel=otel, otel_file=otel_file)
    below = [r for r in results if threshold is not None
             and (r.result.score is None or r.result.score < threshold)]
    for result in below:
        score = score_text(result.result.score, result.result.grade)
        out.print(visible(f"{result.source}: score {score} is below --fail-under {fail_under}"),
                  markup=False, soft_wrap=True)
    if below:
        ctx.exit(1)


def _table(results: Sequence[Regrade]) -> Any:
    from rich.markup import escape
    from rich.table import Table

    from toolscore_formats.reports.text import score_text, visible

    table = Table(title="Regrade")
    table.add_column("Source")
    table.add_column("Before", justify="right")
    table.add_column("After", justify="right")
    table.add_column("Change", justify="right")
    for result in results:
        before = "—" if result.previous is None else _recorded_score(result.previous)
        change = "—" if result.previous is None else (
            "unknown" if result.score_delta is None else f"{result.score_delta * 100:+.1f}%")
        table.add_row(escape(visible(result.source)), escape(before),
                      score_text(result.result.score, result.result.grade), change)
    return table


def _change_lines(results: Sequence[Regrade]) -> list[str]:
    """Under the table, per source: each check that flipped (``answer-correct pass →
    unknown: reason``) and each metric that moved, or why there is nothing to compare."""
    from toolscore_formats.reports.text import visible

    lines = []
    for result in results:
        name = visible(result.source)
        if result.changes is None:
            lines.append(f"{name}: no before to compare with: "
                         f"{visible(result.changes_unknown or '')}")
        elif not result.changes.checks and not result.changes.metrics:
            lines.append(f"{name}: no check or metric changed")
        else:
            lines.append(f"{name}:")
            lines += [f"  check {visible(str(c))}" for c in result.changes.checks]
            lines += [f"  metric {visible(str(m))}" for m in result.changes.metrics]
    return lines


def _recorded_score(previous: Any) -> str:
    """The score a receipt recorded, as the table shows scores; the receipt is read as it
    is (regrade --no-verify takes edited ones), so a field that is not a score is shown
    as ``unknown`` and a grade as its visible text."""
    from toolscore_formats.reports.text import score_text, visible

    score = previous.get("score")
    grade = previous.get("grade")
    if not isinstance(score, int | float) or isinstance(score, bool):
        return "unknown"
    return score_text(score, visible(str(grade)) if grade is not None else None)


def _refuse_name_clashes(sources: Sequence[str], receipt_dir: str, target: Any) -> None:
    seen: dict[str, str] = {}
    for source in sources:
        path = target(source, receipt_dir).as_posix()
        if path in seen:
            raise InputError(f"{seen[path]} and {source} would both write {path}",
                             place="--receipt-dir",
                             fix="regrade them in separate calls with different folders")
        seen[path] = source
        if Path(path).resolve() == Path(source).resolve():
            raise InputError("the new receipt would overwrite its source", file=source,
                             place="--receipt-dir", fix="write the new receipts to another folder")


def _refuse_outputs_over_inputs(
    checks: Sequence[Any], *, gold: str | None, forbidden: str | None, config: str | None,
    json_path: str | None, receipt_dir: str | None, sign_key: str | None,
) -> None:
    """No output of a regrade may be a file it reads: a source, a replacing contract, rules
    or config, or any input a receipt binds."""
    from toolscore_core.receipts import INPUT_ROLES, input_path
    from toolscore_core.regrade import receipt_target

    inputs: list[tuple[str, Any]] = [("source", c.source) for c in checks]
    inputs += [("gold file", gold), ("forbidden rules", forbidden), ("config", config),
               ("private key", sign_key)]
    inputs += [(f"{role} file {c.source} binds", input_path(c.receipt, role, c.folder))
               for c in checks if c.receipt is not None for role in INPUT_ROLES]
    outputs: list[tuple[str, Any]] = [("--json", json_path)]
    if receipt_dir is not None:
        outputs += [("--receipt-dir", receipt_target(c.source, receipt_dir)) for c in checks]
        if sign_key is not None:
            from toolscore_core.signing import envelope_path

            outputs += [("--sign", envelope_path(receipt_target(c.source, receipt_dir)))
                        for c in checks]
    refuse_outputs_over_inputs(outputs, inputs)


def _is_runs_file(source: str) -> bool:
    """Whether ``source`` is a runs file of ``toolscore agent run`` rather than a trace.

    A ``.jsonl`` name says JSON Lines, and an MCP session (``toolscore mcp record -o
    session.jsonl``) or another JSONL trace is JSON Lines too: a runs file is told apart by
    its first row's kind. A ``.jsonl`` file that cannot be read that far is left to the runs
    path, which says what is wrong with it.
    """
    if not source.lower().endswith(".jsonl"):
        return False
    from toolscore_core.documents import JSON_FAILURES, loads
    from toolscore_core.inputs import open_input

    try:
        with open_input(source, what="regrade source") as handle:
            first = next((line for line in handle if line.strip()), b"")
        head = loads(first)
    except (OSError, *JSON_FAILURES):
        return True
    return isinstance(head, dict) and head.get("kind") == "toolscore.agent_run"


def _regrade_jsonl(
    sources: Sequence[str], *, output: str | None, spec: str | None, gold: str | None,
    weights: dict[str, float] | None, jobs: int, engine: str, ray_address: str | None,
    judge: Any = None, json_path: str | None = None, junit_path: str | None = None,
    fail_under: str | None = None, otel: bool = False, otel_file: str | None = None,
    no_progress: bool = False,
) -> int:
    if output is not None and len(sources) > 1:
        raise InputError("-o/--output takes one JSONL source", place="-o",
                         fix="regrade each runs.jsonl in its own call")
    try:
        from toolscore_cli.study_regrade import regrade_jsonl
    except ImportError:
        raise InputError("regrading agent-run JSONL files is not available in this build",
                         file=sources[0],
                         fix="regrade receipts or traces, or install a toolscore with "
                         "`toolscore agent`") from None
    code = 0
    for source in sources:
        code = max(code, regrade_jsonl(source, output=output, spec=spec, gold=gold,
                                       weights=weights, jobs=jobs, engine=engine,
                                       ray_address=ray_address, judge=judge, json_path=json_path,
                                       junit_path=junit_path, fail_under=fail_under, otel=otel,
                                       otel_file=otel_file, no_progress=no_progress))
    return code
