"""The session file (JSON Lines, one whole line per write) and the ``injected.json`` log.

Every relayed JSON-RPC message is one line, written with a single ``os.write`` before the
message is passed on, so a proxy killed at any moment leaves every completed call
readable. On a clean exit the file is rewritten whole (temp file + rename) with an
``end`` line. The lines are written to a temp file beside the session from
:meth:`SessionWriter.begin` (the server has started) on, and the temp file becomes the
session when the server sends its first message (:meth:`SessionWriter.publish`): a
server that cannot start, or dies before it says anything, leaves an earlier session
whole and no new one.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from attrs import frozen

from toolscore_core.atomic import atomic_writer, write_text_atomic
from toolscore_core.errors import InputError

SESSION_KIND = "toolscore.mcp_session"
SESSION_VERSION = "1"
INJECTED_KIND = "toolscore.injected"
INJECTED_VERSION = "1"

Direction = Literal["client_to_server", "server_to_client"]
CLIENT_TO_SERVER: Direction = "client_to_server"
SERVER_TO_CLIENT: Direction = "server_to_client"


def utc_now() -> str:
    """The current time as ISO 8601 UTC with microseconds and ``Z``."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@frozen
class Channel:
    """Where a Streamable HTTP message travelled: JSON-RPC ids are unique only within it."""

    session: str | None
    """The ``Mcp-Session-Id`` header of the HTTP request (None: the request had none)."""
    stream: int
    """The HTTP request (POST or GET), numbered from 1 by the proxy, whose body or response
    carried the message."""

    @property
    def scope(self) -> str | int:
        """What pairs requests with responses: the MCP session, else the one HTTP request."""
        return self.session if self.session is not None else self.stream


def _channel(channel: Channel | None) -> str:
    if channel is None:
        return ""
    return f'"session":{_dumps(channel.session)},"stream":{channel.stream},'


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class SessionWriter:
    """Appends one JSON line per relayed message, from :meth:`open` on; thread-safe."""

    def __init__(self, path: str | os.PathLike[str], *, transport: Literal["stdio", "http"],
                 server: Sequence[str] | str, on_open: Callable[[], None] | None = None) -> None:
        """``on_open`` runs once the session file is published (the injected log is started
        with it, so neither replaces an earlier file for a server that never spoke)."""
        self.path = Path(path)
        if self.path.is_dir():
            raise InputError("the session file is a directory", file=str(self.path),
                             fix="give a file path")
        self._transport = transport
        self._server = server if isinstance(server, str) else list(server)
        self._on_open = on_open
        self._fd: int | None = None
        self._pending: Path | None = None
        """The temp file the lines go to until the server's first message."""
        self._published = False
        self._lock = threading.Lock()
        self._start = time.monotonic()

    def begin(self) -> None:
        """Start recording (the server has started): the header line, in a temp file beside
        the session, which is left as it was until :meth:`publish`."""
        import tempfile

        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp",
                                        dir=folder)
            os.fchmod(fd, 0o644)  # mkstemp makes 0600; a session is made to be read
        except OSError as exc:
            raise InputError(f"cannot write the session file ({exc.strerror})",
                             file=str(self.path)) from None
        with self._lock:
            self._fd = fd
            self._pending = Path(name)
            self._start = time.monotonic()
        header = {"kind": SESSION_KIND, "version": SESSION_VERSION,
                  "transport": self._transport, "server": self._server,
                  "started_at": utc_now()}
        self._write(_dumps(header))

    def publish(self) -> None:
        """The server has sent a message: the temp file becomes the session (replacing an
        earlier one), and later lines go on to it there. Once; cheap after that."""
        if self._pending is None:
            return
        with self._lock:
            if self._pending is None or self._fd is None:
                return
            os.replace(self._pending, self.path)
            self._pending = None
            self._published = True
        if self._on_open is not None:
            self._on_open()

    def open(self) -> None:
        """:meth:`begin` and :meth:`publish` at once."""
        self.begin()
        self.publish()

    @property
    def started(self) -> bool:
        """Whether the session file was published."""
        return self._published

    def stamp(self) -> tuple[str, float]:
        """The wall-clock time and the monotonic seconds since the session started."""
        return utc_now(), round(time.monotonic() - self._start, 6)

    def message(
        self, direction: Direction, message: Any, *, stamp: tuple[str, float],
        raw: str | None = None, planted: Mapping[str, Any] | None = None,
        original: Any = None, channel: Channel | None = None,
    ) -> None:
        """Record one message. ``raw`` is its exact JSON text when it was relayed unchanged
        (spliced in as it is, so the record is what the receiver saw, byte for byte);
        ``channel`` is the HTTP session and request it travelled on."""
        timestamp, monotonic = stamp
        body = raw if raw is not None and planted is None else _dumps(message)
        line = (f'{{"kind":"message","direction":"{direction}",{_channel(channel)}'
                f'"timestamp":"{timestamp}","monotonic":{monotonic!r},"message":{body},'
                f'"planted":{"null" if planted is None else _dumps(planted)}')
        if planted is not None and original is not None:
            line += f',"original":{_dumps(original)}'
        self._write(line + "}")

    def unparsed(self, direction: Direction, data: bytes, *, stamp: tuple[str, float],
                 channel: Channel | None = None) -> None:
        """Record a line that was relayed but is not JSON (a server printing to stdout).

        ``raw`` is its text without the ``\\n`` that ended it (``\\r`` and all else kept);
        bytes that are not UTF-8 show there as U+FFFD, and ``raw_base64`` then holds the
        exact bytes."""
        timestamp, monotonic = stamp
        body = data[:-1] if data.endswith(b"\n") else data
        line: dict[str, Any] = {"kind": "unparsed", "direction": direction}
        if channel is not None:
            line.update(session=channel.session, stream=channel.stream)
        line.update(timestamp=timestamp, monotonic=monotonic)
        try:
            line["raw"] = body.decode("utf-8")
        except UnicodeDecodeError:
            line["raw"] = body.decode("utf-8", "replace")
            line["raw_base64"] = base64.b64encode(body).decode("ascii")
        self._write(_dumps(line))

    def failure(self, reason: str, *, stamp: tuple[str, float], channel: Channel) -> None:
        """Record that a client's HTTP request could not reach the upstream (it got 502)."""
        timestamp, monotonic = stamp
        self._write(_dumps({"kind": "upstream_failed", "session": channel.session,
                            "stream": channel.stream, "timestamp": timestamp,
                            "monotonic": monotonic, "error": reason}))

    def _write(self, line: str) -> None:
        data = (line + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:
                return
            _write_all(self._fd, data)

    def close(self, exit_code: int | None) -> bool:
        """Add the ``end`` line and rewrite the file whole (temp file + rename); whether a
        session was written (False: the server never spoke, and its temp file is removed)."""
        with self._lock:
            if self._fd is None:
                return self._published
            os.close(self._fd)
            self._fd = None
            if self._pending is not None:
                self._pending.unlink(missing_ok=True)
                self._pending = None
                return False
            data = self.path.read_bytes()
            # A line torn by a failed write is dropped: the rewritten file holds whole lines.
            if data and not data.endswith(b"\n"):
                data = data[: data.rfind(b"\n") + 1]
            end = {"kind": "end", "ended_at": utc_now(), "exit_code": exit_code}
            with atomic_writer(self.path, mode="wb") as handle:
                handle.write(data)
                handle.write((_dumps(end) + "\n").encode("utf-8"))
            return True


class InjectedLog:
    """``injected.json``: written when the session file is published (:meth:`start`),
    rewritten atomically whenever something is planted, and at exit."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.faults: list[dict[str, Any]] = []
        self.injections: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._started = False

    def start(self) -> None:
        """Write the file (with what was planted so far), and from now on at each planting."""
        self._started = True
        self.write()

    def add(self, kind: str, entry: Mapping[str, Any]) -> None:
        """Log one planting (``kind`` is ``fault`` or ``injection``) and rewrite the file
        once started."""
        with self._lock:
            (self.faults if kind == "fault" else self.injections).append(dict(entry))
        if self._started:
            self.write()

    def document(self) -> dict[str, Any]:
        with self._lock:
            return self._document()

    def _document(self) -> dict[str, Any]:
        return {"kind": INJECTED_KIND, "version": INJECTED_VERSION,
                "faults": list(self.faults), "injections": list(self.injections)}

    def write(self) -> None:
        # Built and written under one lock, so a later file never loses an earlier entry.
        with self._lock:
            text = json.dumps(self._document(), ensure_ascii=False, indent=2) + "\n"
            write_text_atomic(self.path, text)
