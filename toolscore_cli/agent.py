"""``toolscore agent run``: run an agent command over a study's tasks and trials."""

from __future__ import annotations

import contextlib
import shlex
import shutil
import signal
import threading
from collections.abc import Iterator
from typing import Any

import click

from toolscore_cli import console
from toolscore_cli.options import (
    SECONDS,
    engine_options,
    gate_ks,
    judge_client,
    parse_study_gate,
    run_judge_options,
)
from toolscore_cli.paths import FILE, refuse_outputs_over_inputs
from toolscore_cli.summary import (
    check_outputs,
    gate,
    print_summary,
    report_flags,
    stdout_taken,
    with_output_options,
    write_junit,
    write_outputs,
)
from toolscore_core.errors import InputError
from toolscore_core.wording import count


@click.group("agent")
def agent_group() -> None:
    """Run agents over studies (tasks x trials) and record every run as JSON Lines."""


def _task_ids(values: tuple[str, ...]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a study like Ctrl-C: finished runs stay in the file, agents are killed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@agent_group.command("run")
@click.option("--spec", "spec_path", required=True, type=FILE,
              help="The study spec (YAML or JSON): tasks by id, with study-level defaults.")
@click.option("--agent", "agent_command", required=True, metavar="CMD",
              help="The agent command (split like a shell does, run without a shell).")
@click.option("-o", "--output", required=True, type=FILE,
              help="The runs file (JSON Lines): one line per run, appended as it ends.")
@click.option("--trials", type=int, default=1, show_default=True, help="Runs per task.")
@click.option("--jobs", type=int, default=1, show_default=True, help="Runs at once.")
@engine_options()
@click.option("--timeout", type=SECONDS, default=None, metavar="S",
              help="Seconds per run before the agent is killed (the run is an error).")
@click.option("--tasks", "task_ids", multiple=True, metavar="ID[,ID...]",
              help="Run only these tasks (repeatable or comma-separated).")
@click.option("--resume", is_flag=True, help="Skip the runs already in the output file.")
@click.option("--overwrite", is_flag=True, help="Start the output file again.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@run_judge_options("Ask this LLM what the rules leave unknown; each row stores its judgments")
@with_output_options
@click.pass_context
def run_command(ctx: click.Context, spec_path: str, agent_command: str, output: str,
                trials: int, jobs: int, engine: str, ray_address: str | None,
                timeout: float | None, task_ids: tuple[str, ...],
                resume: bool, overwrite: bool, no_progress: bool, judge_model: str | None,
                judge_base_url: str | None, judge_timeout: float, judge_retries: int,
                k: int | None,
                json_path: str | None, markdown_path: str | None, html_path: str | None,
                junit_path: str | None, fail_under: str | None) -> None:
    """Run the agent for every task and trial of the study, then print the summary.

    The agent gets the prompt on stdin and in $TOOLSCORE_PROMPT, writes its trace (any
    supported format) to the path in $TOOLSCORE_TRACE, and prints its final answer.
    Exits 2 before any run when the agent command cannot be found, 1 when a run ended in
    an error or the pass rate is below --fail-under.
    """
    from toolscore_core.plugins import default_registry
    from toolscore_studies.runner import (
        CommandRunner,
        engine_runner,
        open_run_log,
        plan_runs,
    )
    from toolscore_studies.spec import load_study
    from toolscore_studies.summary import summarize_file

    if resume and overwrite:
        raise InputError("--resume and --overwrite cannot be given together", place="--resume")
    if trials < 1 or jobs < 1:
        raise InputError(f"--trials and --jobs must be at least 1, not {trials} and {jobs}",
                         place="--trials/--jobs")
    try:
        command = shlex.split(agent_command)
    except ValueError as exc:
        raise InputError(f"cannot split the agent command ({exc})", place="--agent") from None
    if command and shutil.which(command[0]) is None:  # (an empty one: the runner says so)
        raise InputError(f"command {command[0]!r} not found or not executable",
                         place="--agent", fix="check the name, or give its path")
    if fail_under is not None:
        parse_study_gate(fail_under)  # a bad threshold is bad input before any run
    check_outputs(json_path, markdown_path, junit_path)
    reports = report_flags(json_path, markdown_path, html_path, junit_path)
    refuse_outputs_over_inputs([("-o", output), *reports], [("study spec", spec_path)])
    refuse_outputs_over_inputs(reports, [("runs file", output)])
    judge = judge_client(judge_model, base_url=judge_base_url, timeout=judge_timeout,
                         retries=judge_retries)
    run = engine_runner(engine, ray_address)
    study = load_study(spec_path)
    study.select(_task_ids(task_ids))
    registry = default_registry()
    study.check_weights(registry.metrics)
    stop = threading.Event()
    runner = CommandRunner(study, command, agent=agent_command, timeout=timeout,
                           registry=registry, stop=stop, judge=judge)
    err = console.stderr()
    # connected before the runs file is opened: a cluster that cannot be reached leaves it
    # untouched
    with run(jobs) as execute, open_run_log(output, study, resume=resume,
                                            overwrite=overwrite) as (log, done):
        plan = plan_runs(study, trials=trials, task_ids=_task_ids(task_ids), done=done)
        if done:
            err.print(f"resuming: {len(done)} runs already in {output}, {len(plan)} to go",
                      markup=False)
        with _progress(len(plan), disable=no_progress) as advance, _sigterm_as_interrupt():
            def record(row: dict[str, Any]) -> None:
                log.append(row)
                advance(row)

            try:
                execute(plan, runner, jobs=jobs, on_record=record, stop=stop)
            except KeyboardInterrupt:
                err.print(f"interrupted: the finished runs are in {output}; continue with "
                          "--resume", markup=False)
                raise click.exceptions.Exit(130) from None
    data = summarize_file(output).to_dict(k, gate_ks(fail_under))
    to_stderr = stdout_taken(json_path, markdown_path, junit_path)
    print_summary(data, err=to_stderr)
    write_outputs(data, json_path=json_path, markdown_path=markdown_path, html_path=html_path)
    write_junit(output, junit_path, data, fail_under)
    code = gate(data, fail_under, err=to_stderr)
    errors = data["total"]["errors"]
    if errors:
        err.print(f"{count(errors, 'run')} of {data['total']['runs']} ended in an error (see "
                  f"the error field of those rows in {output})", markup=False, soft_wrap=True)
        code = 1
    if code:
        ctx.exit(code)


@contextlib.contextmanager
def _progress(total: int, *, disable: bool) -> Iterator[Any]:
    """Runs done, passing so far, time left; printed once at the end off a terminal."""
    from toolscore_cli.progress import progress_bar

    counts = {"passed": 0, "failed": 0, "error": 0}
    with progress_bar("runs", total, disable=disable, timing=True, terminal_only=False,
                      status="{task.fields[passing]} passing, {task.fields[errors]} errors",
                      passing=0, errors=0) as move:
        def advance(row: dict[str, Any]) -> None:
            counts[row["outcome"]] = counts.get(row["outcome"], 0) + 1
            move(passing=counts["passed"], errors=counts["error"])

        yield advance
