"""Planted credentials: every kind, in every place of a trace, a contract and a final answer,
must come out of every output masked, the judge's requests and judgments files included.

One example plants each kind in each place of one trace and one contract (fresh random
bodies each time), then runs ``toolscore eval`` with every report, a receipt and a judge
(a local OpenAI-compatible endpoint that echoes its API key and the planted text back),
a study run with the same judge into a runs file, and ``toolscore summary`` of that file
with every report; then looks for each credential in all of it.
"""

from __future__ import annotations

import base64
import html
import json
import random
import string
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import toolscore
from tests.toolscore_judge.chat_server import ChatServer, Reply
from toolscore_cli.app import cli
from toolscore_core.models import ToolCall
from toolscore_judge.client import chat_client

KEY = "local-judge-key-7f3a9c1e5b2d"
"""The judge's API key: no credential shape of its own, so only the client can mask it."""
MODEL = "judge-model-1"
_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"


def _draw(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    # A digit, a capital and a small letter each: detect-secrets' filters let no credential
    # through that looks like a word or a sequence, and neither would a user's.
    while True:
        text = "".join(rng.choice(alphabet) for _ in range(n))
        if all(any(c in kind for c in text) for kind in
               (string.digits, string.ascii_uppercase, string.ascii_lowercase)
               if any(c in kind for c in alphabet)):
            return text


def _wide(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _b64url(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


# Each kind: (random generator, style) -> (the text to plant, the secret inside it, whose
# middle -- all but the 4 first and 2 last characters a mask shows -- must appear nowhere).
Kind = Callable[[random.Random, dict[str, str]], tuple[str, str]]


def _key(text: str) -> tuple[str, str]:
    return text, text


def _jwt(rng: random.Random, _: dict[str, str]) -> tuple[str, str]:
    token = (_b64url({"alg": "HS256", "typ": "JWT"}) + "." + _b64url({"sub": _draw(rng, 12)})
             + "." + _draw(rng, 43, _ALNUM + "-_"))
    return token, token


def _basic(rng: random.Random, _: dict[str, str]) -> tuple[str, str]:
    token = base64.b64encode(f"admin:{_draw(rng, 16)}".encode()).decode()
    return f"Authorization: Basic {token}", token


def _private_key(rng: random.Random, _: dict[str, str]) -> tuple[str, str]:
    body = _draw(rng, 64, _B64)
    return (f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----",
            body)


def _split(rng: random.Random, _: dict[str, str]) -> tuple[str, str]:
    body = _draw(rng, 40)
    key = f"sk-proj-{body[:12]}\u200b{body[12:]}"
    return key, key


def _wide_key(rng: random.Random, _: dict[str, str]) -> tuple[str, str]:
    key = _wide("sk-proj-" + _draw(rng, 40))
    return key, key


KINDS: dict[str, Kind] = {
    "aws-access-key": lambda rng, _: _key("AKIA" + _draw(rng, 16, string.ascii_uppercase
                                                         + string.digits)),
    "github-token": lambda rng, _: _key("ghp_" + _draw(rng, 36)),
    "openai-key": lambda rng, _: _key("sk-proj-" + _draw(rng, 40, _ALNUM + "_-")),
    "anthropic-key": lambda rng, _: _key("sk-ant-api03-" + _draw(rng, 40)),
    "slack-token": lambda rng, _: _key(f"xoxb-{rng.randrange(10**11, 10**12)}-"
                                       f"{rng.randrange(10**11, 10**12)}-"
                                       + _draw(rng, 24).lower() + "x1"),
    "stripe-key": lambda rng, _: _key("sk_live_" + _draw(rng, 24)),
    "hugging-face-token": lambda rng, _: _key("hf_" + _draw(rng, 34, string.ascii_letters)
                                              + "Q"),
    "google-api-key": lambda rng, _: _key("AIza" + _draw(rng, 35, _ALNUM + "_-")),
    "jwt": _jwt,
    "private-key": _private_key,
    "password-after-a-colon": lambda rng, s: (
        (pw := _draw(rng, 16)) and f"{s['word']}: --password={pw}", pw),
    "api-key-after-a-colon": lambda rng, s: (
        (pw := _draw(rng, 20)) and f"{s['word']}: api_key={pw}", pw),
    "aws-secret-assignment": lambda rng, s: (
        (pw := _draw(rng, 40, _B64)) and f"{s['word']}: aws_secret_access_key = {pw}", pw),
    "url-userinfo": lambda rng, _: (
        (pw := _draw(rng, 16)) and f"https://admin:{pw}@db.example.com/app", pw),
    "url-encoded-userinfo": lambda rng, _: (
        (pw := _draw(rng, 16)) and f"https%3A%2F%2Fadmin%3A{pw}%40db.example.com", pw),
    "basic-auth-header": _basic,
    "bearer-header": lambda rng, _: (
        (tok := _draw(rng, 32, _ALNUM + "._-")) and f"Authorization: Bearer {tok}", tok),
    "full-width-key": _wide_key,
    "zero-width-split-key": _split,
    "pass-named": lambda rng, s: ((pw := _draw(rng, 16)) and f"{s['pass']}={pw}", pw),
}

PLACES = ("tool name", "argument key", "argument value", "nested argument", "result",
          "error", "final answer", "contract argument", "contract $judge", "expected answer")
"""Where every kind is planted; besides, the study's name and its task's id hold one kind
each, drawn anew for each example."""
OUTPUTS = ("console", "JSON", "Markdown", "HTML", "JUnit", "receipt", "judgments file",
           "judge requests", "runs file evaluation", "runs file judgments", "summary console",
           "summary JSON", "summary Markdown", "summary HTML", "summary JUnit")


def _plain(text: str) -> str:
    """``text`` as a reader sees it: entities decoded, compatibility forms plain, invisible
    characters gone, so that a credential shown in any of those forms is still found."""
    text = unicodedata.normalize("NFKC", html.unescape(text))
    return "".join(c for c in text if c not in "\u200b\u200c\u200d\u2060\ufeff\u00ad")


def _json_plain(text: str) -> str:
    """Every string of a JSON document (or of each line of JSON Lines), escapes decoded."""
    try:
        values = [json.loads(text)]
    except json.JSONDecodeError:
        values = [json.loads(line) for line in text.splitlines() if line.strip()]
    return _plain(json.dumps(values, ensure_ascii=False))


def _console_plain(text: str) -> str:
    # A table may wrap a long value over lines and box characters: read it unwrapped too.
    return _plain("".join(c for c in text if not c.isspace() and c not in "│┃║|"))


def _needle(secret: str) -> str:
    plain = _plain(secret)
    return plain[4:-2]


def _plant(rng: random.Random, style: dict[str, str]) -> dict[str, tuple[str, str]]:
    return {kind: make(rng, style) for kind, make in KINDS.items()}


def _trace_and_contract(planted: dict[str, tuple[str, str]]) -> tuple[dict[str, Any],
                                                                      dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    expected: list[dict[str, Any]] = []
    texts = [text for text, _ in planted.values()]
    for i, text in enumerate(texts):
        tool = f"t_{text}"
        calls.append({"id": f"call_{2 * i}", "tool": tool,
                      "args": {"city": text, text: "v", "nested": {"deep": [{"q": text}]}},
                      "result": f"found: {text}", "is_error": False, "duration": 0.1})
        calls.append({"id": f"call_{2 * i + 1}", "tool": f"fetch_{i}", "args": {},
                      "error": f"failed with {text}", "is_error": True, "duration": 0.1})
        expected.append({"tool": tool, "args": {"city": {"$judge": f"a city, never {text}"},
                                                "region": text}})
        expected.append({"tool": f"fetch_{i}"})
    answer = "Done. Here is what I found:\n" + "\n".join(texts)
    return ({"calls": calls, "final_answer": answer},
            {"expected": expected, "expected_answer": "Nothing found:\n" + "\n".join(texts)})


def _outputs(folder: Path, planted: dict[str, tuple[str, str]], server: ChatServer,
             names: tuple[str, str] = ("planted", "task")) -> Iterator[tuple[str, str]]:
    """(output, its text as a reader sees it) for every output a user can get; ``names``
    are the study's name and its task's id, which the summaries show."""
    trace, contract = _trace_and_contract(planted)
    (folder / "trace.json").write_text(json.dumps(trace), encoding="utf-8")
    (folder / "gold.json").write_text(json.dumps(contract), encoding="utf-8")
    echo = " ".join(text for text, _ in planted.values())
    server.script = [Reply(f"no: {KEY} says {echo}")]
    server.seen.clear()
    env = {"TOOLSCORE_JUDGE_API_KEY": KEY, "COLUMNS": "200", "NO_COLOR": "1"}
    runner = CliRunner()
    files = {name: folder / name for name in ("r.json", "r.md", "r.html", "r.xml",
                                              "run.receipt.json", "j.jsonl")}
    result = runner.invoke(cli, [
        "eval", str(folder / "gold.json"), str(folder / "trace.json"),
        "--json", str(files["r.json"]), "--markdown", str(files["r.md"]),
        "--html", str(files["r.html"]), "--junit", str(files["r.xml"]),
        "--receipt", str(files["run.receipt.json"]), "--judgments", str(files["j.jsonl"]),
        "--judge", MODEL, "--judge-base-url", server.url, "--judge-retries", "0",
    ], env=env)
    assert result.exit_code == 0, result.output
    yield "console", _console_plain(result.output)
    yield "JSON", _json_plain(files["r.json"].read_text(encoding="utf-8"))
    yield "Markdown", _plain(files["r.md"].read_text(encoding="utf-8"))
    yield "HTML", _plain(files["r.html"].read_text(encoding="utf-8"))
    yield "JUnit", _plain(files["r.xml"].read_text(encoding="utf-8"))
    yield "receipt", _json_plain(files["run.receipt.json"].read_text(encoding="utf-8"))
    yield "judgments file", _json_plain(files["j.jsonl"].read_text(encoding="utf-8"))

    runs = folder / "runs.jsonl"
    study, task = names
    spec = {"study": study, "tasks": {task: {
        "prompt": "Look it up.", "expected": contract["expected"],
        "expected_answer": contract["expected_answer"]}}}
    calls = [ToolCall(id=c["id"], tool=c["tool"], args=c["args"], result=c.get("result"),
                      error=c.get("error"), is_error=c["is_error"], duration=c["duration"])
             for c in trace["calls"]]
    client = chat_client(MODEL, base_url=server.url, env={"TOOLSCORE_JUDGE_API_KEY": KEY},
                         retries=0)
    toolscore.run_study(spec, lambda prompt: (calls, trace["final_answer"]), output=runs,
                        judge=client)
    rows = [json.loads(line) for line in runs.read_text(encoding="utf-8").splitlines()]
    yield "runs file evaluation", _json_plain(json.dumps([r["evaluation"] for r in rows]))
    yield "runs file judgments", _json_plain(json.dumps([r["judge"] for r in rows]))
    yield "judge requests", _json_plain(json.dumps([s.body for s in server.seen]))

    summary = {name: folder / name for name in ("s.json", "s.md", "s.html", "s.xml")}
    result = runner.invoke(cli, [
        "summary", str(runs), "--json", str(summary["s.json"]), "--markdown",
        str(summary["s.md"]), "--html", str(summary["s.html"]), "--junit",
        str(summary["s.xml"])], env=env)
    assert result.exit_code == 0, result.output
    yield "summary console", _console_plain(result.output)
    yield "summary JSON", _json_plain(summary["s.json"].read_text(encoding="utf-8"))
    yield "summary Markdown", _plain(summary["s.md"].read_text(encoding="utf-8"))
    yield "summary HTML", _plain(summary["s.html"].read_text(encoding="utf-8"))
    yield "summary JUnit", _plain(summary["s.xml"].read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def judge_server() -> Iterator[ChatServer]:
    with ChatServer([Reply("no: not yet scripted")]).running() as server:
        yield server


# The study's name and its task's id hold one kind each too (one line: a private key's
# block is no name): the summaries show both.
ONE_LINE = [kind for kind, make in KINDS.items()
            if "\n" not in make(random.Random(0), {"word": "x", "pass": "pass"})[0]]
STYLES = st.fixed_dictionaries({
    "word": st.sampled_from(["content", "note", "x", "Details"]),
    "pass": st.sampled_from(["pass", "passWord", "PASS", "Password", "db_pass"]),
})


# No shrinking: each example is a few seconds of real work; a failure prints its draw.
@settings(max_examples=3, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(seed=st.integers(0, 2**64), style=STYLES, study=st.sampled_from(ONE_LINE),
       task=st.sampled_from(ONE_LINE))
def test_no_planted_credential_reaches_any_output(judge_server: ChatServer, seed: int,
                                                  style: dict[str, str], study: str,
                                                  task: str) -> None:
    planted = _plant(random.Random(seed), style)
    rng = random.Random(seed + 1)
    study_name, study_secret = KINDS[study](rng, style)
    task_id, task_secret = KINDS[task](rng, style)
    needles = {kind: _needle(secret) for kind, (_, secret) in planted.items()}
    named = {"study name": _needle(study_secret), "task id": _needle(task_secret)}
    assert all(len(n) >= 10 for n in needles.values())
    with tempfile.TemporaryDirectory() as folder:
        outputs = dict(_outputs(Path(folder), planted, judge_server,
                                (f"study {study_name}", f"task {task_id}")))
        trace = _plain((Path(folder) / "trace.json").read_text(encoding="utf-8"))
    assert set(outputs) == set(OUTPUTS)
    # The evidence itself keeps them (the test would find nothing if planting failed).
    assert all(needle in _json_plain(trace) for needle in needles.values())
    hits = [(output, kind) for output, text in outputs.items()
            for kind, needle in {**needles, **named}.items() if needle in text]
    assert hits == []
    assert all(_needle(KEY) not in text for text in outputs.values())
    # The judge was asked about every place a judge sees, in the eval and in the study run:
    # each planted $judge argument, and the final answer against the expected answer.
    systems = [s.body["messages"][0]["content"] for s in judge_server.seen]
    assert sum(x.startswith("You check one argument") for x in systems) == 2 * len(KINDS)
    assert sum("reference answer" in x for x in systems) == 2
