"""Opening input files: the one place toolscore opens a file to read it, regular files only.

A device (``/dev/zero``), a FIFO or a socket given as an input would hang a command or
grow it without bound, and a directory or a symlink loop would end in a traceback: each is
refused with one line before a byte is read.
"""

from __future__ import annotations

import errno
import os
import stat
from io import BufferedReader
from pathlib import Path

from toolscore_core.errors import InputError

_KINDS = (
    (stat.S_ISDIR, "a directory", "give a file"),
    (stat.S_ISFIFO, "a FIFO (named pipe)", "save what it carries to a file and give that"),
    (stat.S_ISSOCK, "a socket", "save what it carries to a file and give that"),
    (stat.S_ISCHR, "a device", "give a regular file"),
    (stat.S_ISBLK, "a device", "give a regular file"),
)


def not_regular(mode: int) -> tuple[str, str] | None:
    """(what it is, the fix) for a file mode that is not a regular file's; None for one."""
    if stat.S_ISREG(mode):
        return None
    for test, kind, fix in _KINDS:
        if test(mode):
            return kind, fix
    return "another kind of file", "give a regular file"


def path_problem(path: str | os.PathLike[str], what: str) -> InputError | None:
    """The one-line error for a path no file can be read from by name (a NUL byte in it);
    None for a path the system can be asked about."""
    name = os.fspath(path)
    if "\x00" in str(name):
        return InputError(f"the {what} path holds a NUL byte", file=repr(str(name)),
                          fix="give the path without it")
    return None


def stat_error(exc: OSError, path: str | os.PathLike[str], what: str) -> InputError:
    """The one-line error for what ``os.stat``/``os.open`` raised on an input path."""
    name = str(path)
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        return InputError(f"{what} not found", file=name, fix="check the path")
    if exc.errno == errno.ELOOP:
        return InputError(f"the {what} path is a loop of symbolic links", file=name,
                          fix="point the link at a file")
    if isinstance(exc, PermissionError):
        return InputError(f"cannot read {what} (permission denied)", file=name,
                          fix="give a file you can read")
    if exc.errno == errno.ENAMETOOLONG:
        return InputError(f"the {what} path is too long for the system", file=name[:200] + "…",
                          fix="give a shorter path")
    return InputError(f"cannot read {what} ({exc.strerror or exc})", file=name)


def open_input(path: str | os.PathLike[str], *, what: str = "file") -> BufferedReader:
    """``path`` opened for reading in binary, or an InputError naming it: a missing file, a
    NUL byte, a symlink loop, and anything but a regular file (checked before opening, and
    again on the file opened, which was opened without blocking so a FIFO cannot hang it)."""
    problem = path_problem(path, what)
    if problem is not None:
        raise problem
    try:
        found = not_regular(os.stat(path).st_mode)
        if found is not None:
            raise InputError(f"the {what} is {found[0]}, not a regular file", file=str(path),
                             fix=found[1])
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise stat_error(exc, path, what) from None
    try:
        found = not_regular(os.fstat(fd).st_mode)  # replaced between the two looks
        if found is not None:
            raise InputError(f"the {what} is {found[0]}, not a regular file", file=str(path),
                             fix=found[1])
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")  # a BufferedReader: binary mode, default buffering
    except BaseException:
        os.close(fd)
        raise


def read_input(path: str | os.PathLike[str], *, what: str = "file",
               limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit + 1`` of them when a limit is
    given, so a caller can tell a file that is larger)."""
    with open_input(path, what=what) as handle:
        try:
            return handle.read() if limit is None else handle.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read {what} ({exc.strerror or exc})",
                             file=str(path)) from None


def input_sha256(path: str | os.PathLike[str], *, what: str = "input file",
                 expected_size: int | None = None) -> tuple[str | None, int]:
    """SHA-256 and size of a regular file's bytes, read in 1 MiB chunks.

    With ``expected_size`` (what a receipt recorded), a file of another size is known to
    differ before it is read, and no more than ``expected_size + 1`` bytes are read from a
    file that grows meanwhile: the digest is then None, and the size the one seen."""
    import hashlib  # here: loading OpenSSL costs ~2 ms, and a console verdict hashes nothing

    with open_input(path, what=what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if expected_size is not None and size != expected_size:
            return None, size
        budget = None if expected_size is None else expected_size + 1
        digest = hashlib.sha256()
        read = 0
        while budget is None or read < budget:
            chunk = handle.read(1 << 20 if budget is None else min(1 << 20, budget - read))
            if not chunk:
                break
            digest.update(chunk)
            read += len(chunk)
        if budget is not None and read >= budget:
            return None, read
        return digest.hexdigest(), read


def is_inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether ``path`` lies in ``folder`` or below it, symbolic links followed."""
    try:
        target = Path(os.path.realpath(path))
        root = Path(os.path.realpath(folder))
    except (OSError, ValueError):
        return False
    return target == root or root in target.parents
