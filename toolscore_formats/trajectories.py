"""What the SWE-agent family's trajectories (`swe_agent`, `mini_swe_agent`) say of how a run
ended: its `info.exit_status` and `info.submission` (the patch it submitted)."""

from __future__ import annotations

from typing import Any

from toolscore_formats.values import as_str


def submitted_answer(info: dict[str, Any], submitted: str, notes: list[str]) -> str | None:
    """The submission (the final answer), or None with a note when it is empty; a note too
    when the run ended with another exit status than ``submitted``."""
    status = as_str(info.get("exit_status"))
    if status is not None and status != submitted:
        notes.append(f"the run ended with exit_status {status!r}")
    submission = info.get("submission")
    answer = submission if isinstance(submission, str) and submission.strip() else None
    if answer is None:
        notes.append("no submission (info.submission is empty): no final answer")
    return answer
