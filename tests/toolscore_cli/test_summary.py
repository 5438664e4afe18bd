"""``toolscore summary``: console, JSON, Markdown and a self-contained HTML page."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import toolscore
from tests.helpers import run_cli
from toolscore_cli.app import cli
from toolscore_core.models import ToolCall

SPEC = {"study": "demo", "defaults": {"pass_threshold": 0.9}, "tasks": {
    "ok": {"prompt": "say ok", "expected": [{"tool": "say", "args": {"w": "ok"}}]},
    "half": {"prompt": "say half", "expected": [{"tool": "say", "args": {"w": "half"}}]},
    "<b>x</b>": {"prompt": "nothing", "expected": [{"tool": "say"}]},
}}


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    counter = iter(range(1000))

    def agent(prompt: str) -> object:
        n = next(counter)
        word = prompt.split()[-1]
        if prompt == "nothing":
            return [], None
        if word == "half" and n % 2:
            word = "nope"
        return [ToolCall(tool="say", args={"w": word}, result="said", is_error=False,
                         duration=0.5)], f"I said {word}"

    out = tmp_path / "runs.jsonl"
    toolscore.run_study(SPEC, agent, trials=2, output=out)
    return out


def test_summary_console_json_markdown(runs: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["summary", str(runs), "--json", str(tmp_path / "s.json"),
                                      "--markdown", str(tmp_path / "s.md")])
    assert result.exit_code == 0, result.output
    assert "Study demo" in result.output and "pass^2" in result.output
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["k"] == 2 and data["runs"] == 6
    by_id = {t["task_id"]: t for t in data["tasks"]}
    assert by_id["ok"]["pass_rate"] == 1.0 and by_id["ok"]["pass_k"] == 1.0
    assert by_id["half"]["passed"] == 1 and by_id["half"]["pass_k"] == 0.0
    assert by_id["<b>x</b>"]["passed"] == 0 and by_id["<b>x</b>"]["pass_rate"] == 0.0
    assert by_id["ok"]["duration"]["status"] == "measured"
    assert by_id["ok"]["cost"] == {"status": "unknown", "total": None, "mean": None,
                                   "measured_runs": 0, "runs": 2}
    markdown = (tmp_path / "s.md").read_text()
    assert "| half | 2 | 1 | 0 | 50.0% | 0.000 |" in markdown
    assert "unknown" in markdown


def test_summary_json_to_stdout_moves_the_table_to_stderr(runs: Path) -> None:
    result = run_cli("summary", str(runs),
                             "--json", "-", "--k", "1")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["k"] == 1
    assert "Study demo" in result.stderr


def test_summary_of_a_file_without_runs_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "other"}\n{oops\n')
    result = run_cli("summary", str(bad))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "line 1" in result.stderr


def test_summary_skips_lines_a_regrade_wrote_through(runs: Path, tmp_path: Path) -> None:
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(runs.read_text() + "{oops\n")
    result = run_cli("summary", str(mixed),
                             "--json", "-")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["skipped_lines"] == 1
    assert "line 7: not valid JSON" in result.stderr


def test_summary_html_escapes_task_ids(runs: Path, tmp_path: Path) -> None:
    page = tmp_path / "s.html"
    result = CliRunner().invoke(cli, ["summary", str(runs), "--html", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert html.count('class="bar"') == 3
    assert "<script" not in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def _chromium() -> str | None:
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing (CI is set): apt-get install -y chromium")
        pytest.skip("chromium is not installed")
    return found


@pytest.mark.chromium
def test_summary_html_renders_in_headless_chromium(runs: Path, tmp_path: Path) -> None:
    chromium = _chromium()
    page = tmp_path / "summary.html"
    CliRunner().invoke(cli, ["summary", str(runs), "--html", str(page)])
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True,
                         text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr
    bars = [line for line in dom.stdout.split("<rect") if 'class="bar"' in line]
    assert len(bars) == 3
    widths = {b.split('data-task="')[1].split('"')[0]: float(b.split('width="')[1].split('"')[0])
              for b in bars}
    assert widths["ok"] > widths["half"] > 0 and widths["&lt;b&gt;x&lt;/b&gt;"] == 0
    shot = tmp_path / "summary.png"
    done = subprocess.run([*flags, f"--screenshot={shot}", "--window-size=1280,900",
                           page.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 10_000
    keep = os.environ.get("TOOLSCORE_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)


def test_summary_skips_lines_only_javascript_reads(runs: Path, tmp_path: Path) -> None:
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(runs.read_text() + '{"kind": "toolscore.agent_run", "x": NaN}\n'
                     + "[" * 100_000 + "]" * 100_000 + "\n")
    result = run_cli("summary", str(mixed),
                             "--json", "-")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["skipped_lines"] == 2
    assert "line 7: not valid JSON (NaN is not a JSON number)" in result.stderr
    assert "line 8: not valid JSON (values nested too deeply)" in result.stderr


def test_summary_table_shows_control_characters_of_task_ids(runs: Path,
                                                             tmp_path: Path) -> None:
    rows = [json.loads(line) for line in runs.read_text().splitlines()]
    for row in rows:
        if row["task_id"] == "ok":
            row["task_id"] = "ok\x1b[2J[red]"
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = CliRunner().invoke(cli, ["summary", str(edited)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "ok\\x1b[2J[red]" in result.output


def test_the_study_pass_k_is_in_every_output(runs: Path, tmp_path: Path) -> None:
    """ok passes 2 of 2, half 1 of 2, <b>x</b> 0 of 2: pass^2 of the study is (1+0+0)/3."""
    result = CliRunner().invoke(cli, [
        "summary", str(runs), "--json", str(tmp_path / "s.json"), "--markdown",
        str(tmp_path / "s.md"), "--html", str(tmp_path / "s.html"), "--junit",
        str(tmp_path / "j.xml")])
    assert result.exit_code == 0, result.output
    total = json.loads((tmp_path / "s.json").read_text())["total"]
    assert total["pass_k"] == round(1 / 3, 12)
    assert total["pass_hat_k"] == {"1": 0.5, "2": round(1 / 3, 12)}
    all_row = next(line for line in result.output.splitlines() if "(all)" in line)
    assert "0.333" in all_row
    assert "| (all) | 6 | 3 | 0 | 50.0% | 0.333 |" in (tmp_path / "s.md").read_text()
    assert "<th>(all)</th><th>6</th><th>3</th><th>0</th><th>50.0%</th><th>0.333</th>" in (
        tmp_path / "s.html").read_text()
    junit = (tmp_path / "j.xml").read_text()
    assert '<property name="pass^2" value="0.333333333333"/>' in junit
    assert '<property name="pass^1" value="0.5"/>' in junit


def test_fail_under_takes_a_pass_k_threshold(runs: Path) -> None:
    below = CliRunner().invoke(cli, ["summary", str(runs), "--fail-under", "pass^2=0.5"])
    assert below.exit_code == 1
    assert below.output.splitlines()[-1] == (
        "pass^2 0.333 (the mean over tasks of C(c,2)/C(n,2)) is below --fail-under pass^2=0.5")
    over = CliRunner().invoke(cli, ["summary", str(runs), "--fail-under", "pass^1=50%",
                                    "--json", "-"])
    assert over.exit_code == 0
    assert json.loads(over.stdout)["total"]["pass_hat_k"]["1"] == 0.5
    # k = 3 is computed for the gate although the table shows pass^2: no task has 3 runs
    unknown = CliRunner().invoke(cli, ["summary", str(runs), "--fail-under", "pass^3=0.1"])
    assert unknown.exit_code == 1
    assert unknown.output.splitlines()[-1] == (
        "a task has fewer than 3 runs, so pass^3 of the study is unknown: not over "
        "--fail-under pass^3=0.1")


@pytest.mark.parametrize("threshold", ["pass^0=0.5", "pass3=0.5", "pass^x=1", "pass^2=B",
                                       "pass^2=1.5"])
def test_a_bad_pass_k_threshold_is_one_line_before_any_work(runs: Path, threshold: str) -> None:
    result = run_cli("summary", str(runs),
                             "--fail-under", threshold)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: --fail-under: bad threshold")
    assert result.stderr.count("\n") == 1


def test_a_failed_gate_is_a_failed_junit_case(runs: Path, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    junit = tmp_path / "j.xml"
    below = CliRunner().invoke(cli, ["summary", str(runs), "--fail-under", "pass^2=0.5",
                                     "--junit", str(junit)])
    assert below.exit_code == 1
    root = ET.parse(junit).getroot()
    [gate] = [c for c in root.iter("testcase") if c.get("classname") == "toolscore.gate"]
    assert gate.get("name") == "--fail-under"
    assert gate.find("failure").get("message") == below.output.splitlines()[-1]  # type: ignore[union-attr]
    runs_failed = sum(1 for c in root.iter("testcase") if c.find("failure") is not None)
    assert root.get("failures") == str(runs_failed)
    CliRunner().invoke(cli, ["summary", str(runs), "--fail-under", "pass^1=0.1", "--junit",
                             str(junit)])
    assert not [c for c in ET.parse(junit).getroot().iter("testcase")
                if c.get("classname") == "toolscore.gate"]
