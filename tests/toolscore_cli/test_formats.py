"""``toolscore formats``: one line per format; --long and --json say what each reads."""

from __future__ import annotations

import json

from click.testing import CliRunner

from toolscore_cli.app import cli
from toolscore_cli.formats import format_lines

FORMATS = {"toolscore", "openai_chat", "openai_responses", "anthropic", "gemini", "mcp", "otel",
           "langchain", "agents_sdk", "claude_agent_sdk", "bedrock_converse",
           "pydantic_ai", "jaeger",
           "vercel_ai",
           "langsmith",
           "google_adk",
           "openinference",
           "inspect_ai",
           "langfuse",
           "mlflow",
           "swe_agent",
           "mini_swe_agent",
           "openhands",
           "gemini_cli",
           "codex",
           "cline",
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


def test_plugins_hook_filter_lists_the_format_plugins() -> None:
    result = CliRunner().invoke(cli, ["plugins", "--json", "--hook",
                                      "toolscore_register_trace_formats"])
    assert result.exit_code == 0, result.output
    provided = {fid for row in json.loads(result.output)
                for fid in row["provides"].get("trace_formats", [])}
    assert provided == FORMATS


def test_formats_lists_one_line_per_format() -> None:
    result = CliRunner().invoke(cli, ["formats"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines] == [
        row["id"] for row in json.loads(CliRunner().invoke(cli, ["formats", "--json"]).output)]
    assert set(line.split()[0] for line in lines) == FORMATS
    assert all("[plugin" not in line for line in lines)  # every built-in is toolscore's


def test_a_plugin_format_names_its_distribution() -> None:
    rows = [{"id": "toolscore", "description": "native", "reads": "",
             "plugin": {"name": "toolscore_formats.native", "distribution": "toolscore",
                        "version": "0.1.0"}},
            {"id": "mylog", "description": "My agent's log", "reads": "",
             "plugin": {"name": "mylog", "distribution": "acme-toolscore", "version": "1.2"}},
            {"id": "adhoc", "description": "Registered in Python", "reads": "",
             "plugin": {"name": "adhoc", "distribution": None, "version": None}}]
    assert format_lines(rows) == [
        "toolscore  native",
        "mylog      My agent's log  [plugin mylog: acme-toolscore 1.2]",
        "adhoc      Registered in Python  [plugin adhoc]",
    ]


def test_formats_long_shows_what_each_reads() -> None:
    result = CliRunner().invoke(cli, ["formats", "--long"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    for fid in FORMATS:
        assert fid in result.output
    assert "toolUseId" in result.output and "toolscore_formats.jaeger" in result.output
