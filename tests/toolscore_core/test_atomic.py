"""Writing whole files: a temp file beside the target, renamed over it."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.helpers import ROOT, example_folder
from toolscore_core.atomic import atomic_writer, write_text_atomic
from toolscore_core.errors import InputError


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


def test_a_device_is_written_to_never_replaced(tmp_path: Path) -> None:
    """Run as root, a rename over /dev/null would replace the device with a file."""
    before = os.stat("/dev/null")
    write_text_atomic("/dev/null", "discarded\n")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_a_fifo_is_written_to_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_text_atomic(fifo, "through the pipe\n")
    reader.join(20)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_folder_or_a_socket_is_refused(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    try:
        for name, said in (("folder", "a directory"), ("sock", "a socket")):
            with pytest.raises(InputError, match=f"cannot write over {said}"):
                write_text_atomic(tmp_path / name, "x")
    finally:
        server.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "sock"]


def test_a_symbolic_link_stays_and_its_file_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    write_text_atomic(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink()
    assert (tmp_path / "real.json").read_text() == "new"


def test_ctrl_c_mid_write_leaves_no_temp_file(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt), atomic_writer(tmp_path / "r.json") as handle:
        handle.write("half")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


SLOW_WRITE = """
import sys, time
from toolscore_cli.app import main
from toolscore_formats.reports import json_report

real = json_report.write
def slow(evaluation, stream):
    real(evaluation, stream)
    stream.flush()
    print("writing", file=sys.stderr, flush=True)
    time.sleep(60)
json_report.write = slow
main(sys.argv[1:])
"""


@pytest.mark.process  # SIGTERM to a real process mid-write
def test_sigterm_mid_write_leaves_no_temp_file(tmp_path: Path) -> None:
    """A real process, killed while its report is half done: it dies of SIGTERM (as
    without a handler) and its temp file is gone."""
    folder = example_folder(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITE, "eval", "gold.json", "trace.json", "--json",
         "out/report.json"], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True)
    assert process.stderr is not None
    assert process.stderr.readline() == "writing\n"
    assert [p.name.endswith(".tmp") for p in (folder / "out").iterdir()] == [True]
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == -signal.SIGTERM
    assert list((folder / "out").iterdir()) == []


@pytest.mark.process  # a process whose stdout is a file
def test_dev_stdout_redirected_to_a_file_is_written_through_stdout(tmp_path: Path) -> None:
    """Replacing the file would lose what stdout writes next; writing it through another
    descriptor would overwrite what stdout wrote before."""
    script = ("import sys\nfrom toolscore_core.atomic import write_text_atomic\n"
              "print('before')\nwrite_text_atomic('/dev/stdout', 'report\\n')\n"
              "print('after')\n")
    out = tmp_path / "out.txt"
    with open(out, "w") as handle:
        subprocess.run([sys.executable, "-c", script], stdout=handle, check=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.read_text() == "before\nreport\nafter\n"
