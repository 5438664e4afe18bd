"""side-effects: declared effects probed with --validate-side-effects; never unknown."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import toolscore
from toolscore_cli.app import cli
from toolscore_core.plugins import default_registry

TRACE = {"calls": [{"tool": "write_file", "args": {"path": "out.txt"}, "result": "ok"}],
         "final_answer": "Wrote out.txt."}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status = 200 if self.path == "/health" else 404
        body = b'{"status": "ok"}' if status == 200 else b"not found"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _check(effects: list[dict[str, Any]], base: Path, validate: bool = True) -> Any:
    gold = {"expected": [{"tool": "write_file"}], "side_effects": effects}
    path = base / "gold.json"
    path.write_text(json.dumps(gold), encoding="utf-8")
    trace = base / "trace.json"
    trace.write_text(json.dumps(TRACE), encoding="utf-8")
    config = default_registry().config_with(validate_side_effects=validate)
    evaluation = toolscore.evaluate_files(path, trace, config=config)
    return evaluation.evidence.get("side-effects")


def test_does_not_apply_when_nothing_is_declared() -> None:
    assert toolscore.evaluate([], TRACE).evidence.get("side-effects") is None


def test_fail_not_validated_without_the_flag(tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text("hello", encoding="utf-8")
    result = _check([{"type": "file_exists", "path": "out.txt"}], tmp_path, validate=False)
    assert result.status == "fail" and result.details["probed"] is False
    assert "run with --validate-side-effects" in result.reason


def test_pass_when_every_probe_finds_its_effect(tmp_path: Path, server: str) -> None:
    (tmp_path / "out.txt").write_text("total: 42\n", encoding="utf-8")
    with sqlite3.connect(tmp_path / "app.db") as db:
        db.execute("create table orders (id integer, status text)")
        db.execute("insert into orders values (1, 'paid'), (2, 'paid')")
    db.close()
    effects = [
        {"type": "file_exists", "path": "out.txt", "description": "the report"},
        {"type": "file_contains", "path": "out.txt", "text": "total: 42"},
        {"type": "file_contains", "path": "out.txt", "regex": "^total: \\d+$"},
        {"type": "http_get", "url": f"{server}/health", "status": 200, "body_contains": "ok"},
        {"type": "sqlite_query", "database": "app.db",
         "query": "select id from orders where status = 'paid'", "rows": 2},
    ]
    result = _check(effects, tmp_path)
    assert result.status == "pass", result.details
    assert result.details["counts"] == {"pass": 5, "fail": 0, "unknown": 0}


def test_fail_when_a_probe_finds_the_effect_missing(tmp_path: Path, server: str) -> None:
    effects = [{"type": "file_exists", "path": "missing.txt"},
               {"type": "http_get", "url": f"{server}/nope"},
               {"type": "sqlite_query", "database": "none.db", "query": "select 1"}]
    result = _check(effects, tmp_path)
    assert result.status == "fail"
    reasons = [e["reason"] for e in result.details["probe_evidence"]]
    assert reasons == ["does not exist", "answered 404, not a 2xx status",
                       "the database does not exist"]


def test_an_inconclusive_probe_fails_the_check_as_unknown_probe_evidence(
    tmp_path: Path,
) -> None:
    (tmp_path / "out.txt").write_text("x", encoding="utf-8")
    effects = [{"type": "file_exists", "path": "out.txt"},
               {"type": "http_get", "url": f"http://127.0.0.1:{_closed_port()}/",
                "timeout": 2}]
    result = _check(effects, tmp_path)
    assert result.status == "fail"  # never unknown: the effect is not validated
    evidence = result.details["probe_evidence"]
    assert [e["status"] for e in evidence] == ["pass", "unknown"]
    assert evidence[1]["reason"].startswith("no answer")
    assert "(probe inconclusive)" in result.reason


def test_bad_side_effect_declaration_names_the_place(tmp_path: Path) -> None:
    from toolscore_core.errors import InputError

    with pytest.raises(InputError) as caught:
        _check([{"type": "file_contains", "path": "a"}], tmp_path)
    assert caught.value.place == "$.side_effects[0]"
    with pytest.raises(InputError) as caught:
        _check([{"type": "http_get", "url": "ftp://x"}], tmp_path)
    assert caught.value.place == "$.side_effects[0].url"


def test_cli_validate_side_effects(write_json: Callable[[str, Any], str],
                                   tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_text("x", encoding="utf-8")
    gold = write_json("gold.json", {"expected": [{"tool": "write_file"}],
                                    "side_effects": [{"type": "file_exists", "path": "out.txt"}]})
    trace = write_json("trace.json", TRACE)
    result = CliRunner().invoke(cli, ["eval", gold, trace, "--validate-side-effects"],
                                catch_exceptions=False)
    assert "side-effects" not in result.output  # passing checks are counted, not listed
    assert "Evidence: 7 pass, 0 fail, 0 unknown" in result.output


def test_a_file_regex_past_its_time_limit_is_unknown_probe_evidence(tmp_path: Path) -> None:
    # (a|aa)+$ backtracks exponentially on a run of "a" ending in something else
    (tmp_path / "out.txt").write_text("a" * 60 + "b", encoding="utf-8")
    result = _check([{"type": "file_contains", "path": "out.txt", "regex": "(a|aa)+$"},
                     {"type": "file_contains", "path": "out.txt", "regex": "^a+b$"}], tmp_path)
    evidence = result.details["probe_evidence"]
    assert [(e["status"], e["reason"]) for e in evidence] == [
        ("unknown", "undecided: its regular expression ran past the time limit of 0.1 s per "
                    "search"),
        ("pass", "matches the regex")]
    assert result.status == "fail"  # an effect not validated is never a pass
