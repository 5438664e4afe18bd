"""The Ray engine: a study's runs, or a runs file's chunks, as tasks on a Ray cluster.

Workers run the very functions the local engine runs (a runner on one planned run,
``regrade_chunk`` on one chunk of lines), which the runner and the regrade hand over: this
module imports neither, so no import goes back up. The driver keeps the writing, so rows,
order and ``--resume`` are the local engine's. Ray is imported here only, and only when
asked for.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import ModuleType
from typing import Any

from toolscore_core.errors import InputError, ToolscoreError
from toolscore_studies.records import build_record, now_iso, run_judge

EXTRA = "pip install 'toolscore[ray]'"
RETRIES = 3
"""Times Ray runs a task again when its worker or node dies (the run was never recorded, so
running it again loses and duplicates nothing)."""
CHUNK_BYTES = 1 << 20
"""Bytes of lines per task: four times the local engine's chunk, which spreads the cost of
a task (its arguments and result through the object store, a round trip to the driver)
over about 90 rows of 12 KiB (bench/bench_regrade_ray.py)."""
WINDOW_PER_JOB = 4
"""Chunks a regrade keeps submitted per job: running, or done and waiting for their turn."""

_LOADED: dict[str, Any] = {}
"""A worker process's runner or regrader for the study it is serving, by the study's token."""


class ClusterError(ToolscoreError):
    """The Ray cluster lost work it could not run again (a regrade is then not written)."""


def require_ray() -> ModuleType:
    """The ``ray`` module, or a one-line error naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise InputError("the ray engine needs Ray, which is not installed", place="--engine",
                         fix=f"{EXTRA}, or leave --engine out for the local engine") from None
    return ray


@contextlib.contextmanager
def connected(address: str | None, *, jobs: int) -> Iterator[ModuleType]:
    """Ray, connected for the duration: to ``address``, else to the cluster ``ray.init()``
    finds ($RAY_ADDRESS, as under ``ray job submit``), else to a local cluster of ``jobs``
    CPUs started for the occasion and stopped after it. A connection this process already
    holds (``ray.init()`` called by the caller) is used as it is and left open."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    options: dict[str, Any] = {"logging_level": logging.WARNING}
    if address is None and not os.environ.get("RAY_ADDRESS"):
        options.update(num_cpus=jobs, include_dashboard=False)
    try:
        ray.init(address=address, **options)
    except Exception as exc:  # Ray raises several kinds (ConnectionError, RuntimeError, ...)
        raise InputError(f"cannot connect to the Ray cluster at {address or 'auto'} "
                         f"({' '.join(str(exc).split())[:300]})", place="--ray-address",
                         fix="start it with `ray start --head` and give the address it "
                         "prints, or leave --ray-address out for a local cluster") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def _loaded(token: str, holder: Sequence[Any]) -> Any:
    """The worker's copy of the study's runner or regrader, fetched once per process: its
    registry, and a regrader's memo of evaluations, then serve every later task."""
    found = _LOADED.get(token)
    if found is None:
        import ray

        _LOADED.clear()  # a worker serves one study at a time; the last one goes
        found = _LOADED[token] = ray.get(holder[0])
    return found


def _call(token: str, holder: Sequence[Any], item: Any) -> Any:
    """The task: the study's callable (a runner, or the regrade of a chunk) on one item."""
    return _loaded(token, holder)(item)


def _remote(ray: ModuleType, function: Callable[..., Any]) -> Any:
    # retry_exceptions stays off: only a dead worker or node is a reason to run again
    return ray.remote(max_retries=RETRIES, num_cpus=1)(function)


@contextlib.contextmanager
def executing(address: str | None, *, jobs: int,
              kill_grace: float) -> Iterator[Callable[..., None]]:
    """``execute`` on a Ray cluster, connected for as long as this is open."""
    with connected(address, jobs=jobs) as ray:
        def execute(plan: Sequence[Any], runner: Any, *, jobs: int,
                    on_record: Callable[[dict[str, Any]], None], stop: Any) -> None:
            run_on_ray(ray, plan, runner, jobs=jobs, on_record=on_record, stop=stop,
                       kill_grace=kill_grace)

        yield execute


def run_on_ray(ray: ModuleType, plan: Sequence[Any], runner: Any, *, jobs: int,
               on_record: Callable[[dict[str, Any]], None], stop: Any,
               kill_grace: float) -> None:
    """Each planned run as a task, at most ``jobs`` in flight, each record handed over as
    its run ends. A run whose worker died past its retries is an error record.

    On KeyboardInterrupt the running tasks are cancelled (their agents killed), no new
    run starts, and the interrupt propagates; finished runs are kept.
    """
    if jobs < 1:
        raise InputError(f"jobs must be at least 1, not {jobs}", place="jobs=")
    task = _remote(ray, _call)
    token, holder = uuid.uuid4().hex, [ray.put(runner)]
    pending = iter(plan)
    running: dict[Any, tuple[Any, str]] = {}

    def submit(count: int) -> None:
        for planned in [p for _, p in zip(range(count), pending, strict=False)]:
            running[task.remote(token, holder, planned)] = (planned, now_iso())

    try:
        submit(jobs)
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                planned, submitted = running.pop(ref)
                on_record(_record(ray, ref, planned, submitted, runner))
                submit(1)
    except BaseException:
        stop.set()
        for ref in running:
            ray.cancel(ref)
        if running:
            # cancelling raises KeyboardInterrupt in each task, which kills its agent's group
            ray.wait(list(running), num_returns=len(running), timeout=kill_grace + 1)
        raise


def _record(ray: ModuleType, ref: Any, planned: Any, submitted: str,
            runner: Any) -> dict[str, Any]:
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError:
        raise  # the runner itself failed: the same as in the local engine
    except ray.exceptions.RayError as exc:
        message = (f"Ray lost the run: {type(exc).__name__} (a task whose worker dies is "
                   f"run again up to {RETRIES} times)")
        return build_record(runner.study, planned.task, planned.trial, agent=runner.label,
                            trace=None, started_at=submitted, duration=None,
                            registry=runner.registry, judge=run_judge(runner.judge), error={
                                "kind": "worker", "message": message, "exit_code": None,
                                "stderr_tail": None})


def regrade_chunks(ray: ModuleType, regrade: Callable[[list[bytes]], Any],
                   chunks: Iterable[list[bytes]], *, jobs: int) -> Iterator[Any]:
    """The chunks regraded as tasks, in input order: at most ``jobs`` running and
    ``jobs * WINDOW_PER_JOB`` not yet handed back, so the driver's memory stays flat."""
    task = _remote(ray, _call)
    token, holder = uuid.uuid4().hex, [ray.put(regrade)]
    pending: deque[Any] = deque()
    running: set[Any] = set()

    def head() -> Any:
        ref = pending.popleft()
        running.discard(ref)
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError:
            raise
        except ray.exceptions.RayError as exc:
            raise ClusterError(f"Ray lost a chunk of rows: {type(exc).__name__} (a task "
                               f"whose worker dies is run again up to {RETRIES} times); "
                               "nothing was written") from None

    try:
        for lines in chunks:
            while len(running) >= jobs or len(pending) >= jobs * WINDOW_PER_JOB:
                if pending[0] not in running:
                    yield head()
                    continue
                ready, _ = ray.wait(list(running), num_returns=1)
                running.difference_update(ready)
            ref = task.remote(token, holder, lines)
            pending.append(ref)
            running.add(ref)
        while pending:
            yield head()
    finally:
        for ref in running:
            ray.cancel(ref)
