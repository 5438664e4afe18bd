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


def pass_rate_below(total: Mapping[str, Any], fail_under: str) -> str | None:
    """Why a study's pass rate fails ``--fail-under`` (one line), or None when it does not.

    A study with no run has no pass rate: unknown is not a pass.
    """
    threshold = parse_rate(fail_under)
    rate, runs = total.get("pass_rate"), total.get("runs") or 0
    if rate is None:
        return f"no runs, so the pass rate is unknown: not over --fail-under {fail_under}"
    if rate < threshold:
        return (f"pass rate {rate:.1%} ({total.get('passed')} of {count(runs, 'run')}) is below "
                f"--fail-under {fail_under}")
    return None


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
        click.option("--judge-timeout", type=click.FloatRange(min=0, min_open=True),
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
