"""``toolscore eval``'s click-free fast path parses exactly as click, or leaves it to click."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES, run_cli, write_json
from toolscore_cli.eval import eval_command
from toolscore_cli.eval_run import run_eval
from toolscore_cli.fast_eval import FLAG, MANY, OPTIONAL, OPTIONS, PATH, TEXT, parse_eval_args
from toolscore_cli.paths import FilePath

GOLD, TRACE = str(EXAMPLES / "gold.json"), str(EXAMPLES / "trace.json")


def _kind(param: click.Option) -> str:
    if param.is_flag:
        return FLAG
    if isinstance(param.flag_value, str):  # a value may follow, else the flag's value
        return OPTIONAL
    if param.multiple:
        return MANY
    return PATH if isinstance(param.type, FilePath) else TEXT


def test_the_option_table_is_the_click_command_s() -> None:
    options = [p for p in eval_command.params if isinstance(p, click.Option)]
    table = {}
    for param in options:
        for opt in param.opts + param.secondary_opts:
            table[opt] = (param.name, _kind(param))
    assert table == OPTIONS
    arguments = [p for p in eval_command.params if isinstance(p, click.Argument)]
    assert [a.name for a in arguments] == ["gold", "trace"]
    for param in [*arguments, *(p for p in options if _kind(p) == PATH)]:
        assert isinstance(param.type, FilePath)  # values stay the strings given
    # run_eval's defaults are the click defaults
    defaults = {name: p.default for name, p in inspect.signature(run_eval).parameters.items()
                if p.default is not inspect.Parameter.empty}
    ctx = eval_command.make_context("eval", [GOLD, TRACE])
    assert {k: v for k, v in ctx.params.items() if k not in ("gold", "trace")} == defaults


def _click_params(args: list[str]) -> dict[str, object] | None:
    try:
        ctx = eval_command.make_context("eval", list(args), resilient_parsing=False)
    except (click.ClickException, click.exceptions.Exit):
        return None
    return dict(ctx.params)


def _fast_params(args: list[str]) -> dict[str, object] | None:
    params = parse_eval_args(args)
    if params is None:
        return None
    full = dict(_click_params([GOLD, TRACE]) or {})
    full.update(params)
    return full


TOKENS = st.sampled_from([
    *OPTIONS, "--weight=sequence_accuracy=0", "--json=-", "--explain-format=1", "--json=",
    "-", "--", "-h", "--help", "--nope", "--jso", "-x", "", "B", "0.8", "a=b",
    "--fail-on-evidence=call-errors", "--fail-on-evidence=",
    GOLD, TRACE, str(EXAMPLES), "missing.json",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(TOKENS, max_size=7))
def test_whatever_the_fast_path_takes_click_takes_the_same_way(args: list[str]) -> None:
    fast = _fast_params(args)
    if fast is not None:
        assert _click_params(args) == fast, args


@pytest.mark.parametrize("args", [
    [GOLD, TRACE],
    [GOLD, TRACE, "--json", "-", "--weight", "argument_f1=2", "--weight=cost=0"],
    ["--fail-under", "B", GOLD, "--explain-format", TRACE, "--json", "--markdown"],
    [GOLD, TRACE, "--fail-on-evidence=call-errors,credentials", "--strict-unknown"],
    [GOLD, TRACE, "--report", "markdown=r.md", "--receipt", "missing/receipt.json",
     "--final-answer", "-", "--format", "toolscore", "--format=auto"],
])
def test_plain_arguments_take_the_fast_path_with_click_s_values(args: list[str]) -> None:
    fast = _fast_params(args)
    assert fast is not None
    assert fast == _click_params(args)


@pytest.mark.parametrize("args", [
    [GOLD], [GOLD, TRACE, TRACE], [GOLD, TRACE, "--help"], ["-h", GOLD, TRACE],
    [GOLD, TRACE, "--json"], [GOLD, TRACE, "--explain-format=yes"], [GOLD, TRACE, "--jso", "-"],
    [str(EXAMPLES), TRACE], [GOLD, TRACE, "--forbidden", str(EXAMPLES)], ["--", GOLD, TRACE],
    [GOLD, "bad\0path"], [GOLD, TRACE, "--fail-on-evidence"],
])
def test_anything_else_is_left_to_click(args: list[str]) -> None:
    assert parse_eval_args(args) is None


def test_eval_imports_neither_click_nor_importlib_metadata(tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [{"tool": "search", "args": {"q": "x"}}])
    trace = write_json(tmp_path / "trace.json", {"calls": [
        {"tool": "search", "args": {"q": "x"}, "result": "ok", "duration": 0.1}]})
    report = tmp_path / "r.json"
    code = ("import sys; from toolscore_cli.app import main\n"
            f"try:\n    main(['eval', {str(gold)!r}, {str(trace)!r}, '--json', {str(report)!r}])\n"
            "except SystemExit as exc:\n    code = exc.code\n"
            "print(code, sorted(m for m in ('click', 'importlib.metadata') if m in sys.modules),"
            " file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    assert out.stderr.strip().splitlines()[-1] == "0 []"
    assert report.exists()


def test_errors_read_the_same_on_both_paths(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    fast = run_cli("eval", str(bad), TRACE)  # plain arguments: the fast path
    slow = run_cli("eval", str(bad), TRACE, "--", cwd=tmp_path)  # "--": click's path
    assert fast.returncode == slow.returncode == 2
    assert fast.stderr == slow.stderr and fast.stderr.startswith("error: ")
    missing = run_cli("eval", GOLD)
    assert missing.returncode == 2 and "Missing argument 'TRACE'" in missing.stderr
    folder = run_cli("eval", str(EXAMPLES), TRACE)
    assert folder.returncode == 2
    assert folder.stderr == f"error: {EXAMPLES}: is a directory, given as GOLD; give a file\n"
