"""``toolscore verify``: re-hash receipts' inputs and the receipts themselves."""

from __future__ import annotations

from typing import Any

import click

from toolscore_cli import console
from toolscore_cli.options import final_answer_option, final_answer_text
from toolscore_cli.paths import FILE, refuse_outputs_over_inputs


@click.command("verify")
@click.argument("receipts", nargs=-1, required=True, type=FILE)
@click.option("--recompute", is_flag=True,
              help="Also re-run each evaluation from its bound inputs and compare every field "
                   "it derives.")
@click.option("--chain", is_flag=True,
              help="Also walk each regraded receipt's lineage (settings.regraded_from) to the "
                   "first evaluation, checking every receipt on the way.")
@click.option("--inputs-anywhere", is_flag=True,
              help="Read inputs a receipt binds outside its folder too (by default they are a "
                   "problem, not read: a receipt could probe any file of this machine).")
@click.option("--key", "key_path", type=FILE, metavar="PUB",
              help="Also check each receipt's signature (the .dsse.json envelope beside it) "
                   "with this Ed25519 public key: the signature, the signed receipt and its "
                   "inputs.")
@final_answer_option
@click.option("--json", "json_path", metavar="PATH|-",
              help="Write the verification results as JSON (- = stdout).")
@click.pass_context
def verify_command(
    ctx: click.Context, receipts: tuple[str, ...], recompute: bool, chain: bool,
    inputs_anywhere: bool, key_path: str | None, final_answer: str | None,
    json_path: str | None,
) -> None:
    """Check that each RECEIPT and every input it binds are unchanged.

    Each problem is one line: which input, the expected and actual SHA-256, a missing
    file, or an edited receipt. Exits 1 on any problem (and, with --recompute, when an
    evaluation or a field it derives is not reproduced; with --chain, when a receipt of the
    lineage is missing or does not verify).
    """
    from toolscore_core.verify import verify_chain, verify_receipt
    from toolscore_formats.reports.text import visible

    answer = final_answer_text(final_answer)
    refuse_outputs_over_inputs([("--json", json_path)],
                               [*(("receipt", r) for r in receipts), ("public key", key_path)])
    public_key = None
    signatures: dict[str, list[str]] = {}
    if key_path is not None:
        from toolscore_core.signing import load_public_key

        public_key = load_public_key(key_path)
    out = console.stderr() if json_path == "-" else console.stdout()
    results = []
    chains: list[dict[str, Any]] = []
    for path in receipts:
        result = verify_receipt(path, recompute=recompute, final_answer=answer,
                                inputs_anywhere=inputs_anywhere)
        results.append(result)
        for problem in result.problems:
            out.print(visible(f"{path}: {problem.message}"), markup=False, soft_wrap=True)
        if not result.problems:
            bound = sum(1 for entry in result.receipt["inputs"].values() if entry is not None)
            out.print(visible(f"{path}: ok (receipt and {bound} input file"
                              f"{'' if bound == 1 else 's'} match)"), markup=False, soft_wrap=True)
        if public_key is not None:
            from toolscore_core.signing import check_signature

            signed = check_signature(result.receipt, path, public_key)
            signatures[path] = list(signed.problems)
            for line in signed.problems:
                out.print(visible(f"{path}: {line}"), markup=False, soft_wrap=True)
            if signed.ok:
                out.print(visible(f"{path}: signature: verified with {key_path} "
                                  f"({signed.envelope.as_posix()})"), markup=False,
                          soft_wrap=True)
        if result.recompute is not None:
            out.print(visible(f"{path}: {result.recompute.status}: {result.recompute.reason}"),
                      markup=False, soft_wrap=True)
            for field in result.recompute.fields:
                out.print(visible(f"{path}: {field}"), markup=False, soft_wrap=True)
        if chain:
            links, broken = verify_chain(path, inputs_anywhere=inputs_anywhere)
            chains.append({"source": path, "ok": not broken and all(
                link.verification.ok for link in links), "links": [
                    {"path": link.path.as_posix(), **link.verification.to_dict()}
                    for link in links], "problems": [p.to_dict() for p in broken]})
            for link in links[1:]:
                shown = link.path.as_posix()
                for problem in link.verification.problems:
                    out.print(visible(f"{path}: parent {shown}: {problem.message}"),
                              markup=False, soft_wrap=True)
                if link.verification.ok:
                    out.print(visible(f"{path}: parent {shown}: ok"), markup=False,
                              soft_wrap=True)
            for problem in broken:
                out.print(visible(f"{path}: chain: {problem.message}"), markup=False,
                          soft_wrap=True)
            if not broken:
                out.print(visible(f"{path}: chain: {len(links)} receipt"
                                  f"{'' if len(links) == 1 else 's'} back to the first "
                                  "evaluation"), markup=False, soft_wrap=True)
    if json_path:
        from toolscore_cli.output import write_json

        document: dict[str, object] = {"receipts": [
            {**r.to_dict(), **({"signature": signatures.get(str(r.source), [])}
                               if public_key is not None else {})} for r in results]}
        if chain:
            document["chains"] = chains
        write_json(json_path, document)
    if (not all(r.ok for r in results) or not all(c["ok"] for c in chains)
            or any(signatures.values())):
        ctx.exit(1)
