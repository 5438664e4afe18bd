"""Latency the recording proxy adds per tools/call, against a direct session, in one run.

    python bench/bench_mcp_proxy.py [--calls 300] [--transport stdio|http|both]
        [--everything PATH]

Starts the test MCP server (tests/mcp_test_server.py, the official SDK's MCPServer) twice,
once directly and once behind ``toolscore mcp record``, opens an SDK ClientSession on
each, warms both up, then alternates ``tools/call add`` round trips between them (so
drift on the machine hits both alike) and prints the median and p95 per call and the
median difference. The target is a median overhead of at most 1 ms on loopback.

``--everything PATH`` also measures over Streamable HTTP against the reference server
``@modelcontextprotocol/server-everything`` (its ``echo`` tool), one server process
reached directly and through the proxy: ``PATH`` is the installed package's folder
(``npm install @modelcontextprotocol/server-everything`` puts it in
``node_modules/@modelcontextprotocol/server-everything``); it needs ``node``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, str(ROOT / "tests" / "mcp_test_server.py")]
RECORD = [sys.executable, "-m", "toolscore_cli", "mcp", "record"]
WARMUP = 30


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {port}")


@asynccontextmanager
async def session_on(transport: AbstractAsyncContextManager[Any]) -> AsyncIterator[ClientSession]:
    async with transport as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        yield session


def stdio(command: list[str]) -> AbstractAsyncContextManager[Any]:
    return stdio_client(StdioServerParameters(command=command[0], args=command[1:]))


Call = tuple[str, Any]
"""A tool and a function of the call's number giving its arguments."""
ADD: Call = ("add", lambda i: {"a": i, "b": 1})
ECHO: Call = ("echo", lambda i: {"message": f"call {i}"})


async def timed(session: ClientSession, i: int, tool: Call) -> float:
    name, arguments = tool
    start = time.perf_counter()
    result = await session.call_tool(name, arguments(i))
    elapsed = time.perf_counter() - start
    assert not result.is_error
    return elapsed


async def compare(direct: AbstractAsyncContextManager[Any],
                  proxied: AbstractAsyncContextManager[Any], calls: int, tool: Call = ADD
                  ) -> tuple[list[float], list[float]]:
    async with session_on(direct) as d, session_on(proxied) as p:
        for i in range(WARMUP):
            await timed(d, i, tool)
            await timed(p, i, tool)
        direct_times: list[float] = []
        proxy_times: list[float] = []
        for i in range(calls):
            # Alternate which goes first so neither always follows the other.
            if i % 2:
                direct_times.append(await timed(d, i, tool))
                proxy_times.append(await timed(p, i, tool))
            else:
                proxy_times.append(await timed(p, i, tool))
                direct_times.append(await timed(d, i, tool))
    return direct_times, proxy_times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def report(label: str, direct: list[float], proxy: list[float]) -> float:
    ms = 1000
    d_med, p_med = statistics.median(direct) * ms, statistics.median(proxy) * ms
    diffs = [(p - d) * ms for p, d in zip(proxy, direct, strict=True)]
    overhead = statistics.median(diffs)
    print(f"{label}: {len(direct)} tools/call round trips each")
    print(f"  direct  median {d_med:7.3f} ms   p95 {p95(direct) * ms:7.3f} ms")
    print(f"  proxied median {p_med:7.3f} ms   p95 {p95(proxy) * ms:7.3f} ms")
    print(f"  median difference (proxied - direct, paired): {overhead:+.3f} ms   "
          f"difference of medians: {p_med - d_med:+.3f} ms   ratio {p_med / d_med:.2f}x")
    verdict = "within" if overhead <= 1.0 else "OVER"
    print(f"  {verdict} the 1 ms target")
    return overhead


def run_stdio(calls: int, folder: Path) -> float:
    proxied = [*RECORD, "-o", str(folder / "stdio.session.json"), "--", *SERVER]
    direct_times, proxy_times = anyio.run(compare, stdio(SERVER), stdio(proxied), calls)
    return report("stdio", direct_times, proxy_times)


def run_http(calls: int, folder: Path, everything: Path | None = None) -> float:
    server_port, proxy_port = free_port(), free_port()
    if everything is None:
        command, env, tool = [*SERVER, "--http", str(server_port)], None, ADD
        label = "streamable http (SSE responses), test server"
    else:
        command = ["node", str(everything / "dist" / "index.js"), "streamableHttp"]
        env, tool = {**os.environ, "PORT": str(server_port)}, ECHO
        label = "streamable http (SSE responses), reference server-everything"
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    proxy = None
    try:
        wait_for_port(server_port)
        upstream = f"http://127.0.0.1:{server_port}/mcp"
        proxy = subprocess.Popen([*RECORD, "-o", str(folder / "http.session.json"),
                                  "--upstream", upstream, "--listen",
                                  f"127.0.0.1:{proxy_port}"], stderr=subprocess.DEVNULL)
        wait_for_port(proxy_port)
        direct_times, proxy_times = anyio.run(
            compare, streamable_http_client(upstream),
            streamable_http_client(f"http://127.0.0.1:{proxy_port}/mcp"), calls, tool)
    finally:
        for process in (proxy, server):
            if process is not None:
                process.terminate()
                process.wait(10)
    return report(label, direct_times, proxy_times)


def relay_cost(folder: Path, messages: int = 20_000) -> None:
    """CPU time of recording one request and its response, without any process hop."""
    from toolscore_mcp.relay import Relay
    from toolscore_mcp.session import SessionWriter

    writer = SessionWriter(folder / "cpu.session.json", transport="stdio", server=["x"])
    writer.open()
    relay = Relay(writer)
    request = (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add",'
               b'"arguments":{"a":1,"b":2}}}\n')
    response = (b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}],'
                b'"structuredContent":{"result":3},"isError":false}}\n')
    start = time.perf_counter()
    for _ in range(messages // 2):
        relay.client_message(request)
        relay.server_message(response)
    per_message = (time.perf_counter() - start) / messages * 1e6
    relay.writer.close(0)
    print(f"relay CPU cost: {per_message:.1f} us per message recorded "
          f"({messages} messages, in process)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--transport", choices=("stdio", "http", "both"), default="both")
    parser.add_argument("--everything", type=Path, metavar="PATH",
                        help="the installed @modelcontextprotocol/server-everything package")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        relay_cost(Path(folder))
        if options.transport in ("stdio", "both"):
            run_stdio(options.calls, Path(folder))
        if options.transport in ("http", "both"):
            run_http(options.calls, Path(folder))
            if options.everything is not None:
                run_http(options.calls, Path(folder), options.everything)


if __name__ == "__main__":
    main()
