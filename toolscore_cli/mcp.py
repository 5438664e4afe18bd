"""``toolscore mcp``: record a real MCP session through a proxy, planting faults and injections."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolscore_cli.paths import FILE, refuse_outputs_over_inputs
from toolscore_core.errors import InputError

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


def _listen_address(listen: str, allow_remote: bool) -> tuple[str, int]:
    import ipaddress

    host, sep, port_text = listen.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise InputError(f"bad address {listen!r}", place="--listen",
                         fix="give HOST:PORT, e.g. 127.0.0.1:8808 (port 0: any free port)")
    loopback = host == "localhost"
    if not loopback:
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
    if not loopback and not allow_remote:
        raise InputError(f"{host} is not a loopback address", place="--listen",
                         fix="listen on 127.0.0.1, or pass --allow-remote to accept other hosts")
    return host, int(port_text)


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
@click.argument("server_command", nargs=-1, type=click.UNPROCESSED,
                metavar="[-- SERVER_CMD ARGS...]")
def record_command(
    output: str, injected: str | None, faults: tuple[str, ...], prompts: tuple[str, ...],
    plan_file: str | None, upstream: str | None, listen: str, allow_remote: bool,
    server_command: tuple[str, ...],
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
    plan = _plan(faults, prompts, plan_file)
    address = _listen_address(listen, allow_remote) if upstream is not None else None

    from toolscore_mcp.relay import Relay
    from toolscore_mcp.session import InjectedLog, SessionWriter

    injected_path = _injected_path(output, injected, plan)
    refuse_outputs_over_inputs([("-o", output), ("--injected", injected_path)],
                               [("plan", plan_file)])
    refuse_outputs_over_inputs([("--injected", injected_path)], [("session file", output)])
    if upstream is not None:
        from toolscore_mcp.http_proxy import check_upstream

        check_upstream(upstream)
    log = None if injected_path is None else InjectedLog(injected_path)
    writer = SessionWriter(output, transport="stdio" if upstream is None else "http",
                           server=upstream if upstream is not None else server_command,
                           on_open=None if log is None else log.write)
    relay = Relay(writer, _planter(plan, log))
    if upstream is not None:
        assert address is not None
        _record_http(relay, upstream, address, log)
        return
    _record_stdio(relay, server_command, log)


def _record_stdio(relay: Relay, command: tuple[str, ...], log: InjectedLog | None) -> None:
    from toolscore_mcp.stdio_proxy import StdioProxy

    proxy = StdioProxy(command, relay)
    try:
        code = proxy.run()
    except InputError:
        relay.writer.close(None)
        raise
    relay.writer.close(code)
    if log is not None:
        log.write()
    sys.stdout.flush()
    sys.stderr.flush()
    if code < 0:
        # The server died of a signal: die of the same one, as a shell would see it.
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    # os._exit: the client-side pump may still block on our stdin, which must not hold
    # the interpreter's shutdown.
    os._exit(code)


def _record_http(relay: Relay, upstream: str, address: tuple[str, int],
                 log: InjectedLog | None) -> None:
    from toolscore_mcp.http_proxy import serve

    try:
        serve(relay, upstream, address)
    finally:
        relay.writer.close(None)
        if log is not None and relay.writer.started:
            log.write()
