"""Options and parsers several commands share."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import click

from toolscore_cli.paths import FILE
from toolscore_core.errors import InputError
from toolscore_core.scoring import GRADES
from toolscore_core.wording import count


def weights_from(values: Sequence[str]) -> dict[str, float] | None:
    """``--weight NAME=VALUE`` options as a mapping (None when none were given)."""
    if not values:
        return None
    return dict(parse_weight(v) for v in values)


def parse_weight(text: str) -> tuple[str, float]:
    """``NAME=VALUE`` from the command line."""
    name, sep, value = text.partition("=")
    name = name.strip()
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not sep or not name or not math.isfinite(number):
        raise InputError(f"bad weight {text!r}", place="--weight",
                         fix="write NAME=VALUE, e.g. --weight required_call_recall=0.3")
    return name, number


def parse_fail_under(text: str) -> float:
    """A score threshold: ``0.85``, ``85%`` or a grade letter (``B`` = 0.8)."""
    value = text.strip()
    letters = dict(GRADES)
    if value.upper() in letters:
        return letters[value.upper()]
    try:
        number = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        number = -1.0
    if not 0.0 <= number <= 1.0:
        raise InputError(f"bad threshold {text!r}", place="--fail-under",
                         fix="give a score 0..1, a percentage like 85%, or a grade A-D")
    return number


def parse_rate(text: str) -> float:
    """A pass-rate threshold: ``0.8`` or ``80%`` (a grade is for scores, not rates)."""
    if text.strip().upper() in dict(GRADES):
        raise InputError(f"bad threshold {text!r}: a grade is not a pass rate",
                         place="--fail-under", fix="give a rate 0..1 or a percentage like 80%")
    return parse_fail_under(text)


def parse_study_gate(text: str) -> tuple[int | None, float]:
    """A study's ``--fail-under``: ``RATE`` on the pass rate of all runs (``0.8``, ``80%``),
    or ``pass^K=VALUE`` on the study's pass^K; returned as (K or None, threshold)."""
    head, sep, value = text.partition("=")
    if not sep:
        return None, parse_rate(text)
    digits = head.strip().removeprefix("pass^")
    if not head.strip().startswith("pass^") or not digits.isdigit() or int(digits) < 1:
        raise InputError(f"bad threshold {text!r}", place="--fail-under",
                         fix="give a pass rate (0.8 or 80%) or pass^K=VALUE with K at least 1, "
                         "e.g. pass^3=0.8")
    return int(digits), parse_rate(value)


def gate_ks(fail_under: str | None) -> list[int]:
    """The k a ``--fail-under pass^K=...`` gate reads (so the summary computes it)."""
    if fail_under is None:
        return []
    k, _ = parse_study_gate(fail_under)
    return [] if k is None else [k]


def study_below(total: Mapping[str, Any], fail_under: str) -> str | None:
    """Why a study fails ``--fail-under`` (one line), or None when it does not.

    ``total`` is a summary's ``total``. A study with no run has no pass rate, and a pass^k
    some task has too few runs for is unknown: unknown is not a pass.
    """
    k, threshold = parse_study_gate(fail_under)
    runs = total.get("runs") or 0
    if k is not None:
        value = (total.get("pass_hat_k") or {}).get(str(k))
        if value is None:
            why = "no runs" if not runs else f"a task has fewer than {count(k, 'run')}"
            return (f"{why}, so pass^{k} of the study is unknown: not over --fail-under "
                    f"{fail_under}")
        if value < threshold:
            return (f"pass^{k} {value:.3f} (the mean over tasks of C(c,{k})/C(n,{k})) is "
                    f"below --fail-under {fail_under}")
        return None
    rate = total.get("pass_rate")
    if rate is None:
        return f"no runs, so the pass rate is unknown: not over --fail-under {fail_under}"
    if rate < threshold:
        return (f"pass rate {rate:.1%} ({total.get('passed')} of {count(runs, 'run')}) is below "
                f"--fail-under {fail_under}")
    return None


class Seconds(click.ParamType):
    """A duration in seconds: a finite number above 0 (NaN or an infinity would silently
    disable the limit it sets). Anything else is the one-line bad-input error."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not (math.isfinite(number) and number > 0):
            flag = param.opts[0] if param is not None and param.opts else None
            raise InputError(f"{value!r} is not a finite number of seconds above 0",
                             place=flag, fix="give a number of seconds, e.g. 30")
        return number


SECONDS = Seconds()

F = TypeVar("F", bound=Callable[..., Any])


def weight_option(command: F) -> F:
    """``--weight NAME=VALUE`` (repeatable)."""
    return click.option(
        "--weight", "weights", multiple=True, metavar="NAME=VALUE",
        help="Override a metric's weight (repeatable); weights are renormalized to sum 1.",
    )(command)


def format_option(command: F) -> F:
    """``--format ID`` (default ``auto``)."""
    return click.option(
        "--format", "trace_format", default="auto", show_default=True, metavar="ID",
        help="Trace format id (see `toolscore formats`), or auto to decide by content.",
    )(command)


def final_answer_text(value: str | None) -> str | None:
    """``--final-answer TEXT`` or ``@FILE`` (UTF-8) as the answer's text."""
    if value is None or not value.startswith("@"):
        return value
    from toolscore_core.documents import read_bytes

    path = value[1:]
    try:
        return read_bytes(path, what="final answer file").decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=path, fix="save the file as UTF-8") from None


def sign_option(needs: str) -> Callable[[F], F]:
    """``--sign KEYFILE``: sign each receipt written (``needs`` names the flag that writes
    them) in a DSSE envelope beside it."""
    return click.option(
        "--sign", "sign_key", type=FILE, metavar="KEYFILE",
        help=f"Sign each receipt ({needs}) with this Ed25519 private key (`toolscore keygen`):"
             " a DSSE envelope holding an in-toto statement, written beside it.")


def check_sign_key(sign_key: str | None, writes: object, needs: str) -> None:
    """A signing key is usable, and receipts are written to sign, before any work."""
    if sign_key is None:
        return
    if not writes:
        raise InputError(f"--sign needs {needs}", place="--sign",
                         fix=f"add {needs}, or leave --sign out")
    from toolscore_core.signing import load_private_key

    load_private_key(sign_key)


def final_answer_option(command: F) -> F:
    """``--final-answer TEXT|@FILE``, the answer a receipt was made with."""
    return click.option(
        "--final-answer", metavar="TEXT|@FILE",
        help="The final answer the receipt was made with (its hash is checked).",
    )(command)


def judge_options(command: F) -> F:
    """``--judge MODEL`` and how to reach it: ``--judge-base-url``, ``--judgments``,
    ``--judge-timeout``, ``--judge-retries``."""
    from toolscore_cli.paths import FILE

    return _judge_client_options(click.option(
        "--judgments", "judgments_path", type=FILE,
        help="The judgments file the verdicts are read from and added to "
             "(default: beside the receipt).")(command))


def run_judge_options(purpose: str) -> Callable[[F], F]:
    """``--judge MODEL`` and how to reach it, for runs files: their rows hold the judgments
    (``purpose`` says what the judge is asked)."""
    return lambda command: _judge_client_options(command, purpose=purpose)


def _judge_client_options(command: F, *,
                          purpose: str = "Ask this LLM what the rules leave unknown") -> F:
    for option in reversed((
        click.option("--judge", "judge_model", metavar="MODEL",
                     help=f"{purpose} (see docs/judge.md; key in TOOLSCORE_JUDGE_API_KEY)."),
        click.option("--judge-base-url", metavar="URL",
                     help="An OpenAI-compatible endpoint (Ollama, vLLM, LM Studio); "
                          "default: TOOLSCORE_JUDGE_BASE_URL, else OpenAI."),
        click.option("--judge-timeout", type=SECONDS,
                     default=60.0, show_default=True, metavar="SECONDS",
                     help="How long one request to the judge may take."),
        click.option("--judge-retries", type=click.IntRange(min=0), default=2,
                     show_default=True, help="Retries (with backoff) of a failed request."),
    )):
        command = option(command)
    return command


def judge_client(model: str | None, *, base_url: str | None, timeout: float,
                 retries: int) -> Any:
    """The client ``--judge MODEL`` asks through (None without it; ``--judge-base-url``
    alone is bad input); the key and the extra are checked before any work."""
    if model is None:
        if base_url is not None:
            raise InputError("--judge-base-url needs --judge", place="--judge-base-url",
                             fix="add --judge MODEL, or leave it out")
        return None
    from toolscore_judge.client import chat_client

    return chat_client(model, base_url=base_url, timeout=timeout, retries=retries)


def engine_options(prefix: str = "") -> Callable[[F], F]:
    """``--engine local|ray`` and ``--ray-address ADDR`` (``prefix`` starts their help)."""
    def decorate(command: F) -> F:
        command = click.option(
            "--ray-address", metavar="ADDR",
            help=f"{prefix}The Ray cluster for --engine ray (default: $RAY_ADDRESS, else a "
                 "local cluster of --jobs CPUs).")(command)
        return click.option(
            "--engine", type=click.Choice(["local", "ray"]), default="local",
            show_default=True,
            help=f"{prefix}Where the work runs: this machine, or Ray tasks on a cluster "
                 "(pip install 'toolscore[ray]').")(command)

    return decorate


def otel_options(command: F) -> F:
    """``--otel`` and ``--otel-file PATH``: the verdicts as OpenTelemetry evaluation events."""
    from toolscore_cli.paths import FILE

    command = click.option(
        "--otel-file", "otel_file", type=FILE, metavar="PATH",
        help="Write those events to PATH as OTLP JSON (one export request per line).",
    )(command)
    return click.option(
        "--otel", "otel", is_flag=True,
        help="Send a gen_ai.evaluation.result event per check and metric to the OTLP/HTTP "
             "endpoint of OTEL_EXPORTER_OTLP_ENDPOINT (see docs/otel.md; "
             "pip install 'toolscore[otel]').",
    )(command)


def check_otel(otel: bool, otel_file: str | None) -> bool:
    """Whether evaluation events are asked for; the SDK is checked before any work."""
    if not otel and otel_file is None:
        return False
    from toolscore_otel.export import require_sdk

    require_sdk("--otel" if otel else "--otel-file")
    return True


def write_otel(events: Any, *, otel: bool, otel_file: str | None) -> None:
    """Send and/or write ``events`` (an iterable of ``EvaluationEvent``) and say so on stderr."""
    from toolscore_cli import console
    from toolscore_otel.export import export_events, logs_endpoint

    sent = export_events(events, send=otel, file=otel_file)
    where = ([f"sent to {logs_endpoint()}"] if otel else []) + (
        [f"written to {otel_file}"] if otel_file else [])
    console.stderr().print(f"otel: {count(sent, 'evaluation event')} {' and '.join(where)}",
                           markup=False, soft_wrap=True)


def listen_address(listen: str, allow_remote: bool) -> tuple[str, int]:
    """``--listen HOST:PORT`` as an address; a host that is not loopback needs
    ``--allow-remote``."""
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
