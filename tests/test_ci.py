"""``.ci/run`` stays complete: it runs the README's test command, then every test that
command deselects, and a run that collects nothing fails CI. Read from the script, not run."""

from __future__ import annotations

import re
import shlex
import tomllib

from tests.helpers import ROOT

SCRIPT = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
MARKED = ("chromium", "mcp", "process", "ray")


def _addopts() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        options = tomllib.load(handle)["tool"]["pytest"]["ini_options"]
    return shlex.split(options["addopts"])


def _option(args: list[str], name: str) -> str:
    return args[len(args) - 1 - args[::-1].index(name) + 1]  # the last one wins


def _pytest_function() -> tuple[str, str]:
    """The shell function that runs pytest: its name and its body."""
    found = re.search(r"^(\w+)\(\) \{\n(.*?)^\}", SCRIPT, re.M | re.S)
    assert found, ".ci/run runs pytest through one shell function"
    return found.group(1), found.group(2)


def _calls() -> list[list[str]]:
    """The arguments of each call of that function, in order."""
    name, _ = _pytest_function()
    return [shlex.split(line.split("||")[0])[1:] for line in SCRIPT.splitlines()
            if line.strip().split(" ")[0] == name]


def test_the_default_run_deselects_exactly_the_marked_tests() -> None:
    args = _addopts()
    assert _option(args, "-m") == "not (" + " or ".join(MARKED) + ")"
    assert _option(args, "-n") == "2" and _option(args, "--dist") == "loadfile"


def test_every_deselecting_marker_is_registered() -> None:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        markers = tomllib.load(handle)["tool"]["pytest"]["ini_options"]["markers"]
    registered = {line.split(":")[0] for line in markers}
    assert set(MARKED) <= registered


def test_ci_runs_the_readme_command_then_the_marked_tests() -> None:
    _, body = _pytest_function()
    [command] = [line for line in body.splitlines() if "python -m pytest" in line]
    assert command.strip().endswith('python -m pytest -p no:cacheprovider "$@"')
    first, second = _calls()
    assert first == []  # the README's command as it is: the default selection
    assert _option(second, "-m") == " or ".join(MARKED)  # what the default leaves out
    assert _option(second, "-n") == "0"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "&& python -m pytest\n" in readme


def test_ci_fails_when_either_run_collects_no_tests() -> None:
    _, body = _pytest_function()
    assert re.search(r'if \[ "\$code" -eq 5 \]; then\n.*\n\s*return 1\n\s*fi', body), (
        "exit 5 (no tests collected) must fail the run")
    assert re.search(r'return "\$code"\s*$', body)
    name, _ = _pytest_function()
    status_lines = [line.strip() for line in SCRIPT.splitlines()
                    if line.strip().split(" ")[0] == name]
    assert all(line.endswith("|| status=$?") for line in status_lines), (
        "each run's failure is kept, and the second run still runs after a failed first")
    assert SCRIPT.rstrip().endswith('exit "$status"')
