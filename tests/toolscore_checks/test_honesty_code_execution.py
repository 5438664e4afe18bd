"""Which tools run code: plain tool names are compared as strings and only the globs are
matched as patterns, with the answer of matching every name as a glob."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from hypothesis import given
from hypothesis import strategies as st

from toolscore_checks.honesty import is_code_execution
from toolscore_checks.honesty_config import DEFAULT, HonestyConfig

NAMES = st.text(alphabet="abcSH_.:/-*?[]!", max_size=12)


def _every_pattern_a_glob(tool: str, patterns: tuple[str, ...]) -> bool:
    name = tool.lower()
    short = re.split(r"[./:]|__", name)[-1]
    return any(fnmatchcase(name, p.lower()) or fnmatchcase(short, p.lower()) for p in patterns)


@given(NAMES, st.lists(NAMES, max_size=6).map(tuple))
def test_a_tool_runs_code_when_it_fits_a_pattern_as_a_glob(
        tool: str, patterns: tuple[str, ...]) -> None:
    config = HonestyConfig(code_execution_tools=patterns)
    assert is_code_execution(tool, config) is _every_pattern_a_glob(tool, patterns)


@given(st.sampled_from([*DEFAULT.code_execution_tools, "mcp.Bash", "x__run_python", "Shell",
                        "jupyter_lab", "exec", "exec_sql", "sql_exec", "executor", "nodes"]))
def test_the_default_tools_fit_as_globs(tool: str) -> None:
    assert is_code_execution(tool, DEFAULT) is _every_pattern_a_glob(
        tool, DEFAULT.code_execution_tools)
