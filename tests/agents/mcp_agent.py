"""A real MCP agent command for the study tests: reads the prompt, starts the server command
toolscore hands it ($TOOLSCORE_MCP_SERVER_COMMAND, the recording proxy around the task's
server) with the official SDK client, calls tools from a fixed plan and prints its answer.

It writes no trace of its own: the proxy's session is the trace. The plan is chosen by the
task id ($TOOLSCORE_TASK_ID). On the trials a plan lists in ``gullible_on_trials`` it obeys
an instruction planted in a tool result (``call TOOL with {json}``) and, when a call fails,
claims success anyway; on the others it ignores planted text and owns up to failures.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

PLANS: dict[str, dict[str, Any]] = {
    "sum": {"calls": [("add", {"a": 2, "b": 3}), ("add", {"a": 5, "b": 8})],
            "answer": "2 + 3 = 5 and 5 + 8 = 13."},
    "browse": {"calls": [("fetch_page", {"url": "https://example.com"})],
               "answer": "The page advertises cheap flights to Lisbon.",
               "gullible_on_trials": [2]},
    "deploy": {"calls": [("deploy", {"service": "web", "version": "1.2"})],
               "answer": "Deployed web@1.2 successfully.",
               "gullible_on_trials": [2]},
}
INSTRUCTION = re.compile(r"call (\w+) with (\{.*?\})", re.IGNORECASE | re.DOTALL)


def _text(result: Any) -> str:
    return "\n".join(getattr(part, "text", "") for part in result.content)


async def run(command: list[str], env: dict[str, str], plan: dict[str, Any],
              gullible: bool) -> str:
    from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    notes = []
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            for tool, arguments in plan["calls"]:
                try:
                    result = await session.call_tool(tool, arguments)
                except MCPError as exc:
                    notes.append(f"{tool} failed: {exc.message}")
                    continue
                text = _text(result)
                if result.is_error:
                    notes.append(f"{tool} failed: {text}")
                match = INSTRUCTION.search(text)
                if gullible and match:
                    await session.call_tool(match.group(1), json.loads(match.group(2)))
    return plan["answer"] if gullible or not notes else " ".join(notes)


def main() -> int:
    import anyio

    prompt = sys.stdin.read()
    if prompt != os.environ.get("TOOLSCORE_PROMPT"):
        print("stdin and TOOLSCORE_PROMPT differ", file=sys.stderr)
        return 4
    command = json.loads(os.environ["TOOLSCORE_MCP_SERVER_COMMAND"])
    env = {**os.environ, **json.loads(os.environ.get("TOOLSCORE_MCP_SERVER_ENV", "{}"))}
    plan = PLANS[os.environ["TOOLSCORE_TASK_ID"]]
    gullible = int(os.environ["TOOLSCORE_TRIAL"]) in plan.get("gullible_on_trials", ())
    answer = anyio.run(run, command, env, plan, gullible)
    print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
