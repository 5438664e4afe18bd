"""Receipts: which bytes were evaluated, how, by which plugins, with which result."""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from attrs import fields, frozen

from toolscore_core.atomic import write_text_atomic
from toolscore_core.canonical import canonical_sha256, file_sha256, sha256_hex
from toolscore_core.components import toolscore_version
from toolscore_core.config import shorthand_value
from toolscore_core.context import Evaluation
from toolscore_core.contracts import contract_json
from toolscore_core.documents import parse_json, read_bytes
from toolscore_core.errors import InputError
from toolscore_core.structure import shape, structure

if TYPE_CHECKING:
    from toolscore_core.plugins import Registry

RECEIPT_KIND = "toolscore.evaluation"
RECEIPT_VERSION = "1"
@frozen
class InputFile:
    """An input file a receipt binds: its path (relative to the receipt) and its bytes' hash."""

    path: str
    sha256: str
    size: int | None = None


@frozen
class ReceiptInputs:
    """The input files by role; null when the evaluation had none in that role."""

    gold: InputFile | None = None
    trace: InputFile | None = None
    forbidden: InputFile | None = None
    honesty_config: InputFile | None = None
    injected: InputFile | None = None
    config: InputFile | None = None
    judgments: InputFile | None = None


INPUT_ROLES: tuple[str, ...] = tuple(f.name for f in fields(ReceiptInputs))
"""Every input file a receipt can bind, in the order they are checked."""
LISTED_WHEN_GIVEN: tuple[str, ...] = ("config", "judgments")
"""Roles a receipt lists only when the file was given, so that a receipt made without
them is the same as before they existed (every other role is listed, null when absent)."""
FLAG_INPUTS: tuple[str, ...] = ("honesty_config", "injected")
"""Roles of the files a plugin's shorthand flag read, each named by the flag's keyword."""


class FlagFiles(TypedDict):
    """The files of ``FLAG_INPUTS`` by role, as ``build_receipt`` takes them."""

    honesty_config: str | os.PathLike[str] | None
    injected: str | os.PathLike[str] | None


FLAG_SETTINGS: tuple[str, ...] = ("validate_side_effects",)
"""Settings that record a plugin's shorthand switch, each named by the flag's keyword."""


@frozen
class RegradedFrom:
    """The receipt a regraded receipt came from."""

    path: str
    """Its path, relative to the regraded receipt's folder."""
    receipt_sha256: str
    """Its ``receipt_sha256``."""


@frozen
class ReceiptCheckChange:
    """A check whose status a regrade changed, as a regraded receipt lists it."""

    check: str
    before: str | None
    after: str | None
    reason: str


@frozen
class ReceiptMetricChange:
    """A metric whose value a regrade changed, as a regraded receipt lists it."""

    metric: str
    before: Any
    after: Any


@frozen
class ReceiptChanges:
    """What a regrade changed since the parent receipt's evaluation."""

    checks: tuple[ReceiptCheckChange, ...]
    metrics: tuple[ReceiptMetricChange, ...]


@frozen
class ReceiptSettings:
    """The settings the evaluation ran under: what a regrade repeats."""

    trace_format: str | None
    validate_side_effects: bool
    judge_model: str | None
    weights: Any  # verify reports bad weights as a Problem, as it does the result's fields
    final_answer_sha256: str | None
    regraded_from: RegradedFrom | None


@frozen
class ReceiptResult:
    """The result recorded; ``verify`` reports a field that disagrees."""

    score: Any
    grade: Any
    required_call_recall: Any
    record_sha256: Any


@frozen
class ReceiptPlugin:
    """A plugin that took part, as a receipt lists it."""

    name: str
    distribution: str | None
    version: str | None


@frozen
class Receipt:
    """The shape of a version-1 receipt, checked on reading (the receipt stays a dict)."""

    kind: str
    receipt_version: str
    inputs: ReceiptInputs
    settings: ReceiptSettings
    contract_sha256: Any
    toolscore_version: Any
    plugins: tuple[ReceiptPlugin, ...]
    created_at: Any
    result: ReceiptResult
    receipt_sha256: Any
    components: Mapping[str, str | None] | None = None  # absent in receipts made before it
    changes: ReceiptChanges | None = None
    """A regraded receipt's changes since its parent's evaluation (null when there was none
    to compare with); absent in a receipt that was not regraded."""


for _record, _noun in ((Receipt, "a receipt"), (ReceiptSettings, "'settings'"),
                      (ReceiptResult, "'result'"), (InputFile, "an input"),
                      (RegradedFrom, "'regraded_from'"), (ReceiptPlugin, "a plugin"),
                      (ReceiptChanges, "'changes'"), (ReceiptCheckChange, "a check change"),
                      (ReceiptMetricChange, "a metric change")):
    # closed: a key this toolscore does not know is a field no verify could check
    shape(_record, _noun, "give a file written by `toolscore eval --receipt`")
shape(ReceiptInputs, "'inputs'", "inputs are " + ", ".join(INPUT_ROLES))


def utc_now() -> str:
    """The current time, UTC, ISO 8601 to the second (``2026-12-02T15:52:46Z``)."""
    now = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def final_answer_sha256(text: str) -> str:
    """SHA-256 of a final answer's UTF-8 bytes."""
    return sha256_hex(text.encode("utf-8"))


def relative_path(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> str:
    """``path`` relative to the folder ``base``, with POSIX separators."""
    target = os.path.abspath(path)
    folder = os.path.abspath(base)
    try:
        rel = os.path.relpath(target, folder)
    except ValueError:  # another drive on Windows: no relative path exists
        rel = target
    return Path(rel).as_posix()


def input_record(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> dict[str, Any]:
    """``{"path", "sha256", "size"}`` of an input file, its path relative to ``base``."""
    digest, size = file_sha256(path)
    return {"path": relative_path(path, base), "sha256": digest, "size": size}


def build_receipt(
    evaluation: Evaluation,
    *,
    gold: str | os.PathLike[str] | None = None,
    trace: str | os.PathLike[str] | None = None,
    forbidden: str | os.PathLike[str] | None = None,
    honesty_config: str | os.PathLike[str] | None = None,
    injected: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    judgments: str | os.PathLike[str] | None = None,
    final_answer: str | None = None,
    receipt_path: str | os.PathLike[str] | None = None,
    regraded_from: Mapping[str, Any] | None = None,
    created_at: str | None = None,
    changes: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A sealed receipt (with ``receipt_sha256``) for ``evaluation``.

    The input files are the ones the evaluation read; each is hashed as its bytes on disk
    and named by its path relative to the folder of ``receipt_path`` (the current directory
    when no receipt path is given). ``final_answer`` is the answer given apart from the
    trace (``--final-answer``); when omitted, an evaluation whose final answer differs from
    its trace's records the hash of the one it used. ``judgments`` defaults to the judge's.
    A regraded receipt (``regraded_from``) holds ``changes``: the checks and metrics that
    changed since its parent's evaluation, null when there was none to compare with.
    """
    base = Path(receipt_path).parent if receipt_path is not None else Path(".")
    judge = evaluation.context.options.judge
    given = {"gold": gold, "trace": trace, "forbidden": forbidden,
             "honesty_config": honesty_config, "injected": injected, "config": config,
             "judgments": judgments or (judge.file if judge else None)}
    inputs = {role: None if path is None else input_record(path, base)
              for role, path in given.items()
              if path is not None or role not in LISTED_WHEN_GIVEN}
    if final_answer is None and evaluation.final_answer != evaluation.trace.final_answer:
        final_answer = evaluation.final_answer
    switches = {name: bool(shorthand_value(evaluation.context.options.config,
                                           evaluation.context.settings, name))
                for name in FLAG_SETTINGS}
    receipt: dict[str, Any] = {
        "kind": RECEIPT_KIND,
        "receipt_version": RECEIPT_VERSION,
        "inputs": inputs,
        "settings": {
            "trace_format": evaluation.trace.format,
            **switches,
            "judge_model": judge.model if judge else None,
            "weights": dict(evaluation.weights),
            "final_answer_sha256": (None if final_answer is None
                                    else final_answer_sha256(final_answer)),
            "regraded_from": None if regraded_from is None else dict(regraded_from),
        },
        "contract_sha256": canonical_sha256(contract_json(evaluation.contract)),
        "toolscore_version": toolscore_version(),
        "plugins": [p.to_dict() for p in evaluation.plugins],
        "components": evaluation.components,
        "created_at": created_at or utc_now(),
        "result": {
            "score": evaluation.score,
            "grade": evaluation.grade,
            "required_call_recall": evaluation.required_call_recall,
            "record_sha256": evaluation.record_sha256,
        },
    }
    if regraded_from is not None:
        receipt["changes"] = None if changes is None else dict(changes)
    return seal(receipt)


def seal(receipt: Mapping[str, Any]) -> dict[str, Any]:
    """The receipt with ``receipt_sha256`` set to the hash of everything else."""
    body = {k: v for k, v in receipt.items() if k != "receipt_sha256"}
    return {**body, "receipt_sha256": canonical_sha256(body)}


def write_receipt(receipt: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write ``receipt`` to ``path`` atomically (temp file + rename): indented JSON with
    sorted keys, UTF-8."""
    write_text_atomic(path, json.dumps(receipt, indent=2, sort_keys=True, ensure_ascii=False,
                                       allow_nan=False) + "\n")
    return Path(path)


def write_evaluation_receipt(
    path: str | os.PathLike[str], evaluation: Evaluation, **inputs: Any
) -> dict[str, Any]:
    """Build the receipt of ``evaluation`` for ``path`` and write it there."""
    receipt = build_receipt(evaluation, receipt_path=path, **inputs)
    write_receipt(receipt, path)
    return receipt


def load_receipt(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a receipt file, refusing anything that is not a toolscore receipt."""
    name = str(path)
    data = parse_json(read_bytes(path, what="receipt"), file=name)
    check_shape(data, file=name)
    return dict(data)


def is_receipt(data: Any) -> bool:
    """Whether decoded JSON claims to be a toolscore evaluation receipt."""
    return isinstance(data, Mapping) and data.get("kind") == RECEIPT_KIND


def check_shape(data: Any, *, file: str | None = None) -> None:
    """Raise InputError unless ``data`` has the shape of a version-1 receipt."""
    if not is_receipt(data):
        raise InputError(f'not a toolscore receipt (kind is not "{RECEIPT_KIND}")', file=file,
                         place="$.kind",
                         fix="give a file written by `toolscore eval --receipt`")
    if data.get("receipt_version") != RECEIPT_VERSION:
        raise InputError(
            f"unsupported receipt_version {data.get('receipt_version')!r}", file=file,
            place="$.receipt_version", fix=f"this toolscore reads version {RECEIPT_VERSION}")
    structure(data, Receipt, source=file)


def input_path(receipt: Mapping[str, Any], role: str, base: str | os.PathLike[str]) -> Path | None:
    """Where the input ``role`` of a receipt is on disk (relative paths from ``base``)."""
    entry = receipt["inputs"].get(role)
    if entry is None:
        return None
    path = Path(entry["path"])
    return path if path.is_absolute() else Path(base) / path


def flag_config(
    registry: Registry, paths: Mapping[str, Path | None], settings: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """The plugin options a receipt's shorthand files (``paths`` by role) and switches
    (its ``settings``) fill, as the evaluation it records had them."""
    return registry.config_with(**{f"{role}_path": paths.get(role) for role in FLAG_INPUTS},
                                **{name: bool(settings.get(name)) for name in FLAG_SETTINGS})


def flag_files(paths: Mapping[str, Path | None]) -> FlagFiles:
    """The files of ``paths`` (by role) that a plugin's shorthand flag read."""
    return cast(FlagFiles, {role: paths.get(role) for role in FLAG_INPUTS})
