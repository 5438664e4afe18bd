"""The tests' one helpers module: the repository's paths, the CLI run as a user runs it (in
this process, or in a real one where the process boundary is tested), JSON files, the
receipts example's folder, byte flipping, and one check's result out of a record."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscore_core.models import CheckResult

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
AGENTS = Path(__file__).parent / "agents"


PROCESS_ENV = ("PYTHONPATH", "TOOLSCORE_DISABLE_PLUGINS", "TOOLSCORE_LOAD_PLUGINS")
"""Variables that decide what a process loads once (its plugins): a call setting one runs a
real subprocess."""


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``toolscore`` as a user would: its ``main()`` with the arguments, stdin, stdout
    and stderr of a command (click's test isolation), in this process, so a call costs
    milliseconds instead of a Python start-up. With one of ``PROCESS_ENV`` in ``env``, a
    real subprocess (:func:`run_cli_process`)."""
    if env and any(name in env for name in PROCESS_ENV):
        return run_cli_process(*args, cwd=cwd, env=env, input=input)
    from click.testing import CliRunner

    from toolscore_cli.app import main

    before = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        with CliRunner().isolation(input=input, env=env) as (out, err, _):
            try:
                main(list(args))
                code: int = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            stdout, stderr = out.getvalue(), err.getvalue()
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(["toolscore", *args], code,
                                       stdout.decode("utf-8", "replace"),
                                       stderr.decode("utf-8", "replace"))


def run_cli_process(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
                    input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``toolscore`` in a real subprocess: where the process boundary is what is tested
    (start-up, entry points, signals)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "toolscore_cli", *args], cwd=cwd or ROOT, env=full_env,
        capture_output=True, text=True, input=input, timeout=120,
    )

EXAMPLE = EXAMPLES / "contracts"


def example_folder(tmp_path: Path) -> Path:
    """A copy of ``examples/contracts`` (trace, gold, contract) plus extra input files."""
    folder = tmp_path / "evidence"
    folder.mkdir()
    for name in ("trace.json", "gold.json", "contract.json"):
        shutil.copy(EXAMPLE / name, folder / name)
    (folder / "forbidden.json").write_text(
        json.dumps([{"tool": "delete_user", "reason": "never delete accounts"}]) + "\n")
    (folder / "honesty.json").write_text("{}\n")  # every key has a default
    (folder / "injected.json").write_text(json.dumps(
        {"kind": "toolscore.injected", "version": "1", "faults": [], "injections": []}) + "\n")
    return folder


def flip_byte(path: Path, index: int | None = None) -> None:
    """Flip the lowest bit of one byte (the middle one by default)."""
    data = bytearray(path.read_bytes())
    at = len(data) // 2 if index is None else index
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Every line of a JSON Lines file (a runs file), each of which must be JSON."""
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def write_json(path: Path, value: Any, *, indent: int | None = None) -> Path:
    """Write ``value`` as JSON at ``path`` and return the path."""
    path.write_text(json.dumps(value, indent=indent), encoding="utf-8")
    return path


def check_in(record: dict[str, Any], check: str) -> dict[str, Any]:
    """One check's result in an evaluation record (a receipt's or a run row's
    ``evaluation``), by check id."""
    return next(c for c in record["evaluation"]["evidence"]["checks"] if c["check"] == check)


def run_check(check_id: str, expected: Any, trace: Any, **options: Any) -> CheckResult | None:
    """Evaluate ``trace`` against ``expected`` and return the result of one check (``None``
    when the check does not apply). ``options`` are ``evaluate()``'s keywords, and the
    plugins' shorthand flags (``injected=...``), which go into ``config=`` as
    ``Registry.config_with`` puts them."""
    import inspect

    import toolscore

    keywords = inspect.signature(toolscore.evaluate).parameters
    flags = {k: options.pop(k) for k in list(options) if k not in keywords}
    if flags:
        from toolscore_core.plugins import default_registry

        registry = options.get("registry") or default_registry()
        options["config"] = registry.config_with(options.get("config"), **flags)
    return toolscore.evaluate(expected, trace, **options).evidence.get(check_id)


def applied_check(check_id: str, expected: Any, trace: Any, **options: Any) -> CheckResult:
    """:func:`run_check` for a check that must apply."""
    result = run_check(check_id, expected, trace, **options)
    assert result is not None, f"{check_id} did not apply"
    return result
