"""The span toolkit: one span record from OTLP and Jaeger alike, attributes, the tree."""

from __future__ import annotations

from toolscore_formats.spans import Span, SpanTree, log_records


def test_otlp_and_jaeger_spans_read_the_same() -> None:
    otlp = Span.from_otlp({
        "name": "execute_tool f", "spanId": "b", "parentSpanId": "a", "traceId": "t",
        "startTimeUnixNano": "1700000000000001000", "endTimeUnixNano": "1700000000500001000",
        "status": {"code": "STATUS_CODE_ERROR", "message": "boom"},
        "attributes": [{"key": "n", "value": {"intValue": "9007199254740993"}},
                       {"key": "l", "value": {"arrayValue": {"values": [
                           {"stringValue": "x"}, {"kvlistValue": {"values": [
                               {"key": "k", "value": {"boolValue": True}}]}}]}}}],
        "events": [{"name": "exception", "attributes": [
            {"key": "exception.message", "value": {"stringValue": "boom!"}}]}],
    }, 0)
    jaeger = Span.from_jaeger({
        "spanID": "b", "operationName": "execute_tool f", "startTime": 1700000000000001,
        "duration": 500000, "references": [{"refType": "CHILD_OF", "spanID": "a"}],
        "tags": [{"key": "n", "type": "int64", "value": 9007199254740993},
                 {"key": "otel.status_code", "type": "string", "value": "ERROR"},
                 {"key": "otel.status_description", "type": "string", "value": "boom"}],
        "logs": [{"timestamp": 1, "fields": [
            {"key": "event", "type": "string", "value": "exception"},
            {"key": "exception.message", "type": "string", "value": "boom!"}]}],
    }, 0, "t")
    for span in (otlp, jaeger):
        assert (span.name, span.span_id, span.parent, span.trace_id) == (
            "execute_tool f", "b", "a", "t")
        assert (span.start, span.end) == (1_700_000_000_000_001_000, 1_700_000_000_500_001_000)
        assert (span.failed, span.error_text, span.exception_message()) == (
            True, "boom", "boom!")
        assert span.attributes.get("n") == 9007199254740993  # 64-bit integers exact
        assert span.operation() == "execute_tool" and span.is_tool_span()
    assert otlp.attributes.get("l") == ["x", {"k": True}]


def test_the_tree_finds_parents_and_roots() -> None:
    spans = [Span.from_otlp({"name": name, "spanId": span_id, "parentSpanId": parent}, order)
             for order, (name, span_id, parent) in enumerate(
                 [("agent", "a", None), ("chat", "b", "a"), ("tool", "c", "b"),
                  ("orphan", "d", "zz")])]
    tree = SpanTree(spans)
    parent = tree.parent(spans[2])
    assert parent is not None and parent.name == "chat"
    assert [span.name for span in tree.roots()] == ["agent", "orphan"]


def test_log_records_of_an_export_and_of_collector_lines() -> None:
    record = {"eventName": "gen_ai.choice", "body": {"stringValue": "x"}}
    export = {"resourceLogs": [{"scopeLogs": [{"logRecords": [record, 5]}]}]}
    assert list(log_records(export)) == [record]
    assert list(log_records([{"resourceSpans": []}, export])) == [record]
