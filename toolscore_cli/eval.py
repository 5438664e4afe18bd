"""``toolscore eval``: a trace (or many, ``toolscore_cli.eval_many``) against a contract."""

from __future__ import annotations

import click

from toolscore_cli.eval_run import judge_from, run_eval
from toolscore_cli.options import (
    format_option,
    judge_options,
    otel_options,
    sign_option,
    weight_option,
)
from toolscore_cli.paths import FILE
from toolscore_cli.report_targets import report_options
from toolscore_core.errors import InputError


@click.command("eval")
@click.argument("paths", nargs=-1, type=FILE, metavar="GOLD TRACE...")
@click.option("--cases", "cases_dir", metavar="DIR",
              help="Evaluate every case folder below DIR (a contract and a trace in each), "
                   "instead of GOLD TRACE....")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes evaluating traces at once (many traces).")
@click.option("--receipt-dir", metavar="DIR",
              help="Write a receipt per trace into DIR (many traces).")
@click.option("--no-progress", is_flag=True, help="No progress bar (many traces).")
@format_option
@click.option("--explain-format", is_flag=True, help="Say which format read the trace and why.")
@weight_option
@click.option("--fail-under", metavar="SCORE|GRADE",
              help="Exit 1 when the score is below this (0.85, 85% or a grade like B).")
@click.option("--json", "json_path", metavar="PATH|-", help="Write the JSON report (- = stdout).")
@report_options
@click.option("--forbidden", "forbidden_path", type=FILE,
              help="Forbidden-call rules (JSON or YAML).")
@click.option("--final-answer", metavar="TEXT|@FILE",
              help="The agent's final answer (else the one in the trace).")
@click.option("--config", "config_path", type=FILE,
              help="Options of checks, metrics and formats: a section per id (YAML or JSON; "
                   "see docs/checks.md).")
@click.option("--injected", "injected_path", type=FILE,
              help="What a recording proxy planted (injected.json).")
@click.option("--honesty-config", "honesty_path", type=FILE,
              help="Words and tool names the honesty checks use (YAML or JSON).")
@click.option("--validate-side-effects", is_flag=True,
              help="Probe the side effects the contract declares.")
@click.option("--fail-on-violations", is_flag=True,
              help="Exit 1 when a call breaks a forbidden rule (forbidden-calls fails).")
@click.option("--fail-on-evidence", "fail_on_evidence", is_flag=False, flag_value="*",
              default=None, metavar="[CHECK,...]",
              help="Exit 1 when an evidence check fails: every check, or the named ones "
                   "(comma-separated). Unknown does not fail unless --strict-unknown.")
@click.option("--strict-unknown", is_flag=True,
              help="With --fail-on-evidence, an unknown check fails too (alone: every check).")
@click.option("--receipt", "receipt_path", type=FILE,
              help="Write a receipt (inputs' hashes, settings, plugins, result) to this path.")
@sign_option("--receipt")
@judge_options
@otel_options
@click.pass_context
def eval_command(
    ctx: click.Context, paths: tuple[str, ...], cases_dir: str | None, jobs: int,
    receipt_dir: str | None, no_progress: bool, trace_format: str, explain_format: bool,
    weights: tuple[str, ...], fail_under: str | None, json_path: str | None,
    forbidden_path: str | None, final_answer: str | None, config_path: str | None,
    injected_path: str | None,
    honesty_path: str | None, validate_side_effects: bool, fail_on_violations: bool,
    fail_on_evidence: str | None, strict_unknown: bool, receipt_path: str | None,
    sign_key: str | None, markdown_path: str | None, html_path: str | None, junit_path: str | None,
    reports: tuple[str, ...], judge_model: str | None, judge_base_url: str | None,
    judgments_path: str | None, judge_timeout: float, judge_retries: int, otel: bool,
    otel_file: str | None,
) -> None:
    """Evaluate TRACE against the contract GOLD and print the verdict.

    Given several traces (or --cases DIR), evaluate each in one process and print a table,
    a row per trace; the gates apply to every trace.
    """
    if cases_dir is not None or len(paths) > 2 or receipt_dir is not None:
        from toolscore_cli.eval_many import run_many

        refused = {"--receipt": receipt_path, "--markdown": markdown_path,
                   "--html": html_path, "--report": reports or None,
                   "--final-answer": final_answer, "--explain-format": explain_format or None,
                   "--judge": judge_model, "--judgments": judgments_path}
        code = run_many(paths, cases_dir=cases_dir, jobs=jobs, receipt_dir=receipt_dir,
                        no_progress=no_progress, refused=refused, trace_format=trace_format,
                        weights=weights, fail_under=fail_under, json_path=json_path,
                        junit_path=junit_path, forbidden_path=forbidden_path,
                        config_path=config_path, injected_path=injected_path,
                        honesty_path=honesty_path, validate_side_effects=validate_side_effects,
                        fail_on_violations=fail_on_violations,
                        fail_on_evidence=fail_on_evidence, strict_unknown=strict_unknown)
        if code:
            ctx.exit(code)
        return
    if len(paths) < 2:
        raise InputError("give the contract and a trace: toolscore eval GOLD TRACE",
                         place="GOLD TRACE...",
                         fix="or evaluate a folder of cases with --cases DIR")
    gold, trace = paths
    code = run_eval(
        gold, trace, trace_format=trace_format, explain_format=explain_format,
        weights=weights, fail_under=fail_under, json_path=json_path,
        forbidden_path=forbidden_path, final_answer=final_answer, config_path=config_path,
        injected_path=injected_path,
        honesty_path=honesty_path, validate_side_effects=validate_side_effects,
        fail_on_violations=fail_on_violations, fail_on_evidence=fail_on_evidence,
        strict_unknown=strict_unknown, receipt_path=receipt_path, sign_key=sign_key,
        markdown_path=markdown_path, html_path=html_path, junit_path=junit_path,
        reports=reports, judge=judge_from(
            judge_model, base_url=judge_base_url, judgments=judgments_path,
            receipt=receipt_path, timeout=judge_timeout, retries=judge_retries),
        otel=otel, otel_file=otel_file,
    )
    if code:
        ctx.exit(code)
