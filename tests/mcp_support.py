"""Helpers for the MCP proxy tests: real servers, the real proxy, the official SDK client."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

TESTS = Path(__file__).resolve().parent
SERVER_SCRIPT = TESTS / "mcp_test_server.py"
PYTHON = sys.executable
TOOLSCORE = [PYTHON, "-m", "toolscore_cli"]
SERVER_COMMAND = [PYTHON, str(SERVER_SCRIPT)]
ECHO_COMMAND = [PYTHON, "-c", (
    "import sys\n"
    "for line in sys.stdin.buffer:\n"
    "    sys.stdout.buffer.write(line); sys.stdout.buffer.flush()\n"
)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, *, process: subprocess.Popen[Any] | None = None,
                  timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def stop(process: subprocess.Popen[Any], sig: int = signal.SIGTERM) -> int:
    """Stop a process we started (by its pid) and reap it."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(sig)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
    return process.returncode


@contextlib.contextmanager
def http_server(*, json_response: bool = False) -> Iterator[str]:
    """The test server over Streamable HTTP (uvicorn) on a free loopback port; its URL."""
    port = free_port()
    command = [*SERVER_COMMAND, "--http", str(port)] + (["--json"] if json_response else [])
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process=process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


@contextlib.contextmanager
def http_proxy(upstream: str, session: Path, *extra: str, stderr: list[str] | None = None,
               code: int = 0) -> Iterator[str]:
    """``toolscore mcp record --upstream`` as a real process; the proxy's URL. What it
    printed on stderr is added to ``stderr`` once it has stopped with exit ``code``."""
    port = free_port()
    command = [*TOOLSCORE, "mcp", "record", "-o", str(session), *extra,
               "--upstream", upstream, "--listen", f"127.0.0.1:{port}"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(port, process=process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        ended = stop(process, signal.SIGINT)
        printed = process.stderr.read() if process.stderr else ""
        if stderr is not None:
            stderr.append(printed)
        assert ended == code, printed


def raw_http(url: str, head: str, body: bytes = b"") -> tuple[int, bytes]:
    """Send one hand-written HTTP request (``head``: request line and headers, without the
    blank line) and read the answer's status and body: for requests http.client won't make."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname or "", parts.port or 80), 10) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n\r\n" + body)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, response.read()


def record_command(session: Path, *extra: str, server: Sequence[str] = SERVER_COMMAND
                   ) -> list[str]:
    """The stdio proxy's command line, to start where the server would be started."""
    return [*TOOLSCORE, "mcp", "record", "-o", str(session), *extra, "--", *server]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every whole line of a JSON Lines file (a torn last line is left out, as readers do)."""
    rows = []
    for line in path.read_bytes().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return rows


def messages(rows: list[dict[str, Any]], direction: str) -> list[dict[str, Any]]:
    return [r for r in rows if r.get("kind") == "message" and r["direction"] == direction]


def tool_calls(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each tools/call with its response, duration and planted tags, from session rows."""
    responses = {json.dumps(r["message"].get("id")): r for r in messages(rows, "server_to_client")
                 if "method" not in r["message"]}
    calls = []
    for row in messages(rows, "client_to_server"):
        message = row["message"]
        if message.get("method") != "tools/call":
            continue
        response = responses.get(json.dumps(message["id"]))
        calls.append({
            "id": message["id"], "tool": message["params"]["name"],
            "args": message["params"].get("arguments"), "request": row, "response": response,
            "duration": None if response is None else response["monotonic"] - row["monotonic"],
        })
    return calls


class RawSession:
    """Drives an MCP stdio server (or the proxy) with raw JSON-RPC lines."""

    def __init__(self, command: Sequence[str], **popen: Any) -> None:
        self.process = subprocess.Popen(list(command), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, **popen)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line)
        self.process.stdin.flush()

    def receive(self) -> bytes:
        assert self.process.stdout is not None
        return self.process.stdout.readline()

    def request(self, line: bytes) -> bytes:
        self.send(line)
        return self.receive()

    def close(self, timeout: float = 10) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()


def rpc(request_id: int | str | None, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


INITIALIZE = rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "raw-test", "version": "1"}})
INITIALIZED = rpc(None, "notifications/initialized")


def call(request_id: int | str, tool: str, **arguments: Any) -> bytes:
    return rpc(request_id, "tools/call", {"name": tool, "arguments": arguments})


def environment() -> dict[str, str]:
    """The environment for subprocesses: this interpreter's packages, unbuffered."""
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


async def _sdk_calls(transport: Any, calls: Sequence[tuple[str, dict[str, Any]]],
                     logs: list[Any] | None = None) -> list[dict[str, Any]]:
    from mcp import ClientSession, MCPError

    async def on_log(params: Any) -> None:
        if logs is not None:
            logs.append(params.model_dump(mode="json", by_alias=True, exclude_unset=True))

    results: list[dict[str, Any]] = []
    async with transport as (read, write), ClientSession(read, write,
                                                         logging_callback=on_log) as session:
        await session.initialize()
        await session.list_tools()
        for tool, arguments in calls:
            try:
                result = await session.call_tool(tool, arguments)
            except MCPError as exc:
                results.append({"jsonrpc_error": {"code": exc.code, "message": exc.message}})
                continue
            results.append(result.model_dump(mode="json", by_alias=True, exclude_unset=True))
    return results


def sdk_stdio(command: Sequence[str], calls: Sequence[tuple[str, dict[str, Any]]],
              logs: list[Any] | None = None) -> list[dict[str, Any]]:
    """Run ``calls`` with the official SDK client over stdio against ``command``."""
    import anyio
    from mcp import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command[0], args=list(command[1:]),
                                   env=environment())
    with open(os.devnull, "w") as errlog:
        return anyio.run(_sdk_calls, stdio_client(params, errlog=errlog), calls, logs)


def sdk_http(url: str, calls: Sequence[tuple[str, dict[str, Any]]],
             logs: list[Any] | None = None) -> list[dict[str, Any]]:
    """Run ``calls`` with the official SDK client over Streamable HTTP against ``url``."""
    import anyio
    from mcp.client.streamable_http import streamable_http_client

    return anyio.run(_sdk_calls, streamable_http_client(url), calls, logs)
