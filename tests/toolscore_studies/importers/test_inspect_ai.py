"""The Inspect AI importer on logs Inspect wrote (examples/benchmarks/inspect_ai): each sample of
each epoch a run, its verdict the log's own score, sample by sample."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, read_rows, run_cli, write_json
from toolscore_core.errors import InputError
from toolscore_studies.importers.inspect_scores import as_float, decide
from toolscore_studies.importing import import_runs
from toolscore_studies.summary import summarize_file

LOGS = EXAMPLES / "benchmarks" / "inspect_ai"
ARITHMETIC = LOGS / "arithmetic.json"
STREAMING = LOGS / "log_streaming.eval"
NO_SAMPLES = Path(__file__).parent / "fixtures" / "inspect_ai_no_samples.json"


def _import(tmp_path: Path, log: Path, **options: str) -> dict[tuple[str, int], dict[str, Any]]:
    out = tmp_path / "runs.jsonl"
    import_runs("inspect_ai", str(log), str(out), options=options)
    return {(r["task_id"], r["trial"]): r for r in read_rows(out)}


def _json_samples(log: Path) -> list[dict[str, Any]]:
    return list(json.loads(log.read_text(encoding="utf-8"))["samples"])


def _eval_samples(log: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with zipfile.ZipFile(log) as archive:
        header = json.loads(archive.read("header.json"))
        return header, [json.loads(archive.read(n)) for n in archive.namelist()
                        if n.startswith("samples/")]


def _metric(results: dict[str, Any], scorer: str) -> float:
    (score,) = [s for s in results["scores"] if s["name"] == scorer]
    return float(next(iter(score["metrics"].values()))["value"])


def test_each_sample_of_each_epoch_is_a_run_judged_by_its_headline_score(
        tmp_path: Path) -> None:
    rows = _import(tmp_path, ARITHMETIC)
    samples = _json_samples(ARITHMETIC)
    assert sorted(rows) == sorted((s["id"], s["epoch"]) for s in samples) and len(rows) == 4
    for sample in samples:
        row = rows[(sample["id"], sample["epoch"])]
        verdict = row["imported"]["verdict"]
        assert verdict["scorer"] == "includes"  # the log's headline scorer
        assert verdict["value"] == sample["scores"]["includes"]["value"]
        assert row["passed"] is (sample["scores"]["includes"]["value"] == "C")
        assert {name: s["value"] for name, s in verdict["scores"].items()} == {
            name: s["value"] for name, s in sample["scores"].items()}
        asked = [(c["function"], c["arguments"]) for m in sample["messages"]
                 if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        assert [(c["tool"], c["args"]) for c in row["calls"]] == asked
        assert row["prompt"] == sample["input"]
        assert row["duration"] == sample["total_time"]
        assert row["final_answer"] == sample["output"]["completion"]
    wrong = rows[("multiply", 2)]
    assert (wrong["outcome"], wrong["final_answer"]) == ("failed", "13")
    assert [(c["tool"], c["args"], c["result"]) for c in wrong["calls"]] == [
        ("add", {"x": 6, "y": 7}, "13"), ("submit", {"answer": "13"}, "13")]
    assert wrong["imported"]["verdict"]["scores"]["includes"] == {
        "value": "I", "answer": "13", "explanation": "13"}
    assert wrong["agent"] == "mockllm/model" and wrong["trace"]["usage"]
    assert wrong["evaluation"] is None and "evaluation" in wrong["unknown"]


def test_the_summary_gives_the_log_s_accuracy_as_the_pass_rate(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    import_runs("inspect_ai", str(ARITHMETIC), str(out))
    results = json.loads(ARITHMETIC.read_text(encoding="utf-8"))["results"]
    total = summarize_file(out).to_dict(2)["total"]
    assert total["pass_rate"] == _metric(results, "includes") == 0.75
    assert total["pass_hat_k"]["2"] == (1 + 0) / 2  # add passes both epochs, multiply one


def test_another_scorer_decides_when_asked(tmp_path: Path) -> None:
    rows = _import(tmp_path, ARITHMETIC, scorer="exact")
    assert rows[("add", 2)]["outcome"] == "failed"  # "The answer is 42" is not exactly 42
    assert rows[("add", 2)]["imported"]["verdict"]["value"] == "I"
    results = json.loads(ARITHMETIC.read_text(encoding="utf-8"))["results"]
    passed = [r["passed"] for r in rows.values()]
    assert sum(passed) / len(passed) == _metric(results, "exact") == 0.5


def test_a_real_eval_archive_reads_sample_by_sample(tmp_path: Path) -> None:
    """inspect_ai's own test log: Llama 3.1 405B, two samples, two epochs, match()."""
    rows = _import(tmp_path, STREAMING)
    header, samples = _eval_samples(STREAMING)
    assert list(rows) == [("1", 1), ("2", 1), ("1", 2), ("2", 2)]  # Inspect's order
    for sample in samples:
        row = rows[(str(sample["id"]), sample["epoch"])]
        assert row["passed"] is (sample["scores"]["match"]["value"] == "C")
        assert row["final_answer"] == sample["output"]["choices"][0]["message"]["content"]
        assert row["calls"] == []
    assert rows[("1", 1)]["imported"]["place"] == "samples/1_epoch_1.json"
    out = tmp_path / "runs.jsonl"
    total = summarize_file(out).to_dict(2)["total"]
    assert total["pass_rate"] == _metric(header["results"], "match") == 0.75


def test_importing_again_gives_the_same_bytes(tmp_path: Path) -> None:
    for name in ("a.jsonl", "b.jsonl"):
        import_runs("inspect_ai", str(STREAMING), str(tmp_path / name))
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_a_numeric_score_of_zero_fails_and_the_calls_are_read(tmp_path: Path) -> None:
    ((key, row),) = _import(tmp_path, LOGS / "log_message_deduplication.eval").items()
    assert key == ("0", 1) and row["outcome"] == "failed"
    assert row["imported"]["verdict"]["value"] == 0.0
    assert [c["tool"] for c in row["calls"]] == ["bash"] * 5
    first = row["calls"][0]
    assert first["args"] == {"cmd": "ls"} and first["result"].startswith("bin\nboot\n")


def test_a_sample_that_errored_is_an_error_run(tmp_path: Path) -> None:
    rows = _import(tmp_path, LOGS / "stock.json")
    errored = rows[("acme", 1)]
    assert errored["outcome"] == "error" and errored["passed"] is False
    assert errored["error"] == {"kind": "imported", "exit_code": None, "stderr_tail": None,
                                "message": "ConnectionError('quote service unreachable')"}
    assert errored["imported"]["verdict"] == {
        "error": "ConnectionError('quote service unreachable')", "scores": {}, "passed": None}
    assert [c["tool"] for c in errored["calls"]] == ["stock_price"]
    assert rows[("sum", 1)]["outcome"] == "passed"
    # Inspect leaves the errored sample out of its accuracy (1.0); a runs file counts it
    total = summarize_file(tmp_path / "runs.jsonl").to_dict(1)["total"]
    assert (total["errors"], total["pass_rate"]) == (1, 0.5)


def test_an_unscored_log_is_refused_unless_a_contract_evaluates_it(tmp_path: Path) -> None:
    log = LOGS / "unscored.json"
    out = tmp_path / "runs.jsonl"
    with pytest.raises(InputError, match=r"unscored\.json: \$\.samples\[0\]: the file holds no "
                       r"verdict for this run \(the sample has no score: the log was written "
                       r"without scoring it \(`inspect score LOG` scores a log\)\); give a "
                       r"setting that finds it \(--option scorer"):
        import_runs("inspect_ai", str(log), str(out))
    assert not out.exists()
    gold = write_json(tmp_path / "gold.json", [{"tool": "add", "args": {"x": 2, "y": 2}},
                                               {"tool": "submit", "args": {"answer": "4"}}])
    import_runs("inspect_ai", str(log), str(out), gold=str(gold))
    (row,) = read_rows(out)
    assert row["outcome"] == "passed" and row["evaluation"]["score"] == 1.0


def test_a_scorer_the_samples_lack_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"\$\.samples\[0\]: the file holds no verdict for this "
                       r"run \(the sample has no score of the scorer 'f1' \(it has includes, "
                       r"exact\)"):
        _import(tmp_path, ARITHMETIC, scorer="f1")


def test_an_eval_archive_this_python_cannot_decompress(tmp_path: Path) -> None:
    """Inspect 0.3.285 compresses with Zstandard, which zipfile reads from Python 3.14."""
    log = LOGS / "arithmetic.eval"
    if sys.version_info >= (3, 14):
        rows = _import(tmp_path, log)
        json_rows = _import(tmp_path, ARITHMETIC)
        assert {k: r["passed"] for k, r in rows.items()} == {
            k: r["passed"] for k, r in json_rows.items()}
        return
    with pytest.raises(InputError, match=r"arithmetic\.eval: header\.json: compressed with ZIP "
                       r"method 93, .*; write the log as JSON \(`inspect log dump LOG"):
        _import(tmp_path, log)
    assert not (tmp_path / "runs.jsonl").exists()


@pytest.mark.parametrize(("log", "message"), [
    (NO_SAMPLES, r"inspect_ai_no_samples\.json: \$\.samples: the log holds no samples"),
    (ARITHMETIC.parent / "make_logs.py", r"make_logs\.py: \$: not JSON"),
    (EXAMPLES / "benchmarks" / "tau_bench" / "gpt-4o-airline.json",
     r"\$: not an Inspect eval log \(no \"eval\" object\)"),
])
def test_a_file_that_is_no_log_of_samples_is_one_line(tmp_path: Path, log: Path,
                                                      message: str) -> None:
    with pytest.raises(InputError, match=message):
        _import(tmp_path, log)


def test_the_pass_rule_is_inspect_s_reading_of_a_value() -> None:
    assert [as_float(v) for v in ("C", "P", "I", "N", "yes", "False", "0.25", True, 3)] == [
        1.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.25, 1.0, 3.0]
    assert as_float({"a": "C"}) is None and as_float("maybe") is None
    assert decide({"m": {"value": "P"}}, None)[0] is False  # partial credit is no pass
    assert decide({"m": {"value": 1}}, "m")[0] is True
    for value in ({"a": "C"}, 7, "maybe"):
        passed, _, why = decide({"m": {"value": value}}, "m")
        assert passed is None and why and "does not read as correct" in why
    passed, _, why = decide({"a": {"value": "C"}, "b": {"value": "I"}}, None)
    assert passed is None and why and "--option scorer=NAME" in why


def test_cli_imports_with_an_option_and_refuses_a_bad_one(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    done = run_cli("runs", "import", "inspect_ai", str(ARITHMETIC), "-o", str(out),
                   "--option", "scorer=exact")
    assert done.returncode == 0, done.stderr
    assert "4 runs imported" in done.stdout and "50.0%" in done.stdout
    summary = run_cli("summary", str(out), "--json", "-")
    assert json.loads(summary.stdout)["total"]["pass_rate"] == 0.5  # exact's mean in the log
    for option, line in [("scorer", "error: --option: bad option 'scorer'; write NAME=VALUE"),
                         ("judge=x", "error: --option: inspect_ai has no option 'judge'; it "
                          "takes scorer")]:
        done = run_cli("runs", "import", "inspect_ai", str(ARITHMETIC), "-o",
                       str(tmp_path / "other.jsonl"), "--option", option)
        assert done.returncode == 2 and done.stderr.startswith(line), done.stderr
        assert done.stderr.count("\n") == 1 and not (tmp_path / "other.jsonl").exists()
