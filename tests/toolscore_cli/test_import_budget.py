"""The CLI's start-up rules: what ``toolscore --help`` and ``toolscore eval`` must not import,
each with its reason. Every rule runs in a fresh interpreter: what a process imports is only
seen from its own start (this test process has long imported everything)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.helpers import EXAMPLES, ROOT

pytestmark = pytest.mark.process

SMALL = (ROOT / "bench" / "fixtures" / "small_gold.json",
         ROOT / "bench" / "fixtures" / "small_trace.json")
EXAMPLE = (EXAMPLES / "gold.json", EXAMPLES / "trace.json")


class Rule(NamedTuple):
    what: str
    """What the process runs: Python code, with the two input files as ``sys.argv[1:]``."""
    files: tuple[Path, Path] | None
    forbidden: tuple[str, ...]
    """Modules (or top-level packages, when they have no dot) it must not import."""
    reason: str


HELP = ("from toolscore_cli.app import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n")
EVAL = ("import sys\nfrom toolscore_cli.app import main\n"
        "try:\n    main(['eval', sys.argv[1], sys.argv[2]])\nexcept SystemExit:\n    pass\n")
EVALUATE = ("import json, sys\nfrom toolscore_core.evaluation import evaluate_files\n"
            "e = evaluate_files(sys.argv[1], sys.argv[2])\n"
            "json.dumps(e.to_dict())\ne.record_sha256\n")

RULES = {
    "help": Rule(
        HELP, None, ("rich", "yaml", "scipy", "rapidfuzz", "toolscore_core.evaluation"),
        "--help lists the commands from their names alone: the verdict's printer (rich), the "
        "spec reader (yaml), the statistics (scipy), the edit distance (rapidfuzz) and the "
        "engine are each tens of milliseconds a user waits for nothing"),
    "eval-without-otel": Rule(
        EVAL, EXAMPLE, ("opentelemetry", "google", "toolscore_otel"),
        "only --otel sends events: the OpenTelemetry SDK and its protobuf (google) load for "
        "it, never for a plain eval"),
    "eval-of-one-trace": Rule(
        EVAL, SMALL, ("toolscore_cli.eval_many",),
        "one trace needs only its gates (toolscore_cli.gates); the batch's records, worker "
        "pool and table load for several traces or --cases"),
    "eval-reads-with-its-own-reader": Rule(
        EVAL, SMALL, ("toolscore_formats.inspect_samples", "toolscore_formats.genai",
                      "toolscore_formats.chat", "toolscore_formats.openinference_spans",
                      "toolscore_formats.cursor"),
        "a trace in toolscore's format is read by its reader alone: the other formats only "
        "detect, and load their readers (Inspect samples, GenAI spans, chat messages, "
        "OpenInference spans) for a document they claim, the streaming cursor for a large "
        "file; each would be classes and code built at every start for nothing"),
    "eval-without-a-final-answer": Rule(
        EVAL, SMALL, ("toolscore_checks.answers",),
        "the honesty checks read a final answer (its language, what it owns up to) only when "
        "the trace has one: without it their records are never built"),
    "eval-without-judged-arguments": Rule(
        EVAL, SMALL, ("toolscore_judge.rulings", "toolscore_core.spans"),
        "the rulings are made for a contract with a $judge argument or an undecided $regex, "
        "and a SpanRef only by the formats that read spans"),
    "eval-of-clean-arguments": Rule(
        EVAL, SMALL, ("toolscore_secrets.scanning",),
        "arguments and a record the prefilter finds clean are never scanned: the scan and "
        "its findings load for suspect text only"),
    "eval-imports-no-runs": Rule(
        EVAL, SMALL, ("toolscore_core.importers",),
        "the run importers are collected when runs are imported (Registry.run_importers): "
        "their records (RunImporter, ImportSource, ImportedRun) are attrs classes built at "
        "every start for nothing"),
    "eval-without-a-judge": Rule(
        EVAL, SMALL, ("toolscore_core.judging",),
        "the judge's record (Judging) is built for --judge, a regrade or a verified judged "
        "receipt, never for a plain eval"),
    "clean-evaluation-small": Rule(
        EVALUATE, SMALL, ("detect_secrets",),
        "detect-secrets (and requests with it) costs about 50 ms to import; toolscore's own "
        "words in the record (credentials, token, key) are no reason to scan"),
    "clean-evaluation-example": Rule(
        EVALUATE, EXAMPLE, ("detect_secrets",),
        "the same with a final answer (its language detector imports requests itself)"),
}

REPORT = ("\nprint(json.dumps(sorted(m for m in sys.modules if m in FORBIDDEN "
          "or m.split('.')[0] in FORBIDDEN)))\n")


@pytest.mark.parametrize("name", RULES)
def test_start_up_imports_stay_within_the_budget(name: str) -> None:
    rule = RULES[name]
    code = (f"import json, sys\nFORBIDDEN = {rule.forbidden!r}\n{rule.what}{REPORT}")
    files = [str(path) for path in rule.files or ()]
    done = subprocess.run([sys.executable, "-c", code, *files], capture_output=True,
                          text=True, check=True, cwd=ROOT, timeout=120)
    imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert imported == [], f"{name}: imported {imported}; the rule: {rule.reason}"
