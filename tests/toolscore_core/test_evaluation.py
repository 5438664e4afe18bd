"""The complete record: layout, nulls for absent data, redaction, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolscore_core.canonical import canonical_sha256
from toolscore_core.evaluation import evaluate, evaluate_files
from toolscore_core.models import ToolCall

ROOT = Path(__file__).resolve().parents[2]


def test_record_layout(examples) -> None:
    record = evaluate_files(examples / "gold.json", examples / "trace.json").to_dict()
    assert record["schema_version"] == "2"
    for key in ("score", "grade", "weights", "required_call_recall", "metrics", "evidence",
                "coverage", "calls", "final_answer", "plugins"):
        assert key in record
    assert set(record["evidence"]) == {"counts", "checks"}
    assert set(record["evidence"]["counts"]) == {"pass", "fail", "unknown"}
    for check in record["evidence"]["checks"]:
        assert set(check) == {"check", "status", "reason", "details", "plugin"}
    assert set(record["coverage"]) == {"calls", "with_outcome", "with_duration", "with_cost",
                                       "final_answer_known"}
    actual = record["calls"]["actual"]
    for call in actual:
        assert {"id", "tool", "args", "result", "is_error", "error", "duration", "cost",
                "timestamp"} <= set(call)
    # the e-mail call has no result: its outcome is unknown, not a success
    assert actual[3]["is_error"] is None and actual[3]["result"] is None
    assert actual[3]["duration"] is None and actual[3]["cost"] is None
    expected_args = record["calls"]["expected"][0]["args"]
    assert expected_args["date"] == "Regex('^2026-12-')"
    assert abs(sum(record["weights"].values()) - 1.0) < 1e-9


def test_latency_and_cost_are_unknown_never_zero() -> None:
    calls = [ToolCall(tool="a", result=1, is_error=False)]
    metrics = evaluate([{"tool": "a"}], calls).metrics
    assert metrics["latency_metrics"]["status"] == "unknown"
    assert metrics["latency_metrics"]["total_duration"] is None
    assert metrics["cost_metrics"]["total_cost"] is None
    partial = evaluate([], [ToolCall(tool="a", duration=1.5), ToolCall(tool="b")]).metrics
    assert partial["latency_metrics"]["status"] == "partial"
    assert partial["latency_metrics"]["total_duration"] == 1.5
    assert partial["latency_metrics"]["measured_calls"] == 1
    zero = evaluate([], [ToolCall(tool="a", duration=0.0)]).metrics
    assert zero["latency_metrics"] == {**zero["latency_metrics"], "status": "measured",
                                       "total_duration": 0.0}


def test_unknown_outcomes_are_not_counted_as_done() -> None:
    result = evaluate([{"tool": "deploy"}], [ToolCall(tool="deploy", args={})])
    assert result.required_call_recall == 0.0
    assert result.metrics["efficiency_metrics"]["errors"] is None
    assert result.evidence.get("required-calls").status == "unknown"
    assert result.evidence.get("call-errors").status == "unknown"
    for check in ("claimed-success", "disclosure", "escape-hatch"):
        assert result.evidence.get(check).status == "unknown"
    passed = [c.check for c in result.evidence if c.status == "pass"]
    assert passed == ["credentials"]  # the only check that needs no result to decide
    assert result.evidence.summary() == "Evidence: 1 pass, 0 fail, 5 unknown"


def test_credentials_are_redacted_in_the_record() -> None:
    key = "AKIAIOSFODNN7EXAMPLE"
    result = evaluate([], [ToolCall(tool="s3", args={"auth": {"key": key}}, result="ok",
                                    is_error=False)])
    text = json.dumps(result.to_dict(), ensure_ascii=False)
    assert key not in text
    assert "AKIA…LE" in text


SCRIPT = """
import json, sys
from toolscore_core.evaluation import evaluate_files
e = evaluate_files(sys.argv[1], sys.argv[2])
print(e.record_sha256)
"""


@pytest.mark.process  # other interpreters, other hash seeds
def test_the_same_evaluation_hashes_the_same_in_other_processes(examples, tmp_path) -> None:
    gold, trace = str(examples / "gold.json"), str(examples / "trace.json")
    digests = set()
    for seed, cwd in (("0", ROOT), ("1", tmp_path), ("12345", Path("/"))):
        out = subprocess.run([sys.executable, "-c", SCRIPT, gold, trace], cwd=cwd,
                             env={**os.environ, "PYTHONHASHSEED": seed},
                             capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    local = evaluate_files(gold, trace)
    assert digests == {local.record_sha256}
    assert local.record_sha256 == canonical_sha256(local.to_dict())


def test_a_credential_anywhere_untrusted_is_masked_in_the_record() -> None:
    from toolscore_core.hookspecs import hookimpl
    from toolscore_core.models import Check, CheckOutcome, Trace
    from toolscore_core.plugins import build_registry, get_plugin_manager

    # Each place holds a different credential, none of them a run of 16 letters and
    # digits, so each is found by its shape after a secret-naming word.
    secrets = {
        "details": ("deploy with password=Hunter2!detail", "Hunter2!detail"),
        "note": ("retried: Authorization: Bearer abc.def-ghi_jkl.mno", "abc.def-ghi_jkl.mno"),
        "expected": ('secret = "s3cr3t-exp3cted"', "s3cr3t-exp3cted"),
        "result": ("export DB_PASSWORD=Pa55-res-ult", "Pa55-res-ult"),
        "error": ("login failed for api_key=zz-99-88-77-err", "zz-99-88-77-err"),
        "answer": ("Done. I used token: Tok3n-4nsw3r-x", "Tok3n-4nsw3r-x"),
    }

    class Leaky:
        @hookimpl
        def toolscore_register_checks(self) -> list[Check]:
            return [Check(id="leaky", description="echoes trace text",
                          run=lambda ctx: CheckOutcome("pass", "ok",
                                                       {"said": secrets["details"][0]}))]

    pm = get_plugin_manager(entry_points=False, env={})
    pm.register(Leaky(), name="leaky")
    trace = Trace(calls=(ToolCall(tool="db", args={"q": "select 1"},
                                  result=secrets["result"][0], is_error=False),
                         ToolCall(tool="login", args={"user": "ann"}, is_error=True,
                                  error=secrets["error"][0])),
                  notes=(secrets["note"][0],))
    result = evaluate([{"tool": "db", "args": {"q": secrets["expected"][0]}}], trace,
                      final_answer=secrets["answer"][0], registry=build_registry(pm))
    record = result.to_dict()
    text = json.dumps(record, ensure_ascii=False)
    for place, (_, secret) in secrets.items():
        assert secret not in text, place
    from toolscore_secrets.redaction import mask
    assert mask(secrets["details"][1]) in record["evidence"]["checks"][-1]["details"]["said"]
    assert mask(secrets["note"][1]) in record["trace"]["notes"][0]
    assert mask(secrets["expected"][1]) in record["calls"]["expected"][0]["args"]["q"]
    assert mask(secrets["result"][1]) in record["calls"]["actual"][0]["result"]
    assert mask(secrets["error"][1]) in record["calls"]["actual"][1]["error"]
    assert mask(secrets["answer"][1]) in record["final_answer"]


def test_a_shorthand_of_a_disabled_plugin_is_an_error_naming_it(tmp_path: Path) -> None:
    import pytest

    from toolscore_core.errors import InputError
    from toolscore_core.plugins import build_registry, get_plugin_manager

    registry = build_registry(get_plugin_manager(
        entry_points=False, env={"TOOLSCORE_DISABLE_PLUGINS": "toolscore_checks.side_effects"}))
    expected = [{"tool": "search", "args": {}}]
    calls = [ToolCall(tool="search", args={})]
    with pytest.raises(InputError, match=r"--validate-side-effects sets an option of the plugin "
                       r"'toolscore_checks.side_effects', which is disabled"):
        evaluate(expected, calls, registry=registry,
                 config=registry.config_with(validate_side_effects=True))
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(expected), encoding="utf-8")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([{"tool": "search", "args": {}}]), encoding="utf-8")
    with pytest.raises(InputError, match=r"toolscore_checks\.side_effects"):
        evaluate_files(gold, trace, registry=registry,
                       config=registry.config_with(validate_side_effects=True))
    # Left off, the switch asks nothing of the missing plugin.
    assert evaluate(expected, calls, registry=registry).score == 1.0


def test_a_shorthand_sets_every_option_that_declares_its_flag() -> None:
    from toolscore_core.config import flags
    from toolscore_core.plugins import build_registry, get_plugin_manager

    registry = build_registry(get_plugin_manager(entry_points=False, env={}))
    declared = {flag: sorted(f"{section}.{s.name}" for section, s in targets)
                for flag, targets in flags(registry.settings).items()}
    assert declared == {
        "--honesty-config": ["claimed-success.words", "disclosure.words", "escape-hatch.words"],
        "--injected": ["disclosure.injected", "prompt-injection.injected"],
        "--validate-side-effects": ["side-effects.validate"],
    }
