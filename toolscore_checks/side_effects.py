"""side-effects: every side effect the contract declares was probed and found."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolscore import (
    TIMED_OUT,
    Check,
    CheckOutcome,
    EvaluationContext,
    InputError,
    Setting,
    Settings,
    SideEffect,
    compile_pattern,
    count,
    hookimpl,
    read_input,
    search,
)

ID = "side-effects"
MAX_READ = 50 * 1024 * 1024
"""Files and HTTP bodies larger than this are not read: the probe is inconclusive."""
DEFAULT_TIMEOUT = 5.0
SQLITE_UNDECIDED = ("locked", "busy", "unable to open", "disk i/o", "not a database",
                    "syntax error", "no such column", "malformed")

Probe = tuple[str, str]
"""(status, reason): status is pass (found), fail (probed, not there) or unknown."""


def _path(spec: Mapping[str, Any], key: str, base_dir: str | None) -> Path:
    path = Path(os.path.expanduser(str(spec[key])))
    return path if path.is_absolute() or base_dir is None else Path(base_dir) / path


def _read(path: Path) -> tuple[bytes | None, Probe | None]:
    try:
        data = read_input(path, limit=MAX_READ)
    except InputError as exc:
        if exc.problem.endswith("not found"):
            return None, ("fail", "does not exist")
        if "a directory" in exc.problem:
            return None, ("fail", "is a directory, not a file")
        return None, ("unknown", f"could not be read ({exc.problem})")
    if len(data) > MAX_READ:
        return None, ("unknown", f"larger than {MAX_READ // (1024 * 1024)} MB, not read")
    return data, None


def probe_file_exists(spec: Mapping[str, Any], base_dir: str | None) -> Probe:
    path = _path(spec, "path", base_dir)
    try:
        if path.is_file():
            return "pass", "exists"
        if path.exists():
            return "fail", "exists but is not a file"
        return "fail", "does not exist"
    except OSError as exc:
        return "unknown", f"could not be checked ({exc.strerror or type(exc).__name__})"


def probe_file_contains(spec: Mapping[str, Any], base_dir: str | None) -> Probe:
    data, problem = _read(_path(spec, "path", base_dir))
    if problem or data is None:
        return problem or ("unknown", "could not be read")
    text = data.decode("utf-8", errors="replace")
    if "text" in spec:
        found = spec["text"] in text
        return ("pass", "contains the text") if found else ("fail", "does not contain the text")
    matched = search(compile_pattern(spec["regex"], multiline=True), text)
    if matched is None:
        return "unknown", f"undecided: {TIMED_OUT}"
    return ("pass", "matches the regex") if matched else ("fail", "does not match the regex")


def probe_http_get(spec: Mapping[str, Any], base_dir: str | None) -> Probe:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(spec["url"], method="GET",
                                     headers={"User-Agent": "toolscore side-effect probe"})
    try:
        with urllib.request.urlopen(request, timeout=float(spec.get("timeout", DEFAULT_TIMEOUT))
                                    ) as response:
            status, body = response.status, response.read(MAX_READ + 1)
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read(MAX_READ + 1) if exc.fp else b""
    except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        return "unknown", f"no answer ({reason})"
    want = spec.get("status")
    if want is None and not 200 <= status < 300:
        return "fail", f"answered {status}, not a 2xx status"
    if want is not None and status != want:
        return "fail", f"answered {status}, not {want}"
    if "body_contains" in spec:
        if len(body) > MAX_READ:
            return "unknown", f"body larger than {MAX_READ // (1024 * 1024)} MB, not read"
        if spec["body_contains"] not in body.decode("utf-8", errors="replace"):
            return "fail", f"answered {status} without the expected text in the body"
    return "pass", f"answered {status}"


def probe_sqlite_query(spec: Mapping[str, Any], base_dir: str | None) -> Probe:
    import sqlite3

    path = _path(spec, "database", base_dir)
    if not path.is_file():
        return "fail", "the database does not exist"
    want = spec.get("rows")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2)
        try:
            rows = connection.execute(spec["query"]).fetchmany(
                1 if want is None else want + 1)
        finally:
            connection.close()
    except sqlite3.Error as exc:
        message = str(exc)
        if "no such table" in message and not any(u in message for u in SQLITE_UNDECIDED):
            return "fail", f"the query failed: {message}"
        return "unknown", f"the query could not run: {message}"
    if want is None:
        return ("pass", "returned rows") if rows else ("fail", "returned no rows")
    if len(rows) == want:
        return "pass", f"returned {count(want, 'row')}"
    got = f"more than {count(want, 'row')}" if len(rows) > want else count(len(rows), "row")
    return "fail", f"returned {got}, not {want}"


PROBES = {"file_exists": probe_file_exists, "file_contains": probe_file_contains,
          "http_get": probe_http_get, "sqlite_query": probe_sqlite_query}


def target(effect: SideEffect) -> str:
    spec = effect.spec
    return str(spec.get("path") or spec.get("url") or spec.get("database") or "")


def run(context: EvaluationContext) -> CheckOutcome | None:
    effects = context.contract.side_effects
    if not effects:
        return None
    listed = [{"effect": i, "type": e.type, "target": target(e), "description": e.description}
              for i, e in enumerate(effects)]
    if not context.config_for(ID)["validate"]:
        return CheckOutcome(
            "fail", f"{count(len(effects), 'declared side effect')} not validated: run with "
            "--validate-side-effects to probe them",
            {"declared": len(effects), "probed": False, "effects": listed,
             "probe_evidence": []})
    evidence = []
    for entry, effect in zip(listed, effects, strict=True):
        status, reason = PROBES[effect.type](effect.spec, context.options.base_dir)
        evidence.append({**entry, "status": status, "reason": reason})
    counts = {s: sum(1 for e in evidence if e["status"] == s) for s in ("pass", "fail", "unknown")}
    details = {"declared": len(effects), "probed": True, "effects": listed,
               "probe_evidence": evidence, "counts": counts}
    if counts["pass"] == len(effects):
        shown = ("the declared side effect" if len(effects) == 1
                 else f"all {count(len(effects), 'declared side effect')}")
        return CheckOutcome("pass", f"{shown} validated", details)
    shown = "; ".join(f"{e['type']} {e['target']}: {e['reason']}"
                      + (" (probe inconclusive)" if e["status"] == "unknown" else "")
                      for e in evidence if e["status"] != "pass")
    return CheckOutcome("fail", f"{len(effects) - counts['pass']} of {len(effects)} declared "
                        f"side effects not validated: {shown}", details)


@hookimpl
def toolscore_register_checks() -> list[Check]:
    return [Check(id=ID, description="Every declared side effect was validated "
                  "(when declared; probed with --validate-side-effects).", run=run)]


@hookimpl
def toolscore_register_settings() -> list[Settings]:
    return [Settings(id=ID, settings=(
        Setting(name="validate", type=bool, default=False, flag="--validate-side-effects",
                help="Probe the side effects the contract declares (files, HTTP, SQLite); "
                     "--validate-side-effects sets it."),))]
