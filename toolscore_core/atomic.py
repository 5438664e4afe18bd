"""Writing files whole or not at all: a temp file beside the target, then a rename."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from toolscore_core.errors import InputError


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], *, mode: str = "w",
                  permissions: int | None = None) -> Iterator[IO[Any]]:
    """Open a temp file in the target's folder; on success rename it over ``path``.

    Only a regular file (or nothing) is ever replaced: a symbolic link is followed and the
    file it names replaced, so the link stays; a device or a FIFO (``/dev/null``, a named
    pipe) is written to directly, as a stream; the file this process's stdout or stderr
    already writes to (``/dev/stdout`` redirected to a file) is written through that
    stream, after what it holds; a directory or a socket is an InputError. The temp file is
    removed on every exit path that runs code: an exception, Ctrl-C, and SIGTERM under
    ``toolscore``'s entry point (which turns it into an exception). ``permissions``
    (``0o600`` for a private key) replace the ones the file would get.
    """
    import tempfile  # here: only commands that write files pay for it

    target = _writable_target(path)
    encoding = None if "b" in mode else "utf-8"
    newline = None if "b" in mode else "\n"
    if isinstance(target, int):
        standard = sys.stdout if target == 1 else sys.stderr
        handle: IO[Any] = standard.buffer if "b" in mode else standard
        yield handle
        handle.flush()
        return
    if target is None:
        with open(path, mode, encoding=encoding, newline=newline) as stream:
            yield stream
        return
    folder = target.parent if str(target.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp makes 0600; a report is made to be read
        os.chmod(tmp, _mode_for(target) if permissions is None else permissions)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _writable_target(path: str | os.PathLike[str]) -> Path | int | None:
    """The regular file to replace for ``path`` (links followed; it may not exist yet);
    1 or 2 for the file stdout or stderr writes to; None for a stream to write to directly
    (a device, a FIFO)."""
    from toolscore_core.inputs import not_regular, path_problem, stat_error

    problem = path_problem(path, "output")
    if problem is not None:
        raise problem
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # a new file (or a path the write refuses)
        info = None
    except OSError as exc:
        raise stat_error(exc, path, "output") from None
    standard = None if info is None else _standard_stream(info)
    if standard is not None:
        return standard
    found = None if info is None else not_regular(info.st_mode)
    if found is None:
        return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    kind = found[0]
    if kind in ("a device", "a FIFO (named pipe)"):
        return None
    raise InputError(f"cannot write over {kind}", file=str(path),
                     fix="give the path of a file to write")


def _standard_stream(info: os.stat_result) -> int | None:
    """1 or 2 when a regular file is the one this process's stdout or stderr writes to
    (replacing it would lose what they write; writing beside them would overwrite it)."""
    if not stat.S_ISREG(info.st_mode):
        return None
    for fd in (1, 2):
        try:
            stream = os.fstat(fd)
        except OSError:
            continue
        if (stream.st_dev, stream.st_ino) == (info.st_dev, info.st_ino):
            return fd
    return None


def _mode_for(target: Path) -> int:
    """The permissions the file would have if written in place: those of the file it
    replaces, else what ``open()`` gives a new file (0666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    try:  # Linux tells it without changing it
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8)."""
    with atomic_writer(path) as handle:
        handle.write(text)
