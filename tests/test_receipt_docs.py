"""The receipt walk-throughs (README, docs/receipts.md, examples/contracts/) replay byte for
byte: every console block is run in a fresh copy of examples/contracts/ and must print
what it shows; the receipt shown is the one shipped, and that one reproduces."""

from __future__ import annotations

import doctest
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from toolscore_core.receipts import verify_receipt

CONTRACTS = EXAMPLES / "contracts"
SHIPPED = CONTRACTS / "run.receipt.json"
MARK = "\x1eSTEP\x1e"


def receipts_section(readme: str) -> str:
    """The README's section on receipts: from its heading to the next one."""
    start = readme.index("## Receipts & regrade")
    end = readme.find("\n## ", start + 1)
    return readme[start:] if end < 0 else readme[start:end]


def fenced(text: str, language: str) -> list[str]:
    """The bodies of ``language`` code blocks, indented ones (in list items) dedented."""
    blocks = re.findall(rf"^( *)```{language}\n(.*?)^\1```$", text, flags=re.S | re.M)
    return ["".join(line[len(indent):] for line in body.splitlines(keepends=True))
            for indent, body in blocks]


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


def run_block(commands: list[str], cwd: Path) -> list[str]:
    """Run a block's commands in one shell (``$?`` and ``cd`` carry over), as a terminal
    shows them: each command's stdout and stderr together."""
    script = ['toolscore() { "$PYTHON" -m toolscore_cli "$@"; }', "status=0"]
    for command in commands:  # the marker is printed without touching the last status
        script += [f"printf '{MARK}'", '(exit "$status")', f"{{ {command}\n}} 2>&1",
                   "status=$?"]
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                          env={**os.environ, "PYTHON": sys.executable})
    return done.stdout.split(MARK)[1:]


def fresh_copy(tmp_path: Path) -> Path:
    for left in tmp_path.iterdir():  # an earlier block's copy, or what it moved or made
        shutil.rmtree(left) if left.is_dir() else left.unlink()
    work = tmp_path / "contracts"
    shutil.copytree(CONTRACTS, work)
    return work


def replay(document: Path, text: str, tmp_path: Path) -> None:
    blocks = [b for b in fenced(text, "console") if not b.startswith("$ python bench/")]
    assert blocks, f"{document.name} shows no console block"
    for block in blocks:
        shown = steps(block)
        outputs = run_block([command for command, _ in shown], fresh_copy(tmp_path))
        assert len(outputs) == len(shown)
        for (command, expected), got in zip(shown, outputs, strict=True):
            assert shown_pattern(expected).fullmatch(got), (
                f"{document.relative_to(ROOT)}: `{command}` printed\n{got}\nnot what it "
                f"shows:\n{expected}")


def test_the_readme_receipts_section_replays(tmp_path: Path) -> None:
    readme = ROOT / "README.md"
    replay(readme, receipts_section(readme.read_text(encoding="utf-8")), tmp_path)


def test_the_contracts_example_replays(tmp_path: Path) -> None:
    doc = CONTRACTS / "README.md"
    replay(doc, doc.read_text(encoding="utf-8"), tmp_path)


def test_the_receipts_reference_replays(tmp_path: Path) -> None:
    doc = ROOT / "docs" / "receipts.md"
    replay(doc, doc.read_text(encoding="utf-8"), tmp_path)


def test_the_python_examples_of_the_receipts_reference_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (ROOT / "docs" / "receipts.md").read_text(encoding="utf-8")
    examples = [b for b in fenced(text, "python") if b.startswith(">>> ")]
    assert examples
    monkeypatch.chdir(fresh_copy(tmp_path))
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, example in enumerate(examples):
        runner.run(parser.get_doctest(example, {}, f"receipts.md python block {i}", None, 0))
    assert runner.summarize(verbose=False).failed == 0


def test_the_receipt_shown_in_the_reference_is_the_shipped_one() -> None:
    """docs/receipts.md shows the shipped receipt with its plugin list cut to the first
    and last entries (a line ``…`` in between)."""
    text = (ROOT / "docs" / "receipts.md").read_text(encoding="utf-8")
    shown = json.loads(next(b for b in fenced(text, "json") if '"receipt_sha256"' in b)
                       .replace("    …\n", ""))
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
    shipped["plugins"] = [shipped["plugins"][0], shipped["plugins"][-1]]
    assert shown == shipped


def test_the_shipped_receipt_reproduces() -> None:
    """The receipt shipped in examples/contracts/ matches its inputs and its record."""
    verification = verify_receipt(SHIPPED, recompute=True)
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
