"""Serving HTTP on a local address: what the MCP recording proxy and the OTLP recorder share.

Listening (a port already taken is one line, not a traceback), serving until SIGINT or
SIGTERM, the check that a request names an allowed host (a web page could otherwise reach
the server through DNS rebinding) and the ``Content-Length`` a body is read by, within a
limit. Built on the standard library: one thread per connection.
"""

from __future__ import annotations

import ipaddress
import re
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterable
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType
from typing import TypeVar
from urllib.parse import urlsplit

from toolscore_core.errors import InputError

_AUTHORITY = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::([0-9]{1,5}))?")
_DIGITS = re.compile(r"[0-9]+")

Server = TypeVar("Server", bound="LocalServer")


def host_name(authority: str) -> str | None:
    """The host name of a ``Host`` header or an authority (lowercase, no port or brackets),
    or None when it is not one."""
    match = _AUTHORITY.fullmatch(authority.strip())
    if match is None or (match.group(2) is not None and int(match.group(2)) > 65535):
        return None
    return match.group(1).strip("[]").lower()


def is_loopback(name: str) -> bool:
    """Whether a host name is ``localhost`` or a loopback address."""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_allowed_host(value: str) -> str:
    """An ``--allow-host`` value (a name or an address, no port) as the name compared, or
    an InputError."""
    text = value.strip()
    if ":" in text and not text.startswith("["):  # a bare IPv6 address
        text = f"[{text}]"
    match = _AUTHORITY.fullmatch(text)
    if match is None or match.group(2) is not None:
        raise InputError(f"bad host name {value!r}", place="--allow-host",
                         fix="give a host name or address without a port, e.g. mcp.internal "
                             "or 10.0.0.5")
    return match.group(1).strip("[]").lower()


class Refused(Exception):
    """A request answered here with an error status: the status and the one line that says
    why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def declared_length(headers: Message, limit: int, flag: str) -> int | None:
    """The body's ``Content-Length`` (None: not given), checked before anything is read:
    :class:`Refused` 400 when it is not one plain number of bytes, 413 when it is over
    ``limit`` (``flag`` names the option that sets it)."""
    values = {v.strip() for v in headers.get_all("Content-Length") or []}
    if len(values) > 1:
        raise Refused(400, "conflicting Content-Length headers")
    if not values:
        return None
    text = values.pop()
    if not _DIGITS.fullmatch(text):
        raise Refused(400, f"bad Content-Length {text[:40]!r}: a number of bytes is required")
    length = int(text)
    if length > limit:
        raise Refused(413, f"the body ({length} bytes) is larger than {limit} bytes ({flag})")
    return length


class LocalServer(ThreadingHTTPServer):
    """A server on one IPv4 or IPv6 address that answers requests naming loopback hosts or
    ``allowed_hosts`` (names as :func:`check_allowed_host` gives them)."""

    daemon_threads = True
    allow_reuse_address = True
    program = "toolscore"
    """Who speaks on stderr (``toolscore mcp record``)."""

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], *,
                 allowed_hosts: Iterable[str] = ()) -> None:
        self.allowed_hosts = frozenset(allowed_hosts)
        self._host_verdicts: dict[str, str | None] = {}
        """``Host`` values seen, each with its host name when allowed (None: refused)."""
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, handler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up is ordinary; anything else is one line on stderr."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError | TimeoutError):
            return
        print(f"{self.program}: {type(error).__name__}: {error}", file=sys.stderr, flush=True)

    def allows(self, name: str) -> bool:
        """Whether requests may name this host (in ``Host`` or ``Origin``)."""
        return is_loopback(name) or name in self.allowed_hosts

    def host_verdict(self, value: str) -> str | None:
        """The host name a ``Host`` header names when requests may name it, else None."""
        try:
            return self._host_verdicts[value]
        except KeyError:
            pass
        name = host_name(value)
        verdict = name if name is not None and self.allows(name) else None
        if len(self._host_verdicts) < 1000:  # the same few values come again and again
            self._host_verdicts[value] = verdict
        return verdict

    def origin_allowed(self, origin: str) -> bool:
        """Whether a browser's ``Origin`` names an allowed host (``null``, from sandboxed
        pages and files, does not)."""
        parts = urlsplit(origin)
        try:
            parts.port  # noqa: B018 - raises on a bad port
        except ValueError:
            return False
        return (parts.scheme in ("http", "https") and bool(parts.hostname)
                and self.allows(parts.hostname or ""))

    @property
    def origin(self) -> str:
        """``http://host:port`` of the address listened on."""
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def listen(address: tuple[str, int], make: Callable[[], Server]) -> Server:
    """``make()``, the server bound to ``address``, or an InputError when it cannot listen
    there (the port is taken, the address is not this machine's)."""
    try:
        return make()
    except OSError as exc:
        raise InputError(f"cannot listen on {address[0]}:{address[1]} ({exc.strerror})",
                         place="--listen", fix="choose another port (0: any free port)") from None


def serve_until_stopped(server: LocalServer, *, thread_name: str, started: Callable[[], None],
                        ready: threading.Event | None = None,
                        stop: threading.Event | None = None, every: float = 0.2,
                        tick: Callable[[], None] | None = None,
                        last: Callable[[], None] | None = None) -> None:
    """Serve until SIGINT or SIGTERM (or ``stop``), then close ``server``.

    ``started`` says where it listens, then ``ready`` is set; ``tick`` runs every ``every``
    seconds while serving and ``last`` once the server is closed, the signals still caught
    so that a second Ctrl-C cannot cut it short.
    """
    stop = stop or threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, on_signal)
    try:
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                  name=thread_name, daemon=True)
        thread.start()
        started()
        if ready is not None:
            ready.set()
        try:
            while not stop.wait(every):
                if tick is not None:
                    tick()
        finally:
            server.shutdown()
            server.server_close()
            if last is not None:
                last()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
