"""Opening input files: regular files only, refused with one line before any read."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.errors import InputError
from toolscore_core.inputs import input_sha256, is_inside, open_input, read_input

LIMIT = 20.0
"""Seconds a refusal may take; a read that blocks fails the test instead of hanging it."""


def within_limit(call: Callable[[], Any]) -> Any:
    """``call()`` in a daemon thread: its result or exception, or a failure after LIMIT."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(LIMIT)
    if thread.is_alive():
        pytest.fail(f"still running after {LIMIT:g} s: it blocked on the input")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """One path of each kind that is not a regular file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    server = socket.socket(socket.AF_UNIX)
    sock = tmp_path / "sock"
    server.bind(str(sock))
    (tmp_path / "folder").mkdir()
    yield {"zero": Path("/dev/zero"), "urandom": Path("/dev/urandom"), "null": Path("/dev/null"),
           "fifo": fifo, "socket": sock, "folder": tmp_path / "folder", "loop": loop}
    server.close()


@pytest.mark.parametrize(("kind", "said"), [
    ("zero", "is a device"), ("urandom", "is a device"), ("null", "is a device"),
    ("fifo", "is a FIFO (named pipe)"), ("socket", "is a socket"),
    ("folder", "is a directory"), ("loop", "a loop of symbolic links"),
])
def test_what_is_not_a_regular_file_is_one_line(hostile: dict[str, Path], kind: str,
                                                said: str) -> None:
    with pytest.raises(InputError) as caught:
        within_limit(lambda: read_input(hostile[kind], what="trace"))
    assert said in caught.value.problem
    assert caught.value.file == str(hostile[kind])
    assert "\n" not in str(caught.value)


def test_a_nul_byte_in_a_path_is_one_line() -> None:
    with pytest.raises(InputError, match="the trace path holds a NUL byte"):
        open_input("trace\x00.json", what="trace")


def test_a_fifo_swapped_in_after_the_check_does_not_block(tmp_path: Path) -> None:
    """Opened without blocking and checked again on the open file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    real_stat = os.stat

    def regular_first(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if Path(path) == fifo:
            return real_stat(__file__)
        return real_stat(path, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "stat", regular_first)
        with pytest.raises(InputError, match="is a FIFO"):
            within_limit(lambda: open_input(fifo))


def test_hashing_stops_at_the_recorded_size(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(b"x" * 10)
    digest, size = input_sha256(path)
    assert digest is not None and size == 10
    assert input_sha256(path, expected_size=10) == (digest, 10)
    assert input_sha256(path, expected_size=3) == (None, 10)  # known to differ, not read

    class Growing:
        """A file of 3 bytes when opened that grows without end while it is read."""

        def __init__(self) -> None:
            self.real = open(path, "rb")  # noqa: SIM115 - closed on exit
            self.taken = 0

        def __enter__(self) -> Growing:
            path.write_bytes(b"x" * 3)
            return self

        def __exit__(self, *exc: object) -> None:
            self.real.close()

        def fileno(self) -> int:
            return self.real.fileno()

        def read(self, n: int) -> bytes:
            self.taken += n
            return b"y" * n

    grown = Growing()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("toolscore_core.inputs.open_input", lambda *a, **k: grown)
        assert input_sha256(path, expected_size=3) == (None, 4)
    assert grown.taken == 4


def test_is_inside_follows_links(tmp_path: Path) -> None:
    inside = tmp_path / "evidence"
    inside.mkdir()
    (inside / "trace.json").write_text("{}")
    (inside / "escape").symlink_to("/etc/hostname")
    assert is_inside(inside / "trace.json", inside)
    assert not is_inside(inside / "../x", inside)
    assert not is_inside(inside / "escape", inside)
