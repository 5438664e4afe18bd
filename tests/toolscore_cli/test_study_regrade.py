"""``regrade_jsonl``, the JSONL half of ``toolscore regrade``, through a tiny click harness."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import toolscore
from toolscore_cli.study_regrade import regrade_jsonl
from toolscore_core.errors import InputError
from toolscore_core.models import ToolCall

SPEC = {"study": "s", "tasks": {
    "a": {"prompt": "a", "expected": [{"tool": "t", "args": {"x": 1}}]},
    "b": {"prompt": "b", "expected": [{"tool": "t", "args": {"x": 2}}]},
}}


@click.command()
@click.argument("source")
@click.option("-o", "--output")
@click.option("--spec")
@click.option("--gold")
@click.option("--weight", "weights", multiple=True)
@click.option("--jobs", type=int, default=1)
@click.option("--json", "json_path")
@click.option("--html", "html_path")
def harness(source: str, output: str | None, spec: str | None, gold: str | None,
            weights: tuple[str, ...], jobs: int, json_path: str | None,
            html_path: str | None) -> None:
    from toolscore_cli.options import weights_from

    code = regrade_jsonl(source, output=output, spec=spec, gold=gold,
                         weights=weights_from(weights), jobs=jobs, json_path=json_path,
                         html_path=html_path)
    raise SystemExit(code)


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    out = tmp_path / "runs.jsonl"
    toolscore.run_study(SPEC, lambda p: ([ToolCall(tool="t", args={"x": 1}, result=0,
                                                    is_error=False)], "done"),
                        trials=2, output=out)
    return out


def test_regrade_prints_before_and_after_and_flipped_tasks(runs: Path, tmp_path: Path) -> None:
    import yaml

    v2 = {"study": "s", "tasks": {"b": {"prompt": "b", "expected": [{"tool": "t"}]}}}
    (tmp_path / "v2.yaml").write_text(yaml.safe_dump(v2))
    out = tmp_path / "runs.v2.jsonl"
    result = CliRunner().invoke(
        harness, [str(runs), "-o", str(out), "--spec", str(tmp_path / "v2.yaml"), "--jobs", "2",
                  "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert "Flipped: b." in result.stdout
    assert "4 rows: 2 regraded, 2 written through unchanged." in result.stdout
    assert "line 1: task 'a' is not in the new spec (written through unchanged)" in result.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["flipped_tasks"] == ["b"] and data["written_through"] == 2
    b = next(t for t in data["tasks"] if t["task_id"] == "b")
    assert (b["pass_rate_before"], b["pass_rate_after"], b["flipped_to_pass"]) == (0.0, 1.0, 2)
    assert "Regrade: before vs after" in (tmp_path / "r.html").read_text()


def test_regrade_refuses_writing_over_its_input_or_no_output(runs: Path) -> None:
    with pytest.raises(InputError, match="-o would overwrite the runs file this command reads"):
        regrade_jsonl(str(runs), output=str(runs), spec=None, gold=None,
                      weights={"argument_f1": 1.0}, jobs=1)
    with pytest.raises(InputError, match="-o"):
        regrade_jsonl(str(runs), output=None, spec=None, gold=None,
                      weights={"argument_f1": 1.0}, jobs=1)
