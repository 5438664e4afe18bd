"""The OpenTelemetry span a trace is about (``Trace.span``): made by the formats that read
spans, read by ``--otel``."""

from __future__ import annotations

from attrs import frozen


@frozen
class SpanRef:
    """The OpenTelemetry span a trace's evaluation is about: verdicts written back as
    telemetry are parented to it."""

    trace_id: str
    """The trace id, 32 lowercase hex digits."""
    span_id: str | None = None
    """The agent's span (its ``invoke_agent`` span, else the trace's root), 16 lowercase hex
    digits; null when the trace does not tell."""
