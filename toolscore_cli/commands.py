"""The commands of ``toolscore``: where each lives, and its line for ``--help``."""

from __future__ import annotations

# command name -> "module:attribute"; each module holds one command or command group.
COMMANDS: dict[str, str] = {
    "eval": "toolscore_cli.eval:eval_command",
    "formats": "toolscore_cli.formats:formats_command",
    "plugins": "toolscore_cli.plugins:plugins_command",
    "regrade": "toolscore_cli.regrade:regrade_command",
    "verify": "toolscore_cli.verify:verify_command",
    "keygen": "toolscore_cli.keygen:keygen_command",
    "mcp": "toolscore_cli.mcp:mcp_group",
    "agent": "toolscore_cli.agent:agent_group",
    "summary": "toolscore_cli.summary:summary_command",
    "runs": "toolscore_cli.runs:runs_group",
    "otel": "toolscore_cli.otel:otel_group",
}

# Shown by --help without importing every command module.
SHORT_HELP: dict[str, str] = {
    "eval": "Evaluate a trace against a contract (gold file).",
    "formats": "List the trace formats and what each reads.",
    "plugins": "List the loaded plugins, their hooks and what each provides.",
    "regrade": "Re-score receipts or traces under a new contract or weights.",
    "verify": "Check that receipts and the inputs they bind are unchanged.",
    "keygen": "Write an Ed25519 key pair for signing receipts (--sign).",
    "mcp": "Record an MCP session through a proxy, planting faults and prompt injections.",
    "agent": "Run an agent over a study's tasks and trials (agent run), one JSON line per run.",
    "summary": "Summarize a runs file: pass rate, pass^k, score, evidence, time and cost.",
    "runs": "Runs files from elsewhere: a benchmark's results as runs rows (runs import).",
    "otel": "Record what an OpenTelemetry-instrumented agent exports, one file per trace.",
}
