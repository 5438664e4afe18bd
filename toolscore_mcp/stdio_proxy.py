"""The stdio proxy: start the server, relay newline-delimited JSON-RPC both ways, record it.

Two threads pump bytes (client -> server, server -> client); the main thread forwards
signals to the server and waits for it. The server's stderr is our stderr. Relayed lines
are passed on as the exact bytes that arrived, unless a plan planted into them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType

from toolscore_core.errors import InputError
from toolscore_mcp.relay import Relay, from_client, from_server

FORWARDED_SIGNALS = tuple(
    s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT",
                                                     "SIGUSR1", "SIGUSR2")) if s is not None
)
_CHUNK = 1 << 16


def iter_lines(fd: int) -> Iterator[bytes]:
    """Lines read from ``fd`` as they arrive, each with its ``\\n`` (the last may lack it)."""
    return split_lines(lambda: os.read(fd, _CHUNK))


def split_lines(read: Callable[[], bytes]) -> Iterator[bytes]:
    """Lines from successive ``read()`` chunks (``b""`` ends), yielded as soon as whole."""
    pending: list[bytes] = []
    while True:
        data = read()
        if not data:
            break
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            if pending:
                pending.append(data[start:end + 1])
                yield b"".join(pending)
                pending.clear()
            else:
                yield data[start:end + 1]
            start = end + 1
        if start < len(data):
            pending.append(data[start:])
    if pending:
        yield b"".join(pending)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd``."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class StdioProxy:
    """Relays between a client on (``client_in``, ``client_out``) and a server subprocess."""

    def __init__(self, command: Sequence[str], relay: Relay, *, client_in: int = 0,
                 client_out: int = 1) -> None:
        if not command:
            raise InputError("no server command given", place="SERVER_CMD",
                             fix="put the server's command after --, e.g. -- python server.py")
        self.command = list(command)
        self.relay = relay
        self.client_in = client_in
        self.client_out = client_out
        self._out_lock = threading.Lock()
        self._client_gone = False
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        try:
            # Its own process group: a terminal's Ctrl-C reaches the server once, through us.
            self.process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                bufsize=0, process_group=0,
            )
        except FileNotFoundError:
            raise InputError(f"server command not found: {self.command[0]}",
                             place="SERVER_CMD", fix="check the command after --") from None
        except PermissionError:
            raise InputError(f"server command is not executable: {self.command[0]}",
                             place="SERVER_CMD", fix="make it executable (chmod +x), or run it "
                             "through its interpreter") from None

    def _to_client(self, data: bytes) -> None:
        with self._out_lock:
            if self._client_gone:
                return
            try:
                write_all(self.client_out, data)
            except (BrokenPipeError, ConnectionResetError):
                self._client_gone = True

    def _pump_client(self) -> None:
        assert self.process is not None and self.process.stdin is not None
        server_in = self.process.stdin.fileno()
        try:
            for line in iter_lines(self.client_in):
                if not line.strip():
                    write_all(server_in, line)
                    continue
                outcome = from_client(self.relay, line)
                if outcome.answer is not None:
                    self._to_client(outcome.answer + b"\n")
                if outcome.forward:
                    write_all(server_in, line)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server is gone; the other pump sees its stdout close
        finally:
            # The client closed our stdin: the MCP way to ask the server to exit.
            with contextlib.suppress(OSError):
                self.process.stdin.close()

    def _pump_server(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        server_out = self.process.stdout.fileno()
        for line in iter_lines(server_out):
            if not line.strip():
                self._to_client(line)
                continue
            replacement = from_server(self.relay, line)
            self._to_client(line if replacement is None else replacement + b"\n")

    def run(self) -> int:
        """Relay until the server exits; its return code (negative: killed by that signal).

        Recording begins once the server has started, and the session file is published at
        its first message: a command that cannot start, or a server that dies before it says
        anything, leaves an earlier session as it was."""
        self.start()
        assert self.process is not None
        process = self.process
        try:
            self.relay.writer.begin()
        except BaseException:
            process.kill()
            process.wait()
            raise
        previous = {}

        def forward(signum: int, frame: FrameType | None) -> None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signum)

        if threading.current_thread() is threading.main_thread():
            for signum in FORWARDED_SIGNALS:
                previous[signum] = signal.signal(signum, forward)
        try:
            threading.Thread(target=self._pump_client, name="client->server",
                             daemon=True).start()
            server_pump = threading.Thread(target=self._pump_server, name="server->client",
                                           daemon=True)
            server_pump.start()
            # Joined with a timeout so the main thread keeps running signal handlers.
            while server_pump.is_alive():
                server_pump.join(0.2)
            while True:
                try:
                    return process.wait(0.2)
                except subprocess.TimeoutExpired:
                    continue
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
