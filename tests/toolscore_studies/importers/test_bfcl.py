"""The BFCL importer on real gpt-oss-120b answers (examples/benchmarks/bfcl)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES
from toolscore_core.errors import InputError
from toolscore_studies.importers.bfcl import calls_of
from toolscore_studies.importing import import_runs

BFCL = EXAMPLES / "benchmarks" / "bfcl"
RESULT = BFCL / "result" / "BFCL_v4_simple_python_result.json"
SCORE = BFCL / "score" / "BFCL_v4_simple_python_score.json"
QUESTIONS = BFCL / "BFCL_v4_simple_python.json"


def _rows(path: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {r["task_id"]: r for r in rows}


def test_answers_become_runs_with_the_leaderboard_s_verdict(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    count = import_runs("bfcl", str(RESULT), str(out),
                        inputs={"score": str(SCORE), "questions": str(QUESTIONS)})
    assert count == 4
    rows = _rows(out)
    assert [r["outcome"] for r in rows.values()] == ["passed", "passed", "failed", "failed"]
    first = rows["simple_python_0"]
    assert [(c["tool"], c["args"]) for c in first["calls"]] == [
        ("calculate_triangle_area", {"base": 10, "height": 5})]
    assert first["calls"][0]["raw_args"] == '{"base": 10, "height": 5}'
    assert first["calls"][0]["is_error"] is None  # BFCL does not execute the call
    assert first["prompt"].startswith("Find the area of a triangle")
    assert first["imported"]["verdict"] == {"passed": True, "valid": True}
    assert first["duration"] == pytest.approx(0.8497052192687988)
    assert first["trace"]["usage"] == {"input_tokens": 192, "output_tokens": 69}
    assert first["trace"]["model"] == "openai_gpt-oss-120b" == first["agent"]
    typed = rows["simple_python_13"]["imported"]["verdict"]
    assert typed["passed"] is False and typed["error_type"] == "type_error:nested"


def test_without_the_score_file_there_is_no_verdict_to_keep(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    with pytest.raises(InputError, match=r"line 1: the file holds no verdict for this run; "
                       r"give its companion files \(--input questions, score"):
        import_runs("bfcl", str(RESULT), str(out))
    assert not out.exists()


def test_a_score_file_of_other_answers_is_refused(tmp_path: Path) -> None:
    other = BFCL / "score" / "BFCL_v4_multiple_score.json"
    with pytest.raises(InputError, match=r"BFCL_v4_multiple_score.json: the score file lists "
                       r"'multiple_10', which the result file does not hold"):
        import_runs("bfcl", str(RESULT), str(tmp_path / "runs.jsonl"),
                    inputs={"score": str(other)})
    assert not (tmp_path / "runs.jsonl").exists()


def test_calls_written_as_python_are_read_without_running_them() -> None:
    calls, text, note = calls_of('[math.hypot(x=4, y=5), f(items=[1, "a"], flag=True)]',
                                 "line 1")
    assert [(c.tool, c.args) for c in calls] == [("math.hypot", {"x": 4, "y": 5}),
                                                 ("f", {"items": [1, "a"], "flag": True})]
    assert text is None and note is None
    calls, text, note = calls_of("[__import__('os').system('x')]", "line 1")
    assert calls == () and text == "[__import__('os').system('x')]"
    assert note == "the result is text, not function calls"


def test_a_text_answer_is_a_run_without_calls() -> None:
    calls, text, _ = calls_of("I cannot help with that.", "line 3")
    assert calls == () and text == "I cannot help with that."


def test_a_list_among_calls_is_refused_with_the_place() -> None:
    with pytest.raises(InputError, match=r"line 2\.result\[1\]: a list among calls"):
        calls_of([{"ls": "{}"}, [{"ls": "{}"}]], "line 2")
