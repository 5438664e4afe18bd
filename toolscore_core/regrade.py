"""Regrade: re-score recorded evidence under a new contract or new weights, re-running nothing."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from attrs import frozen

from toolscore_core.changes import Changes
from toolscore_core.context import Evaluation
from toolscore_core.documents import parse_json
from toolscore_core.errors import InputError, ToolscoreError
from toolscore_core.evaluation import evaluate_files
from toolscore_core.inputs import read_input
from toolscore_core.plugins import Registry
from toolscore_core.receipts import (
    FLAG_INPUTS,
    build_receipt,
    check_shape,
    flag_files,
    is_receipt,
    relative_path,
    write_receipt,
)
from toolscore_core.scoring import DIGITS
from toolscore_core.verify import (
    Problem,
    changes_since,
    check_final_answer,
    check_inputs,
    check_seal,
    evaluate_bound,
)

RECEIPT_SUFFIX = ".receipt.json"
_SNIFF_LIMIT = 16 << 20
"""Files larger than this are never receipts (receipts are a few kilobytes)."""


class RegradeRefused(ToolscoreError):
    """A receipt's evidence no longer matches it, so it is not regraded."""

    def __init__(self, source: str, problems: tuple[Problem, ...]) -> None:
        self.source = source
        self.problems = problems
        lines = "; ".join(p.message for p in problems)
        super().__init__(f"{source}: refused to regrade: {lines}")


@frozen
class SourceCheck:
    """A regrade source read and checked, before anything is evaluated."""

    source: str
    """The source as given."""
    kind: Literal["receipt", "trace"]
    """What the source is."""
    receipt: Mapping[str, Any] | None
    """The source receipt; null for a bare trace."""
    folder: Path
    """Where the receipt's relative input paths start."""
    problems: tuple[Problem, ...]
    """What no longer matches: inputs, the receipt's own hash, the final answer."""
    refusal: tuple[Problem, ...] = ()
    """Problems no ``--no-verify`` can override (a final answer that is needed but absent)."""


@frozen
class Regrade:
    """One source re-scored: the new evaluation and receipt beside the recorded result."""

    source: str
    """The receipt or trace regraded, as given."""
    kind: Literal["receipt", "trace"]
    """What the source is."""
    result: Evaluation
    """The new evaluation."""
    receipt: Mapping[str, Any]
    """The new receipt, written to ``receipt_path`` when a receipt folder was given; else its
    paths are relative to the source's folder, as if it sat beside the source."""
    previous: Mapping[str, Any] | None
    """The source receipt's ``result`` (score, grade, recall, record_sha256); null for a
    bare trace."""
    score_delta: float | None
    """New score minus the previous one; null when either is unknown or there was none."""
    problems: tuple[Problem, ...]
    """What did not verify (only non-empty when regraded with ``verify=False``)."""
    receipt_path: Path | None = None
    """Where the new receipt was written; null without a receipt folder."""
    changes: Changes | None = None
    """The checks that flipped and the metrics that moved since the recorded evaluation
    (re-derived from the receipt's inputs and settings); null when there is none to compare
    with (see ``changes_unknown``)."""
    changes_unknown: str | None = None
    """Why ``changes`` is null: a bare trace records no evaluation, or the receipt's
    evaluation no longer reproduces from its inputs."""

    def to_dict(self) -> dict[str, Any]:
        before = None if self.previous is None else {
            "score": self.previous.get("score"), "grade": self.previous.get("grade"),
            "record_sha256": self.previous.get("record_sha256")}
        return {
            "source": self.source,
            "kind": self.kind,
            "before": before,
            "after": {"score": self.result.score, "grade": self.result.grade,
                      "record_sha256": self.result.record_sha256},
            "change": self.score_delta,
            "changes": None if self.changes is None else self.changes.to_dict(),
            "changes_unknown": self.changes_unknown,
            "problems": [p.to_dict() for p in self.problems],
            "receipt": None if self.receipt_path is None else self.receipt_path.as_posix(),
        }


def read_source(source: str | os.PathLike[str]) -> Mapping[str, Any] | None:
    """The receipt in ``source``, or None when it is a trace."""
    path = Path(source)
    named = path.name.endswith(RECEIPT_SUFFIX)
    data_bytes = read_input(path, what="regrade source", limit=None if named else _SNIFF_LIMIT)
    if len(data_bytes) > _SNIFF_LIMIT and not named:
        return None
    try:
        data = parse_json(data_bytes, file=str(source))
    except InputError:
        if named:
            raise
        return None
    if is_receipt(data) or named:
        check_shape(data, file=str(source))
        return dict(data)
    return None


def inspect_source(
    source: str | os.PathLike[str], *, final_answer: str | None = None,
    inputs_anywhere: bool = False,
) -> SourceCheck:
    """Read a regrade source and check a receipt's inputs, hash and final answer. Inputs
    outside the receipt's folder and inputs that are not regular files are refusals no
    ``--no-verify`` overrides (``inputs_anywhere`` accepts the first)."""
    receipt = read_source(source)
    if receipt is None:
        return SourceCheck(source=str(source), kind="trace", receipt=None, folder=Path("."),
                           problems=())
    folder = Path(source).parent
    answer = check_final_answer(receipt, final_answer)
    inputs = check_inputs(receipt, folder, inputs_anywhere=inputs_anywhere)
    problems = check_seal(receipt) + inputs + answer
    refusal = tuple(p for p in inputs if p.kind in ("input_outside", "input_refused")) + tuple(
        p for p in answer if p.actual is None)
    return SourceCheck(source=str(source), kind="receipt", receipt=receipt, folder=folder,
                       problems=tuple(problems), refusal=refusal)


def regrade(
    source: str | os.PathLike[str],
    *,
    gold: str | os.PathLike[str] | None = None,
    weights: Mapping[str, float] | None = None,
    forbidden: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    verify: bool = True,
    receipt_dir: str | os.PathLike[str] | None = None,
    final_answer: str | None = None,
    registry: Registry | None = None,
    inputs_anywhere: bool = False,
) -> Regrade:
    """Re-score a receipt's (or a bare trace's) evidence; nothing is re-run.

    For a receipt, its gold file, trace format, weights, forbidden rules and config are the
    defaults; ``gold``, ``weights`` (by name, then renormalized), ``forbidden`` and
    ``config`` (a config file of plugin options) replace them. The receipt's inputs are
    verified first: when anything no longer matches, ``RegradeRefused`` is raised, unless
    ``verify=False`` (the problems are then kept in ``Regrade.problems``). A receipt made
    with a separate final answer needs the same ``final_answer`` again. A bare trace needs
    ``gold``. With ``receipt_dir`` a new receipt is written there, naming the receipt it
    came from in ``settings.regraded_from``. An input outside the receipt's folder is
    refused, whatever ``verify``, unless ``inputs_anywhere``.
    """
    checked = inspect_source(source, final_answer=final_answer,
                             inputs_anywhere=inputs_anywhere)
    if checked.refusal or (verify and checked.problems):
        raise RegradeRefused(checked.source, checked.refusal or checked.problems)
    return regrade_checked(checked, gold=gold, weights=weights, forbidden=forbidden,
                           config=config, receipt_dir=receipt_dir, final_answer=final_answer,
                           registry=registry)


def receipt_target(source: str | os.PathLike[str], receipt_dir: str | os.PathLike[str]) -> Path:
    """Where ``--receipt-dir`` puts the new receipt of ``source``."""
    name = Path(source).name
    if not name.endswith(RECEIPT_SUFFIX):
        name = Path(name).stem + RECEIPT_SUFFIX
    return Path(receipt_dir) / name


def regrade_checked(
    checked: SourceCheck,
    *,
    gold: str | os.PathLike[str] | None = None,
    weights: Mapping[str, float] | None = None,
    forbidden: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    receipt_dir: str | os.PathLike[str] | None = None,
    final_answer: str | None = None,
    registry: Registry | None = None,
) -> Regrade:
    """Regrade a source already read by ``inspect_source`` (no verification here)."""
    target = None if receipt_dir is None else receipt_target(checked.source, receipt_dir)
    if target is not None and target.resolve() == Path(checked.source).resolve():
        raise InputError("the new receipt would overwrite its source", file=checked.source,
                         place="receipt_dir=", fix="write the new receipts to another folder")
    evaluation, paths, previous = _evaluate(checked, gold=gold, weights=weights,
                                            forbidden=forbidden, config=config,
                                            final_answer=final_answer, registry=registry)
    # Unwritten receipts are laid out as if they sat beside their source.
    nominal = target or receipt_target(checked.source, Path(checked.source).parent)
    regraded_from = None
    if checked.receipt is not None:
        regraded_from = {"path": relative_path(checked.source, nominal.parent),
                         "receipt_sha256": checked.receipt.get("receipt_sha256")}
    changes, unknown = _changes(checked, evaluation, overridden=(
        gold, weights, forbidden, config), final_answer=final_answer, registry=registry)
    receipt = build_receipt(
        evaluation, gold=paths["gold"], trace=paths["trace"], forbidden=paths["forbidden"],
        **flag_files(paths),
        config=paths["config"], final_answer=final_answer, receipt_path=nominal,
        regraded_from=regraded_from, changes=None if changes is None else changes.to_dict(),
    )
    if target is not None:
        write_receipt(receipt, target)
    return Regrade(source=checked.source, kind=checked.kind, result=evaluation,
                   receipt=receipt, previous=previous,
                   score_delta=_delta(previous, evaluation), problems=checked.problems,
                   receipt_path=target, changes=changes, changes_unknown=unknown)


def _changes(
    checked: SourceCheck, evaluation: Evaluation, *, overridden: tuple[Any, ...],
    final_answer: str | None, registry: Registry | None,
) -> tuple[Changes | None, str | None]:
    """What changed since the evaluation the source receipt recorded (see
    :func:`toolscore_core.verify.changes_since`)."""
    if checked.receipt is None:
        return None, "a bare trace records no evaluation to compare with"
    # nothing replaced: the regrade is the recorded run again, no second run needed
    same = all(value is None for value in overridden)
    return changes_since(checked.receipt, checked.folder, evaluation, final_answer=final_answer,
                         registry=registry, source=checked.source,
                         before=evaluation if same else None)


def _evaluate(
    checked: SourceCheck, *, gold: str | os.PathLike[str] | None,
    weights: Mapping[str, float] | None, forbidden: str | os.PathLike[str] | None,
    config: str | os.PathLike[str] | None, final_answer: str | None,
    registry: Registry | None,
) -> tuple[Evaluation, dict[str, Path | None], Mapping[str, Any] | None]:
    if checked.receipt is not None:
        evaluation, paths = evaluate_bound(
            checked.receipt, checked.folder, gold=gold, weights=weights, forbidden=forbidden,
            config=config, final_answer=final_answer, registry=registry, source=checked.source)
        return evaluation, paths, dict(checked.receipt["result"])
    if gold is None:
        raise InputError("a bare trace needs a gold file", file=checked.source, place="gold=",
                         fix="give the contract to grade it against (or regrade a receipt "
                         "made with `toolscore eval --receipt`)")
    evaluation = evaluate_files(gold, checked.source, weights=weights, forbidden_path=forbidden,
                                config_path=config, final_answer=final_answer,
                                registry=registry)
    bound: dict[str, Path | None] = {
        "gold": Path(gold), "trace": Path(checked.source),
        "forbidden": None if forbidden is None else Path(forbidden),
        **dict.fromkeys(FLAG_INPUTS),
        "config": None if config is None else Path(config),
    }
    return evaluation, bound, None


def _delta(previous: Mapping[str, Any] | None, evaluation: Evaluation) -> float | None:
    before = None if previous is None else previous.get("score")
    if not isinstance(before, int | float) or isinstance(before, bool):
        return None
    if evaluation.score is None:
        return None
    return round(evaluation.score - before, DIGITS)
