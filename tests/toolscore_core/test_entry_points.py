"""A real third-party distribution, pip-installed, found through the entry-point group."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli, write_json

pytestmark = pytest.mark.process  # a pip-installed distribution found by its entry points

PLUGIN_PROJECT = ROOT / "tests" / "plugin_example"


def _can_build_here() -> bool:
    """Whether this environment's setuptools builds wheels itself (70.1+, or with wheel)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(p) for p in version("setuptools").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    if (major, minor) >= (70, 1):
        return True
    try:
        version("wheel")
    except PackageNotFoundError:
        return False
    return True


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory) -> Path:
    """The example plugin built and installed into its own target directory."""
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    # Built from a copy: setuptools writes its egg-info beside the sources, and in the
    # source tree (on sys.path while the plugin's own tests run) it would register the
    # plugin in every later in-process registry.
    project = build / "project"
    shutil.copytree(PLUGIN_PROJECT, project, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", ".mypy_cache", "__pycache__"))
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
               "--disable-pip-version-check", "--target", str(target), str(project)]
    if _can_build_here():
        command.insert(4, "--no-build-isolation")
    subprocess.run(command, check=True, cwd=build, timeout=300,
                   env={**os.environ, "PIP_NO_INPUT": "1"})
    assert list(target.glob("toolscore_example_plugin-2.4.1.dist-info"))
    return target


def test_plugins_lists_the_third_party_distribution(installed_plugin: Path) -> None:
    out = run_cli("plugins", "--json", env={"PYTHONPATH": str(installed_plugin)})
    assert out.returncode == 0, out.stderr
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    example = rows["example"]
    assert example["distribution"] == "toolscore-example-plugin"
    assert example["version"] == "2.4.1"
    assert example["provides"] == {"trace_formats": ["tool_log"], "checks": ["short-answer"]}
    assert rows["toolscore_checks.call_errors"]["distribution"] == "toolscore"


def test_eval_uses_the_plugin_format_and_check(installed_plugin: Path, tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [{"tool": "lookup", "args": {"id": 7}}])
    trace = write_json(tmp_path / "log.json", {
        "tool_log": [{"name": "lookup", "input": {"id": 7}, "output": {"name": "Ada"}}],
        "answer": "The customer is Ada.",
    })
    out = run_cli("eval", str(gold), str(trace), "--explain-format", "--json", "-",
                  env={"PYTHONPATH": str(installed_plugin)})
    assert out.returncode == 0, out.stderr
    assert "format: tool_log" in out.stderr
    record = json.loads(out.stdout)
    assert record["trace"]["format"] == "tool_log"
    assert record["provenance"]["format"] == "example"
    check = next(c for c in record["evidence"]["checks"] if c["check"] == "short-answer")
    assert check["status"] == "pass"
    assert check["plugin"] == {"name": "example", "distribution": "toolscore-example-plugin",
                               "version": "2.4.1"}
    assert {"name": "example", "distribution": "toolscore-example-plugin",
            "version": "2.4.1"} in record["plugins"]
    assert record["score"] == 1.0


def test_disabling_the_plugin_removes_its_format(installed_plugin: Path, tmp_path: Path) -> None:
    gold = write_json(tmp_path / "gold.json", [{"tool": "lookup"}])
    trace = write_json(tmp_path / "log.json", {"tool_log": [{"name": "lookup"}]})
    out = run_cli("eval", str(gold), str(trace),
                  env={"PYTHONPATH": str(installed_plugin),
                       "TOOLSCORE_DISABLE_PLUGINS": "example"})
    assert out.returncode == 2
    assert "no trace format recognises this document" in out.stderr
    assert "Traceback" not in out.stderr
