"""The receipts sections of the README and of examples/contracts/ replay byte for byte."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from toolscore_core.receipts import verify_receipt

CONTRACTS = EXAMPLES / "contracts"


def receipts_section(readme: str) -> str:
    """The README's section on receipts: from its heading to the next one."""
    start = readme.index("## Receipts & regrade")
    end = readme.find("\n## ", start + 1)
    return readme[start:] if end < 0 else readme[start:end]


def console_blocks(text: str) -> list[str]:
    return re.findall(r"^```console\n(.*?)^```$", text, flags=re.S | re.M)


def steps(block: str) -> list[tuple[str, str]]:
    """``(command, shown output)`` for every ``$ `` line of a console block."""
    out: list[tuple[str, str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            out.append((line[2:].rstrip("\n"), ""))
        else:
            assert out, f"output before any command: {line!r}"
            out[-1] = (out[-1][0], out[-1][1] + line)
    return out


def shown_pattern(shown: str) -> re.Pattern[str]:
    """The shown output as a pattern: a line that is only ``…`` stands for lines left out."""
    parts = [r"(?:.*\n)*?" if line == "…\n" else re.escape(line)
             for line in shown.splitlines(keepends=True)]
    return re.compile("".join(parts))


def run(command: str, cwd: Path) -> str:
    """A documented command run in ``cwd``: its stdout and stderr as a terminal shows them."""
    words = shlex.split(command)
    if words[0] == "toolscore":
        argv = [sys.executable, "-m", "toolscore_cli", *words[1:]]
    else:  # a shell step of the walk-through, such as changing one byte of the trace
        argv = ["bash", "-c", command]
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120)
    return done.stdout


def replay(document: Path, text: str, tmp_path: Path) -> None:
    work = tmp_path / "contracts"
    shutil.copytree(CONTRACTS, work)
    blocks = console_blocks(text)
    assert blocks, f"{document.name} shows no console block"
    for block in blocks:
        for command, shown in steps(block):
            got = run(command, work)
            assert shown_pattern(shown).fullmatch(got), (
                f"{document.relative_to(ROOT)}: `{command}` printed\n{got}\nnot what it shows:"
                f"\n{shown}")


def test_the_readme_receipts_section_replays(tmp_path: Path) -> None:
    readme = ROOT / "README.md"
    replay(readme, receipts_section(readme.read_text(encoding="utf-8")), tmp_path)


def test_the_contracts_example_replays(tmp_path: Path) -> None:
    doc = CONTRACTS / "README.md"
    replay(doc, doc.read_text(encoding="utf-8"), tmp_path)


def test_the_shipped_receipt_reproduces() -> None:
    """The receipt shipped in examples/contracts/ matches its inputs and its record."""
    verification = verify_receipt(CONTRACTS / "run.receipt.json", recompute=True)
    assert verification.problems == ()
    assert verification.recompute is not None
    assert verification.recompute.status == "reproduced", verification.recompute.reason


@pytest.mark.parametrize("shown, got, matches", [
    ("a\n…\nz\n", "a\nb\nc\nz\n", True),
    ("a\n…\nz\n", "a\nz\n", True),
    ("a\nz\n", "a\nb\nz\n", False),
    ("a\n", "a\nb\n", False),
])
def test_an_ellipsis_line_stands_for_left_out_lines(shown: str, got: str, matches: bool) -> None:
    assert bool(shown_pattern(shown).fullmatch(got)) is matches
