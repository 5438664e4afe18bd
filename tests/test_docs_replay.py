"""Shown output cannot drift: every console block marked ``<!-- replay in FOLDER -->`` in
the README and the docs is run, command by command, in a fresh copy of FOLDER and must
print what it shows (a line ``…`` stands for lines left out). The receipt that
docs/receipts.md shows is the one shipped, and that one reproduces."""

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

from tests.helpers import EXAMPLES, ROOT
from toolscore_core.verify import verify_receipt

DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted(EXAMPLES.glob("*/README.md")))
SHIPPED = EXAMPLES / "contracts" / "run.receipt.json"
MARK = "\x1eSTEP\x1e"
REPLAY = re.compile(r"^ *<!-- replay (in|with) (\S+) -->\n+( *)```console\n(.*?)^\3```$",
                    flags=re.S | re.M)
"""``replay in FOLDER``: the commands run inside a copy of FOLDER; ``replay with FOLDER``:
they run at the root of a copy of the project that holds only FOLDER."""


def replayed_blocks(text: str) -> list[tuple[str, str, str]]:
    """``(in|with, folder, block)`` for every marked console block, indented ones dedented."""
    return [(how, folder,
             "".join(line[len(indent):] for line in body.splitlines(keepends=True)))
            for how, folder, indent, body in REPLAY.findall(text)]


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
        elif out and not out[-1][1] and out[-1][0].endswith("\\"):  # a continued command
            out[-1] = (out[-1][0] + "\n" + line.rstrip("\n"), "")
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


def fresh_copy(how: str, folder: str, tmp_path: Path) -> Path:
    """Where a block runs: in an emptied ``tmp_path``, a copy of the project's ``folder``
    (``in``), or a project root holding only that folder (``with``)."""
    for left in tmp_path.iterdir():  # an earlier block's copy, or what it moved or made
        shutil.rmtree(left) if left.is_dir() else left.unlink()
    if how == "with":
        shutil.copytree(ROOT / folder, tmp_path / folder)
        return tmp_path
    work = tmp_path / Path(folder).name
    shutil.copytree(ROOT / folder, work)
    return work


def _id(document: Path) -> str:
    return str(document.relative_to(ROOT))


def test_the_receipt_walk_throughs_are_replayed() -> None:
    """The promise of receipts is shown where users look first; all of it is held."""
    for document in (ROOT / "README.md", ROOT / "docs" / "receipts.md",
                     EXAMPLES / "contracts" / "README.md"):
        assert replayed_blocks(document.read_text(encoding="utf-8")), _id(document)


@pytest.mark.process  # the documented commands, run in a real shell
@pytest.mark.parametrize("document", DOCUMENTS, ids=_id)
def test_every_marked_block_prints_what_it_shows(document: Path, tmp_path: Path) -> None:
    for how, folder, block in replayed_blocks(document.read_text(encoding="utf-8")):
        shown = steps(block)
        outputs = run_block([command for command, _ in shown],
                            fresh_copy(how, folder, tmp_path))
        assert len(outputs) == len(shown)
        for (command, expected), got in zip(shown, outputs, strict=True):
            assert shown_pattern(expected).fullmatch(got), (
                f"{_id(document)}: `{command}` (in {folder}) printed\n{got}\nnot what it "
                f"shows:\n{expected}")


def test_the_python_examples_of_the_receipts_reference_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (ROOT / "docs" / "receipts.md").read_text(encoding="utf-8")
    examples = [b for b in fenced(text, "python") if b.startswith(">>> ")]
    assert examples
    monkeypatch.chdir(fresh_copy("in", "examples/contracts", tmp_path))
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


def test_a_continued_command_is_one_step() -> None:
    assert steps("$ toolscore eval a.json \\\n    b.json\nScore\n$ echo $?\n0\n") == [
        ("toolscore eval a.json \\\n    b.json", "Score\n"), ("echo $?", "0\n")]


@pytest.mark.parametrize("shown, got, matches", [
    ("a\n…\nz\n", "a\nb\nc\nz\n", True),
    ("a\n…\nz\n", "a\nz\n", True),
    ("a\nz\n", "a\nb\nz\n", False),
    ("a\n", "a\nb\n", False),
])
def test_an_ellipsis_line_stands_for_left_out_lines(shown: str, got: str, matches: bool) -> None:
    assert bool(shown_pattern(shown).fullmatch(got)) is matches
