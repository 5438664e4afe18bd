"""credentials: pass on clean args (hashes, UUIDs, ids), fail on nested credentials, redacted."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import toolscore
from tests.helpers import run_check
from toolscore_cli.app import cli
from toolscore_formats.reports.json_report import report

AWS = "AKIAIOSFODNN7EXAMPLE"
OPENAI = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC = "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCdEfGh"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PASSWORD = "correct-horse-battery"


def _trace(*args: dict[str, Any]) -> dict[str, Any]:
    return {"calls": [{"id": str(i), "tool": "http_request", "args": a, "result": "ok"}
                      for i, a in enumerate(args)]}


def test_pass_on_ids_hashes_uuids_and_git_shas() -> None:
    trace = _trace({"order_id": "ORD-2026-000123", "user": "ana@example.com",
                    "sha256": hashlib.sha256(b"report.csv").hexdigest(),
                    "commit": "3f786850e387550fdab836ed7e6dc881de23001b",
                    "request_id": str(uuid.UUID(int=12345678901234567890)),
                    "max_tokens": 1000, "page_token": "CAESBgoECAEQAQ",
                    "password_hash": hashlib.sha1(b"x").hexdigest()})
    result = run_check("credentials", [], trace)
    assert result is not None and result.status == "pass", result.reason
    assert result.details["findings"] == []


def test_fail_on_credentials_nested_anywhere() -> None:
    trace = _trace(
        {"url": "https://api.example.com", "headers": {"Authorization": f"Bearer {OPENAI}"}},
        {"steps": [{"env": {"AWS_ACCESS_KEY_ID": AWS}}, {"run": f"git clone https://{GITHUB}@github.com/x"}]},
        {"config": {"db": {"password": PASSWORD}}, "note": f"key {ANTHROPIC}"},
    )
    result = run_check("credentials", [], trace)
    assert result is not None and result.status == "fail"
    found = {(f["call"], f["path"], f["masked"]) for f in result.details["findings"]}
    assert (1, "$.headers.Authorization", "Bear…4z") in found
    assert (2, "$.steps[0].env.AWS_ACCESS_KEY_ID", "AKIA…LE") in found
    assert (2, "$.steps[1].run", "ghp_…r8") in found
    assert (3, "$.config.db.password", "corr…ry") in found
    assert (3, "$.note", "sk-a…Gh") in found
    kinds = {f["kind"] for f in result.details["findings"]}
    assert {"AWS Access Key", "GitHub Token", "Anthropic API Key"} <= kinds
    assert "5 credentials in tool arguments" in result.reason


def test_openai_keys_detect_secrets_does_not_know() -> None:
    result = run_check("credentials", [], _trace({"api": OPENAI}))
    assert result is not None and result.status == "fail"
    assert result.details["findings"][0]["kind"] == "OpenAI API Key"


def test_secret_named_keys_with_placeholders_are_not_credentials() -> None:
    trace = _trace({"password": "${DB_PASSWORD}", "token": "<your token>", "api_key": "",
                    "secret": "***", "Authorization": "Bearer"})
    result = run_check("credentials", [], trace)
    assert result is not None and result.status == "pass", result.details


def test_credentials_in_raw_arguments_are_found() -> None:
    trace = {"calls": [{"tool": "shell", "raw_args": f"export KEY={AWS} &&", "result": "ok"}]}
    result = run_check("credentials", [], trace)
    assert result is not None and result.status == "fail"
    assert result.details["findings"][0]["path"] == "$raw"


def test_no_calls_passes_never_unknown() -> None:
    result = run_check("credentials", [], {"calls": [], "final_answer": "nothing to do"})
    assert result is not None and result.status == "pass"


@settings(max_examples=300, deadline=None)
@given(data=st.binary(min_size=1, max_size=64), seed=st.integers(0, 2**128 - 1),
       width=st.sampled_from([7, 12, 32, 40, 64]))
def test_random_hashes_and_uuids_are_never_flagged(data: bytes, seed: int, width: int) -> None:
    digest = hashlib.sha256(data).hexdigest()
    args = {"sha256": digest, "short": digest[:width], "upper": digest.upper()[:width],
            "uuid": str(uuid.UUID(int=seed)), "blob": f"{digest} {uuid.UUID(int=seed)}",
            "md5": hashlib.md5(data).hexdigest(), "path": f"/cache/{digest[:2]}/{digest}"}
    result = run_check("credentials", [], _trace(args))
    assert result is not None and result.status == "pass", result.details


def test_a_credential_never_appears_unredacted_in_json_or_console(
    write_json: Callable[[str, Any], str], tmp_path: Any,
) -> None:
    trace = _trace({"headers": {"X-Api-Key": OPENAI}, "cmd": f"aws s3 ls --key {AWS}",
                    "login": {"password": PASSWORD}})
    trace["final_answer"] = f"I used {AWS} and {GITHUB} to log in."
    gold = write_json("gold.json", [{"tool": "http_request", "args": {"token": ANTHROPIC}}])
    path = write_json("trace.json", trace)
    out = tmp_path / "report.json"
    result = CliRunner().invoke(cli, ["eval", gold, path, "--json", str(out)],
                                catch_exceptions=False)
    text = result.output + out.read_text(encoding="utf-8")
    for secret in (AWS, OPENAI, ANTHROPIC, GITHUB, PASSWORD):
        assert secret not in text
    assert "AKIA…LE" in text and "credentials: 3 credentials" in result.output
    record = toolscore.evaluate(json.loads(Path(gold).read_text(encoding="utf-8")), trace)
    dumped = json.dumps(report(record), ensure_ascii=False)
    for secret in (AWS, OPENAI, ANTHROPIC, GITHUB, PASSWORD):
        assert secret not in dumped


def test_a_password_quoted_elsewhere_is_masked_too(write_json: Callable[[str, Any], str],
                                                   tmp_path: Any) -> None:
    gold = write_json("gold.json", [{"tool": "login", "args": {"user": "ana",
                                                                "password": "correct-horse-9"}}])
    trace = write_json("trace.json", {
        "calls": [{"tool": "login", "args": {"user": "ana", "password": "hunter2-wrong"},
                   "error": "bad password hunter2-wrong for ana"}],
        "final_answer": "I could not log in: hunter2-wrong was refused."})
    out = tmp_path / "report.json"
    result = CliRunner().invoke(cli, ["eval", gold, trace, "--json", str(out)],
                                catch_exceptions=False)
    text = result.output + out.read_text(encoding="utf-8")
    assert "hunter2-wrong" not in text and "correct-horse-9" not in text
    assert "bad password hunt…ng" in text and "expected 'corr…-9', got 'hunt…ng'" in text


def test_a_credential_far_into_a_long_trace_is_found_at_its_call() -> None:
    """The prefilter looks at runs of calls in turn: each run that is suspect is walked."""
    args = [{"q": f"item {i}"} for i in range(1_300)]
    args[3] = {"key": AWS}
    args[1_201] = {"headers": {"Authorization": f"Bearer {OPENAI}"}}
    result = run_check("credentials", [], _trace(*args))
    assert result is not None and result.status == "fail"
    calls = [f["call"] for f in result.details["findings"]]
    assert calls[0] == 4 and set(calls) == {4, 1_202} and calls == sorted(calls)


_TEXTS = st.one_of(
    st.sampled_from([AWS, OPENAI, ANTHROPIC, GITHUB, PASSWORD, "password=hunter2hunter2",
                     "api_key: s3cr3tvalue99", "Authorization: Bearer abcdefghijklmnopqrstuv",
                     "https://user:pa55word@example.com/x", "xoxb-123456789012-abcdefghij",
                     "0.015779092702169626", "1234567890123456789", "q12", "", "key", "pass"]),
    st.text(max_size=24))
_KEYS = st.one_of(st.sampled_from(["q", "password", "api_key", "X-Api-Key", "token", "id",
                                   "note", "secret", "passenger", AWS]), st.text(max_size=8))
_VALUES = st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(), _TEXTS)
_ARGS = st.one_of(
    st.none(),
    st.dictionaries(_KEYS, _VALUES, max_size=4),
    st.dictionaries(_KEYS, st.one_of(_VALUES, st.lists(_VALUES, max_size=3),
                                     st.dictionaries(_KEYS, _VALUES, max_size=2)), max_size=3))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_ARGS, st.one_of(st.none(), _TEXTS)), max_size=6))
def test_the_batch_prefilter_lets_through_every_credential(calls: list[Any]) -> None:
    """Calls the prefilter calls clean hold nothing that walking them would find."""
    from toolscore_checks.credentials import suspect
    from toolscore_core.models import ToolCall
    from toolscore_secrets.scanning import find_in_value

    records = [ToolCall(tool="t", args=args, raw_args=raw) for args, raw in calls]
    found = any((c.args is not None and find_in_value(c.args))
                or (c.raw_args is not None and find_in_value(c.raw_args, "$raw"))
                for c in records)
    if found:
        assert suspect(records)


def test_a_pass_says_which_calls_arguments_were_not_in_the_trace() -> None:
    # The check never answers unknown; its pass does not claim arguments it never saw.
    trace = {"calls": [{"tool": "search", "args": {"q": "x"}, "result": "ok"},
                       {"tool": "fetch", "result": "ok"}]}
    result = run_check("credentials", [], trace)
    assert result is not None and result.status == "pass"
    assert result.reason == ("no credential in the arguments of 1 call (1 call's arguments "
                             "not in the trace, not searched)")
    assert result.details["unread"] == 1
