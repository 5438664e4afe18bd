"""The OTLP/HTTP recorder: one file per trace, protobuf and JSON bodies, refusals."""

from __future__ import annotations

import gzip
import http.client
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from toolscore_core.errors import InputError
from toolscore_core.traces import load_trace
from toolscore_otel.otlp import from_json
from toolscore_otel.recorder import RecorderServer, TraceStore, serve

A, B = "5b8efff798038103d269b633813fc60c", "0af7651916cd43dd8448eb211c80319c"


def _span(trace_id: str, span_id: str, parent: str = "", **attributes: str) -> dict[str, Any]:
    return {"traceId": trace_id, "spanId": span_id, "parentSpanId": parent,
            "name": attributes.pop("name", "span"), "startTimeUnixNano": "1700000000000000000",
            "endTimeUnixNano": "1700000000100000000",
            "attributes": [{"key": k.replace("__", "."), "value": {"stringValue": v}}
                           for k, v in attributes.items()]}


def _spans(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "agent"}}]},
        "scopeSpans": [{"scope": {"name": "test"}, "spans": list(spans)}]}]}


class Recorder:
    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port

    def post(self, path: str, body: bytes, *, kind: str = "application/json",
             headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            connection.request("POST", path, body=body,
                               headers={"Content-Type": kind, **(headers or {})})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def files(self) -> dict[str, dict[str, Any]]:
        return {p.stem: json.loads(p.read_text()) for p in sorted(self.folder.glob("*.json"))}


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[Recorder]:
    store = TraceStore(tmp_path / "traces", idle=0.2)
    ready, stop = threading.Event(), threading.Event()
    ports: list[int] = []
    original = RecorderServer.__init__

    def remember(self: RecorderServer, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        ports.append(self.server_address[1])

    RecorderServer.__init__ = remember  # type: ignore[method-assign]
    try:
        thread = threading.Thread(target=serve, args=(store, ("127.0.0.1", 0)),
                                  kwargs={"max_size": 4096, "ready": ready, "stop": stop,
                                          "hosts": ("otel.internal",)})
        thread.start()
        assert ready.wait(5)
    finally:
        RecorderServer.__init__ = original  # type: ignore[method-assign]
    yield Recorder(tmp_path / "traces", ports[0])
    stop.set()
    thread.join(5)


def _wait_for(recorder: Recorder, count: int) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + 5
    while len(files := recorder.files()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return files


def test_protobuf_and_json_bodies_make_one_file_per_trace(recorder: Recorder) -> None:
    tool = _span(A, "00f067aa0ba902b7", "eee19b7ec3c1b174", name="execute_tool f",
                 gen_ai__operation__name="execute_tool", gen_ai__tool__name="f",
                 gen_ai__tool__call__arguments='{"x": 1}')
    other = _span(B, "b7ad6b7169203331", "1111111111111111", name="chat")
    protobuf = from_json(_spans(tool, other), ExportTraceServiceRequest()).SerializeToString()
    assert recorder.post("/v1/traces", protobuf, kind="application/x-protobuf")[0] == 200
    logs = {"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"traceId": A, "spanId": "00f067aa0ba902b7", "eventName": "note",
         "body": {"stringValue": "hello"}}]}]}]}
    status, body = recorder.post("/v1/logs", json.dumps(logs).encode())
    assert (status, body) == (200, b"{}")
    root = _span(A, "eee19b7ec3c1b174", name="invoke_agent", gen_ai__operation__name="invoke_agent")
    assert recorder.post("/v1/traces", json.dumps(_spans(root)).encode())[0] == 200
    # trace A is complete (its root came) and is written; B has no root yet
    files = _wait_for(recorder, 1)
    assert list(files) == [A]
    [resource] = files[A]["resourceSpans"]
    assert [s["spanId"] for s in resource["scopeSpans"][0]["spans"]] == [
        "00f067aa0ba902b7", "eee19b7ec3c1b174"]
    assert files[A]["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]["body"] == {
        "stringValue": "hello"}
    trace, choice = load_trace(recorder.folder / f"{A}.json")
    assert choice.format == "otel"
    assert [(c.tool, c.args) for c in trace.calls] == [("f", {"x": 1})]
    assert trace.span is not None and trace.span.span_id == "eee19b7ec3c1b174"


def test_data_that_comes_late_is_written_into_the_trace_file(recorder: Recorder) -> None:
    root = _span(A, "eee19b7ec3c1b174", name="invoke_agent")
    assert recorder.post("/v1/traces", json.dumps(_spans(root)).encode())[0] == 200
    _wait_for(recorder, 1)
    late = _span(A, "00f067aa0ba902b7", "eee19b7ec3c1b174", name="late")
    assert recorder.post("/v1/traces", json.dumps(_spans(late)).encode())[0] == 200
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        spans = recorder.files()[A]["resourceSpans"][0]["scopeSpans"][0]["spans"]
        if len(spans) == 2:
            break
        time.sleep(0.05)
    assert [s["name"] for s in spans] == ["invoke_agent", "late"]


@pytest.mark.parametrize("host", ["evil.example", "evil.example:4318", "10.0.0.7:4318", ""])
def test_a_host_header_that_is_not_loopback_is_refused(recorder: Recorder, host: str) -> None:
    body = json.dumps(_spans(_span(A, "eee19b7ec3c1b174"))).encode()
    status, text = recorder.post("/v1/traces", body, headers={"Host": host})
    assert status == 403 and b"--allow-host" in text
    for allowed in ("localhost:4318", "[::1]:4318", "otel.internal:4318"):
        assert recorder.post("/v1/traces", body, headers={"Host": allowed})[0] == 200
    time.sleep(0.5)
    assert list(recorder.files()) == [A]


def test_a_request_over_the_limit_is_413_even_once_inflated(recorder: Recorder) -> None:
    status, text = recorder.post("/v1/traces", b"{" + b" " * 5000 + b"}")
    assert status == 413 and b"--max-request-size" in text
    bomb = gzip.compress(b"{" + b" " * 100_000 + b"}")
    assert len(bomb) < 4096
    status, _ = recorder.post("/v1/traces", bomb, headers={"Content-Encoding": "gzip"})
    assert status == 413
    small = gzip.compress(json.dumps(_spans(_span(A, "eee19b7ec3c1b174"))).encode())
    assert recorder.post("/v1/traces", small, headers={"Content-Encoding": "gzip"})[0] == 200


def _raw(port: int, request: bytes) -> bytes:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        return b"".join(iter(lambda: sock.recv(65536), b""))


@pytest.mark.parametrize(("headers", "status"), [
    (b"Content-Length: abc\r\n", b"400"), (b"Content-Length: -5\r\n", b"400"),
    (b"", b"411"), (b"Transfer-Encoding: chunked\r\n", b"411"),
])
def test_a_malformed_length_is_refused(recorder: Recorder, headers: bytes,
                                       status: bytes) -> None:
    answer = _raw(recorder.port, b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\n" + headers + b"\r\n{}")
    assert answer.startswith(b"HTTP/1.1 " + status)


@pytest.mark.parametrize(("path", "kind", "body", "status"), [
    ("/v1/traces", "application/x-protobuf", b"\xff\xff\xff", 400),
    ("/v1/traces", "application/json", b'{"resourceSpans": 3}', 400),
    ("/v1/traces", "application/json", json.dumps(_spans(_span("zz", "01"))).encode(), 400),
    ("/v1/traces", "application/json", b"not json", 400),
    ("/v1/traces", "text/plain", b"{}", 415),
    ("/v1/metrics", "application/json", b"{}", 404),
])
def test_what_is_not_an_otlp_request_is_refused_and_nothing_is_written(
        recorder: Recorder, path: str, kind: str, body: bytes, status: int) -> None:
    assert recorder.post(path, body, kind=kind)[0] == status
    time.sleep(0.3)
    assert recorder.files() == {}


@pytest.mark.parametrize("span", [
    _span("ab" * 200, "00f067aa0ba902b7"), _span(A, "00f0"), _span("", "00f067aa0ba902b7"),
])
def test_ids_that_are_not_otlp_ids_are_refused(recorder: Recorder, span: dict[str, Any]) -> None:
    status, text = recorder.post("/v1/traces", json.dumps(_spans(span)).encode())
    assert status == 400 and b"OTLP's are 16 and 8" in text
    time.sleep(0.3)
    assert recorder.files() == {}


def test_a_file_that_cannot_be_written_is_said_and_kept_for_the_next_flush(
        tmp_path: Path) -> None:
    said: list[str] = []
    store = TraceStore(tmp_path / "traces", idle=0, say=said.append)
    (tmp_path / "traces").write_text("a file where the folder should be")
    store.add_spans(from_json(_spans(_span(A, "eee19b7ec3c1b174")), ExportTraceServiceRequest()))
    store.flush()
    assert said == [f"cannot write {tmp_path / 'traces' / (A + '.json')}: File exists"]
    (tmp_path / "traces").unlink()
    store.flush()
    assert said[-1].startswith(f"wrote {tmp_path / 'traces' / (A + '.json')} (1 span")


def test_a_trace_let_go_of_takes_late_data_into_its_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import toolscore_otel.recorder as recorder_module

    monkeypatch.setattr(recorder_module, "LINGER", 0.0)
    store = TraceStore(tmp_path, idle=0)
    root = _span(A, "eee19b7ec3c1b174", name="invoke_agent")
    store.add_spans(from_json(_spans(root), ExportTraceServiceRequest()))
    store.flush()
    store.flush()
    assert store.traces == {}  # written long enough ago: let go of
    late = {"resourceLogs": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "agent"}}]},
        "scopeLogs": [{"scope": {"name": "test"}, "logRecords": [
            {"traceId": A, "spanId": "eee19b7ec3c1b174", "body": {"stringValue": "late"}}]}]}]}
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    store.add_logs(from_json(late, ExportLogsServiceRequest()))
    store.flush()
    document = json.loads((tmp_path / f"{A}.json").read_text())
    assert [s["name"] for r in document["resourceSpans"] for sc in r["scopeSpans"]
            for s in sc["spans"]] == ["invoke_agent"]
    assert [lr["body"] for r in document["resourceLogs"] for sc in r["scopeLogs"]
            for lr in sc["logRecords"]] == [{"stringValue": "late"}]


def test_the_recorder_refuses_an_allow_host_with_a_port(tmp_path: Path) -> None:
    store = TraceStore(tmp_path, idle=1)
    with pytest.raises(InputError, match=r"--allow-host: bad host name 'otel\.internal:4318'"):
        RecorderServer(("127.0.0.1", 0), store, hosts=["otel.internal:4318"], max_size=10)
