"""The one time parser: ISO 8601 with explicit zones and epoch numbers, never the local zone."""

from __future__ import annotations

import time

import pytest

from toolscore_core.traces import parse_trace
from toolscore_formats.times import iso_from_nanos, parse_time, seconds_between


def test_iso_text_keeps_every_nanosecond_digit_and_its_offset() -> None:
    assert parse_time("1970-01-01T00:00:01.123456789Z") == 1_123_456_789
    assert parse_time("1970-01-01T02:00:01.5+02:00") == 1_500_000_000
    assert iso_from_nanos(parse_time("2026-01-02T03:04:05.000000007Z")) == \
        "2026-01-02T03:04:05.000000007Z"


def test_epoch_numbers_in_each_unit_and_as_otlp_strings() -> None:
    assert parse_time("1700000000000000001") == 1_700_000_000_000_000_001
    assert parse_time(1_700_000_000_000_000, unit="us") == 1_700_000_000_000_000_000
    assert parse_time(1700000000123, unit="ms") == 1_700_000_000_123_000_000
    assert parse_time(1.5, unit="s") == 1_500_000_000
    assert parse_time(True) is None and parse_time(float("nan"), unit="s") is None


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_naive_text_never_takes_the_machine_zone(monkeypatch, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        assert parse_time("2026-01-02T03:04:05") is None
        assert parse_time("2026-01-02T03:04:05", naive_utc=True) == \
            parse_time("2026-01-02T03:04:05Z")
        # An ADK session with naive ISO times: no duration rather than one off by the zone.
        events = [{"author": "m", "invocation_id": "i", "timestamp": stamp,
                   "content": {"parts": [part]}} for stamp, part in (
            ("2026-01-02T03:04:05", {"function_call": {"name": "f", "id": "1", "args": {}}}),
            ("2026-01-02T03:04:06", {"function_response": {"name": "f", "id": "1",
                                                           "response": {"ok": 1}}}))]
        assert parse_trace(events)[0].calls[0].duration is None
        zoned = [{**event, "timestamp": event["timestamp"] + "Z"} for event in events]
        assert parse_trace(zoned)[0].calls[0].duration == 1.0
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_seconds_between_refuses_a_missing_or_backward_interval() -> None:
    assert seconds_between(1_000, 2_000_001_000) == 2.0
    assert seconds_between(None, 5) is None and seconds_between(5, 4) is None
