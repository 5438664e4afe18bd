"""``toolscore formats``: every format with what it reads and the plugin that provides it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from toolscore_cli.app import cli

FORMATS = {"toolscore", "openai_chat", "openai_responses", "anthropic", "gemini", "mcp", "otel",
           "langchain", "agents_sdk", "claude_agent_sdk", "bedrock_converse",
           "pydantic_ai", "jaeger",
           "vercel_ai",
           "langsmith",
           "google_adk",
           "openinference",
           "inspect_ai",
           }


def test_formats_json_lists_every_format_with_its_plugin() -> None:
    result = CliRunner().invoke(cli, ["formats", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["id"]: row for row in json.loads(result.output)}
    assert set(rows) == FORMATS
    for fid, row in rows.items():
        assert row["description"] and row["reads"], fid
        assert row["plugin"]["distribution"] == "toolscore"
    assert rows["mcp"]["plugin"]["name"] == "toolscore_formats.mcp"


def test_formats_table_names_each_format() -> None:
    result = CliRunner().invoke(cli, ["formats"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for fid in FORMATS:
        assert fid in result.output


def test_plugins_hook_filter_lists_the_format_plugins() -> None:
    result = CliRunner().invoke(cli, ["plugins", "--json", "--hook",
                                      "toolscore_register_trace_formats"])
    assert result.exit_code == 0, result.output
    provided = {fid for row in json.loads(result.output)
                for fid in row["provides"].get("trace_formats", [])}
    assert provided == FORMATS
