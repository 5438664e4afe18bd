"""The built-in checks, metrics, judge and secret scanner are plugins like any other: they
import only the public package ``toolscore`` and their own package, so everything they need
is in the public API a third-party plugin uses."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BUILT_INS: tuple[str, ...] = ("toolscore_checks", "toolscore_judge", "toolscore_secrets")
"""The built-in packages held to the public API, each scanned module by module."""

PUBLIC = "toolscore"


def _imported(node: ast.AST, package: str) -> list[str]:
    """The top-level packages an import statement names (a relative import stays inside
    ``package``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return [package]
        return [node.module or ""]
    return []


def forbidden_imports(package: str, root: Path = ROOT) -> list[str]:
    """``file:line: import`` for each import in ``package`` of another toolscore package
    than ``toolscore`` and ``package`` itself, in file and line order."""
    found = []
    for path in sorted((root / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for module in _imported(node, package):
                top = module.split(".")[0]
                if top.startswith("toolscore") and top not in (PUBLIC, package):
                    found.append((str(path.relative_to(root)), node.lineno, module))
    return [f"{file}:{line}: imports {module}; import it from toolscore"
            for file, line, module in sorted(found)]


def test_each_built_in_imports_only_toolscore_and_itself() -> None:
    for package in BUILT_INS:
        assert (ROOT / package / "__init__.py").is_file(), package
        assert forbidden_imports(package) == []


def test_the_scan_names_file_line_and_import(tmp_path: Path) -> None:
    package = tmp_path / "toolscore_acme"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("from toolscore import Check\nfrom . import inner\n")
    (package / "inner" / "__init__.py").write_text(
        "import json\n"
        "from toolscore_acme.inner import x\n"
        "def f():\n"
        "    from toolscore_core.wording import count\n"
        "    import toolscore_formats.common as c\n")
    (package / "late.py").write_text("from typing import TYPE_CHECKING\n"
                                     "if TYPE_CHECKING:\n"
                                     "    from toolscore_checks import honesty\n")
    assert forbidden_imports("toolscore_acme", tmp_path) == [
        "toolscore_acme/inner/__init__.py:4: imports toolscore_core.wording; "
        "import it from toolscore",
        "toolscore_acme/inner/__init__.py:5: imports toolscore_formats.common; "
        "import it from toolscore",
        "toolscore_acme/late.py:3: imports toolscore_checks; import it from toolscore",
    ]
