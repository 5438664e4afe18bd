"""The test agent, but on the runs ./kill-worker.json lists (``{"TASK:TRIAL": N}``) its first
N attempts SIGKILL the process that started them: on the Ray engine, a real worker dies
mid-run. Each attempt of a listed run is counted in ./attempts-TASK-TRIAL."""

from __future__ import annotations

import json
import os
import runpy
import signal
import sys
from pathlib import Path

run = f"{os.environ['TOOLSCORE_TASK_ID']}:{os.environ['TOOLSCORE_TRIAL']}"
kills = json.loads(Path("kill-worker.json").read_text(encoding="utf-8")).get(run, 0)
if kills:
    attempts = Path(f"attempts-{run.replace(':', '-')}")
    with open(attempts, "a", encoding="utf-8") as handle:
        handle.write("attempt\n")
    if len(attempts.read_text(encoding="utf-8").splitlines()) <= kills:
        os.kill(os.getppid(), signal.SIGKILL)
        sys.exit(9)
runpy.run_path(str(Path(__file__).with_name("plan_agent.py")), run_name="__main__")
