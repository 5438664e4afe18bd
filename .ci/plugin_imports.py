"""Print the toolscore imports that plugins.md's Python examples show, one module to type-check.

CI runs ``mypy --strict`` on the result: the exact names the docs tell authors to import
must type-check for them.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib.util import find_spec
from pathlib import Path

BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def imports(markdown: str) -> list[str]:
    lines: list[str] = []
    for block in BLOCK.findall(markdown):
        for node in ast.walk(ast.parse(block)):
            if (isinstance(node, ast.ImportFrom) and node.module
                    and node.module.split(".")[0].startswith("toolscore")
                    and find_spec(node.module.split(".")[0]) is not None):
                line = ast.unparse(node)
                if line not in lines:
                    lines.append(line)
    return lines


if __name__ == "__main__":
    text = Path(sys.argv[1] if len(sys.argv) > 1 else "plugins.md").read_text(encoding="utf-8")
    found = imports(text)
    if not found:
        sys.exit("plugins.md shows no toolscore imports: the extraction is broken")
    print("\n".join(found))
