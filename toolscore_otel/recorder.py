"""The OTLP/HTTP recorder: receives spans and log records, writes one file per trace.

An OpenTelemetry-instrumented agent exports to it as to any Collector
(``OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318``): ``POST /v1/traces`` and
``POST /v1/logs``, protobuf or JSON bodies, decoded with ``opentelemetry-proto``. Each
trace id gets ``<trace id>.json`` in the output folder, OTLP JSON holding its spans
(``resourceSpans``) and its log records (``resourceLogs``), which ``toolscore eval`` reads as
it is. A file is written whole (temp file + rename) once its root span has arrived and
nothing new came for ``idle`` seconds, written again if more comes, and every trace still
pending is written when the recorder stops. Log records outside any trace go to
``no-trace.json``. Evaluation results (``gen_ai.evaluation.result`` events, such as
``toolscore eval --otel`` sends) are verdicts about a trace, not part of it: they go to
``<trace id>.evaluations.json``, so the trace file a receipt hashes stays as recorded.
Built on the standard library: one thread per connection.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from toolscore_core.serving import (
    LocalServer,
    Refused,
    check_allowed_host,
    declared_length,
    listen,
    serve_until_stopped,
)
from toolscore_otel.otlp import from_json, to_json

NO_TRACE = "no-trace"
"""The file stem of log records that belong to no trace."""
EVALUATIONS = ".evaluations"
"""What the file stem of a trace's evaluation results adds to its trace id."""
EVALUATION_EVENT = "gen_ai.evaluation.result"
LINGER = 60.0
"""Seconds a written trace stays in memory for data that comes late; after that, late data
is merged with the file."""
PROTOBUF = "application/x-protobuf"
JSON = "application/json"

Groups = dict[tuple[bytes, str, bytes, str], Any]
"""Scope lists by (resource, its schema, scope, its schema)."""


class Pending:
    """One trace's spans and log records as received, grouped by resource and scope."""

    def __init__(self) -> None:
        self.spans = ExportTraceServiceRequest()
        self.logs = ExportLogsServiceRequest()
        self._span_scopes: Groups = {}
        self._log_scopes: Groups = {}
        self.rooted = False
        self.changed = time.monotonic()
        self.written: float | None = None
        """When the file was last written (monotonic); None while it has news not written."""

    def add_span(self, resource: Any, scope: Any, span: Any) -> None:
        self._scope(self.spans.resource_spans, self._span_scopes, resource, scope,
                    "scope_spans").spans.append(span)
        self.rooted = self.rooted or not span.parent_span_id
        self._touch()

    def add_log(self, resource: Any, scope: Any, record: Any) -> None:
        self._scope(self.logs.resource_logs, self._log_scopes, resource, scope,
                    "scope_logs").log_records.append(record)
        self._touch()

    def _touch(self) -> None:
        self.changed = time.monotonic()
        self.written = None

    @staticmethod
    def _scope(groups: Any, scopes: Groups, resource: Any, scope: Any,
               field: str) -> Any:
        # grouped by what they share, not by the request they came in
        key = (resource.resource.SerializeToString(deterministic=True), resource.schema_url,
               scope.scope.SerializeToString(deterministic=True), scope.schema_url)
        if key not in scopes:
            group = groups.add()
            group.resource.CopyFrom(resource.resource)
            group.schema_url = resource.schema_url
            found = getattr(group, field).add()
            found.scope.CopyFrom(scope.scope)
            found.schema_url = scope.schema_url
            scopes[key] = found
        return scopes[key]

    def counts(self) -> tuple[int, int]:
        spans = sum(len(s.spans) for r in self.spans.resource_spans for s in r.scope_spans)
        logs = sum(len(s.log_records) for r in self.logs.resource_logs for s in r.scope_logs)
        return spans, logs

    def document(self) -> dict[str, Any]:
        """The trace as one OTLP JSON document, spans and log records together."""
        return {"resourceSpans": to_json(self.spans).get("resourceSpans", []),
                "resourceLogs": to_json(self.logs).get("resourceLogs", [])}


class TraceStore:
    """Every trace being recorded, by trace id (hex); thread-safe."""

    def __init__(self, folder: str | Path, *, idle: float,
                 say: Callable[[str], None] = lambda line: None) -> None:
        self.folder = Path(folder)
        self.idle = idle
        self.say = say
        self.traces: dict[str, Pending] = {}
        self.lock = threading.Lock()
        self.files = 0

    def add_spans(self, request: ExportTraceServiceRequest) -> None:
        with self.lock:
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        self._pending(span.trace_id.hex() or NO_TRACE).add_span(
                            resource, scope, span)

    def add_logs(self, request: ExportLogsServiceRequest) -> None:
        with self.lock:
            for resource in request.resource_logs:
                for scope in resource.scope_logs:
                    for record in scope.log_records:
                        key = record.trace_id.hex() or NO_TRACE
                        if record.event_name == EVALUATION_EVENT:
                            key += EVALUATIONS
                        self._pending(key).add_log(resource, scope, record)

    def _pending(self, trace_id: str) -> Pending:
        pending = self.traces.get(trace_id)
        if pending is None:
            pending = self.traces[trace_id] = Pending()
            path = self.path(trace_id)
            if path.is_file():  # written, then let go of: late data joins what was written
                self._merge(pending, path)
        return pending

    def _merge(self, pending: Pending, path: Path) -> None:
        from toolscore_core.documents import loads

        document = loads(path.read_bytes())
        spans = from_json({"resourceSpans": document.get("resourceSpans", [])},
                          ExportTraceServiceRequest())
        logs = from_json({"resourceLogs": document.get("resourceLogs", [])},
                         ExportLogsServiceRequest())
        for resource in spans.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    pending.add_span(resource, scope, span)
        for resource in logs.resource_logs:
            for scope in resource.scope_logs:
                for record in scope.log_records:
                    pending.add_log(resource, scope, record)

    def path(self, trace_id: str) -> Path:
        return self.folder / f"{trace_id}.json"

    def flush(self, *, everything: bool = False) -> None:
        """Write the traces that are complete (every pending one with ``everything``), and
        let go of those written long enough ago."""
        now = time.monotonic()
        with self.lock:
            for trace_id, pending in list(self.traces.items()):
                if pending.written is not None:
                    if now - pending.written >= LINGER or everything:
                        del self.traces[trace_id]
                    continue
                # a trace is complete once its root span came; verdicts have no root
                complete = pending.rooted or trace_id.endswith(EVALUATIONS)
                if everything or (complete and now - pending.changed >= self.idle):
                    try:
                        self._write(trace_id, pending)
                    except OSError as exc:  # kept, and tried again at the next flush
                        self.say(f"cannot write {self.path(trace_id)}: {exc.strerror or exc}")
                        continue
                    pending.written = now

    def _write(self, trace_id: str, pending: Pending) -> None:
        import json

        from toolscore_core.atomic import write_text_atomic

        path = self.path(trace_id)
        fresh = not path.exists()
        write_text_atomic(path, json.dumps(pending.document(), ensure_ascii=False,
                                           separators=(",", ":")) + "\n")
        self.files += fresh
        spans, logs = pending.counts()
        self.say(f"wrote {path} ({spans} span{'' if spans == 1 else 's'}, {logs} log "
                 f"record{'' if logs == 1 else 's'})")


class RecorderServer(LocalServer):
    """The listening side; holds what every handler shares."""

    program = "toolscore otel record"

    def __init__(self, address: tuple[str, int], store: TraceStore, *,
                 hosts: Iterable[str] = (), max_size: int) -> None:
        self.store = store
        self.max_size = max_size
        super().__init__(address, RecorderHandler,
                         allowed_hosts=[check_allowed_host(h) for h in hosts])


SIGNALS: dict[str, tuple[type[Message], type[Message], Callable[[TraceStore, Any], None]]] = {
    "/v1/traces": (ExportTraceServiceRequest, ExportTraceServiceResponse, TraceStore.add_spans),
    "/v1/logs": (ExportLogsServiceRequest, ExportLogsServiceResponse, TraceStore.add_logs),
}


class RecorderHandler(BaseHTTPRequestHandler):
    """One client connection: each POST is an OTLP export request."""

    protocol_version = "HTTP/1.1"
    server: RecorderServer

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the files are the record; stderr says what was written."""

    def do_POST(self) -> None:
        try:
            self._check_host()
            kinds = SIGNALS.get(self.path.split("?")[0])
            if kinds is None:
                raise Refused(404, f"no OTLP signal at {self.path}: POST /v1/traces or /v1/logs")
            request_cls, response_cls, add = kinds
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if kind not in (PROTOBUF, JSON):
                raise Refused(415, f"Content-Type {kind or '(none)'}: send {PROTOBUF} or {JSON}")
            request = self._decode(self._body(), kind, request_cls())
            _check_ids(request)
        except Refused as refusal:
            self._answer(refusal.status, "text/plain; charset=utf-8",
                         (str(refusal) + "\n").encode())
            return
        add(self.server.store, request)
        response = response_cls()
        body = (response.SerializeToString() if kind == PROTOBUF else b"{}")
        self._answer(200, kind, body)

    def do_GET(self) -> None:
        self._not_allowed()

    def do_PUT(self) -> None:
        self._not_allowed()

    def do_DELETE(self) -> None:
        self._not_allowed()

    def _not_allowed(self) -> None:
        self._answer(405, "text/plain; charset=utf-8", b"OTLP/HTTP takes POST only\n",
                     ("Allow", "POST"))

    def _check_host(self) -> None:
        host = self.headers.get("Host")
        if host is None or self.server.host_verdict(host) is None:
            # A page in a browser could otherwise post here through DNS rebinding.
            raise Refused(403, f"Host {host!r} is not allowed: the recorder answers "
                               "loopback names (--allow-host adds others)")

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise Refused(411, "send a Content-Length (no Transfer-Encoding)")
        try:
            length = declared_length(self.headers, self.server.max_size, "--max-request-size")
        except Refused:
            self.close_connection = True  # the body is not read: the connection cannot go on
            raise
        if length is None:
            self.close_connection = True
            raise Refused(411, "send a Content-Length")
        body = self.rfile.read(length)
        if len(body) < length:
            self.close_connection = True
            raise Refused(400, f"the body ended after {len(body)} of {length} bytes")
        encoding = (self.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding == "gzip":
            return self._gunzip(body)
        if encoding != "identity":
            raise Refused(415, f"Content-Encoding {encoding}: send gzip or none")
        return body

    def _gunzip(self, body: bytes) -> bytes:
        inflater = zlib.decompressobj(wbits=31)
        try:
            data = inflater.decompress(body, self.server.max_size + 1)
        except zlib.error as exc:
            raise Refused(400, f"the gzip body does not inflate ({exc})") from None
        if len(data) > self.server.max_size:
            raise Refused(413, f"request inflates past the limit of {self.server.max_size} "
                               "bytes (--max-request-size)")
        return data

    def _decode(self, body: bytes, kind: str, message: Message) -> Message:
        if kind == PROTOBUF:
            try:
                message.ParseFromString(body)
            except DecodeError as exc:
                raise Refused(400, f"not an OTLP protobuf request ({exc})") from None
            return message
        from toolscore_core.documents import JSON_FAILURES, loads

        try:
            return from_json(loads(body), message)
        except (*JSON_FAILURES, ValueError) as exc:
            raise Refused(400, f"not an OTLP JSON request ({exc})") from None

    def _answer(self, status: int, kind: str, body: bytes, *extra: tuple[str, str]) -> None:
        self.send_response_only(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for key, value in extra:
            self.send_header(key, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


def _check_ids(request: Message) -> None:
    """A span's trace id is 16 bytes and its span id 8 (OTLP's); a log record's are those or
    empty. They name files: anything else is refused before it is kept."""
    items: list[tuple[bytes, bytes, str, tuple[int, ...], tuple[int, ...]]]
    if isinstance(request, ExportTraceServiceRequest):
        items = [(span.trace_id, span.span_id, "span", (16,), (8,))
                 for group in request.resource_spans for scope in group.scope_spans
                 for span in scope.spans]
    else:
        assert isinstance(request, ExportLogsServiceRequest)
        items = [(record.trace_id, record.span_id, "log record", (0, 16), (0, 8))
                 for group in request.resource_logs for scope in group.scope_logs
                 for record in scope.log_records]
    for number, (trace_id, span_id, what, trace_sizes, span_sizes) in enumerate(items, 1):
        if len(trace_id) not in trace_sizes or len(span_id) not in span_sizes:
            raise Refused(400, f"{what} {number}: a trace id of {len(trace_id)} bytes and a span "
                               f"id of {len(span_id)} (OTLP's are 16 and 8)")


def serve(store: TraceStore, address: tuple[str, int], *, hosts: Iterable[str] = (),
          max_size: int, ready: threading.Event | None = None,
          stop: threading.Event | None = None) -> None:
    """Record on ``address`` until SIGINT or SIGTERM (or ``stop``), then write every trace
    still pending."""
    server = listen(address, lambda: RecorderServer(address, store, hosts=hosts,
                                                    max_size=max_size))

    def started() -> None:
        store.say(f"listening on {server.origin} (OTEL_EXPORTER_OTLP_ENDPOINT={server.origin}), "
                  f"writing to {store.folder}")

    serve_until_stopped(server, thread_name="otel-recorder", started=started, ready=ready,
                        stop=stop, every=min(0.2, store.idle / 2 or 0.2), tick=store.flush,
                        last=lambda: store.flush(everything=True))
