"""The Streamable HTTP proxy: a reverse proxy in front of an MCP server's endpoint.

POSTed JSON-RPC messages are recorded (and may be answered here by a fault that does not
forward); the answers, whether a JSON body or a Server-Sent Events stream, are recorded
event by event and planted into; GET streams and DELETE pass through the same way. Every
header but the hop-by-hop ones and ``Accept-Encoding`` is relayed unchanged
(``Mcp-Session-Id``, ``MCP-Protocol-Version``, ``Last-Event-ID``, ``Authorization``,
``Origin``...); ``Host`` is checked here and forwarded as :meth:`ProxyServer.forwarded_host` says.
Requests whose ``Host`` or ``Origin`` names a host not allowed (DNS rebinding), and bodies
that are too large or badly framed, are refused before anything is read or relayed.
Built on the standard library: one thread per client connection, and a shared pool of
kept-alive upstream connections.
"""

from __future__ import annotations

import http.client
import itertools
import queue
import re
import socket
import sys
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from toolscore_core.errors import InputError
from toolscore_core.serving import (
    LocalServer,
    Refused,
    check_allowed_host,
    declared_length,
    host_name,
    is_loopback,
    listen,
    serve_until_stopped,
)
from toolscore_mcp import DEFAULT_MAX_BODY
from toolscore_mcp.relay import Relay, from_client, from_server, upstream_failed
from toolscore_mcp.session import Channel

HOP_BY_HOP = frozenset((
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
    "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length",
))
# Bodies must arrive as plain text to be recorded and planted into.
NOT_FORWARDED = HOP_BY_HOP | {"accept-encoding"}
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)
_CHUNK = 1 << 16
_WORKER_IDLE = 60.0
"""Seconds an idle worker thread waits for another connection before it ends."""
_HEX = re.compile(r"[0-9A-Fa-f]+")


def check_upstream(url: str) -> tuple[str, str, int, str]:
    """Scheme, host, port and path of an upstream URL, or an InputError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"bad upstream URL {url!r}", place="--upstream",
                         fix="give the server's MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise InputError(f"bad port in {url!r}", place="--upstream") from None
    return parts.scheme, parts.hostname, port, parts.path or "/"


class ProxyServer(LocalServer):
    """The listening side; holds what every handler shares."""

    program = "toolscore mcp record"

    def __init__(self, address: tuple[str, int], relay: Relay, upstream: str, *,
                 allowed_hosts: Iterable[str] = (), max_body: int = DEFAULT_MAX_BODY) -> None:
        """``allowed_hosts``: names accepted in ``Host`` and ``Origin`` besides loopback
        names (and the address listened on, when it is one address)."""
        self.relay = relay
        self.upstream = upstream
        self.scheme, self.upstream_host, self.upstream_port, self.mcp_path = check_upstream(
            upstream)
        self.upstream_is_loopback = is_loopback(self.upstream_host.lower())
        listened = address[0].strip("[]").lower()
        self.max_body = max_body
        self.upstream_failure: str | None = None
        """Why the last request could not reach the upstream (None: none failed)."""
        self._idle: list[http.client.HTTPConnection] = []
        self._idle_lock = threading.Lock()
        self.streams = itertools.count(1)
        """Numbers the HTTP requests relayed (``next`` on it is atomic)."""
        self._jobs: queue.SimpleQueue[tuple[socket.socket, Any]] = queue.SimpleQueue()
        self._idle_workers = 0
        self._workers_lock = threading.Lock()
        super().__init__(address, ProxyHandler, allowed_hosts=(
            {check_allowed_host(h) for h in allowed_hosts}
            | ({listened} if listened not in ("", "0.0.0.0", "::") else set())))

    def process_request(self, request: Any, client_address: Any) -> None:
        """Hand the connection to an idle worker thread, or to a new one.

        MCP clients often open a connection per request: starting a thread for each (and
        waiting for it to start) is a good part of the proxy's cost per call.
        """
        with self._workers_lock:
            if self._idle_workers:
                self._idle_workers -= 1
                self._jobs.put((request, client_address))
                return
        threading.Thread(target=self._work, args=(request, client_address),
                         name="mcp-http-proxy-worker", daemon=True).start()

    def _work(self, request: Any, client_address: Any) -> None:
        while True:
            self.process_request_thread(request, client_address)
            with self._workers_lock:
                self._idle_workers += 1
            try:
                request, client_address = self._jobs.get(timeout=_WORKER_IDLE)
            except queue.Empty:
                with self._workers_lock:
                    try:  # a connection handed over as the wait ended
                        request, client_address = self._jobs.get_nowait()
                    except queue.Empty:
                        self._idle_workers -= 1
                        return

    def take_connection(self) -> tuple[http.client.HTTPConnection, bool]:
        """An idle upstream connection (True: it was used before), or a new one.

        Shared by every client connection: MCP clients often open a connection per
        request, and a fresh upstream connection each time would cost a TCP handshake.
        """
        with self._idle_lock:
            if self._idle:
                return self._idle.pop(), True
        return self.new_connection(), False

    def new_connection(self) -> http.client.HTTPConnection:
        """A new connection to the upstream (opened when first used)."""
        cls = (http.client.HTTPSConnection if self.scheme == "https"
               else http.client.HTTPConnection)
        return cls(self.upstream_host, self.upstream_port)

    def return_connection(self, connection: http.client.HTTPConnection) -> None:
        with self._idle_lock:
            self._idle.append(connection)

    def server_close(self) -> None:
        super().server_close()
        with self._idle_lock:
            for connection in self._idle:
                connection.close()
            self._idle.clear()

    def forwarded_host(self, client_name: str) -> str | None:
        """The ``Host`` to send upstream for a client that named ``client_name``.

        A loopback upstream gets the name the client used, with the upstream's port: its
        own DNS-rebinding check (the official SDK allows ``127.0.0.1:*``, ``localhost:*``,
        ``[::1]:*``) then judges the name exactly as it would without the proxy, so a name
        allowed here with ``--allow-host`` is still refused there unless the server allows
        it too. Any other upstream needs its own name (virtual hosts, TLS): None lets
        http.client send it.
        """
        if not self.upstream_is_loopback:
            return None
        shown = f"[{client_name}]" if ":" in client_name else client_name
        return f"{shown}:{self.upstream_port}"

    @property
    def url(self) -> str:
        return f"{self.origin}{self.mcp_path}"


class ProxyHandler(BaseHTTPRequestHandler):
    """One client connection: relays each request to the upstream over its own connection."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: ProxyServer

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the session file is the record; stderr belongs to the client's logs."""

    def do_POST(self) -> None:
        self._proxy()

    def do_GET(self) -> None:
        self._proxy()

    def do_DELETE(self) -> None:
        self._proxy()

    def do_PUT(self) -> None:
        self._proxy()

    def do_PATCH(self) -> None:
        self._proxy()

    def do_OPTIONS(self) -> None:
        self._proxy()

    def do_HEAD(self) -> None:
        self._proxy()

    # ------------------------------------------------------------ request side

    def _checked_host(self) -> str:
        """The host name the client named, once ``Host`` and ``Origin`` are allowed."""
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1:
            raise Refused(400, "one Host header is required")
        name = self.server.host_verdict(hosts[0])
        if name is None:
            name = host_name(hosts[0])
            if name is None:
                raise Refused(400, f"bad Host header {hosts[0][:100]!r}")
            raise Refused(421, f"Host {name!r} is not allowed (loopback names only; "
                                "add a name with --allow-host)")
        for origin in self.headers.get_all("Origin") or []:
            if not self.server.origin_allowed(origin.strip()):
                raise Refused(403, f"Origin {origin[:100]!r} is not allowed (loopback "
                                    "names only; add a name with --allow-host)")
        return name

    def _read_body(self) -> bytes:
        """The request body, or :class:`Refused` (400 badly framed, 413 too large)."""
        limit = self.server.max_body
        encodings = self.headers.get_all("Transfer-Encoding") or []
        lengths = self.headers.get_all("Content-Length") or []
        if encodings:
            if lengths:
                raise Refused(400, "both Transfer-Encoding and Content-Length are given")
            if [e.strip().lower() for e in ",".join(encodings).split(",")] != ["chunked"]:
                raise Refused(400, "only Transfer-Encoding: chunked is accepted")
            return self._read_chunked(limit)
        length = declared_length(self.headers, limit, "--max-body") or 0
        body = self.rfile.read(length) if length else b""
        if len(body) < length:
            raise ConnectionResetError("the client sent less than its Content-Length")
        return body

    def _read_chunked(self, limit: int) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024)
            size_text = line.split(b";")[0].strip()
            if not line.endswith(b"\n") or not _HEX.fullmatch(size_text.decode("latin-1")):
                raise Refused(400, "bad chunk size in a chunked body")
            size = int(size_text, 16)
            if size == 0:
                for _ in range(100):  # trailer fields, then the empty line
                    if not self.rfile.readline(8192).strip():
                        return b"".join(parts)
                raise Refused(400, "too many trailer fields in a chunked body")
            total += size
            if total > limit:
                raise Refused(413, f"the body is larger than {limit} bytes (--max-body)")
            chunk = self.rfile.read(size)
            if len(chunk) < size:
                raise ConnectionResetError("the client sent less than its chunk size")
            parts.append(chunk)
            if self.rfile.readline(8).strip():
                raise Refused(400, "a chunk of a chunked body is longer than its size")

    def _refuse(self, refused: Refused) -> None:
        """Answer with the refusal and close: an unread body must not be taken for a request."""
        # The path is the client's text: control characters are shown, never sent raw.
        path = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in self.path[:200])
        print(f"toolscore mcp record: refused {self.command} {path} "
              f"({refused.status}): {refused.reason}", file=sys.stderr, flush=True)
        self.close_connection = True
        self._send_whole(refused.status, [("Content-Type", "text/plain; charset=utf-8"),
                                          ("Connection", "close")],
                         (refused.reason + "\n").encode())

    def _is_mcp(self) -> bool:
        return urlsplit(self.path).path == self.server.mcp_path

    def _proxy(self) -> None:
        try:
            name = self._checked_host()
            body = self._read_body()
        except Refused as refused:
            self._refuse(refused)
            return
        mcp = self._is_mcp()
        channel = Channel(self.headers.get("Mcp-Session-Id"), next(self.server.streams))
        if mcp and self.command == "POST" and body.strip():
            outcome = from_client(self.server.relay, body, channel)
            if not outcome.forward:
                assert outcome.answer is not None
                self._send_whole(200, [("Content-Type", "application/json")], outcome.answer)
                return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in NOT_FORWARDED}
        host = self.server.forwarded_host(name)
        if host is not None:
            headers["Host"] = host
        if body or self.command in ("POST", "PUT", "PATCH"):
            headers["Content-Length"] = str(len(body))
        try:
            connection, response = self._request(self.command, self.path, body, headers)
        except OSError as exc:
            self.server.upstream_failure = str(exc)
            if mcp:
                upstream_failed(self.server.relay, str(exc), channel)
            message = f"toolscore mcp record: upstream {self.server.upstream} failed: {exc}"
            print(message, file=sys.stderr, flush=True)
            self._send_whole(502, [("Content-Type", "text/plain")], message.encode())
            return
        reusable = False
        try:
            self._relay_response(response, connection, channel if mcp else None)
            reusable = not response.will_close and response.isclosed()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            response.close()
            if reusable:
                self.server.return_connection(connection)
            else:
                connection.close()

    def _request(self, method: str, path: str, body: bytes, headers: dict[str, str]
                 ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        connection, reused = self.server.take_connection()
        try:
            connection.request(method, path, body=body or None, headers=headers)
            return connection, connection.getresponse()
        except _STALE:
            connection.close()
            if not reused:
                raise
        except BaseException:
            connection.close()
            raise
        # A kept-alive connection the upstream had closed: one retry on a new one (not
        # another idle one, which the upstream may have closed as well).
        connection = self.server.new_connection()
        try:
            connection.request(method, path, body=body or None, headers=headers)
            return connection, connection.getresponse()
        except BaseException:
            connection.close()
            raise

    # ------------------------------------------------------------ response side

    def _send_whole(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        """Status, headers and body in one write: one packet for the client to wake up to."""
        head = self._head(status, [*headers, ("Content-Length", str(len(body)))])
        self.wfile.write(head if self.command == "HEAD" else head + body)

    def _head(self, status: int, headers: list[tuple[str, str]]) -> bytes:
        """The status line and the headers, as bytes to send."""
        reason = self.responses.get(status, ("",))[0]
        lines = [f"{self.protocol_version} {status} {reason}\r\n"]
        for key, value in headers:
            lines.append(f"{key}: {value}\r\n")
            if key.lower() == "connection" and value.strip().lower() == "close":
                self.close_connection = True
        lines.append("\r\n")
        return "".join(lines).encode("latin-1", "strict")

    def _response_headers(self, response: http.client.HTTPResponse) -> list[tuple[str, str]]:
        return [(k, v) for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP]

    def _relay_response(self, response: http.client.HTTPResponse,
                        connection: http.client.HTTPConnection, channel: Channel | None
                        ) -> None:
        """Relay the upstream's answer; ``channel`` is None off the MCP endpoint (not recorded)."""
        kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
        if channel is not None and kind == "text/event-stream":
            self._relay_events(response, connection, channel)
        elif channel is not None and kind == "application/json":
            body = response.read()
            replacement = (from_server(self.server.relay, body, channel) if body.strip()
                           else None)
            self._send_whole(response.status, self._response_headers(response),
                             body if replacement is None else replacement)
        elif response.getheader("Content-Length") is not None or self.command == "HEAD" or (
                response.status in (204, 304) or 100 <= response.status < 200):
            self._send_whole(response.status, self._response_headers(response),
                             response.read())
        else:
            out = [self._chunked_head(response)]
            while True:
                if not _upstream_ready(response, connection):
                    self._send(out)
                data = response.read1(_CHUNK)
                if not data:
                    break
                out.append(_chunk(data))
            out.append(_LAST_CHUNK)
            self._send(out)

    def _chunked_head(self, response: http.client.HTTPResponse) -> bytes:
        return self._head(response.status, [*self._response_headers(response),
                                            ("Transfer-Encoding", "chunked")])

    def _send(self, out: list[bytes]) -> None:
        """Send what is waiting in ``out`` in one write, and empty it."""
        if out:
            self.wfile.write(b"".join(out))
            out.clear()

    def _relay_events(self, response: http.client.HTTPResponse,
                      connection: http.client.HTTPConnection, channel: Channel) -> None:
        """Relay a Server-Sent Events stream one whole event at a time.

        Each event is sent as soon as nothing more of the stream has arrived: what came in
        one piece (the headers, a priming event, the answer and the stream's end, as many
        servers send them) goes out in one write, for the client to wake up to once.
        """
        out = [self._chunked_head(response)]
        event: list[bytes] = []
        while True:
            if not event and out and not _upstream_ready(response, connection):
                self._send(out)
            line = response.readline()
            if not line:
                break
            event.append(line)
            if line in (b"\n", b"\r\n"):
                out.append(_chunk(self._planted_event(event, channel)))
                event = []
        if event:
            out.append(_chunk(self._planted_event(event, channel)))
        out.append(_LAST_CHUNK)
        self._send(out)

    def _planted_event(self, lines: list[bytes], channel: Channel) -> bytes:
        data_lines = [line for line in lines if line.startswith(b"data:")]
        event_type = next((line[6:].strip() for line in lines if line.startswith(b"event:")),
                          b"message")
        if not data_lines or event_type != b"message":
            return b"".join(lines)
        payload = b"\n".join(_field_value(line) for line in data_lines)
        if not payload.strip():
            return b"".join(lines)
        replacement = from_server(self.server.relay, payload, channel)
        if replacement is None:
            return b"".join(lines)
        ending = b"\r\n" if lines[-1].endswith(b"\r\n") else b"\n"
        out: list[bytes] = []
        for line in lines:
            if line is data_lines[0]:
                out.append(b"data: " + replacement + ending)
            elif not line.startswith(b"data:"):
                out.append(line)
        return b"".join(out)


_LAST_CHUNK = b"0\r\n\r\n"


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data) if data else b""


def _upstream_ready(response: http.client.HTTPResponse,
                    connection: http.client.HTTPConnection) -> bool:
    """Whether more of the upstream's answer is already here, so reading on will not wait.

    Looks at the response's buffer, filling it from the socket without blocking. A lone
    line ending (the CRLF that closes a chunk) does not count: the next chunk may be far
    off, and what was read must not wait for it.
    """
    sock, buffered = connection.sock, response.fp
    if sock is None or buffered is None:
        return True  # the answer is over: reading on returns at once
    timeout = sock.gettimeout()
    sock.settimeout(0.0)
    try:
        data = buffered.peek(3)
    except OSError:  # TLS says "want read" this way; a real failure shows on the next read
        return False
    finally:
        sock.settimeout(timeout)
    return bool(data.lstrip(b"\r\n"))


def _field_value(line: bytes) -> bytes:
    value = line[5:].rstrip(b"\r\n")
    return value[1:] if value.startswith(b" ") else value


def serve(relay: Relay, upstream: str, address: tuple[str, int], *,
          allowed_hosts: Iterable[str] = (), max_body: int = DEFAULT_MAX_BODY,
          ready: threading.Event | None = None) -> str | None:
    """Listen on ``address`` and relay to ``upstream`` until SIGINT or SIGTERM; the last
    failure to reach the upstream (None: none)."""
    server = listen(address, lambda: ProxyServer(address, relay, upstream,
                                                 allowed_hosts=allowed_hosts,
                                                 max_body=max_body))
    try:  # listening: recording begins (published at the upstream's first message)
        relay.writer.begin()
    except BaseException:
        server.server_close()
        raise

    def started() -> None:
        print(f"toolscore mcp record: listening on {server.url} -> {upstream}",
              file=sys.stderr, flush=True)

    serve_until_stopped(server, thread_name="mcp-http-proxy", started=started, ready=ready)
    return server.upstream_failure
