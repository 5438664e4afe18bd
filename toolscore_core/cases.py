"""Case folders: a contract and a trace (and their options) per folder, evaluated as one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import frozen

from toolscore_core.errors import InputError

if TYPE_CHECKING:
    from toolscore_core.context import Evaluation
    from toolscore_core.judging import Judging
    from toolscore_core.plugins import Registry

CONTRACT_NAMES = ("contract.json", "contract.yaml", "contract.yml", "gold.json", "gold.yaml",
                  "gold.yml")
TRACE_NAMES = ("trace.json", "trace.jsonl")
FINAL_ANSWER_NAME = "final_answer.txt"
OPTION_NAMES = {
    "forbidden": ("forbidden.json", "forbidden.yaml", "forbidden.yml"),
    "config": ("config.json", "config.yaml", "config.yml"),
    "honesty_config": ("honesty.json", "honesty.yaml", "honesty.yml"),
    "injected": ("injected.json",),
}
"""The optional files of a case folder, by the option they fill."""
FLAG_FILES: tuple[str, ...] = ("honesty_config", "injected")
"""The optional files a plugin's shorthand flag reads, each named by the flag's keyword."""


@frozen
class Case:
    """One case folder: what to evaluate and with which options."""

    id: str
    """The folder's path below the cases root, with ``/`` (the test id)."""
    folder: Path
    """The folder."""
    contract: Path
    """The contract (``contract.json|yaml|yml``, or ``gold.*``)."""
    trace: Path
    """The trace (``trace.json`` or ``trace.jsonl``, any format toolscore reads)."""
    final_answer: Path | None = None
    """``final_answer.txt``: the agent's final answer, when the trace lacks it."""
    forbidden: Path | None = None
    """``forbidden.*``: forbidden-call rules."""
    config: Path | None = None
    """``config.*``: options of checks, metrics and formats (as ``--config``)."""
    honesty_config: Path | None = None
    """``honesty.*``: the honesty checks' words (as the shorthand flag of that name)."""
    injected: Path | None = None
    """``injected.json``: what a recording proxy planted (as the shorthand flag of that
    name)."""

    def __str__(self) -> str:
        return self.id

    def final_answer_text(self) -> str | None:
        """The text of ``final_answer.txt`` (a trailing newline left out), or None."""
        if self.final_answer is None:
            return None
        from toolscore_core.documents import read_bytes

        data = read_bytes(self.final_answer, what="final answer")
        try:
            return data.decode("utf-8").removesuffix("\n")
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text ({exc.reason})", file=str(self.final_answer),
                             place=f"byte {exc.start}", fix="save the file as UTF-8") from None

    def evaluate(self, *, weights: dict[str, float] | None = None,
                 judge: Judging | None = None, registry: Registry | None = None) -> Evaluation:
        """The case's evaluation, as ``toolscore eval`` gives it for the same files."""
        from toolscore_core.evaluation import evaluate_files
        from toolscore_core.plugins import default_registry

        registry = registry or default_registry()
        flags = registry.config_with(**{f"{role}_path": getattr(self, role)
                                        for role in FLAG_FILES})
        return evaluate_files(
            self.contract, self.trace, weights=weights, forbidden_path=self.forbidden,
            final_answer=self.final_answer_text(), config_path=self.config, config=flags,
            judge=judge, registry=registry)


def cases(root: str | os.PathLike[str]) -> list[Case]:
    """Every case folder below ``root`` (itself included), sorted by id.

    A case folder holds a contract and a trace. A folder with one of the two and not the
    other, two contracts or two traces, or a root holding no case, is bad input.
    """
    base = Path(root)
    if not base.is_dir():
        raise InputError("not a folder of cases", file=str(base),
                         fix="give the folder whose subfolders hold contract.json and "
                         "trace.json")
    found = []
    for folder, dirs, files in os.walk(base):
        dirs.sort()
        case = _case(base, Path(folder), set(files))
        if case is not None:
            found.append(case)
    if not found:
        raise InputError("no case folder (a contract and a trace) below it", file=str(base),
                         fix="put contract.json and trace.json in a folder per case")
    return sorted(found, key=lambda c: c.id)


def _case(base: Path, folder: Path, files: set[str]) -> Case | None:
    contract = _one(folder, files, CONTRACT_NAMES)
    trace = _one(folder, files, TRACE_NAMES)
    if contract is None and trace is None:
        return None
    if contract is None or trace is None:
        has, lacks = ("a contract", "a trace") if trace is None else ("a trace", "a contract")
        names = TRACE_NAMES if trace is None else CONTRACT_NAMES
        raise InputError(f"a case folder with {has} but no {lacks[2:]}", file=str(folder),
                         fix=f"add {' or '.join(names[:2])}, or move the file out")
    options = {key: _one(folder, files, names) for key, names in OPTION_NAMES.items()}
    answer = folder / FINAL_ANSWER_NAME if FINAL_ANSWER_NAME in files else None
    relative = folder.relative_to(base).as_posix()
    return Case(id=base.name if relative == "." else relative, folder=folder,
                contract=contract, trace=trace, final_answer=answer, **options)


def _one(folder: Path, files: set[str], names: tuple[str, ...]) -> Path | None:
    present = [name for name in names if name in files]
    if len(present) > 1:
        raise InputError(f"{' and '.join(present)} in one case folder", file=str(folder),
                         fix="keep one of them")
    return folder / present[0] if present else None
