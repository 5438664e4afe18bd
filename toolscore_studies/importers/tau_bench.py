"""τ-bench result files (sierra-research/tau-bench): each run's trajectory and reward."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from toolscore import InputError, hookimpl
from toolscore_studies.importers import inner_place, load_json

if TYPE_CHECKING:  # the importer's records load when runs are imported (read, the hook)
    from toolscore import ImportedRun, ImportSource, RunImporter

FIX = ("give a τ-bench results file: the JSON list `run.py` saves (or a "
       "historical_trajectories/*.json file), each result with task_id, reward and traj")


def is_success(reward: Any) -> bool | None:
    """τ-bench's own rule (``display_metrics``): a reward within 1e-6 of 1 is a success;
    None when the reward is not a number."""
    if isinstance(reward, bool) or not isinstance(reward, int | float):
        return None
    return (1 - 1e-6) <= reward <= (1 + 1e-6)


def read(source: ImportSource) -> Iterator[ImportedRun]:
    from toolscore import ImportedRun

    document = load_json(source.path, FIX)
    if not isinstance(document, list):
        raise InputError("not a list of results", place="$", fix=FIX)
    for i, entry in enumerate(document):
        place = f"$[{i}]"
        if not isinstance(entry, Mapping) or "task_id" not in entry or "reward" not in entry:
            raise InputError('a result must be an object with "task_id" and "reward"',
                             place=place, fix=FIX)
        messages = entry.get("traj", entry.get("messages"))
        if not isinstance(messages, list):
            raise InputError('"traj" must be the run\'s list of messages', place=f"{place}.traj",
                             fix=FIX)
        try:
            trace = source.parse_trace(messages, "openai_chat")
        except InputError as exc:
            raise InputError(exc.problem, place=f"{place}.traj{inner_place(exc.place)}",
                             fix=exc.fix) from None
        trial = entry.get("trial", 0)
        if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
            raise InputError('"trial" must be a whole number from 0', place=f"{place}.trial",
                             fix=FIX)
        info = _mapping(entry.get("info"))
        task = _mapping(info.get("task"))
        instruction = task.get("instruction")
        reward = entry["reward"]
        verdict: dict[str, Any] = {"reward": reward}
        reward_info = info.get("reward_info")
        details = reward_info.get("info") if isinstance(reward_info, Mapping) else None
        if isinstance(details, Mapping):
            verdict.update((k, v) for k, v in details.items() if k in ("r_actions", "r_outputs",
                                                                          "outputs"))
        if isinstance(info.get("error"), str):  # the run crashed: τ-bench counts it failed
            verdict["error"] = info["error"]
        yield ImportedRun(
            task_id=str(entry["task_id"]), trace=trace, trial=trial + 1,
            prompt=instruction if isinstance(instruction, str) else None,
            passed=is_success(reward), verdict=verdict, place=place)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@hookimpl
def toolscore_register_run_importers() -> list[RunImporter]:
    from toolscore import RunImporter

    return [RunImporter(
        id="tau_bench", description="τ-bench results: each run's trajectory (tool calls, "
        "results, the agent's replies) and its reward as the verdict.",
        read=read,
        reads='[{"task_id", "trial", "reward", "traj": [chat messages], "info": {"task": '
              '{"instruction", ...}, "reward_info": ...}}]')]
