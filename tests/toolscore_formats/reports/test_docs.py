"""docs/reports.md stays true: its example plugin runs, and its Markdown excerpt is real."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from toolscore_core.context import Evaluation
from toolscore_formats.reports.markdown import render
from toolscore_formats.reports.view import build_view

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")


def blocks(language: str, fence: str = "```") -> list[str]:
    return re.findall(rf"^{fence}{language}\n(.*?)^{fence}$", DOC, flags=re.S | re.M)


def test_the_example_plugin_and_its_test_run(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    plugin, its_test, from_python = blocks("python")
    (tmp_path / "toolscore_csv.py").write_text(plugin, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(ROOT)
    monkeypatch.delitem(sys.modules, "toolscore_csv", raising=False)
    exec(compile(its_test, "docs/reports.md", "exec"), {})
    namespace: dict[str, object] = {}
    exec(compile(from_python, "docs/reports.md", "exec"), namespace)
    assert '<table id="evidence">' in namespace["page"].getvalue()  # type: ignore[attr-defined]


def test_the_markdown_excerpt_is_the_real_output(example_evaluation: Evaluation) -> None:
    (excerpt,) = blocks("markdown", fence="````")
    real = render(build_view(example_evaluation))
    assert _any_version(excerpt) == _any_version(real), (
        "docs/reports.md shows stale output: paste the output of "
        "`toolscore eval examples/gold.json examples/trace.json --markdown -`")


def _any_version(text: str) -> str:
    return re.sub(r"<sub>toolscore [^<]*</sub>", "<sub>toolscore VERSION</sub>", text)
