"""The public API: ``toolscore.__all__`` is literal, typed and complete; importing it is cheap."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import toolscore
from tests.helpers import ROOT

INIT = Path(toolscore.__file__)
PACKAGES = ("toolscore", "toolscore_core", "toolscore_checks", "toolscore_formats",
            "toolscore_cli", "toolscore_studies", "toolscore_mcp", "toolscore_secrets",
            "toolscore_judge", "toolscore_pytest", "toolscore_otel")


def _module() -> ast.Module:
    return ast.parse(INIT.read_text(encoding="utf-8"))


def _literal_all() -> list[str]:
    for node in _module().body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
                "__all__"]:
            assert isinstance(node.value, ast.List), "__all__ is a list literal"
            names = [item.value for item in node.value.elts
                     if isinstance(item, ast.Constant) and isinstance(item.value, str)]
            assert len(names) == len(node.value.elts), "__all__ holds only string literals"
            return names
    raise AssertionError("toolscore/__init__.py assigns no __all__")


def _type_checking_reexports() -> set[str]:
    """Names the ``if TYPE_CHECKING:`` block re-exports explicitly (``import X as X``)."""
    for node in _module().body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            names = set()
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    for alias in stmt.names:
                        assert alias.asname == alias.name, (
                            f"{alias.name} is re-exported as itself (import {alias.name} as "
                            f"{alias.name}), or mypy --strict does not see it as public")
                        names.add(alias.name)
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    names.add(stmt.target.id)
            return names
    raise AssertionError("toolscore/__init__.py has no TYPE_CHECKING block")


def test_all_is_a_literal_that_matches_the_runtime_value() -> None:
    names = _literal_all()
    assert names == toolscore.__all__
    assert len(names) == len(set(names))


def test_every_public_name_resolves() -> None:
    for name in toolscore.__all__:
        assert getattr(toolscore, name) is not None, name
    assert sorted(dir(toolscore)) == sorted(toolscore.__all__)


def test_type_checkers_see_exactly_the_public_names() -> None:
    assert _type_checking_reexports() == set(toolscore.__all__)


def test_what_the_built_ins_take_from_the_core_is_public() -> None:
    for name in ("Trace", "TraceFormat", "ToolCall", "hookimpl", "InputError", "loads",
                 "JSON_FAILURES", "values_match", "count", "number", "parse_trace",
                 "ForbiddenRule", "SideEffect", "Evaluation", "ReportWriter", "structure",
                 "Refusal"):
        assert name in toolscore.__all__, name
    assert toolscore.loads("[1]") == [1]
    assert toolscore.count(2, "call") == "2 calls"
    assert toolscore.number(0) == 1
    assert toolscore.values_match(toolscore.Regex("^a"), "abc")


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        toolscore.not_a_name  # noqa: B018
    except AttributeError as exc:
        assert "not_a_name" in str(exc)
    else:
        raise AssertionError("toolscore.not_a_name resolved")


def test_every_package_ships_py_typed() -> None:
    for package in PACKAGES:
        assert (ROOT / package / "py.typed").is_file(), package
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"*" = ["py.typed"]' in pyproject


@pytest.mark.process  # what a fresh interpreter imports
def test_import_toolscore_imports_no_implementation() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import sys, toolscore; print(sorted(m for m in sys.modules if "
         "m.startswith(('toolscore', 'attrs', 'cattrs', 'pluggy'))))"],
        capture_output=True, text=True, check=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "['toolscore']"


def test_plugins_md_lists_every_public_name() -> None:
    text = (ROOT / "plugins.md").read_text(encoding="utf-8")
    section = text[text.index("## The public API, typed"):text.index("## Testing a plugin")]
    missing = [name for name in toolscore.__all__ if f"`{name}`" not in section]
    assert not missing, f"plugins.md's public API section does not name {missing}"
