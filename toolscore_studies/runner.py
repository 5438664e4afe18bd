"""Running an agent over a study's tasks and trials, one JSON line per finished run."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import IO, Any

from attrs import evolve, frozen

from toolscore_core.canonical import canonical_json, non_finite_note, without_non_finite
from toolscore_core.documents import JSON_FAILURES, loads
from toolscore_core.errors import CanonicalJSONError, InputError
from toolscore_core.inputs import open_input
from toolscore_core.models import ToolCall, Trace
from toolscore_core.plugins import Registry, default_registry
from toolscore_core.traces import AUTO, load_trace, parse_trace
from toolscore_studies.records import (
    KIND,
    STDERR_TAIL,
    build_record,
    now_iso,
    run_id,
    run_judge,
)
from toolscore_studies.spec import McpServer, Study, Task, load_study, parse_study

ENV_PROMPT = "TOOLSCORE_PROMPT"
ENV_TRACE = "TOOLSCORE_TRACE"
ENV_TASK_ID = "TOOLSCORE_TASK_ID"
ENV_TRIAL = "TOOLSCORE_TRIAL"
ENV_RUN_ID = "TOOLSCORE_RUN_ID"
ENV_STUDY = "TOOLSCORE_STUDY"
ENV_MCP_COMMAND = "TOOLSCORE_MCP_SERVER_COMMAND"
ENV_MCP_ENV = "TOOLSCORE_MCP_SERVER_ENV"
MCP_FORMAT = "mcp"
SESSION_FILE = "session.jsonl"
PLAN_FILE = "plan.json"
INJECTED_FILE = "injected.json"
KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL for a run that timed out or was interrupted."""


@frozen
class Planned:
    """One run to make: a task and a trial number (from 1)."""

    task: Task
    trial: int


def plan_runs(study: Study, *, trials: int, task_ids: Sequence[str] | None = None,
              done: set[tuple[str, int]] | None = None) -> list[Planned]:
    """Every (task, trial) to run, task by task, minus the ones already ``done``."""
    if trials < 1:
        raise InputError(f"trials must be at least 1, not {trials}", place="trials=")
    done = done or set()
    return [Planned(task, trial) for task in study.select(list(task_ids or ()))
            for trial in range(1, trials + 1) if (task.id, trial) not in done]


# --- the JSON Lines file -------------------------------------------------------------


def dump_row(row: Mapping[str, Any]) -> str:
    """A run record as one line of canonical JSON (its hash is the hash of the line).

    Numbers no JSON has (an infinity read from ``1e999`` in a trace) are written as null,
    with a note in the row's trace notes, as the row's evaluation records them."""
    try:
        return canonical_json(row)
    except CanonicalJSONError:
        cleaned, replaced = without_non_finite(dict(row))
        if not replaced:
            raise
        trace = cleaned.get("trace")
        if isinstance(trace, dict):
            cleaned["trace"] = {**trace, "notes": [*(trace.get("notes") or ()),
                                                  non_finite_note(replaced)]}
        return canonical_json(cleaned)


def scan_existing(path: Path, study: Study) -> set[tuple[str, int]]:
    """The (task id, trial) of the runs already in ``path``; a torn last line is cut off.

    A run is only ever written whole, so the only partial line a crash can leave is the
    last one; it is removed so that the file stays valid JSON Lines.
    """
    done: set[tuple[str, int]] = set()
    if not path.exists():
        return done
    keep = 0
    with open_input(path, what="runs file") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                row = loads(line)
            except JSON_FAILURES:
                if line.endswith(b"\n"):
                    raise InputError("not valid JSON", file=str(path), place=f"line {number}",
                                     fix="repair or remove the line, then --resume") from None
                break
            if not isinstance(row, dict) or row.get("kind") != KIND:
                raise InputError(f"not a {KIND} row", file=str(path), place=f"line {number}")
            if row.get("study") != study.name:
                raise InputError(
                    f"a run of study {row.get('study')!r}, not {study.name!r}", file=str(path),
                    place=f"line {number}", fix="resume into the file of the same study")
            done.add((str(row.get("task_id")), int(row.get("trial") or 0)))
            keep += len(line)
    if keep != path.stat().st_size:
        with open(path, "r+b") as handle:
            handle.truncate(keep)
    return done


class RunLog:
    """Appends one run per line, flushed and synced as soon as the run ends."""

    def __init__(self, handle: IO[str]) -> None:
        self._handle = handle
        self._lock = threading.Lock()

    def append(self, row: Mapping[str, Any]) -> None:
        line = dump_row(row) + "\n"
        with self._lock:
            self._handle.write(line)
            self._handle.flush()
            os.fsync(self._handle.fileno())


@contextlib.contextmanager
def open_run_log(path: str | os.PathLike[str], study: Study, *, resume: bool,
                 overwrite: bool = False) -> Iterator[tuple[RunLog, set[tuple[str, int]]]]:
    """Open the output for appending; with ``resume`` also say which runs it holds.

    The file is locked for as long as it is open (``flock``, on systems that have it): a
    second command writing the same runs file is refused before it reads or changes it,
    so two writers never interleave lines and two resumes never run the same run twice.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        handle = open(target, "a+", encoding="utf-8", newline="\n")  # noqa: SIM115
    except IsADirectoryError:
        raise InputError("the output is a directory", file=str(target),
                         fix="give a file for -o") from None
    with handle:
        lock_runs_file(handle.fileno(), target)
        done: set[tuple[str, int]] = set()
        if os.fstat(handle.fileno()).st_size > 0:
            if resume:
                done = scan_existing(target, study)
            elif overwrite:
                handle.truncate(0)
            else:
                raise InputError("the output file already exists", file=str(target),
                                 fix="pass --resume to skip the runs it holds, --overwrite to "
                                 "start again, or another -o")
        handle.seek(0, os.SEEK_END)
        yield RunLog(handle), done


def lock_runs_file(fd: int, path: Path) -> None:
    """Take the runs file's exclusive lock, or refuse at once when a command holds it."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks to take
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InputError("another command is writing this runs file", file=str(path),
                         fix="wait for it to end, or write to another -o") from None


# --- running the plan ----------------------------------------------------------------


class Interrupted(Exception):
    """Raised inside a worker when the study was stopped; the run is not recorded."""


def execute(
    plan: Sequence[Planned], run_one: Callable[[Planned], dict[str, Any]], *, jobs: int,
    on_record: Callable[[dict[str, Any]], None], stop: threading.Event,
) -> None:
    """Run ``plan`` with up to ``jobs`` runs at once, handing each record over as it ends.

    On KeyboardInterrupt, ``stop`` is set (runners kill their agents), no new run starts,
    and the interrupt propagates once the workers have returned; finished runs are kept.
    """
    if jobs < 1:
        raise InputError(f"jobs must be at least 1, not {jobs}", place="jobs=")
    pending = iter(plan)
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="toolscore-run") as pool:
        running: set[Future[dict[str, Any]]] = set()
        try:
            for item in _take(pending, jobs):
                running.add(pool.submit(run_one, item))
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    on_record(future.result())
                    for item in _take(pending, 1):
                        running.add(pool.submit(run_one, item))
        except BaseException:
            stop.set()
            for future in running:
                future.cancel()
            raise


Execute = Callable[..., None]
"""``execute`` or an engine's function of the same signature."""
ENGINES = ("local", "ray")


def check_engine(engine: str, ray_address: str | None) -> None:
    """Refuse an unknown engine, a Ray address without the ray engine, and the ray engine
    when Ray is not installed."""
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}", place="engine=", fix="use local or ray")
    if engine == "local" and ray_address is not None:
        raise InputError("a Ray address is for the ray engine", place="--ray-address",
                         fix="add --engine ray, or leave the address out")
    if engine == "ray":
        from toolscore_studies.ray_engine import require_ray

        require_ray()


def engine_runner(engine: str, ray_address: str | None, registry: Registry | None = None,
                  ) -> Callable[[int], contextlib.AbstractContextManager[Execute]]:
    """For ``engine``: a context manager that, given ``jobs``, yields the function that
    executes a plan (connected to the Ray cluster for as long as it is open)."""
    check_engine(engine, ray_address)
    if engine == "local":
        return lambda jobs: contextlib.nullcontext(execute)
    if registry is not None:
        raise InputError("a registry cannot be sent to Ray workers", place="registry=",
                         fix="install the plugins on every node: workers use the default "
                         "registry")
    from toolscore_studies.ray_engine import executing

    return lambda jobs: executing(ray_address, jobs=jobs, kill_grace=KILL_GRACE)


def _take(items: Iterator[Planned], n: int) -> list[Planned]:
    return [item for _, item in zip(range(n), items, strict=False)]


# --- an agent command ----------------------------------------------------------------


def mcp_record_command(session_path: str, server: McpServer) -> list[str]:
    """The server command wrapped by the recording proxy, which writes ``session_path``.

    When the task plants faults or injections, the proxy reads them from the plan file
    beside the session and logs what it planted to the injected file there too.
    """
    plants: list[str] = []
    if server.plants:
        plants = ["--inject-file", planting_paths(session_path)[0],
                  "--injected", planting_paths(session_path)[1]]
    return [sys.executable, "-m", "toolscore_cli", "mcp", "record", "-o", session_path,
            *plants, "--", *server.command]


def planting_paths(session_path: str) -> tuple[str, str]:
    """The plan file the proxy reads and the injected file it writes, beside the session."""
    folder = os.path.dirname(session_path)
    return os.path.join(folder, PLAN_FILE), os.path.join(folder, INJECTED_FILE)


def write_plan(session_path: str, server: McpServer) -> None:
    """Write the task's planting plan where the wrapped command will look for it."""
    if server.plants:
        with open(planting_paths(session_path)[0], "w", encoding="utf-8") as handle:
            json.dump(server.plan_json(), handle, sort_keys=True)


def read_injected(session_path: str) -> tuple[dict[str, Any] | None, str | None]:
    """What the proxy planted in a run (None when nothing was planned), or why it is unreadable."""
    from toolscore_checks.injected import load_injected

    path = planting_paths(session_path)[1]
    if not os.path.exists(path):
        return None, None
    try:
        return dict(load_injected(path)), None
    except InputError as exc:
        return None, exc.one_line()


def agent_environment(task: Task, trial: int, run: str, study: Study, trace_path: str,
                      session_path: str | None) -> dict[str, str]:
    """The environment an agent command gets (the caller's, plus toolscore's variables)."""
    env = dict(os.environ)
    env.update({ENV_PROMPT: task.prompt, ENV_TRACE: trace_path, ENV_TASK_ID: task.id,
                ENV_TRIAL: str(trial), ENV_RUN_ID: run, ENV_STUDY: study.name})
    if task.mcp_server is not None and session_path is not None:
        env[ENV_MCP_COMMAND] = json.dumps(mcp_record_command(session_path, task.mcp_server))
        env[ENV_MCP_ENV] = json.dumps(dict(task.mcp_server.env), sort_keys=True)
    return env


class Shippable:
    """A runner pickled without its registry and stop flag, which are the process's own: a
    Ray worker rebuilds them (the default registry, a flag of its own)."""

    registry: Registry
    stop: threading.Event

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("registry", "stop")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, registry=default_registry(), stop=threading.Event())


class CommandRunner(Shippable):
    """Runs an agent command for one task and trial and builds its record."""

    def __init__(self, study: Study, command: Sequence[str], *, agent: str,
                 timeout: float | None, registry: Registry, stop: threading.Event,
                 judge: Any = None) -> None:
        if not command:
            raise InputError("the agent command is empty", place="agent=",
                             fix='give the command to run, e.g. "python agent.py"')
        self.study = study
        self.command = list(command)
        self.agent = agent
        self.timeout = timeout
        self.registry = registry
        self.stop = stop
        self.judge = judge  # a client asked afresh for each run (run_judge), or None
        # the caller's directory, by path: a Ray worker runs the agent there, not in its own
        self.cwd = os.getcwd()

    @property
    def label(self) -> str:
        """The agent as its records name it."""
        return self.agent

    def __call__(self, planned: Planned) -> dict[str, Any]:
        if self.stop.is_set():
            raise Interrupted
        task, trial = planned.task, planned.trial
        run = run_id(self.study.name, task.id, trial)
        folder = tempfile.mkdtemp(prefix="toolscore-run-")
        try:
            trace_path = os.path.join(folder, "trace.json")
            session_path = (os.path.join(folder, SESSION_FILE)
                            if task.mcp_server is not None else None)
            env = agent_environment(task, trial, run, self.study, trace_path, session_path)
            if task.mcp_server is not None and session_path is not None:
                write_plan(session_path, task.mcp_server)
            started_at = now_iso()
            began = time.perf_counter()
            finished = self._run(task.prompt, env)
            duration = round(time.perf_counter() - began, 6)
            if self.stop.is_set():
                raise Interrupted
            read_from = session_path if session_path is not None else trace_path
            trace, trace_problem = _read_trace(read_from, MCP_FORMAT if session_path else AUTO,
                                               self.registry)
            injected = None
            if session_path is not None and task.mcp_server is not None \
                    and task.mcp_server.plants:
                # Without the proxy's log of what it planted, the injection and disclosure
                # checks would judge a planted run as if nothing had been planted.
                injected, problem = read_injected(session_path)
                if trace is not None and injected is None and trace_problem is None:
                    trace_problem = problem or "the proxy wrote no injected.json"
            error = _command_error(finished.code, finished.stderr, finished.timed_out,
                                   self.timeout, trace, trace_problem, read_from)
            source = None
            if trace is not None:
                stdout = finished.stdout
                if finished.stdout_cut:
                    # a cut answer is not the answer: the final answer stays unknown
                    stdout = b""
                    trace = evolve(trace, notes=(*trace.notes, (
                        f"the agent printed {finished.stdout_size:,} bytes on stdout, more "
                        f"than the {OUTPUT_LIMIT:,} kept: its stdout was cut and is not "
                        "taken as the final answer")))
                trace, source = with_final_answer(trace, stdout)
            return build_record(self.study, task, trial, agent=self.agent, trace=trace,
                                started_at=started_at, duration=duration,
                                registry=self.registry, final_answer_source=source,
                                error=error, validate_side_effects=bool(
                                    task.contract.side_effects), injected=injected,
                                judge=run_judge(self.judge))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _run(self, prompt: str, env: dict[str, str]) -> Finished:
        try:
            process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=env, start_new_session=True, cwd=self.cwd,
                preexec_fn=die_with_parent(),
            )
        except OSError as exc:
            return Finished(None, b"", f"cannot start the agent: {exc}".encode(), False, 0)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        try:
            return drain(process, prompt.encode("utf-8"), deadline, self.stop)
        except BaseException:
            # an interrupt raised in this thread (a cancelled Ray task) must not leave the
            # agent running in its own session
            _kill_group(process)
            raise


@frozen
class Finished:
    """How an agent command ended: its exit code, what it printed (stdout's first
    ``OUTPUT_LIMIT`` bytes, stderr's last ``STDERR_KEPT``), whether it was killed for the
    timeout or a stop, and how many bytes it printed on stdout in all."""

    code: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    stdout_size: int

    @property
    def stdout_cut(self) -> bool:
        """Whether stdout was longer than what was kept."""
        return self.stdout_size > len(self.stdout)


OUTPUT_LIMIT = 1 << 20
"""Bytes of an agent's stdout kept (its final answer); past it, stdout is read and dropped."""
STDERR_KEPT = 4 * STDERR_TAIL
"""Bytes of the end of an agent's stderr kept (the record holds its last characters)."""
_CHUNK = 1 << 16


def die_with_parent() -> Callable[[], None] | None:
    """On Linux, a function for the child between fork and exec that has the kernel
    SIGKILL it when this process dies, however it dies (SIGKILL included): an agent never
    outlives ``toolscore agent run``. Elsewhere None: the agent's own process group is
    killed on every exit path that can run code."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before the fork
    parent = os.getpid()

    def child() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os.kill(os.getpid(), signal.SIGKILL)

    return child


_PR_SET_PDEATHSIG = 1


def drain(process: subprocess.Popen[bytes], data: bytes, deadline: float | None,
          stop: threading.Event) -> Finished:
    """Hand ``data`` to the process's stdin and read its output until it ends, the
    ``deadline`` passes or ``stop`` is set (then its process group is killed).

    Memory stays bounded whatever the agent prints: stdout past ``OUTPUT_LIMIT`` and all but
    the last ``STDERR_KEPT`` bytes of stderr are read and dropped, so a chatty agent never
    blocks on a full pipe and the deadline holds.
    """
    assert process.stdin is not None and process.stdout is not None
    assert process.stderr is not None
    stdout, stderr = bytearray(), bytearray()
    stdout_size = 0
    pending = memoryview(data)
    with selectors.DefaultSelector() as selector:
        if pending:
            os.set_blocking(process.stdin.fileno(), False)
            selector.register(process.stdin, selectors.EVENT_WRITE)
        else:
            process.stdin.close()
        selector.register(process.stdout, selectors.EVENT_READ, stdout)
        selector.register(process.stderr, selectors.EVENT_READ, stderr)
        while selector.get_map() or process.poll() is None:
            if stop.is_set() or (deadline is not None and time.monotonic() >= deadline):
                _kill_group(process)
                return Finished(process.wait(), bytes(stdout), bytes(stderr), True,
                                stdout_size)
            wait_for = 0.2 if deadline is None else max(0.0, min(0.2, deadline - time.monotonic()))
            if not selector.get_map():
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=wait_for)
                continue
            for key, _ in selector.select(wait_for):
                if key.fileobj is process.stdin:
                    try:
                        pending = pending[os.write(key.fd, pending[:_CHUNK]):]
                    except BrokenPipeError:  # the agent does not read its stdin
                        pending = pending[:0]
                    if not pending:
                        selector.unregister(process.stdin)
                        process.stdin.close()
                    continue
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                if key.data is stdout:
                    stdout_size += len(chunk)
                    if len(stdout) < OUTPUT_LIMIT:
                        stdout += chunk[:OUTPUT_LIMIT - len(stdout)]
                else:
                    stderr += chunk
                    del stderr[:-STDERR_KEPT]
    process.stdout.close()
    process.stderr.close()
    return Finished(process.returncode, bytes(stdout), bytes(stderr), False, stdout_size)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the agent's process group, then SIGKILL whatever is left after a grace."""
    for sig, grace in ((signal.SIGTERM, KILL_GRACE), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        if grace is None:
            return
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        return


def _read_trace(path: str, trace_format: str,
                registry: Registry) -> tuple[Trace | None, str | None]:
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None, None
    try:
        trace, _ = load_trace(path, trace_format=trace_format, registry=registry)
    except InputError as exc:
        return None, exc.one_line()
    return trace, None


def _tail(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")[-STDERR_TAIL:]


def _command_error(code: int | None, stderr: bytes, timed_out: bool, timeout: float | None,
                   trace: Trace | None, trace_problem: str | None,
                   trace_path: str) -> dict[str, Any] | None:
    tail = _tail(stderr)
    if timed_out:
        return {"kind": "timeout", "message": f"the agent ran past the {timeout:g}s timeout "
                "and was killed", "exit_code": code, "stderr_tail": tail}
    if code is None:
        return {"kind": "start", "message": tail, "exit_code": None, "stderr_tail": tail}
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else code
        return {"kind": "crash", "message": f"the agent was killed by signal {name}",
                "exit_code": code, "stderr_tail": tail}
    if code != 0:
        return {"kind": "exit", "message": f"the agent exited with code {code}",
                "exit_code": code, "stderr_tail": tail}
    if trace_problem is not None:
        return {"kind": "trace", "message": f"the agent's trace could not be read: "
                f"{trace_problem}", "exit_code": code, "stderr_tail": tail}
    if trace is None and os.path.basename(trace_path) == SESSION_FILE:
        return {"kind": "trace", "message": "no MCP session was recorded (the agent did not "
                f"start the server with ${ENV_MCP_COMMAND})", "exit_code": code,
                "stderr_tail": tail}
    if trace is None:
        return {"kind": "trace", "message": f"the agent wrote no trace (expected at "
                f"${ENV_TRACE})", "exit_code": code, "stderr_tail": tail}
    return None


def with_final_answer(trace: Trace, stdout: bytes | str | None) -> tuple[Trace, str | None]:
    """The trace with its final answer: the trace's own, else the agent's stdout."""
    if trace.final_answer is not None:
        return trace, "trace"
    text = stdout.decode("utf-8", errors="replace") if isinstance(stdout, bytes) else stdout
    text = (text or "").strip()
    if not text:
        return trace, None
    return evolve(trace, final_answer=text), "stdout"


# --- a Python agent ------------------------------------------------------------------

AgentCallable = Callable[[str], Any]


def agent_name(agent: Any) -> str:
    module = getattr(agent, "__module__", None) or "?"
    name = getattr(agent, "__qualname__", None) or type(agent).__qualname__
    return f"python:{module}.{name}"


def trace_from_result(result: Any, registry: Registry) -> Trace:
    """What a Python agent returned, as a Trace.

    A Trace; a provider response or trace document (any registered format); a list of
    ToolCall; or a pair ``(any of those, final_answer)``.
    """
    final_answer = None
    if isinstance(result, tuple) and len(result) == 2 and (
        result[1] is None or isinstance(result[1], str)
    ):
        result, final_answer = result
    if isinstance(result, Trace):
        trace = result
    elif isinstance(result, list | tuple) and all(isinstance(c, ToolCall) for c in result):
        trace = Trace(calls=tuple(result))
    elif isinstance(result, Mapping | list):
        trace, _ = parse_trace(result, registry=registry)
    else:
        raise InputError(f"the agent returned {type(result).__name__}; return a Trace, a "
                         "trace document, a list of ToolCall, or (calls, final_answer)")
    if final_answer is not None:
        trace = evolve(trace, final_answer=final_answer)
    return trace


class CallableRunner(Shippable):
    """Runs a Python agent callable for one task and trial and builds its record."""

    def __init__(self, study: Study, agent: AgentCallable, *, registry: Registry,
                 stop: threading.Event, judge: Any = None) -> None:
        self.study = study
        self.agent = agent
        self.name = agent_name(agent)
        self.registry = registry
        self.stop = stop
        self.judge = judge  # a client asked afresh for each run (run_judge), or None

    @property
    def label(self) -> str:
        """The agent as its records name it."""
        return self.name

    def __call__(self, planned: Planned) -> dict[str, Any]:
        if self.stop.is_set():
            raise Interrupted
        task = planned.task
        started_at = now_iso()
        began = time.perf_counter()
        trace: Trace | None = None
        error = None
        try:
            result = self.agent(task.prompt)
            trace = trace_from_result(result, self.registry)
        except InputError as exc:
            error = {"kind": "trace", "message": exc.one_line(), "exit_code": None,
                     "stderr_tail": None}
        except Exception as exc:  # the agent's own failure is an error run, never dropped
            error = {"kind": "exception", "message": f"{type(exc).__name__}: {exc}",
                     "exit_code": None, "stderr_tail": traceback.format_exc()[-STDERR_TAIL:]}
        duration = round(time.perf_counter() - began, 6)
        source = None
        if trace is not None:
            trace, source = with_final_answer(trace, None)
        return build_record(self.study, task, planned.trial, agent=self.name, trace=trace,
                            started_at=started_at, duration=duration, registry=self.registry,
                            final_answer_source=source, error=error,
                            validate_side_effects=bool(task.contract.side_effects),
                            judge=run_judge(self.judge))


def run_study(
    spec: Study | Mapping[str, Any] | str | os.PathLike[str], agent: AgentCallable, *,
    trials: int = 1, tasks: Iterable[str] | None = None, jobs: int = 1,
    output: str | os.PathLike[str] | None = None, resume: bool = False,
    overwrite: bool = False, registry: Registry | None = None, engine: str = "local",
    ray_address: str | None = None, judge: Any = None,
) -> list[dict[str, Any]]:
    """Run a Python agent over a study's tasks and trials; return the run records.

    ``agent(prompt)`` returns a provider response or trace document (any registered
    format), a Trace, a list of ToolCall, or a pair ``(calls, final_answer)``. An agent that
    raises gives an ``outcome: "error"`` record. With ``output``, each record is appended to
    that JSON Lines file as soon as its run ends (``resume`` skips runs already there; an
    existing file is refused unless ``resume`` or ``overwrite``).
    Records come back in plan order (task by task, trial by trial).

    ``engine="ray"`` makes each run a Ray task on the cluster at ``ray_address`` (else the
    one ``ray.init()`` finds or starts, or the connection already open in this process),
    at most ``jobs`` at once; the agent is pickled to the workers, which judge with the
    default registry.

    ``judge`` asks an LLM what the rules leave unknown (docs/judge.md): a model name (the
    client reads the key and ``TOOLSCORE_JUDGE_BASE_URL`` from the environment), or a
    client from ``toolscore_judge.client.chat_client``. Each record stores the judgments its
    evaluation made, which ``toolscore regrade`` reads instead of asking again.
    """
    run = engine_runner(engine, ray_address, registry)
    if isinstance(judge, str):
        from toolscore_judge.client import chat_client

        judge = chat_client(judge)
    study = spec if isinstance(spec, Study) else (
        parse_study(spec) if isinstance(spec, Mapping) else load_study(spec))
    registry = registry or default_registry()
    study.check_weights(registry.metrics)
    for task in study.select(list(tasks or ())):
        if task.mcp_server is not None:
            # A callable gets only the prompt: nothing would start the recording proxy, and
            # faults or injections the spec plants would silently not be planted.
            raise InputError(f"task {task.id!r} names an MCP server, which a Python callable "
                             "cannot be handed", file=study.path,
                             place=f"$.tasks.{task.id}.mcp_server",
                             fix="run MCP tasks with `toolscore agent run --agent CMD`, or "
                             "leave them out with tasks=[...]")
    stop = threading.Event()
    runner = CallableRunner(study, agent, registry=registry, stop=stop, judge=judge)
    records: list[dict[str, Any]] = []
    with run(jobs) as execute_plan:
        if output is None:
            plan = plan_runs(study, trials=trials, task_ids=list(tasks or ()))
            execute_plan(plan, runner, jobs=jobs, on_record=records.append, stop=stop)
        else:
            with open_run_log(output, study, resume=resume,
                              overwrite=overwrite) as (log, done):
                plan = plan_runs(study, trials=trials, task_ids=list(tasks or ()), done=done)

                def keep(record: dict[str, Any]) -> None:
                    log.append(record)
                    records.append(record)

                execute_plan(plan, runner, jobs=jobs, on_record=keep, stop=stop)
    order = {(p.task.id, p.trial): i for i, p in enumerate(plan)}
    return sorted(records, key=lambda r: order[(r["task_id"], r["trial"])])
