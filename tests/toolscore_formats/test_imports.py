"""The format readers and report writers are built on the public API, as a third party's are.

Every module of ``toolscore_formats`` imports toolscore only through the public package
``toolscore`` and from ``toolscore_formats`` itself, and no format module (one that
registers trace formats) is imported by another module: what two formats share lives in a
toolkit module (values, content, calls, cursor, chat, shapes, spans, times ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = "toolscore_formats"
MODULES = sorted((ROOT / PACKAGE).rglob("*.py"))


def _imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """Every module an import statement of ``path`` names (at any depth), with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: inside toolscore_formats
                base = ".".join(path.relative_to(root).with_suffix("").parts[:-node.level])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            if module == PACKAGE:  # from toolscore_formats import openai_chat
                found.extend((node.lineno, f"{PACKAGE}.{alias.name}") for alias in node.names)
            else:
                found.append((node.lineno, module))
    return found


def _module_name(path: Path, root: Path = ROOT) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _registers_formats(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return any(isinstance(node, ast.FunctionDef) and
               node.name == "toolscore_register_trace_formats" for node in tree.body)


FORMAT_MODULES = frozenset(_module_name(path) for path in MODULES if _registers_formats(path))


def forbidden_imports(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``file:line: import`` for each import outside the public API or of a format module."""
    problems = []
    for path in paths:
        own = _module_name(path, root)
        for line, module in _imports(path, root):
            top = module.split(".")[0]
            if top.startswith("toolscore") and top not in ("toolscore", PACKAGE):
                why = "not the public API: import it from toolscore"
            elif top == "toolscore" and module != "toolscore":
                why = "a submodule of toolscore: import the name from toolscore"
            elif module in FORMAT_MODULES and module != own:
                why = "a format module: move what is shared to a toolkit module"
            else:
                continue
            problems.append(f"{path.relative_to(root)}:{line}: imports {module} ({why})")
    return problems


def test_every_format_module_is_found() -> None:
    assert {"toolscore_formats.native", "toolscore_formats.openai_chat",
            "toolscore_formats.otel", "toolscore_formats.inspect_ai"} <= FORMAT_MODULES
    assert "toolscore_formats.calls" not in FORMAT_MODULES


def test_readers_and_writers_import_only_the_public_api_and_their_toolkit() -> None:
    problems = forbidden_imports(MODULES)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("source", "named"), [
    ("from toolscore_core.errors import InputError\n", "toolscore_core.errors"),
    ("def f():\n    from toolscore_secrets.redaction import redact_text\n",
     "toolscore_secrets.redaction"),
    ("import toolscore_core.documents\n", "toolscore_core.documents"),
    ("from toolscore.testing import registry\n", "toolscore.testing"),
    ("from toolscore_formats.inspect_ai import is_sample\n", "toolscore_formats.inspect_ai"),
    ("from toolscore_formats import openai_chat\n", "toolscore_formats.openai_chat"),
    ("from .vercel_ai import is_ui_tool_part\n", "toolscore_formats.vercel_ai"),
])
def test_a_forbidden_import_is_named_with_its_file_and_line(
        tmp_path: Path, source: str, named: str) -> None:
    module = tmp_path / PACKAGE / "reader_under_test.py"
    module.parent.mkdir()
    module.write_text(f'"""A reader."""\n\n{source}', encoding="utf-8")
    problems = forbidden_imports([module], tmp_path)
    assert len(problems) == 1
    assert problems[0].startswith(f"{PACKAGE}/reader_under_test.py:{source.count(chr(10)) + 2}: ")
    assert f"imports {named} (" in problems[0]


def test_the_public_api_and_the_toolkit_pass(tmp_path: Path) -> None:
    module = tmp_path / PACKAGE / "reader_under_test.py"
    module.parent.mkdir()
    module.write_text("from toolscore import CallTable, InputError\n"
                      "from toolscore_formats.calls import outcome\n"
                      "from toolscore_formats.times import parse_time\n"
                      "import toolscore\n", encoding="utf-8")
    assert forbidden_imports([module], tmp_path) == []
