"""What ``toolscore eval`` does once click has parsed its arguments (``toolscore_cli.eval``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from toolscore_cli import console
from toolscore_cli.options import (
    check_otel,
    check_sign_key,
    final_answer_text,
    parse_fail_under,
    weights_from,
    write_otel,
)
from toolscore_cli.paths import refuse_outputs_over_inputs
from toolscore_cli.report_targets import (
    STDOUT,
    report_flag,
    report_targets,
    to_stdout,
    write_reports,
)
from toolscore_core.errors import InputError

if TYPE_CHECKING:
    from toolscore_core.judging import Judging

EVERY_CHECK = "*"
"""``--fail-on-evidence`` given without a value: every check."""


def run_eval(
    gold: str, trace: str, *, trace_format: str = "auto", explain_format: bool = False,
    weights: tuple[str, ...] = (), fail_under: str | None = None, json_path: str | None = None,
    forbidden_path: str | None = None, final_answer: str | None = None,
    config_path: str | None = None, injected_path: str | None = None,
    honesty_path: str | None = None,
    validate_side_effects: bool = False, fail_on_violations: bool = False,
    fail_on_evidence: str | None = None, strict_unknown: bool = False,
    receipt_path: str | None = None, sign_key: str | None = None,
    markdown_path: str | None = None,
    html_path: str | None = None, junit_path: str | None = None,
    reports: tuple[str, ...] = (), judge: Judging | None = None, otel: bool = False,
    otel_file: str | None = None,
) -> int:
    """Evaluate TRACE against the contract GOLD, print the verdict; the exit code.

    1 when a gate fails: ``--fail-on-violations``, ``--fail-on-evidence`` (every check, or
    the named ones; unknown too with ``--strict-unknown``) or ``--fail-under``. With
    ``otel``/``otel_file`` the verdicts are sent/written as OpenTelemetry evaluation events.
    """
    from toolscore_core.evaluation import evaluate_files
    from toolscore_core.plugins import default_registry

    threshold = parse_fail_under(fail_under) if fail_under is not None else None
    events = check_otel(otel, otel_file)
    registry = default_registry()
    gated = evidence_gate(registry.checks, fail_on_evidence, strict_unknown)
    answer = final_answer_text(final_answer)
    targets = report_targets(registry, json_path=json_path, markdown_path=markdown_path,
                             html_path=html_path, junit_path=junit_path, reports=reports)
    check_sign_key(sign_key, receipt_path, "--receipt")
    refuse_outputs_over_inputs(
        [*((report_flag(writer_id), path) for writer_id, path in targets),
         ("--receipt", receipt_path),
         ("--judgments", judge.file if judge is not None else None),
         ("--sign", _envelope(receipt_path) if sign_key else None),
         ("--otel-file", otel_file)],
        [("private key", sign_key), ("trace", trace), ("gold file", gold),
         ("forbidden rules", forbidden_path),
         ("config", config_path), ("injected file", injected_path),
         ("honesty config", honesty_path),
         ("final answer file", final_answer[1:] if final_answer and final_answer[:1] == "@"
          else None)])
    flags = registry.config_with(injected_path=injected_path, honesty_config_path=honesty_path,
                                 validate_side_effects=validate_side_effects)
    evaluation = evaluate_files(
        gold, trace, trace_format=trace_format, weights=weights_from(weights),
        forbidden_path=forbidden_path, final_answer=answer, config_path=config_path,
        config=flags, judge=judge, registry=registry,
    )
    if judge is not None and judge.file is not None and not Path(judge.file).exists():
        from toolscore_core.atomic import write_text_atomic

        write_text_atomic(judge.file, "")  # no question was asked: none to record
    from toolscore_cli.gates import gate_failures

    gates = gate_failures(evaluation, threshold=threshold, fail_under=fail_under, gated=gated,
                          strict_unknown=strict_unknown, fail_on_violations=fail_on_violations)
    # Files first: a closed stdout (`| head -1`) ends only the printing that follows.
    write_reports(evaluation, [t for t in targets if t[1] != STDOUT], registry, gates=gates)
    receipt = None
    if receipt_path:
        from toolscore_core.receipts import write_evaluation_receipt

        receipt = write_evaluation_receipt(
            receipt_path, evaluation, gold=gold, trace=trace, forbidden=forbidden_path,
            honesty_config=honesty_path, injected=injected_path, config=config_path,
            final_answer=answer)
        if sign_key is not None:
            from toolscore_core.signing import sign_receipt

            sign_receipt(receipt, sign_key, receipt_path)
    if events:
        from toolscore_otel.events import evaluation_events

        write_otel(evaluation_events(evaluation, receipt_sha256=None if receipt is None
                                     else receipt["receipt_sha256"]),
                   otel=otel, otel_file=otel_file)
    out = console.stderr() if to_stdout(targets) else console.stdout()
    if explain_format and evaluation.format is not None:
        out.print(f"format: {evaluation.format.format} ({evaluation.format.reason})",
                  markup=False)
        for failure in evaluation.format.failures:
            out.print(f"format: not claimed, because {failure}", markup=False, soft_wrap=True)
    registry.report_writers["console"].write(evaluation, cast(TextIO, out.file))
    write_reports(evaluation, [t for t in targets if t[1] == STDOUT], registry, gates=gates)
    for _, why in gates:
        out.print(why, markup=False, soft_wrap=True)
    return 1 if gates else 0


def _envelope(receipt_path: str | None) -> str | None:
    from toolscore_core.signing import envelope_path

    return None if receipt_path is None else str(envelope_path(receipt_path))


def judge_from(
    model: str | None, *, base_url: str | None, judgments: str | None, receipt: str | None,
    timeout: float, retries: int,
) -> Judging | None:
    """The judge ``--judge`` asks for (None without it); its judgments go to ``--judgments``,
    else beside the receipt (``run.receipt.json``: ``run.judgments.jsonl``)."""
    from toolscore_cli.options import judge_client

    if model is None:
        if judgments is not None:
            raise InputError("--judgments needs --judge", place="--judgments",
                             fix="add --judge MODEL, or leave it out")
        return judge_client(None, base_url=base_url, timeout=timeout, retries=retries)
    if judgments is None and receipt is None:
        raise InputError("--judge needs somewhere to record its verdicts", place="--judge",
                         fix="add --judgments FILE or --receipt FILE")
    from toolscore_core.judging import Judging
    from toolscore_judge.store import read_judgments

    if judgments is None:
        name = Path(str(receipt)).name.removesuffix(".json").removesuffix(".receipt")
        judgments = str(Path(str(receipt)).with_name(f"{name}.judgments.jsonl"))
    from toolscore_core.inputs import open_input, path_problem

    problem = path_problem(judgments, "judgments file")
    if problem is not None:
        raise problem
    if os.path.lexists(judgments):  # a device or a FIFO would hang the store's read
        open_input(judgments, what="judgments file").close()
    read_judgments(judgments)  # a damaged file is bad input before any model is asked
    return Judging(model=model, judgments=judgments,
                   client=judge_client(model, base_url=base_url, timeout=timeout,
                                       retries=retries))


def evidence_gate(
    checks: Mapping[str, object], value: str | None, strict_unknown: bool
) -> tuple[str, ...] | None:
    """The checks ``--fail-on-evidence`` names: () for every check, None when not asked.

    ``--strict-unknown`` alone gates every check. An unknown check id is bad input.
    """
    if value is None:
        return () if strict_unknown else None
    names = tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    if value == EVERY_CHECK or not names:
        return ()
    unknown = [n for n in names if n not in checks]
    if unknown:
        raise InputError(f"unknown check {unknown[0]!r}", place="--fail-on-evidence",
                         fix=f"name checks among {', '.join(sorted(checks))}")
    return names
