"""Evaluation events out: sent with the OpenTelemetry SDK's OTLP/HTTP exporter to the endpoint
the standard ``OTEL_EXPORTER_OTLP_*`` variables name, or written to an OTLP JSON file.

The SDK (the ``otel`` extra) is imported only here, only when ``--otel`` or ``--otel-file``
is given.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from toolscore_core.components import toolscore_version
from toolscore_core.errors import InputError, ToolscoreError
from toolscore_otel.events import EVENT_NAME, EvaluationEvent

BATCH = 512
"""Events per export request (and per line of an ``--otel-file``)."""
DEFAULT_ENDPOINT = "http://localhost:4318/v1/logs"
EXTRA = "pip install 'toolscore[otel]'"


class ExportFailed(ToolscoreError):
    """The endpoint did not take the events (they were evaluated, reported and receipted)."""


def require_sdk(flag: str) -> None:
    """Bad input, before any work, when the ``otel`` extra is not installed."""
    try:
        import opentelemetry.exporter.otlp.proto.http
        import opentelemetry.sdk  # noqa: F401
    except ImportError:
        raise InputError("the OpenTelemetry SDK and OTLP exporter are not installed",
                         place=flag, fix=EXTRA) from None


def logs_endpoint() -> str:
    """Where the exporter sends logs, as the OpenTelemetry SDK reads the environment."""
    specific = os.environ.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
    if specific:
        return specific
    base = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    return base.rstrip("/") + "/v1/logs" if base else DEFAULT_ENDPOINT


class EventWriter:
    """Sends events (``send``) and writes them to ``file`` (one OTLP JSON export request
    per line, written whole or not at all), ``BATCH`` at a time, so a runs file of any size
    is exported in flat memory."""

    def __init__(self, *, send: bool, file: str | None) -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope

        self.exporter = None
        if send:
            from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

            self.exporter = OTLPLogExporter()
        self.file = file
        # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES apply, as in any SDK; without them
        # the service is toolscore rather than the SDK's "unknown_service".
        resource = Resource.create()
        if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
            resource = resource.merge(Resource({"service.name": "toolscore"}))
        self.resource = resource
        self.scope = InstrumentationScope("toolscore", toolscore_version())
        self.sent = 0

    def write(self, events: Iterable[EvaluationEvent]) -> int:
        """Export every event; the number exported. ExportFailed when the endpoint refuses."""
        if self.file is None:
            for batch in _batches(events):
                self._send(batch)
            return self.sent
        from toolscore_core.atomic import atomic_writer

        with atomic_writer(self.file) as handle:
            for batch in _batches(events):
                handle.write(json.dumps(self._json(batch), ensure_ascii=False,
                                        separators=(",", ":")) + "\n")
                self._send(batch)
        return self.sent

    def _records(self, batch: Sequence[EvaluationEvent]) -> list[Any]:
        from opentelemetry._logs import LogRecord, SeverityNumber
        from opentelemetry.sdk._logs import ReadableLogRecord
        from opentelemetry.trace import (
            NonRecordingSpan,
            SpanContext,
            TraceFlags,
            set_span_in_context,
        )

        now = time.time_ns()
        records = []
        for event in batch:
            context = None
            if event.span is not None:
                parent = SpanContext(
                    trace_id=int(event.span.trace_id, 16),
                    span_id=int(event.span.span_id or "0", 16), is_remote=True,
                    trace_flags=TraceFlags(TraceFlags.SAMPLED))
                context = set_span_in_context(NonRecordingSpan(parent))
            record = LogRecord(timestamp=now, observed_timestamp=now, context=context,
                               severity_number=SeverityNumber.INFO, event_name=EVENT_NAME,
                               attributes=dict(event.attributes))
            records.append(ReadableLogRecord(record, resource=self.resource,
                                             instrumentation_scope=self.scope))
        return records

    def _json(self, batch: Sequence[EvaluationEvent]) -> dict[str, Any]:
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

        from toolscore_otel.otlp import to_json

        return to_json(encode_logs(self._records(batch)))

    def _send(self, batch: Sequence[EvaluationEvent]) -> None:
        if self.exporter is None:
            self.sent += len(batch)
            return
        from opentelemetry.sdk._logs.export import LogRecordExportResult

        with _captured("opentelemetry") as said:
            result = self.exporter.export(self._records(batch))
        if result is not LogRecordExportResult.SUCCESS:
            why = "; ".join(dict.fromkeys(said)) or "no reason given"
            raise ExportFailed(f"--otel: {logs_endpoint()} did not take the evaluation events "
                               f"({self.sent} of them sent before): {why}")
        self.sent += len(batch)

    def close(self) -> None:
        if self.exporter is not None:
            self.exporter.shutdown()


def _batches(events: Iterable[EvaluationEvent]) -> Iterator[list[EvaluationEvent]]:
    batch: list[EvaluationEvent] = []
    for event in events:
        batch.append(event)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


@contextmanager
def _captured(name: str) -> Iterator[list[str]]:
    """What the SDK logs under ``name`` meanwhile, kept (one line each) rather than printed:
    a failure is reported once, as toolscore's own error line."""
    said: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(" ".join(record.getMessage().split()))

    logger = logging.getLogger(name)
    handler, propagate = Keep(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield said
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def export_events(events: Iterable[EvaluationEvent], *, send: bool, file: str | None) -> int:
    """Send and/or write ``events``; how many. ExportFailed when the endpoint refuses."""
    writer = EventWriter(send=send, file=file)
    try:
        return writer.write(events)
    finally:
        writer.close()
