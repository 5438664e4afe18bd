"""``toolscore eval --markdown/--html/--report ID=PATH``: files written whole, bad asks refused."""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import TextIO

import pytest

from toolscore_cli.app import main
from toolscore_cli.report_targets import report_targets, write_reports
from toolscore_core.context import Evaluation
from toolscore_core.errors import InputError, PluginError
from toolscore_core.evaluation import evaluate_files
from toolscore_core.hookspecs import hookimpl
from toolscore_core.models import ReportWriter
from toolscore_core.plugins import Registry, build_registry, default_registry, get_plugin_manager

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GOLD, TRACE = str(EXAMPLES / "gold.json"), str(EXAMPLES / "trace.json")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(["eval", GOLD, TRACE, *args])
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


def test_markdown_html_and_any_writer_by_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    md, page, record = tmp_path / "r.md", tmp_path / "sub" / "r.html", tmp_path / "r.json"
    code, out, _ = run(capsys, "--markdown", str(md), "--html", str(page),
                       "--report", f"json={record}")
    assert code == 0
    assert "Score 87.5% B" in out
    evidence = evaluate_files(GOLD, TRACE).evidence
    assert f"**{evidence.summary()}**" in md.read_text(encoding="utf-8")
    assert '<table id="evidence">' in page.read_text(encoding="utf-8")
    assert json.loads(record.read_text(encoding="utf-8"))["summary"]["grade"] == "B"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["r.html", "r.json", "r.md", "sub"]


def test_markdown_to_stdout_moves_the_verdict_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "--markdown", "-")
    assert code == 0
    assert out.startswith("# toolscore report: 87.5% B\n")
    assert "Score 87.5% B" in err and "Score" not in out


def test_console_writer_can_go_to_a_file(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    target = tmp_path / "verdict.txt"
    code, _, _ = run(capsys, "--report", f"console={target}")
    assert code == 0
    assert evaluate_files(GOLD, TRACE).evidence.summary() in target.read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "message"), [
    (["--report", "nope=x.txt"], "--report: no report writer 'nope'; use one of "),
    (["--report", "markdown"], "--report: bad report 'markdown'; write ID=PATH"),
    (["--report", "=x.md"], "--report: bad report '=x.md'; write ID=PATH"),
    (["--markdown", "-", "--html", "-"], "more than one report is going to stdout (-)"),
])
def test_bad_report_asks_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *args)
    assert code == 2
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert out == "" and list(tmp_path.iterdir()) == []


def test_a_folder_is_refused_before_evaluating(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    folder = tmp_path / "taken"
    folder.mkdir()
    code, out, err = run(capsys, "--html", str(folder))
    assert code == 2 and out == ""
    assert err == (f"error: {folder}: cannot write the html report: it is a folder; "
                   "give a file path, e.g. report.html\n")
    assert list(folder.iterdir()) == []


def test_an_unwritable_path_is_one_line(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, _, err = run(capsys, "--markdown", str(blocker / "r.md"))
    assert code == 2
    assert err.startswith(f"error: {blocker / 'r.md'}: cannot write the markdown report: ")
    assert "Traceback" not in err and err.count("\n") == 1


def _registry_with(write: object, name: str) -> Registry:
    plugin = types.ModuleType(name)

    @hookimpl
    def toolscore_register_report_writers() -> list[ReportWriter]:
        return [ReportWriter(id="tsv", description="checks as TSV", write=write,  # type: ignore[arg-type]
                             suffix=".tsv")]

    plugin.toolscore_register_report_writers = toolscore_register_report_writers  # type: ignore[attr-defined]
    pm = get_plugin_manager(entry_points=False, env={})
    pm.register(plugin, name=name)
    return build_registry(pm)


def test_a_third_party_writer_is_usable_by_id(tmp_path: Path) -> None:
    def write(evaluation: Evaluation, stream: TextIO) -> None:
        for check in evaluation.to_dict()["evidence"]["checks"]:
            stream.write(f"{check['check']}\t{check['status']}\n")

    registry = _registry_with(write, "tsv_plugin")
    targets = report_targets(registry, reports=[f"tsv={tmp_path / 'e.tsv'}"])
    evaluation = evaluate_files(GOLD, TRACE, registry=registry)
    write_reports(evaluation, targets, registry)
    lines = (tmp_path / "e.tsv").read_text().splitlines()
    assert lines == [f"{c.check}\t{c.status}" for c in evaluation.evidence]
    assert "call-errors\tfail" in lines


def test_a_broken_writer_names_its_plugin_and_leaves_no_file(tmp_path: Path) -> None:
    def write(evaluation: Evaluation, stream: TextIO) -> None:
        stream.write("half a report")
        raise KeyError("oops")

    registry = _registry_with(write, "broken_plugin")
    targets = report_targets(registry, reports=[f"tsv={tmp_path / 'e.tsv'}"])
    with pytest.raises(PluginError, match=r"report writer 'tsv' \(plugin 'broken_plugin'\) "
                                          r"failed: KeyError: 'oops'; disable it with "
                                          r"TOOLSCORE_DISABLE_PLUGINS=broken_plugin"):
        write_reports(evaluate_files(GOLD, TRACE, registry=registry), targets, registry)
    assert list(tmp_path.iterdir()) == []


def test_builtin_writers_are_registered_with_their_suffixes() -> None:
    writers = default_registry().report_writers
    assert {w: writers[w].suffix for w in ("console", "json", "markdown", "html")} == {
        "console": ".txt", "json": ".json", "markdown": ".md", "html": ".html"}
    assert list(writers)[:4] == ["console", "json", "markdown", "html"]
    with pytest.raises(InputError):
        report_targets(default_registry(), reports=["pdf=x.pdf"])
