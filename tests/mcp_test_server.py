"""A real MCP server for the proxy's tests, built with the official SDK (``MCPServer``).

Run over stdio: ``python tests/mcp_test_server.py``; over Streamable HTTP:
``python tests/mcp_test_server.py --http PORT [--json]`` (``--json``: JSON responses, not SSE).
"""

from __future__ import annotations

import argparse
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("toolscore-test-server", log_level="WARNING")
sent: list[dict[str, str]] = []


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def fetch_page(url: str) -> str:
    """Fetch a web page (canned text; this server never touches the network)."""
    return f"Welcome to {url}. Today's special: cheap flights to Lisbon."


@server.tool()
def send_email(to: str, subject: str, body: str = "") -> str:
    """Send an email (recorded in memory only)."""
    sent.append({"to": to, "subject": subject, "body": body})
    return f"sent to {to}"


@server.tool()
def deploy(service: str, version: str = "latest") -> str:
    """Deploy a service."""
    return f"deployed {service}@{version}"


@server.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, logging each step to the client (notifications before the answer)."""
    for i in range(1, n + 1):
        await ctx.info(f"step {i} of {n}")
    return f"counted to {n}"


@server.tool()
async def wait_echo(text: str, seconds: float) -> str:
    """Answer ``text`` after ``seconds`` (lets a test hold one call while others finish)."""
    await anyio.sleep(seconds)
    return text


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason (a real tool error from the server)."""
    raise ToolError(reason)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    parser.add_argument("--json", action="store_true", help="JSON responses instead of SSE")
    options = parser.parse_args(argv)
    print("test server starting", file=sys.stderr, flush=True)
    if options.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=options.http,
                   json_response=options.json)
    else:
        server.run()


if __name__ == "__main__":
    main(sys.argv[1:])
