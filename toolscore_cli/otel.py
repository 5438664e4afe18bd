"""``toolscore otel``: record what an OpenTelemetry-instrumented agent exports, per trace."""

from __future__ import annotations

import click

from toolscore_core.errors import InputError


@click.group("otel")
def otel_group() -> None:
    """Record OpenTelemetry traces (spans and log records) for evaluation."""


@otel_group.command("record")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="The folder to write to: <trace id>.json per trace (OTLP JSON).")
@click.option("--listen", default="127.0.0.1:4318", show_default=True, metavar="HOST:PORT",
              help="Where to receive OTLP/HTTP (port 0: any free port).")
@click.option("--allow-remote", is_flag=True, help="Let --listen bind a non-loopback address.")
@click.option("--allow-host", "hosts", multiple=True, metavar="NAME",
              help="Accept requests whose Host header names NAME as well as the loopback "
                   "names (repeatable).")
@click.option("--max-request-size", type=click.IntRange(min=1), default=16 << 20,
              show_default=True, metavar="BYTES",
              help="Larger requests are refused (413), inflated size included.")
@click.option("--idle", type=click.FloatRange(min=0), default=2.0, show_default=True,
              metavar="SECONDS",
              help="A trace whose root span has arrived is written once nothing new has "
                   "come for it for this long.")
def record_command(output: str, listen: str, allow_remote: bool, hosts: tuple[str, ...],
                   max_request_size: int, idle: float) -> None:
    """Receive OTLP/HTTP (/v1/traces, /v1/logs; protobuf or JSON) and write one OTLP JSON
    file per trace, spans and log records together, until Ctrl-C. Evaluation results sent
    back (eval --otel) go beside their trace, in <trace id>.evaluations.json.

    Point the agent's exporter at it, run the agent, and evaluate the files as they are:

    \b
        toolscore otel record -o traces/ &
        OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 python agent.py
        toolscore eval gold.json traces/<trace id>.json
    """
    from toolscore_cli.options import listen_address

    address = listen_address(listen, allow_remote)
    try:
        from toolscore_otel.recorder import TraceStore, serve
    except ImportError:
        raise InputError("otel record needs opentelemetry-proto, which is not installed",
                         fix="pip install 'toolscore[otel]'") from None
    from toolscore_cli import console

    def say(line: str) -> None:
        console.stderr().print(f"toolscore otel record: {line}", markup=False, soft_wrap=True)

    store = TraceStore(output, idle=idle, say=say)
    serve(store, address, hosts=hosts, max_size=max_request_size)
