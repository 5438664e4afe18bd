"""OTLP messages and their JSON encoding (hex trace and span ids, integer enums).

Protobuf's own JSON mapping writes bytes as base64; OTLP JSON writes the trace and span
ids as hex. Both ways go through ``opentelemetry-proto``'s messages, so what is read is
checked against the schema and what is written is what a Collector writes.
"""

from __future__ import annotations

import base64
from typing import Any, TypeVar

from google.protobuf.message import Message

ID_FIELDS = frozenset(("traceId", "spanId", "parentSpanId"))

M = TypeVar("M", bound=Message)


def to_json(message: Message) -> dict[str, Any]:
    """``message`` as OTLP JSON (lowerCamelCase names, hex ids, integer enums)."""
    from google.protobuf.json_format import MessageToDict

    data: dict[str, Any] = _ids(MessageToDict(message, use_integers_for_enums=True), _hex)
    return data


def from_json(data: Any, message: M) -> M:
    """Fill ``message`` from OTLP JSON; a ValueError says what does not fit the schema.

    Unknown fields are ignored, as OTLP asks of receivers.
    """
    from google.protobuf.json_format import ParseDict, ParseError

    if not isinstance(data, dict):
        raise ValueError(f"an OTLP JSON request is an object, not {type(data).__name__}")
    try:
        ParseDict(_ids(data, _base64), message, ignore_unknown_fields=True)
    except ParseError as exc:
        raise ValueError(str(exc)) from None
    return message


def _ids(value: Any, convert: Any) -> Any:
    if isinstance(value, dict):
        return {key: convert(item, key) if key in ID_FIELDS and isinstance(item, str)
                else _ids(item, convert) for key, item in value.items()}
    if isinstance(value, list):
        return [_ids(item, convert) for item in value]
    return value


def _hex(value: str, key: str) -> str:
    return base64.b64decode(value).hex()


def _base64(value: str, key: str) -> str:
    try:
        return base64.b64encode(bytes.fromhex(value)).decode("ascii")
    except ValueError:
        raise ValueError(f"{key} {value[:40]!r} is not hex") from None

