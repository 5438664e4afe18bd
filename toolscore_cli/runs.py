"""``toolscore runs``: runs files from elsewhere (``runs import``: a benchmark's results)."""

from __future__ import annotations

import click

from toolscore_cli import console
from toolscore_cli.paths import FILE
from toolscore_cli.summary import print_summary
from toolscore_core.errors import InputError


@click.group("runs")
def runs_group() -> None:
    """Runs files from elsewhere: other tools' results as toolscore runs rows."""


def _pairs(values: tuple[str, ...], what: str, form: str) -> dict[str, str]:
    """The ``NAME=VALUE`` pairs given with ``--input`` or ``--option`` (``what``), each name
    once; ``form`` is how to write one."""
    found: dict[str, str] = {}
    for text in values:
        name, sep, value = text.partition("=")
        if not sep or not name.strip() or not value:
            raise InputError(f"bad {what} {text!r}", place=f"--{what}", fix=f"write {form}")
        if name.strip() in found:
            raise InputError(f"{what} {name.strip()!r} is given twice", place=f"--{what}",
                             fix=f"give each {what} once")
        found[name.strip()] = value
    return found


@runs_group.command("import")
@click.argument("format_id", metavar="FORMAT")
@click.argument("source", metavar="FILE", type=FILE)
@click.option("-o", "--output", required=True, type=FILE,
              help="The runs file to write (JSON Lines), replaced whole.")
@click.option("--input", "inputs", multiple=True, metavar="NAME=PATH",
              help="A companion file the format takes (bfcl: score=, questions=).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A setting the format takes (inspect_ai: scorer=, the scorer that decides).")
@click.option("--study", metavar="NAME",
              help="The study name the rows carry (default: the file's name without suffix).")
@click.option("--spec", type=FILE,
              help="Evaluate each run as it is imported, under this study spec's task.")
@click.option("--gold", type=FILE,
              help="Evaluate each run as it is imported, under this contract.")
@click.option("--k", "k", type=int, default=None, metavar="K",
              help="The k of pass^k in the table (default: the fewest trials any task has).")
def import_command(format_id: str, source: str, output: str, inputs: tuple[str, ...],
                   options: tuple[str, ...], study: str | None, spec: str | None, gold: str | None,
                   k: int | None) -> None:
    """Turn FILE, results of FORMAT (tau_bench, tau2_bench, bfcl, agentdojo, inspect_ai, or a
    plugin's), into runs rows.

    Each row holds the run's calls with their results and its final answer; the outcome is
    the benchmark's own verdict (kept in imported.verdict) until `toolscore regrade` (or
    --spec/--gold here) evaluates it. `toolscore summary` and `toolscore regrade --spec` or
    `--gold` read the file like any runs file.
    """
    from toolscore_studies.importing import import_runs
    from toolscore_studies.summary import summarize_file

    if k is not None and k < 1:
        raise InputError(f"--k must be at least 1, not {k}", place="--k")
    if spec is not None and gold is not None:
        raise InputError("--spec and --gold cannot be given together", place="--gold",
                         fix="use a spec for task-by-task contracts or a gold file for all runs")
    count = import_runs(
        format_id, source, output, study=study, spec=spec, gold=gold,
        inputs=_pairs(inputs, "input",
                      "NAME=PATH, e.g. --input score=BFCL_v3_simple_score.json"),
        options=_pairs(options, "option", "NAME=VALUE, e.g. --option scorer=includes"))
    print_summary(summarize_file(output).to_dict(k))
    judged = ("evaluated by toolscore" if spec or gold
              else "outcomes are the benchmark's own verdicts (imported.verdict)")
    console.stdout().print(f"{count} runs imported from {source} into {output}: {judged}.",
                           markup=False, soft_wrap=True)
