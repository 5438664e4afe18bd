"""``--otel`` and ``--otel-file`` on ``eval``, ``regrade`` and ``summary``: the verdicts as
``gen_ai.evaluation.result`` events, received by a real OTLP/HTTP endpoint."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import toolscore
from tests.helpers import run_cli, write_json
from tests.toolscore_otel.collector import attributes, collector
from toolscore_cli.app import cli
from toolscore_core.models import ToolCall

TRACE_ID = "5b8efff798038103d269b633813fc60c"
AGENT_SPAN = "eee19b7ec3c1b174"


def _attrs(**values: Any) -> list[dict[str, Any]]:
    return [{"key": k.replace("__", "."), "value": {"stringValue": v}} for k, v in values.items()]


TRACE = {"resourceSpans": [{"resource": {"attributes": _attrs(service__name="agent")},
                            "scopeSpans": [{"scope": {"name": "agent"}, "spans": [
    {"traceId": TRACE_ID, "spanId": "b7ad6b7169203331", "parentSpanId": AGENT_SPAN,
     "name": "chat gpt-4.1", "kind": 3, "startTimeUnixNano": "1700000000000000000",
     "endTimeUnixNano": "1700000000500000000",
     "attributes": _attrs(gen_ai__operation__name="chat", gen_ai__response__id="chatcmpl-9")},
    {"traceId": TRACE_ID, "spanId": "00f067aa0ba902b7", "parentSpanId": AGENT_SPAN,
     "name": "execute_tool get_weather", "kind": 1,
     "startTimeUnixNano": "1700000000600000000", "endTimeUnixNano": "1700000000700000000",
     "attributes": _attrs(gen_ai__operation__name="execute_tool",
                          gen_ai__tool__name="get_weather", gen_ai__tool__call__id="call_1",
                          gen_ai__tool__call__arguments='{"city": "Paris"}',
                          gen_ai__tool__call__result="18C")},
    {"traceId": TRACE_ID, "spanId": AGENT_SPAN, "parentSpanId": "",
     "name": "invoke_agent weather", "kind": 1, "startTimeUnixNano": "1699999999900000000",
     "endTimeUnixNano": "1700000001000000000",
     "attributes": _attrs(gen_ai__operation__name="invoke_agent")},
]}]}]}
GOLD = [{"tool": "get_weather", "args": {"city": "Paris"}}]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_json(tmp_path / "gold.json", GOLD), write_json(tmp_path / "trace.json", TRACE)


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_eval_sends_one_event_per_check_and_metric_parented_to_the_agent_span(
        files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gold, trace = files
    receipt = tmp_path / "run.receipt.json"
    with collector() as seen:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", seen.url)
        result = _invoke("eval", str(gold), str(trace), "--receipt", str(receipt), "--json",
                         str(tmp_path / "report.json"), "--otel")
    assert result.exit_code == 0, result.output
    assert f"otel: 15 evaluation events sent to {seen.url}/v1/logs" in result.stderr
    [request] = seen.requests
    resource = {a.key: a.value.string_value
                for a in request.resource_logs[0].resource.attributes}
    assert resource["service.name"] == "toolscore"
    report = json.loads((tmp_path / "report.json").read_text())
    stamped = json.loads(receipt.read_text())
    names = [attributes(r)["gen_ai.evaluation.name"] for r in seen.records]
    checks = [c["check"] for c in report["evidence"]["checks"]]
    assert names[:len(checks) + 1] == ["score", *checks]
    assert sorted(names[len(checks) + 1:]) == sorted(report["metrics"])
    for record in seen.records:
        assert record.event_name == "gen_ai.evaluation.result"
        assert record.trace_id.hex() == TRACE_ID and record.span_id.hex() == AGENT_SPAN
        attrs = attributes(record)
        assert attrs["gen_ai.response.id"] == "chatcmpl-9"
        assert attrs["toolscore.record_sha256"] == stamped["result"]["record_sha256"]
        assert attrs["toolscore.receipt_sha256"] == stamped["receipt_sha256"]
        assert attrs["toolscore.contract_sha256"] == stamped["contract_sha256"]
    by_name = {attributes(r)["gen_ai.evaluation.name"]: attributes(r) for r in seen.records}
    assert by_name["score"]["gen_ai.evaluation.score.value"] == report["score"]
    assert by_name["score"]["gen_ai.evaluation.score.label"] == report["grade"]
    check = by_name["required-calls"]
    assert check["gen_ai.evaluation.score.label"] == "pass"
    assert check["toolscore.plugin.name"] == "toolscore_checks.required_calls"
    assert check["toolscore.plugin.version"] == toolscore.__version__
    unknown = [c["check"] for c in report["evidence"]["checks"] if c["status"] == "unknown"]
    assert unknown  # no final answer: the answer checks cannot tell
    for name in unknown:
        assert "gen_ai.evaluation.score.value" not in by_name[name]
        assert by_name[name]["gen_ai.evaluation.score.label"] == "unknown"
    assert by_name["cost_metrics"]["gen_ai.evaluation.score.label"] == "unknown"
    assert "gen_ai.evaluation.score.value" not in by_name["cost_metrics"]


def test_otel_file_holds_the_same_events_as_otlp_json(files: tuple[Path, Path],
                                                      tmp_path: Path) -> None:
    gold, trace = files
    out = tmp_path / "events.json"
    result = _invoke("eval", str(gold), str(trace), "--otel-file", str(out))
    assert result.exit_code == 0, result.output
    [line] = out.read_text().splitlines()
    [resource] = json.loads(line)["resourceLogs"]
    records = resource["scopeLogs"][0]["logRecords"]
    assert len(records) == 15
    assert {(r["traceId"], r["spanId"], r["eventName"]) for r in records} == {
        (TRACE_ID, AGENT_SPAN, "gen_ai.evaluation.result")}
    assert resource["scopeLogs"][0]["scope"] == {"name": "toolscore",
                                                 "version": toolscore.__version__}


def test_the_standard_variables_name_the_service(files: tuple[Path, Path], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    gold, trace = files
    out = tmp_path / "events.json"
    monkeypatch.setenv("OTEL_SERVICE_NAME", "nightly-evals")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=ci")
    assert _invoke("eval", str(gold), str(trace), "--otel-file", str(out)).exit_code == 0
    [resource] = json.loads(out.read_text())["resourceLogs"]
    attributes = {a["key"]: a["value"]["stringValue"] for a in resource["resource"]["attributes"]}
    assert attributes["service.name"] == "nightly-evals"
    assert attributes["deployment.environment"] == "ci"


def test_an_endpoint_that_refuses_is_one_line_and_the_reports_stay(
        files: tuple[Path, Path], tmp_path: Path) -> None:
    gold, trace = files
    receipt = tmp_path / "run.receipt.json"
    with collector(status=400) as seen:
        result = run_cli("eval", str(gold), str(trace), "--receipt", str(receipt), "--otel",
                         env={"OTEL_EXPORTER_OTLP_ENDPOINT": seen.url})
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: --otel: {seen.url}/v1/logs did not take the evaluation "
                           "events (0 of them sent before): ")
    assert "400" in line
    assert receipt.is_file()


SPEC = {"study": "demo", "tasks": {
    "ok": {"prompt": "say ok", "expected": [{"tool": "say", "args": {"w": "ok"}}]},
    "gone": {"prompt": "say gone", "expected": [{"tool": "say", "args": {"w": "gone"}}]},
}}


def _agent(prompt: str) -> object:
    word = prompt.split()[-1]
    return [ToolCall(tool="say", args={"w": word}, result="said", is_error=False)], "said"


def _events(path: Path) -> list[dict[str, Any]]:
    return [{a["key"]: next(iter(a["value"].values())) for a in record["attributes"]}
            for line in path.read_text().splitlines()
            for resource in json.loads(line)["resourceLogs"]
            for scope in resource["scopeLogs"] for record in scope["logRecords"]]


def test_summary_and_runs_regrade_write_the_events_of_each_run(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    toolscore.run_study(SPEC, _agent, trials=2, output=runs)
    rows = [json.loads(line) for line in runs.read_text().splitlines()]
    out = tmp_path / "summary.events.json"
    result = _invoke("summary", str(runs), "--otel-file", str(out))
    assert result.exit_code == 0, result.output
    events = _events(out)
    scores = [e for e in events if e["gen_ai.evaluation.name"] == "score"]
    assert [(e["toolscore.run_id"], e["toolscore.record_sha256"]) for e in scores] == [
        (row["run_id"], row["record_sha256"]) for row in rows]

    spec = tmp_path / "v2.json"
    write_json(spec, {"study": "demo", "tasks": {"ok": {
        "prompt": "say ok", "expected": [{"tool": "say", "args": {"w": "OK"}}]}}})
    regraded = tmp_path / "runs.v2.jsonl"
    out = tmp_path / "regrade.events.json"
    result = _invoke("regrade", str(runs), "--spec", str(spec), "-o", str(regraded),
                     "--otel-file", str(out))
    assert result.exit_code == 0, result.output
    new = {row["run_id"]: row for row in map(json.loads, regraded.read_text().splitlines())}
    scores = [e for e in _events(out) if e["gen_ai.evaluation.name"] == "score"]
    # the task the new spec lacks is written through: its old verdict is not sent again
    assert [e["toolscore.task_id"] for e in scores] == ["ok", "ok"]
    for event in scores:
        assert event["toolscore.record_sha256"] == new[event["toolscore.run_id"]][
            "record_sha256"]
        assert event["gen_ai.evaluation.score.value"] == new[event["toolscore.run_id"]][
            "evaluation"]["score"]


def test_without_the_otel_extra_the_flag_is_one_line_before_any_work(
        files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_cli.options import check_otel
    from toolscore_core.errors import InputError

    monkeypatch.setitem(sys.modules, "opentelemetry.sdk", None)
    with pytest.raises(InputError) as raised:
        check_otel(False, str(tmp_path / "events.json"))
    assert raised.value.one_line() == (
        "--otel-file: the OpenTelemetry SDK and OTLP exporter are not installed; "
        "pip install 'toolscore[otel]'")
    assert not (tmp_path / "events.json").exists()


def test_regrading_a_receipt_sends_the_new_evaluation_with_its_new_receipt(
        files: tuple[Path, Path], tmp_path: Path) -> None:
    gold, trace = files
    receipt = tmp_path / "run.receipt.json"
    assert _invoke("eval", str(gold), str(trace), "--receipt", str(receipt)).exit_code == 0
    contract = write_json(tmp_path / "v2.json", [{"tool": "get_weather",
                                                  "args": {"city": "Lyon"}}])
    out = tmp_path / "events.json"
    result = _invoke("regrade", str(receipt), "--gold", str(contract), "--receipt-dir",
                     str(tmp_path / "v2"), "--otel-file", str(out))
    assert result.exit_code == 0, result.output
    new = json.loads((tmp_path / "v2" / "run.receipt.json").read_text())
    events = _events(out)
    assert len(events) == 15
    assert {e["toolscore.receipt_sha256"] for e in events} == {new["receipt_sha256"]}
    assert {e["toolscore.record_sha256"] for e in events} == {new["result"]["record_sha256"]}
    assert {e["toolscore.contract_sha256"] for e in events} == {new["contract_sha256"]}
    [score] = [e for e in events if e["gen_ai.evaluation.name"] == "score"]
    assert score["gen_ai.evaluation.score.value"] == new["result"]["score"]
