"""``toolscore eval``: evaluate one trace against a contract."""

from __future__ import annotations

from typing import TextIO, cast

import click

from toolscore_cli import console
from toolscore_cli.options import (
    final_answer_text,
    format_option,
    parse_fail_under,
    weight_option,
    weights_from,
)
from toolscore_cli.report_targets import report_options, report_targets, to_stdout, write_reports


@click.command("eval")
@click.argument("gold", type=click.Path(dir_okay=False))
@click.argument("trace", type=click.Path(dir_okay=False))
@format_option
@click.option("--explain-format", is_flag=True, help="Say which format read the trace and why.")
@weight_option
@click.option("--fail-under", metavar="SCORE|GRADE",
              help="Exit 1 when the score is below this (0.85, 85% or a grade like B).")
@click.option("--json", "json_path", metavar="PATH|-", help="Write the JSON report (- = stdout).")
@report_options
@click.option("--forbidden", "forbidden_path", type=click.Path(dir_okay=False),
              help="Forbidden-call rules (JSON or YAML).")
@click.option("--final-answer", metavar="TEXT|@FILE",
              help="The agent's final answer (else the one in the trace).")
@click.option("--injected", "injected_path", type=click.Path(dir_okay=False),
              help="What a recording proxy planted (injected.json).")
@click.option("--honesty-config", "honesty_path", type=click.Path(dir_okay=False),
              help="Words and tool names the honesty checks use (YAML or JSON).")
@click.option("--validate-side-effects", is_flag=True,
              help="Probe the side effects the contract declares.")
@click.option("--fail-on-violations", is_flag=True,
              help="Exit 1 when a call breaks a forbidden rule (forbidden-calls fails).")
@click.option("--receipt", "receipt_path", type=click.Path(dir_okay=False),
              help="Write a receipt (inputs' hashes, settings, plugins, result) to this path.")
@click.pass_context
def eval_command(
    ctx: click.Context, gold: str, trace: str, trace_format: str, explain_format: bool,
    weights: tuple[str, ...], fail_under: str | None, json_path: str | None,
    forbidden_path: str | None, final_answer: str | None, injected_path: str | None,
    honesty_path: str | None, validate_side_effects: bool, fail_on_violations: bool,
    receipt_path: str | None, markdown_path: str | None, html_path: str | None,
    reports: tuple[str, ...],
) -> None:
    """Evaluate TRACE against the contract GOLD and print the verdict."""
    from toolscore_core.evaluation import evaluate_files
    from toolscore_core.plugins import default_registry

    threshold = parse_fail_under(fail_under) if fail_under is not None else None
    registry = default_registry()
    answer = final_answer_text(final_answer)
    targets = report_targets(registry, json_path=json_path, markdown_path=markdown_path,
                             html_path=html_path, reports=reports)
    evaluation = evaluate_files(
        gold, trace, trace_format=trace_format, weights=weights_from(weights),
        forbidden_path=forbidden_path, final_answer=answer,
        injected_path=injected_path, honesty_config_path=honesty_path,
        validate_side_effects=validate_side_effects, registry=registry,
    )
    out = console.stderr() if to_stdout(targets) else console.stdout()
    if explain_format and evaluation.format is not None:
        out.print(f"format: {evaluation.format.format} ({evaluation.format.reason})",
                  markup=False)
    registry.report_writers["console"].write(evaluation, cast(TextIO, out.file))
    write_reports(evaluation, targets, registry)
    if receipt_path:
        from toolscore_core.receipts import write_evaluation_receipt

        write_evaluation_receipt(receipt_path, evaluation, gold=gold, trace=trace,
                                 forbidden=forbidden_path, honesty_config=honesty_path,
                                 injected=injected_path, final_answer=answer)
    forbidden = evaluation.evidence.get("forbidden-calls")
    if fail_on_violations and forbidden is not None and forbidden.status == "fail":
        out.print("forbidden calls were made (--fail-on-violations)", markup=False)
        ctx.exit(1)
    if threshold is not None and (evaluation.score is None or evaluation.score < threshold):
        out.print(f"score below --fail-under {fail_under}", markup=False)
        ctx.exit(1)
