"""Inputs the report tests share: the bundled examples and a hostile trace and plugin."""

from __future__ import annotations

import types
from pathlib import Path

from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import Check, CheckOutcome

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

SCRIPT = "</td><script>alert(1)</script>"
PIPE = "| broken |"
IMG = "<img src=x onerror=alert(2)>"
SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2"

HOSTILE_TRACE = {
    "calls": [
        {"id": "c1", "tool": "search", "args": {"q": "`rm -rf /` | <b>bold</b> *x*"},
         "result": f"{SCRIPT}\n{PIPE} key={SECRET}", "duration": 0.5},
        {"id": "c2", "tool": f"fetch{IMG}", "args": {"url": "[click](javascript:alert(3))"},
         "error": "<iframe src=https://evil.example/></iframe> | _fail_", "duration": 0.25},
        {"id": "c3", "tool": "notify", "args": {"to": "ops"}},
    ],
    "final_answer": "Done. <script>alert(4)</script>\n```\n# not a heading\n| a | b |",
}
HOSTILE_GOLD = [
    {"tool": "search", "args": {"q": {"$contains": "rm"}}},
    {"tool": "notify", "args": {"to": "ops"}},
    {"tool": "archive"},
]


def hostile_checks() -> types.ModuleType:
    """A third-party plugin whose checks say hostile things, in each status."""
    plugin = types.ModuleType("hostile_checks")

    def loud(context: object) -> CheckOutcome:
        return CheckOutcome("fail", f"tool said {SCRIPT} {PIPE}", {"html": IMG})

    def calm(context: object) -> CheckOutcome:
        return CheckOutcome("pass", f"nothing to see in {IMG}", {})

    def unsure(context: object) -> CheckOutcome:
        return CheckOutcome("unknown", "no final answer to look at `here`", {})

    @hookimpl
    def toolscore_register_checks() -> list[Check]:
        return [Check(id="loud<b>-check", description="says hostile things", run=loud),
                Check(id="calm-check", description="passes", run=calm),
                Check(id="unsure-check", description="never sure", run=unsure)]

    plugin.toolscore_register_checks = toolscore_register_checks  # type: ignore[attr-defined]
    return plugin
