"""``toolscore mcp``: record a real MCP session through a proxy, planting faults and injections."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolscore_cli.options import listen_address
from toolscore_cli.paths import FILE, refuse_outputs_over_inputs
from toolscore_core.errors import InputError
from toolscore_mcp import DEFAULT_MAX_BODY

if TYPE_CHECKING:
    from toolscore_mcp.planting import Plan, Planter
    from toolscore_mcp.relay import Relay
    from toolscore_mcp.session import InjectedLog


@click.group("mcp")
def mcp_group() -> None:
    """Record what an agent does against a real MCP server."""


def _plan(faults: tuple[str, ...], prompts: tuple[str, ...], plan_file: str | None) -> Plan:
    from toolscore_mcp.planting import (
        Plan,
        load_plan_file,
        parse_fault_spec,
        parse_injection_spec,
    )

    plan = Plan(tuple(parse_fault_spec(s) for s in faults),
                tuple(parse_injection_spec(s) for s in prompts))
    if plan_file is not None:
        plan = plan + load_plan_file(plan_file)
    return plan


def _injected_path(output: str, injected: str | None, plan: Plan) -> str | None:
    if injected is not None:
        return injected
    if not plan:
        return None
    # Something is planted: say so next to the session, so the evidence is never lost.
    path = Path(output)
    return str(path.with_name(f"{path.stem}.injected.json"))


def _planter(plan: Plan, log: InjectedLog | None) -> Planter | None:
    from toolscore_mcp.planting import Planter

    if not plan:
        return None
    return Planter(plan=plan, on_planted=None if log is None else log.add)


@mcp_group.command("record", context_settings={"allow_interspersed_args": False})
@click.option("-o", "--output", required=True, type=FILE,
              help="The session file to write (JSON Lines, appended as messages pass).")
@click.option("--injected", "injected", type=FILE,
              help="Where to write what was planted (default with a plan: "
                   "<output stem>.injected.json).")
@click.option("--inject-fault", "faults", multiple=True, metavar="SPEC",
              help="tool=NAME[,nth=N][,error=TEXT][,mode=tool_error|jsonrpc_error][,code=N]"
                   "[,forward=true|false] (repeatable).")
@click.option("--inject-prompt", "prompts", multiple=True, metavar="SPEC",
              help="tool=NAME,text=INSTRUCTION[,nth=N][,target=TOOL][,target_args=JSON] "
                   "(repeatable).")
@click.option("--inject-file", "plan_file", type=FILE,
              help="A plan with many faults and injections (YAML or JSON).")
@click.option("--upstream", metavar="URL",
              help="Record from a Streamable HTTP server at URL instead of a command.")
@click.option("--listen", default="127.0.0.1:0", show_default=True, metavar="HOST:PORT",
              help="Where the HTTP proxy listens (with --upstream; port 0: any free port).")
@click.option("--allow-remote", is_flag=True,
              help="Let --listen bind a non-loopback address.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Accept requests whose Host or Origin names NAME (besides loopback names "
                   "and the --listen address; repeatable).")
@click.option("--max-body", type=int, metavar="BYTES",
              help="The largest request body the HTTP proxy relays; larger ones get 413 "
                   f"(default {DEFAULT_MAX_BODY}).")
@click.argument("server_command", nargs=-1, type=click.UNPROCESSED,
                metavar="[-- SERVER_CMD ARGS...]")
def record_command(
    output: str, injected: str | None, faults: tuple[str, ...], prompts: tuple[str, ...],
    plan_file: str | None, upstream: str | None, listen: str, allow_remote: bool,
    allow_hosts: tuple[str, ...], max_body: int | None, server_command: tuple[str, ...],
) -> None:
    """Relay an MCP session unchanged (but for what a plan plants) and record every message.

    Put it where the MCP client starts the server:

    \b
        toolscore mcp record -o session.json -- python server.py
        toolscore mcp record -o session.json --upstream http://127.0.0.1:8000/mcp \\
            --listen 127.0.0.1:8808
    """
    if upstream is None and not server_command:
        raise InputError("no server to record", place="SERVER_CMD",
                         fix="give the server's command after --, or --upstream URL")
    if upstream is not None and server_command:
        raise InputError("both a server command and --upstream are given", place="--upstream",
                         fix="record either a stdio server (-- CMD) or an HTTP one (--upstream)")
    if max_body is not None and max_body < 1:
        raise InputError(f"{max_body} is not a size", place="--max-body",
                         fix="give the largest body to relay in bytes, e.g. 8388608")
    if upstream is None and (allow_hosts or max_body is not None):
        raise InputError("only the HTTP proxy checks hosts and body sizes",
                         place="--allow-host" if allow_hosts else "--max-body",
                         fix="use it with --upstream, or leave it out")
    plan = _plan(faults, prompts, plan_file)
    address = listen_address(listen, allow_remote) if upstream is not None else None

    from toolscore_mcp.relay import Relay
    from toolscore_mcp.session import InjectedLog, SessionWriter

    injected_path = _injected_path(output, injected, plan)
    refuse_outputs_over_inputs([("-o", output), ("--injected", injected_path)],
                               [("plan", plan_file)])
    refuse_outputs_over_inputs([("--injected", injected_path)], [("session file", output)])
    if upstream is not None:
        from toolscore_mcp.http_proxy import check_allowed_host, check_upstream

        check_upstream(upstream)
        for name in allow_hosts:
            check_allowed_host(name)
    log = None if injected_path is None else InjectedLog(injected_path)
    writer = SessionWriter(output, transport="stdio" if upstream is None else "http",
                           server=upstream if upstream is not None else server_command,
                           on_open=None if log is None else log.start)
    relay = Relay(writer, _planter(plan, log))
    if upstream is not None:
        assert address is not None
        _record_http(relay, upstream, address, log, allow_hosts,
                     DEFAULT_MAX_BODY if max_body is None else max_body)
        return
    _record_stdio(relay, server_command, log)


def _record_stdio(relay: Relay, command: tuple[str, ...], log: InjectedLog | None) -> None:
    from toolscore_cli.console import error_line
    from toolscore_mcp.stdio_proxy import StdioProxy

    proxy = StdioProxy(command, relay)
    try:
        code = proxy.run()
    except InputError:
        relay.writer.close(None)
        raise
    recorded = relay.writer.close(code)
    if log is not None and recorded:
        log.write()
    sys.stdout.flush()
    if not recorded:
        # Printed here, not raised: the client-side pump may still block on our stdin,
        # which must not hold the interpreter's shutdown (hence os._exit below too).
        print(error_line(InputError(
            f"the server {_how_it_ended(code)} before it sent anything: no session was "
            "recorded", place="SERVER_CMD",
            fix="run the server's command on its own to see why it stops")),
            file=sys.stderr, flush=True)
        os._exit(2)
    sys.stderr.flush()
    if code < 0:
        _die_of(-code)
    os._exit(code)


def _how_it_ended(code: int) -> str:
    if code >= 0:
        return f"exited with code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"was killed by {name}"


def _die_of(signum: int) -> None:
    """End as the server ended: killed by the same signal (a shell shows 128+N: 137 for
    SIGKILL, which cannot be caught or reset, so it is sent as it is)."""
    with contextlib.suppress(OSError, ValueError):
        signal.signal(signum, signal.SIG_DFL)
    with contextlib.suppress(OSError, ValueError):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)
    # Reached only for a signal whose default action does not end a process.
    os._exit(128 + signum)


def _record_http(relay: Relay, upstream: str, address: tuple[str, int],
                 log: InjectedLog | None, allow_hosts: tuple[str, ...], max_body: int) -> None:
    from toolscore_mcp.http_proxy import serve

    try:
        failure = serve(relay, upstream, address, allowed_hosts=allow_hosts, max_body=max_body)
    except BaseException:
        relay.writer.close(None)
        raise
    if not relay.writer.close(None):
        why = "" if failure is None else f" (it could not be reached: {failure})"
        raise InputError(f"the upstream sent no MCP message through the proxy{why}; no "
                         "session was recorded",
                         place="--upstream",
                         fix="start the server first, and point the MCP client at the "
                             "address the proxy prints")
    if log is not None:
        log.write()
