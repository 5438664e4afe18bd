"""Serving on loopback: the Host and Origin check, the Content-Length read, the stop loop."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from email.message import Message
from http.server import BaseHTTPRequestHandler

import pytest

from toolscore_core.errors import InputError
from toolscore_core.serving import (
    LocalServer,
    Refused,
    declared_length,
    listen,
    serve_until_stopped,
)


class _Hello(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"hi")


def _headers(*lengths: str) -> Message:
    message = Message()
    for value in lengths:
        message["Content-Length"] = value
    return message


def test_a_declared_length_is_one_plain_number_within_the_limit() -> None:
    assert declared_length(_headers(), 10, "--max-body") is None
    assert declared_length(_headers("7", " 7 "), 10, "--max-body") == 7
    for values, status in ((("-5",), 400), (("0x10",), 400), (("",), 400), (("3", "4"), 400),
                           (("11",), 413)):
        with pytest.raises(Refused) as refused:
            declared_length(_headers(*values), 10, "--max-size")
        assert refused.value.status == status
    assert refused.value.reason == "the body (11 bytes) is larger than 10 bytes (--max-size)"


def test_hosts_and_origins_are_loopback_names_or_allowed_ones() -> None:
    server = LocalServer(("127.0.0.1", 0), _Hello, allowed_hosts={"mcp.internal"})
    try:
        for host in ("localhost:8000", "127.0.0.2", "[::1]:80", "MCP.internal:1"):
            assert server.host_verdict(host) is not None, host
        for host in ("evil.example", "localhost:99999", "local host", "", "[::1"):
            assert server.host_verdict(host) is None, host
        assert server.origin_allowed("http://localhost:3000")
        assert server.origin_allowed("https://mcp.internal")
        for origin in ("null", "file://localhost", "http://evil.example", "http://localhost:x"):
            assert not server.origin_allowed(origin), origin
        assert server.origin == f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.server_close()


def test_a_taken_port_is_one_line_naming_listen() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = ("127.0.0.1", taken.getsockname()[1])
        with pytest.raises(InputError) as error:
            listen(address, lambda: LocalServer(address, _Hello))
    assert error.value.place == "--listen"
    assert str(error.value).startswith(f"--listen: cannot listen on 127.0.0.1:{address[1]} (")


def test_it_serves_until_stopped_and_then_runs_the_last_step() -> None:
    server = LocalServer(("127.0.0.1", 0), _Hello)
    ready, stop = threading.Event(), threading.Event()
    steps: list[str] = []

    def last() -> None:
        steps.append("last")
        # the server is closed by then: nothing new comes in during the last step
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=1)

    thread = threading.Thread(target=serve_until_stopped, args=(server,), kwargs={
        "thread_name": "test", "started": lambda: steps.append("started"), "ready": ready,
        "stop": stop, "every": 0.01, "tick": lambda: steps.append("tick"), "last": last})
    thread.start()
    assert ready.wait(5)
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=5)
    connection.request("GET", "/")
    assert connection.getresponse().read() == b"hi"
    connection.close()
    deadline = time.monotonic() + 5
    while "tick" not in steps and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    thread.join(5)
    assert not thread.is_alive()
    assert steps[0] == "started" and steps[-1] == "last" and "tick" in steps[1:-1]

