"""Writing whole files: a temp file beside the target, renamed over it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from toolscore_core.atomic import atomic_writer, write_text_atomic


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_gets_the_mode_open_would_give_it(tmp_path: Path, umask: int) -> None:
    """Not mkstemp's 0600: a report others (a CI artifact server) must read stays readable."""
    old = os.umask(umask)
    try:
        write_text_atomic(tmp_path / "new" / "report.json", "{}")
        with open(tmp_path / "plain.json", "w") as handle:
            handle.write("{}")
    finally:
        os.umask(old)
    assert mode(tmp_path / "new" / "report.json") == mode(tmp_path / "plain.json")
    assert mode(tmp_path / "plain.json") == 0o666 & ~umask


def test_a_replaced_file_keeps_its_mode_and_a_failed_write_leaves_it_whole(
        tmp_path: Path) -> None:
    target = tmp_path / "runs.jsonl"
    target.write_text("old\n")
    target.chmod(0o640)
    with atomic_writer(target, mode="wb") as handle:
        handle.write(b"new\n")
    assert (target.read_text(), mode(target)) == ("new\n", 0o640)
    with pytest.raises(RuntimeError), atomic_writer(target) as handle:
        handle.write("half")
        raise RuntimeError("killed")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.jsonl"]
