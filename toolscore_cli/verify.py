"""``toolscore verify``: re-hash receipts' inputs and the receipts themselves."""

from __future__ import annotations

import click

from toolscore_cli import console
from toolscore_cli.options import final_answer_option, final_answer_text
from toolscore_cli.paths import FILE


@click.command("verify")
@click.argument("receipts", nargs=-1, required=True, type=FILE)
@click.option("--recompute", is_flag=True,
              help="Also re-run each evaluation from its bound inputs and compare records.")
@final_answer_option
@click.option("--json", "json_path", metavar="PATH|-",
              help="Write the verification results as JSON (- = stdout).")
@click.pass_context
def verify_command(
    ctx: click.Context, receipts: tuple[str, ...], recompute: bool, final_answer: str | None,
    json_path: str | None,
) -> None:
    """Check that each RECEIPT and every input it binds are unchanged.

    Each problem is one line: which input, the expected and actual SHA-256, a missing
    file, or an edited receipt. Exits 1 on any problem (and, with --recompute, when an
    evaluation is not reproduced).
    """
    from toolscore_core.verify import verify_receipt
    from toolscore_formats.reports.text import visible

    answer = final_answer_text(final_answer)
    out = console.stderr() if json_path == "-" else console.stdout()
    results = []
    for path in receipts:
        result = verify_receipt(path, recompute=recompute, final_answer=answer)
        results.append(result)
        for problem in result.problems:
            out.print(visible(f"{path}: {problem.message}"), markup=False, soft_wrap=True)
        if not result.problems:
            bound = sum(1 for entry in result.receipt["inputs"].values() if entry is not None)
            out.print(visible(f"{path}: ok (receipt and {bound} input file"
                              f"{'' if bound == 1 else 's'} match)"), markup=False, soft_wrap=True)
        if result.recompute is not None:
            out.print(visible(f"{path}: {result.recompute.status}: {result.recompute.reason}"),
                      markup=False, soft_wrap=True)
    if json_path:
        from toolscore_cli.output import write_json

        write_json(json_path, {"receipts": [r.to_dict() for r in results]})
    if not all(r.ok for r in results):
        ctx.exit(1)
