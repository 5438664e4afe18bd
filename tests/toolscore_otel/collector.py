"""A small OTLP/HTTP logs endpoint for tests: decodes each protobuf request with
``opentelemetry-proto``, keeps it, and answers with a chosen status."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)


class Collector:
    """What the endpoint received: each request decoded, and its log records flattened."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.requests: list[ExportLogsServiceRequest] = []
        self.url = ""

    @property
    def records(self) -> list[Any]:
        return [record for request in self.requests for resource in request.resource_logs
                for scope in resource.scope_logs for record in scope.log_records]


def attributes(record: Any) -> dict[str, Any]:
    """A decoded log record's attributes as plain values."""
    out = {}
    for item in record.attributes:
        kind = item.value.WhichOneof("value")
        out[item.key] = getattr(item.value, kind)
    return out


@contextmanager
def collector(status: int = 200) -> Iterator[Collector]:
    """Serve on loopback (any free port) while the block runs."""
    seen = Collector(status)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            assert self.path == "/v1/logs"
            assert self.headers["Content-Type"] == "application/x-protobuf"
            seen.requests.append(ExportLogsServiceRequest.FromString(body))
            payload = ExportLogsServiceResponse().SerializeToString()
            self.send_response(seen.status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    seen.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        server.shutdown()
        server.server_close()
