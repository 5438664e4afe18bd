"""``assert_trace``: a toolscore verdict as a test assertion, with a failure people can read."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscore_core.context import Evaluation
    from toolscore_core.plugins import Registry

PathLike = str | os.PathLike[str]
_FILE = (str, os.PathLike)
"""What isinstance tells a path by (a path, not a document)."""
CELL = 48
"""Characters of a call shown in the side-by-side table (longer ones are cut with …)."""


class TraceAssertionError(AssertionError):
    """The trace does not meet the contract; the message says why, and ``evaluation`` holds
    the whole verdict."""

    def __init__(self, message: str, evaluation: Evaluation) -> None:
        super().__init__(message)
        self.evaluation = evaluation


def threshold(min_score: float | str | None) -> float | None:
    """``min_score`` as a number: a score 0..1, or a grade letter (``"B"`` = 0.8)."""
    if min_score is None:
        return None
    from toolscore_core.scoring import GRADES

    if isinstance(min_score, str):
        letters = dict(GRADES)
        if min_score.upper() not in letters:
            raise ValueError(f"min_score {min_score!r} is not a grade (A, B, C, D) or a number")
        return letters[min_score.upper()]
    if isinstance(min_score, bool) or not 0 <= min_score <= 1:
        raise ValueError(f"min_score {min_score!r} is not a score from 0 to 1")
    return float(min_score)


def evaluate_any(
    contract: Any, trace: Any, *, final_answer: str | None = None, forbidden: Any = None,
    weights: Mapping[str, float] | None = None, trace_format: str = "auto",
    config: Any = None, registry: Registry | None = None,
) -> Evaluation:
    """The evaluation of ``trace`` against ``contract``: each a path to a file, or what
    ``toolscore.evaluate`` takes (a Contract or list of expected calls; a Trace, a list of
    ToolCall or a trace document); ``forbidden`` and ``config`` a file or the rules and
    sections themselves. Files are read as ``toolscore eval`` reads them."""
    from toolscore_core.evaluation import evaluate, evaluate_files

    if all(isinstance(v, _FILE) for v in (contract, trace)) and all(
            v is None or isinstance(v, _FILE) for v in (forbidden, config)):
        return evaluate_files(contract, trace, trace_format=trace_format, weights=weights,
                              forbidden_path=forbidden, final_answer=final_answer,
                              config_path=config, registry=registry)
    from toolscore_core.config import load_config
    from toolscore_core.contracts import load_contract
    from toolscore_core.documents import load_document
    from toolscore_core.traces import load_trace

    if isinstance(contract, _FILE):
        contract = load_contract(contract)
    if isinstance(trace, _FILE):
        trace, _ = load_trace(trace, trace_format=trace_format, registry=registry)
    if isinstance(forbidden, _FILE):
        forbidden = load_document(forbidden, what="forbidden rules")
    if isinstance(config, _FILE):
        config = load_config(config)
    return evaluate(contract, trace, weights=weights, forbidden=forbidden,
                    final_answer=final_answer, trace_format=trace_format, config=config,
                    registry=registry)


def problems(evaluation: Evaluation, *, min_score: float | None,
             checks: Sequence[str] | None, strict_unknown: bool) -> list[str]:
    """Why the evaluation fails the assertion (empty when it passes)."""
    out = []
    if min_score is not None and (evaluation.score is None or evaluation.score < min_score):
        out.append(f"score {_score(evaluation)} is below min_score {min_score:.1%}")
    gated = None if checks is None else tuple(checks)
    for result in evaluation.evidence.failing(gated, strict_unknown=strict_unknown):
        out.append(f"check {result.check} is {result.status}: {result.reason}")
    return out


def explain(evaluation: Evaluation, reasons: Sequence[str]) -> str:
    """The failure message: why, then the calls side by side, what went wrong, the evidence.

    Everything shown comes from the report view, so credentials are masked as in every
    report and control characters are shown, not obeyed."""
    from toolscore_formats.reports.view import build_view

    view = build_view(evaluation)
    lines = ["the trace does not meet the contract:"]
    lines += [f"  {reason}" for reason in reasons]
    lines += ["", f"Score {view.score}  ({view.headline})", ""]
    table = [("#", "expected", "#", "actual", "")] + [
        (_num(c.expected_number), _cut(c.expected), _num(c.actual_number), _cut(c.actual),
         c.match) for c in view.calls]
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    for cells in table:
        shown = [cells[i].rjust(widths[i]) if i in (0, 2) else cells[i].ljust(widths[i])
                 for i in range(4)]
        lines.append(("  " + "  ".join(shown) + "  " + cells[4]).rstrip())
    if view.findings:
        lines += ["", "What went wrong"] + [f"  - {finding}" for finding in view.findings]
    lines += ["", view.evidence_summary]
    lines += [f"  {c.status:<7} {c.check}: {c.reason}" for c in view.checks
              if c.status != "pass"]
    return "\n".join(lines)


def _num(value: int | None) -> str:
    return "" if value is None else str(value)


def _cut(text: str) -> str:
    return text if len(text) <= CELL else text[:CELL - 1] + "…"


def _score(evaluation: Evaluation) -> str:
    if evaluation.score is None:
        return "unknown"
    return f"{evaluation.score:.1%} {evaluation.grade}"


def assert_trace(
    contract: Any, trace: Any, *, min_score: float | str | None = None,
    checks: Sequence[str] | None = None, strict_unknown: bool = False,
    final_answer: str | None = None, forbidden: Any = None,
    weights: Mapping[str, float] | None = None, trace_format: str = "auto",
    config: Any = None, registry: Registry | None = None,
) -> Evaluation:
    """Evaluate ``trace`` against ``contract`` and fail the test when the verdict is not
    good enough; return the evaluation when it is.

    It fails when the score is below ``min_score`` (a score 0..1 or a grade letter; None:
    no score gate) or when an evidence check fails: every check (``checks=None``), the named
    ones, or none (``checks=()``); with ``strict_unknown`` an unknown check fails too, since
    missing evidence is no pass. The message shows the expected and actual calls side by
    side, what went wrong, and the failing and unknown checks with their reasons.
    """
    __tracebackhide__ = True
    floor = threshold(min_score)
    evaluation = evaluate_any(contract, trace, final_answer=final_answer, forbidden=forbidden,
                              weights=weights, trace_format=trace_format, config=config,
                              registry=registry)
    reasons = problems(evaluation, min_score=floor, checks=checks,
                       strict_unknown=strict_unknown)
    if reasons:
        raise TraceAssertionError(explain(evaluation, reasons), evaluation)
    return evaluation


def receipt_name(nodeid: str, index: int) -> str:
    """A file name for the ``index``-th receipt of a test (its node id made safe)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in nodeid).strip("_")
    return f"{safe}{'' if index == 0 else f'.{index + 1}'}.receipt.json"


def write_receipt(directory: PathLike, name: str, evaluation: Evaluation, *, contract: Any,
                  trace: Any, forbidden: Any, config: Any, final_answer: str | None) -> Path:
    """A receipt of ``evaluation`` in ``directory``, binding the inputs given as files."""
    from toolscore_core.receipts import write_evaluation_receipt

    def file(value: Any) -> str | None:
        return os.fspath(value) if isinstance(value, _FILE) else None

    path = Path(directory) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    write_evaluation_receipt(str(path), evaluation, gold=file(contract), trace=file(trace),
                             forbidden=file(forbidden), config=file(config),
                             final_answer=final_answer)
    return path
