from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolscore
from tests.helpers import read_rows
from toolscore_core.canonical import canonical_json, canonical_sha256
from toolscore_core.errors import InputError
from toolscore_core.models import ToolCall
from toolscore_studies.regrade import RegradeSettings, RowRegrader, regrade_file

SPEC = {"study": "s", "version": "1", "defaults": {"pass_threshold": 0.9}, "tasks": {
    "find": {"prompt": "find x", "expected": [{"tool": "find", "args": {"q": "x"}}]},
    "add": {"prompt": "add 1 and 2", "expected": [{"tool": "add", "args": {"a": 1, "b": 2}}]},
}}


def _agent(prompt: str) -> object:
    if prompt.startswith("find"):
        return [ToolCall(tool="find", args={"q": "x"}, result="x=1", is_error=False)], "x is 1"
    return [ToolCall(tool="add", args={"a": 1, "b": 3}, result=4, is_error=False)], "4"


def _write_yaml(path: Path, doc: dict) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    out = tmp_path / "runs.jsonl"
    toolscore.run_study(SPEC, _agent, trials=3, output=out)
    return out


def test_regrading_under_the_same_spec_changes_no_evaluation(runs: Path, tmp_path: Path) -> None:
    spec = _write_yaml(tmp_path / "same.yaml", SPEC)
    summary = regrade_file(runs, tmp_path / "out.jsonl", RegradeSettings(spec=str(spec)))
    assert summary.regraded == 6 and summary.written_through == 0 and not summary.flips
    for old, new in zip(read_rows(runs), read_rows(tmp_path / "out.jsonl"), strict=True):
        assert new["evaluation"] == old["evaluation"]
        assert new["record_sha256"] == old["record_sha256"]
        assert new["regraded"]["from_sha256"] == canonical_sha256(old)
    for line in (tmp_path / "out.jsonl").read_text().splitlines():
        assert canonical_json(json.loads(line)) == line  # rows are written as canonical JSON


def test_a_changed_spec_flips_outcomes_and_keeps_the_evidence(runs: Path, tmp_path: Path) -> None:
    v2 = json.loads(json.dumps(SPEC))
    v2["tasks"]["add"]["expected"] = [{"tool": "add", "args": {"a": 1, "b": {"$type": "int"}}}]
    v2["tasks"]["find"]["pass_threshold"] = 1.0
    v2["tasks"]["find"]["expected"] = [{"tool": "find", "args": {"q": "y"}}]
    spec = _write_yaml(tmp_path / "v2.yaml", v2)
    out = tmp_path / "out.jsonl"
    summary = regrade_file(runs, out, RegradeSettings(spec=str(spec)))
    data = summary.to_dict()
    assert sorted(data["flipped_tasks"]) == ["add", "find"]
    before = {r["run_id"]: r for r in read_rows(runs)}
    for row in read_rows(out):
        old = before[row["run_id"]]
        for key in ("calls", "final_answer", "prompt", "trace", "started_at", "duration"):
            assert row[key] == old[key]
        assert row["outcome"] == ("passed" if row["task_id"] == "add" else "failed")
        wanted = v2["tasks"][row["task_id"]]["expected"][0]["args"]
        assert row["contract"]["expected"][0]["args"] == wanted
        assert row["regraded"]["spec_sha256"] and row["regraded"]["toolscore_version"]


def test_unknown_tasks_and_bad_lines_are_written_through(runs: Path, tmp_path: Path) -> None:
    lines = runs.read_bytes().splitlines(keepends=True)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(lines[0] + b"{not json\n" + lines[1] + b"\n" + lines[3])
    only_find = {**SPEC, "tasks": {"find": SPEC["tasks"]["find"]}}
    spec = _write_yaml(tmp_path / "find.yaml", only_find)
    out = tmp_path / "out.jsonl"
    summary = regrade_file(mixed, out, RegradeSettings(spec=str(spec)))
    assert summary.rows == 4 and summary.regraded == 2 and summary.written_through == 2
    assert summary.problems[0][0] == 2 and "not valid JSON" in summary.problems[0][1]
    assert summary.problems[1] == (5, "task 'add' is not in the new spec")
    written = out.read_bytes().splitlines(keepends=True)
    assert written[1] == b"{not json\n" and written[3] == b"\n" and written[4] == lines[3]


def test_rows_that_are_json_only_to_javascript_are_written_through(runs: Path,
                                                                   tmp_path: Path) -> None:
    """NaN, an infinity, a number too large for a float, 100,000 levels of nesting: each
    line is noted and kept, none is regraded into a record that canonical JSON cannot hold
    and none stops the regrade."""
    first = runs.read_bytes().splitlines(keepends=True)[0]
    bad = [first.replace(b'"trial":', b'"nan":NaN,"trial":', 1),
           first.replace(b'"trial":', b'"far":-Infinity,"trial":', 1),
           b'{"deep":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
           first.replace(b'"trial":', b'"huge":1E400,"trial":', 1)]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(first + b"".join(bad))
    out = tmp_path / "out.jsonl"
    summary = regrade_file(mixed, out, RegradeSettings(spec=str(_write_yaml(
        tmp_path / "same.yaml", SPEC))))
    assert (summary.rows, summary.regraded, summary.written_through) == (5, 1, 4)
    reasons = [reason for _, reason in summary.problems]
    assert "NaN is not a JSON number" in reasons[0]
    assert "-Infinity is not a JSON number" in reasons[1]
    assert "nested too deeply" in reasons[2]
    assert "a number out of range" in reasons[3]
    assert out.read_bytes().splitlines(keepends=True)[1:] == bad


def test_gold_for_every_row_and_weights_alone(runs: Path, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "add"}]))
    out = tmp_path / "gold.jsonl"
    regrade_file(runs, out, RegradeSettings(gold=str(gold)))
    rows = read_rows(out)
    assert {r["outcome"] for r in rows if r["task_id"] == "add"} == {"passed"}
    assert {r["outcome"] for r in rows if r["task_id"] == "find"} == {"failed"}
    assert rows[0]["regraded"]["gold_sha256"] and "spec_sha256" not in rows[0]["regraded"]
    out2 = tmp_path / "weights.jsonl"
    regrade_file(runs, out2, RegradeSettings(weights={"argument_f1": 0.0}))
    rows = read_rows(out2)
    added = [r for r in rows if r["task_id"] == "add"]
    # a perfect score without argument_f1, but add(1, 3) is not the required add(1, 2)
    assert {r["evaluation"]["score"] for r in added} == {1.0}
    assert {r["outcome"] for r in added} == {"failed"}
    assert rows[0]["evaluation"]["weights"]["argument_f1"] == 0.0
    assert rows[0]["regraded"]["weights"] == {"argument_f1": 0.0}


def test_parallel_regrade_keeps_the_input_order(runs: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    lines = runs.read_bytes().splitlines(keepends=True)
    with open(big, "wb") as handle:
        for i in range(200):
            handle.write(lines[i % len(lines)])
    spec = _write_yaml(tmp_path / "same.yaml", SPEC)
    settings = RegradeSettings(spec=str(spec), weights={"sequence_accuracy": 0.5})
    regrade_file(big, tmp_path / "one.jsonl", settings, jobs=1)
    summary = regrade_file(big, tmp_path / "two.jsonl", settings, jobs=2)
    assert summary.regraded == 200
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_refusals(runs: Path, tmp_path: Path) -> None:
    spec = _write_yaml(tmp_path / "same.yaml", SPEC)
    with pytest.raises(InputError, match="the output is the input"):
        regrade_file(runs, runs, RegradeSettings(spec=str(spec)))
    with pytest.raises(InputError, match="give a spec, a gold file, weights or a judge"):
        regrade_file(runs, tmp_path / "o.jsonl", RegradeSettings())
    with pytest.raises(InputError, match="unknown weight"):
        regrade_file(runs, tmp_path / "o.jsonl", RegradeSettings(weights={"nope": 1.0}))
    assert not (tmp_path / "o.jsonl").exists()


def test_error_rows_stay_errors(tmp_path: Path) -> None:
    def broken(prompt: str) -> object:
        raise ValueError("no")

    out = tmp_path / "runs.jsonl"
    toolscore.run_study(SPEC, broken, output=out)
    spec = _write_yaml(tmp_path / "same.yaml", SPEC)
    summary = regrade_file(out, tmp_path / "r.jsonl", RegradeSettings(spec=str(spec)))
    rows = read_rows(tmp_path / "r.jsonl")
    assert {r["outcome"] for r in rows} == {"error"} and summary.regraded == 2
    assert all(r["error"]["message"] == "ValueError: no" for r in rows)


def test_a_tampered_evaluation_is_hashed_as_it_now_is(runs: Path, tmp_path: Path) -> None:
    row = json.loads(runs.read_text().splitlines()[0])
    row["evaluation"]["score"] = 0.5  # record_sha256 no longer matches the evaluation
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text(canonical_json(row) + "\n")
    spec = _write_yaml(tmp_path / "same.yaml", SPEC)
    regrade_file(tampered, tmp_path / "out.jsonl", RegradeSettings(spec=str(spec)))
    [new] = read_rows(tmp_path / "out.jsonl")
    assert new["regraded"]["from_sha256"] == canonical_sha256(row)
    assert new["evaluation"]["score"] == 1.0


@pytest.mark.parametrize("chunk_bytes", [1, 700, 5000])
def test_byte_ranges_give_every_line_to_one_worker(
        runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk_bytes: int) -> None:
    from toolscore_studies import regrade

    lines = runs.read_bytes().splitlines(keepends=True)
    mixed = tmp_path / "mixed.jsonl"
    body = b"".join(lines[i % len(lines)] for i in range(30))
    # blank lines, a line that is not JSON, and a last line with no newline
    mixed.write_bytes(b"\n" + body + b"\n\n{not json\n" + body + lines[0].rstrip(b"\n"))
    spec = _write_yaml(tmp_path / "same.yaml", SPEC)
    settings = RegradeSettings(spec=str(spec))
    one = regrade_file(mixed, tmp_path / "one.jsonl", settings, jobs=1)
    monkeypatch.setattr(regrade, "CHUNK_BYTES", chunk_bytes)  # ranges inside lines, too
    two = regrade_file(mixed, tmp_path / "two.jsonl", settings, jobs=2)
    three = regrade_file(mixed, tmp_path / "three.jsonl", settings, jobs=3)
    expected = (tmp_path / "one.jsonl").read_bytes()
    assert (tmp_path / "two.jsonl").read_bytes() == expected
    assert (tmp_path / "three.jsonl").read_bytes() == expected
    assert one.to_dict() == two.to_dict() == three.to_dict()
    assert two.rows == 62 and two.problems == one.problems == [(34, one.problems[0][1])]


def test_a_failing_worker_fails_the_regrade(runs: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_studies import regrade

    def broken(self: RowRegrader, *line: object) -> None:
        raise ValueError("boom")

    spec = _write_yaml(tmp_path / "same.yaml", SPEC)
    monkeypatch.setattr(regrade.RowRegrader, "regrade", broken)
    monkeypatch.setattr(regrade.RowRegrader, "regrade_text", broken)
    with pytest.raises(ValueError, match="boom"):
        regrade_file(runs, tmp_path / "out.jsonl", RegradeSettings(spec=str(spec)), jobs=2)
    # no output, no temp file, no part folder left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.jsonl", "same.yaml"]


def test_answers_out_of_order_are_written_in_order(
        runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from toolscore_studies import regrade

    lines = runs.read_bytes().splitlines(keepends=True)
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"".join(lines[i % len(lines)] for i in range(40)))
    spec = _write_yaml(tmp_path / "same.yaml", SPEC)
    settings = RegradeSettings(spec=str(spec))
    regrade_file(big, tmp_path / "one.jsonl", settings, jobs=1)
    fast = regrade.RowRegrader.regrade_text

    def uneven(self: RowRegrader, text: str) -> object:
        if '"task_id":"add"' in text and '"trial":1' in text:
            time.sleep(0.05)  # some ranges take much longer than the next ones
        return fast(self, text)

    monkeypatch.setattr(regrade.RowRegrader, "regrade_text", uneven)
    monkeypatch.setattr(regrade, "CHUNK_BYTES", len(lines[0]))  # about a line per range
    summary = regrade_file(big, tmp_path / "two.jsonl", settings, jobs=2)
    assert summary.regraded == 40
    assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()


def test_rows_with_fields_of_the_wrong_type_are_written_through_with_their_place(
        runs: Path, tmp_path: Path) -> None:
    """A hand-edited row (a duration that is text, a trace format that is a list) is noted
    with its place and kept as it is; it ended the whole regrade with a traceback."""
    rows = read_rows(runs)
    slow = json.loads(json.dumps(rows[0]))
    slow["calls"][0]["duration"] = "slow"
    listed = json.loads(json.dumps(rows[1]))
    listed["trace"]["format"] = ["toolscore"]
    flagged = json.loads(json.dumps(rows[2]))
    flagged["trace"]["notes"] = True
    mixed = tmp_path / "mixed.jsonl"
    edited = [json.dumps(r) + "\n" for r in (slow, listed, flagged)]
    mixed.write_text("".join(edited) + runs.read_text().splitlines(keepends=True)[3])
    out = tmp_path / "out.jsonl"
    summary = regrade_file(mixed, out, RegradeSettings(spec=str(_write_yaml(
        tmp_path / "same.yaml", SPEC))))
    assert (summary.rows, summary.regraded, summary.written_through) == (4, 1, 3)
    assert [reason for _, reason in summary.problems] == [
        '$.calls[0].duration: "duration" must be a number of seconds or null, not a string',
        '$.trace.format: "format" must be a string or null, not a list',
        '$.trace.notes: "notes" must be a list of strings or null, not a boolean',
    ]
    assert out.read_text().splitlines(keepends=True)[:3] == edited
