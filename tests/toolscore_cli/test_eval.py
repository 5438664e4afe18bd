"""``toolscore eval`` as a user runs it: verdict, JSON, thresholds, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES, run_cli, write_json

GOLD, TRACE = str(EXAMPLES / "gold.json"), str(EXAMPLES / "trace.json")


def test_console_verdict_on_the_bundled_example() -> None:
    out = run_cli("eval", GOLD, TRACE)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Score 87.5% B" in text
    assert "selection_accuracy" in text and "argument_f1" in text
    assert "2.303s (3 of 4 calls)" in text
    assert "cost" in text and "unknown" in text
    assert "call #2 book_flight failed" in text
    assert "Evidence: " in text


def test_json_to_stdout_is_the_record_with_a_summary() -> None:
    out = run_cli("eval", GOLD, TRACE, "--json", "-")
    assert out.returncode == 0
    record = json.loads(out.stdout)
    assert record["schema_version"] == "2"
    assert record["summary"]["latency_status"] == "partial"
    assert record["summary"]["total_duration"] == 2.303
    assert record["summary"]["cost_status"] == "unknown"
    assert record["summary"]["total_cost"] is None
    assert "Score" in out.stderr


def test_json_file_is_written_only_when_asked(tmp_path: Path) -> None:
    before = set(tmp_path.iterdir())
    out = run_cli("eval", GOLD, TRACE, cwd=tmp_path)
    assert out.returncode == 0 and set(tmp_path.iterdir()) == before
    report = tmp_path / "out" / "report.json"
    assert run_cli("eval", GOLD, TRACE, "--json", str(report)).returncode == 0
    assert json.loads(report.read_text())["grade"] == "B"
    assert [p.name for p in report.parent.iterdir()] == ["report.json"]


@pytest.mark.parametrize(("threshold", "code"), [("0.8", 0), ("B", 0), ("A", 1), ("90%", 1)])
def test_fail_under(threshold: str, code: int) -> None:
    assert run_cli("eval", GOLD, TRACE, "--fail-under", threshold).returncode == code


def test_fail_under_prints_the_actual_score() -> None:
    out = run_cli("eval", GOLD, TRACE, "--fail-under", "A")
    assert out.returncode == 1
    assert out.stdout.splitlines()[-1] == "score 87.5% B is below --fail-under A"


# The bundled example: required-calls (book_flight with other passengers) and call-errors
# fail, claimed-success is unknown, the rest pass.
@pytest.mark.parametrize("args, code, last", [
    (["--fail-on-evidence"], 1,
     "evidence: required-calls fail, call-errors fail (--fail-on-evidence)"),
    (["--fail-on-evidence=call-errors"], 1, "evidence: call-errors fail (--fail-on-evidence)"),
    (["--fail-on-evidence", "credentials,claimed-success"], 0, None),
    (["--fail-on-evidence=credentials,claimed-success", "--strict-unknown"], 1,
     "evidence: claimed-success unknown (--fail-on-evidence --strict-unknown)"),
    (["--strict-unknown"], 1, "evidence: required-calls fail, call-errors fail, "
                              "claimed-success unknown (--fail-on-evidence --strict-unknown)"),
    ([], 0, None),
])
def test_fail_on_evidence(args: list[str], code: int, last: str | None) -> None:
    out = run_cli("eval", GOLD, TRACE, *args)
    assert out.returncode == code, out.stderr
    if last is not None:
        assert out.stdout.splitlines()[-1] == last
    else:
        assert not out.stdout.splitlines()[-1].startswith("evidence: ")


def test_fail_on_evidence_names_an_unknown_check() -> None:
    out = run_cli("eval", GOLD, TRACE, "--fail-on-evidence=call-error")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error: --fail-on-evidence: unknown check 'call-error'; name "
                                 "checks among answer-correct, call-errors, claimed-success")


def test_weights_change_the_score() -> None:
    out = run_cli("eval", GOLD, TRACE, "--weight", "sequence_accuracy=0", "--json", "-")
    record = json.loads(out.stdout)
    assert record["weights"]["sequence_accuracy"] == 0.0
    assert record["score"] != 0.875


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        (lambda d: (str(d / "missing.json"), TRACE), "gold file not found"),
        (lambda d: (str(write_json(d / "g.json", {"expected": [{"tool": 3}]})), TRACE),
         '$.expected[0]: "tool" must be a non-empty string'),
        (lambda d: (GOLD, str(write_json(d / "t.json", {"what": "ever"}))),
         "no trace format recognises this document"),
        (lambda d: (GOLD, TRACE, "--format", "nope"), "unknown trace format 'nope'"),
        (lambda d: (GOLD, TRACE, "--weight", "speed=1"), "unknown weight 'speed'"),
        (lambda d: (GOLD, TRACE, "--fail-under", "excellent"), "bad threshold 'excellent'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, setup, words: str) -> None:
    out = run_cli("eval", *setup(tmp_path))
    assert out.returncode == 2
    assert words in out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_invalid_json_trace_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "trace.json"
    bad.write_text('{"calls": [\n  {"tool": "a"\n')
    out = run_cli("eval", GOLD, str(bad))
    assert out.returncode == 2
    assert f"{bad}: line 3 column 1: invalid JSON" in out.stderr


def test_a_trace_that_holds_calls_but_parses_to_none_is_an_error(tmp_path: Path) -> None:
    trace = write_json(tmp_path / "t.json", {"calls": [], "final_answer": "done",
                                              "metadata": {"tool_calls": [{"id": "x"}]}})
    out = run_cli("eval", GOLD, str(trace))
    assert out.returncode == 2
    assert 'found no tool calls, but the document holds a non-empty "tool_calls"' in out.stderr


@pytest.mark.parametrize(("value", "problem"), [
    ("[" * 100_000 + "]" * 100_000, "line 1 column 100068: values nested 100,003 levels deep"),
    ("9" * 5000, "line 1 column 69: a number of more than 4,300 digits"),
])
def test_a_trace_only_javascript_reads_is_one_line_and_nothing_written(
        tmp_path: Path, value: str, problem: str) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text('{"calls": [{"tool": "a", "result": 1, "args": {"x": 1}, "duration": '
                     f"{value}}}]}}")
    report = tmp_path / "out.json"
    out = run_cli("eval", GOLD, str(trace), "--json", str(report))
    assert out.returncode == 2
    assert out.stdout == "" and not report.exists()
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"error: {trace}: ") and problem in out.stderr


def test_an_error_that_quotes_a_credential_masks_it(tmp_path: Path) -> None:
    """Error lines quote the input (an unknown key here): credentials are masked there too,
    on eval's own fast path and on click's."""
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "a", token: 1}]))
    for args in (("eval", str(gold), TRACE), ("regrade", TRACE, "--gold", str(gold))):
        out = run_cli(*args)
        assert out.returncode == 2
        assert token not in out.stderr and "unknown key 'ghp_…89'" in out.stderr


def test_a_gold_file_with_nan_is_refused_and_a_trace_with_nan_reads_it_as_null(
        tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text('[{"tool": "a", "args": {"x": NaN}}]')
    out = run_cli("eval", str(gold), TRACE)
    assert out.returncode == 2 and out.stderr == (
        f"error: {gold}: line 1 column 30: NaN is not a JSON number; write null, or the number "
        "as a string\n")
    trace = tmp_path / "trace.json"
    trace.write_text('{"calls": [{"tool": "a", "args": {"x": 1}, "result": 1, '
                     '"duration": NaN}]}')
    out = run_cli("eval", str(write_json(tmp_path / "g.json", [{"tool": "a"}])), str(trace),
                  "--json", "-")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["calls"]["actual"][0]["duration"] is None
    assert record["summary"]["latency_status"] == "unknown"
    assert "read as null" in record["trace"]["notes"][0]


CHECKS = EXAMPLES / "checks"


def test_a_config_gives_what_the_flags_give(tmp_path: Path) -> None:
    """examples/checks/toolscore.yaml is --honesty-config honesty.yaml --validate-side-effects
    written as options: the same record; each receipt binds the files it was given."""
    common = (str(CHECKS / "gold.json"), str(CHECKS / "trace.json"),
              "--injected", str(CHECKS / "injected.json"))
    flags, config = tmp_path / "flags.receipt.json", tmp_path / "config.receipt.json"
    out = run_cli("eval", *common, "--honesty-config", str(CHECKS / "honesty.yaml"),
                  "--validate-side-effects", "--receipt", str(flags))
    assert out.returncode == 0, out.stderr
    out = run_cli("eval", *common, "--config", str(CHECKS / "toolscore.yaml"),
                  "--receipt", str(config))
    assert out.returncode == 0, out.stderr
    by_flags, by_config = json.loads(flags.read_text()), json.loads(config.read_text())
    assert by_config["result"] == by_flags["result"]
    assert by_config["settings"]["validate_side_effects"] is True
    assert "config" not in by_flags["inputs"]
    assert by_config["inputs"]["config"]["path"].endswith("examples/checks/toolscore.yaml")
    assert by_config["inputs"]["honesty_config"] is None


def test_eval_offers_each_flag_the_plugins_declare_as_they_declare_it() -> None:
    """A switch (``Setting.reads`` None) is a click flag; a flag that reads a file takes a
    path; flags several plugins share are one option."""
    import click

    from toolscore_cli.app import cli
    from toolscore_core.config import flags
    from toolscore_core.plugins import build_registry, get_plugin_manager

    declared = flags(build_registry(get_plugin_manager(entry_points=False, env={})).settings)
    command = cli.get_command(click.Context(cli), "eval")
    assert command is not None
    offered = {opt: param for param in command.params for opt in param.opts}
    assert len(declared) == 3
    for flag, targets in declared.items():
        assert flag in offered, flag
        reads = {setting.reads for _, setting in targets}
        assert len(reads) == 1, flag
        assert getattr(offered[flag], "is_flag", False) is (reads == {None}), flag


def test_a_flag_of_a_disabled_plugin_is_an_error_naming_it() -> None:
    out = run_cli("eval", str(CHECKS / "gold.json"), str(CHECKS / "trace.json"),
                  "--validate-side-effects",
                  env={"TOOLSCORE_DISABLE_PLUGINS": "toolscore_checks.side_effects"})
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr == (
        "error: --validate-side-effects sets an option of the plugin "
        "'toolscore_checks.side_effects', which is disabled; drop --validate-side-effects, "
        "or remove toolscore_checks.side_effects from TOOLSCORE_DISABLE_PLUGINS\n")


def test_a_flag_wins_over_the_config(tmp_path: Path) -> None:
    config = write_json(tmp_path / "toolscore.json", {"side-effects": {"validate": False}})
    gold, trace = str(CHECKS / "gold.json"), str(CHECKS / "trace.json")
    out = run_cli("eval", gold, trace, "--config", str(config), "--validate-side-effects")
    assert "side-effects: 1 of 1 declared side effects not validated: file_contains" in out.stdout


@pytest.mark.parametrize(("text", "message"), [
    ("claimed_success:\n  words: {}\n",
     "$.claimed_success: unknown section 'claimed_success'; sections are the ids of plugins "
     "with options: calls, claimed-success, disclosure, escape-hatch, prompt-injection, "
     "side-effects"),
    ("side-effects:\n  validate: yes please\n",
     "$.side-effects.validate: validate must be true or false, not a string; "
     "write validate: true"),
    ("escape-hatch:\n  words: {extend: {code_execution_tools: sandbox}}\n",
     '$.escape-hatch.words.extend.code_execution_tools: "code_execution_tools" must be a list '
     "of non-empty strings"),
])
def test_a_bad_config_is_one_line_and_exit_2(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "toolscore.yaml"
    config.write_text(text, encoding="utf-8")
    receipt = tmp_path / "r.json"
    out = run_cli("eval", GOLD, TRACE, "--config", str(config), "--receipt", str(receipt))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"error: {config}: {message}")
    assert len(out.stderr.splitlines()) == 1 and not receipt.exists()
