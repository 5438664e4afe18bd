"""The pytest plugin (entry point ``pytest11``): the ``toolscore`` fixture, case folders as
parametrized tests, trials with pass^k, receipts per test. Inert unless a test uses it:
loading it imports nothing of toolscore."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from toolscore_core.cases import Case
    from toolscore_core.context import Evaluation

RECORDINGS = "toolscore-recordings"
"""The default folder (below pytest's rootdir) of the traces recorded by trials."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolscore", "toolscore: evaluate agents' tool calls")
    group.addoption("--toolscore-receipts", metavar="DIR", default=None,
                    help="Write a toolscore receipt per evaluation of each test into DIR.")
    group.addoption("--toolscore-live", action="store_true", default=False,
                    help="Run the agents of @pytest.mark.toolscore trials and record their "
                         "traces (without it, the recorded traces are replayed).")
    group.addoption("--toolscore-recordings", metavar="DIR", default=None,
                    help=f"Where trials record their traces (default: {RECORDINGS}/ in the "
                         "rootdir).")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "toolscore(trials=N, k=K, min_pass_k=1.0): run the test's agent N times "
        "with toolscore.trials(...) and require pass^K (live with --toolscore-live, else "
        "replayed from the recorded traces)")
    config.addinivalue_line(
        "markers", "toolscore_cases(DIR): parametrize the test's `case` argument with one "
        "case per case folder below DIR (ids: the folder names)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("toolscore_cases")
    if marker is None:
        return
    if "case" not in metafunc.fixturenames:
        raise pytest.UsageError(
            f"{metafunc.definition.nodeid}: @pytest.mark.toolscore_cases needs a `case` "
            "argument to hand each case to")
    from toolscore_core.cases import cases

    root = Path(*marker.args) if marker.args else None
    if root is None:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: @pytest.mark.toolscore_cases "
                                "needs the folder of the cases, e.g. toolscore_cases('cases')")
    if not root.is_absolute():
        root = Path(metafunc.definition.fspath).parent / root
    found = cases(root)
    metafunc.parametrize("case", found, ids=[c.id for c in found])


class Toolscore:
    """The ``toolscore`` fixture: assertions that record their verdict in the test report
    (``record_property``: score, grade, record_sha256, so they reach pytest's JUnit XML) and
    write a receipt per evaluation with ``--toolscore-receipts DIR``."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request
        self._record = request.node.user_properties
        self._evaluations = 0

    def assert_trace(self, contract: Any, trace: Any, *, min_score: float | str | None = None,
                     checks: Sequence[str] | None = None, strict_unknown: bool = False,
                     final_answer: str | None = None, forbidden: Any = None,
                     weights: Mapping[str, float] | None = None, trace_format: str = "auto",
                     config: Any = None) -> Evaluation:
        """``toolscore_pytest.assert_trace``, recorded in the test report (and a receipt)."""
        __tracebackhide__ = True
        from toolscore_pytest.asserting import (
            TraceAssertionError,
            evaluate_any,
            explain,
            problems,
            threshold,
        )

        floor = threshold(min_score)
        evaluation = evaluate_any(contract, trace, final_answer=final_answer,
                                  forbidden=forbidden, weights=weights,
                                  trace_format=trace_format, config=config)
        self._keep(evaluation, contract=contract, trace=trace, forbidden=forbidden,
                   config=config, final_answer=final_answer)
        reasons = problems(evaluation, min_score=floor, checks=checks,
                           strict_unknown=strict_unknown)
        if reasons:
            raise TraceAssertionError(explain(evaluation, reasons), evaluation)
        return evaluation

    def assert_case(self, case: Case, *, min_score: float | str | None = None,
                    checks: Sequence[str] | None = None,
                    strict_unknown: bool = False) -> Evaluation:
        """``assert_trace`` over a case folder (its contract, trace and options)."""
        __tracebackhide__ = True
        return self.assert_trace(case.contract, case.trace, min_score=min_score, checks=checks,
                                 strict_unknown=strict_unknown,
                                 final_answer=case.final_answer_text(), forbidden=case.forbidden,
                                 config=case.config)

    def trials(self, agent: Callable[[], Any], contract: Any, *,
               min_score: float | str | None = 1.0, checks: Sequence[str] | None = None,
               strict_unknown: bool = False) -> list[Evaluation]:
        """Run ``agent`` as many times as ``@pytest.mark.toolscore(trials=N, k=K)`` says and
        require pass^K of at least ``min_pass_k`` (default 1.0), where a trial passes when
        ``assert_trace`` with the same options would.

        ``agent()`` returns what the agent left: a Trace, a trace document, a list of
        ToolCall, a path to a trace file, or a pair ``(any of those, final_answer)``. With
        ``--toolscore-live`` each trial's trace is recorded (toolscore's native format)
        below ``--toolscore-recordings``; without it the recorded traces are evaluated and
        the agent is not run: record once, re-test forever.
        """
        __tracebackhide__ = True
        from toolscore_pytest.asserting import problems, threshold
        from toolscore_studies.summary import pass_hat_k

        marker = self._request.node.get_closest_marker("toolscore")
        n = int(marker.kwargs.get("trials", 1)) if marker else 1
        k = int(marker.kwargs.get("k", 1)) if marker else 1
        min_pass_k = float(marker.kwargs.get("min_pass_k", 1.0)) if marker else 1.0
        if not 1 <= k <= n:
            raise pytest.UsageError(f"{self._request.node.nodeid}: toolscore(trials={n}, "
                                    f"k={k}): k must be from 1 to trials")
        folder = self._recordings()
        live = self._request.config.getoption("toolscore_live")
        traces = self._record_trials(agent, folder, n) if live else _recorded(folder, n)
        floor = threshold(min_score)
        evaluations, passed, lines = [], 0, []
        for number, trace in enumerate(traces, start=1):
            evaluation = self._evaluate_kept(contract, trace)
            reasons = problems(evaluation, min_score=floor, checks=checks,
                               strict_unknown=strict_unknown)
            passed += not reasons
            evaluations.append(evaluation)
            lines.append(f"  trial {number}: " + ("pass" if not reasons else "; ".join(reasons)))
        estimate = pass_hat_k(n, passed, k)
        self._record.append((f"toolscore_pass^{k}", estimate))
        if estimate is None or estimate < min_pass_k:
            shown = "unknown" if estimate is None else f"{estimate:.3f}"
            raise AssertionError(
                f"pass^{k} {shown} is below {min_pass_k:g}: {passed} of {n} trials passed\n"
                + "\n".join(lines))
        return evaluations

    def _evaluate_kept(self, contract: Any, trace: Path) -> Evaluation:
        from toolscore_pytest.asserting import evaluate_any

        evaluation = evaluate_any(contract, trace)
        self._keep(evaluation, contract=contract, trace=trace, forbidden=None, config=None,
                   final_answer=None)
        return evaluation

    def _recordings(self) -> Path:
        config = self._request.config
        base = config.getoption("toolscore_recordings") or config.rootpath / RECORDINGS
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_"
                       for ch in self._request.node.nodeid).strip("_")
        return Path(base) / safe

    def _record_trials(self, agent: Callable[[], Any], folder: Path,
                       n: int) -> list[Path]:
        from toolscore_core.plugins import default_registry
        from toolscore_pytest.recording import write_trace
        from toolscore_studies.runner import trace_from_result

        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("trial-*.json"):
            stale.unlink()
        out = []
        for number in range(1, n + 1):
            result = agent()
            answer = None
            if isinstance(result, tuple) and len(result) == 2 and (
                    result[1] is None or isinstance(result[1], str)):
                result, answer = result
            if isinstance(result, str | os.PathLike):
                from toolscore_core.traces import load_trace

                trace, _ = load_trace(result)
            else:
                trace = trace_from_result(result, default_registry())
            if answer is not None:
                from attrs import evolve

                trace = evolve(trace, final_answer=answer)
            path = folder / f"trial-{number}.json"
            write_trace(trace, path)
            out.append(path)
        return out

    def _keep(self, evaluation: Evaluation, *, contract: Any, trace: Any, forbidden: Any,
              config: Any, final_answer: str | None) -> None:
        index = self._evaluations
        self._evaluations += 1
        suffix = "" if index == 0 else f"_{index + 1}"
        self._record.append((f"toolscore_score{suffix}", evaluation.score))
        self._record.append((f"toolscore_grade{suffix}", evaluation.grade))
        self._record.append((f"toolscore_record_sha256{suffix}", evaluation.record_sha256))
        directory = self._request.config.getoption("toolscore_receipts")
        if directory:
            from toolscore_pytest.asserting import receipt_name, write_receipt

            write_receipt(directory, receipt_name(self._request.node.nodeid, index), evaluation,
                          contract=contract, trace=trace, forbidden=forbidden, config=config,
                          final_answer=final_answer)


def _recorded(folder: Path, n: int) -> list[Path]:
    __tracebackhide__ = True
    found = sorted(folder.glob("trial-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    if len(found) < n:
        pytest.fail(f"{len(found)} recorded trace(s) in {folder}, {n} needed: run the test "
                    "once with --toolscore-live to record them", pytrace=False)
    return found[:n]


@pytest.fixture
def toolscore(request: pytest.FixtureRequest) -> Toolscore:
    """toolscore's assertions for this test (see ``Toolscore``)."""
    return Toolscore(request)
