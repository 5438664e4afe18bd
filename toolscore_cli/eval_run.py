"""What ``toolscore eval`` does once its arguments are parsed (click-free).

Both the click command (``toolscore_cli.eval``) and the fast path that skips importing
click (``toolscore_cli.fast_eval``) call :func:`run_eval`.
"""

from __future__ import annotations

from typing import TextIO, cast

from toolscore_cli import console
from toolscore_cli.options import final_answer_text, parse_fail_under, weights_from
from toolscore_cli.report_targets import report_targets, to_stdout, write_reports


def run_eval(
    gold: str, trace: str, *, trace_format: str = "auto", explain_format: bool = False,
    weights: tuple[str, ...] = (), fail_under: str | None = None, json_path: str | None = None,
    forbidden_path: str | None = None, final_answer: str | None = None,
    injected_path: str | None = None, honesty_path: str | None = None,
    validate_side_effects: bool = False, fail_on_violations: bool = False,
    receipt_path: str | None = None, markdown_path: str | None = None,
    html_path: str | None = None, reports: tuple[str, ...] = (),
) -> int:
    """Evaluate TRACE against the contract GOLD, print the verdict; the exit code."""
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
        return 1
    if threshold is not None and (evaluation.score is None or evaluation.score < threshold):
        out.print(f"score below --fail-under {fail_under}", markup=False)
        return 1
    return 0
