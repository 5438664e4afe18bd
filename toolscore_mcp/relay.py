"""One message at a time, for either transport: record it, plant into it, say what to relay."""

from __future__ import annotations

import json
import sys
from typing import Any

from attrs import frozen

from toolscore_mcp.planting import Planter
from toolscore_mcp.session import CLIENT_TO_SERVER, SERVER_TO_CLIENT, Channel, SessionWriter


@frozen
class ClientOutcome:
    """What to do with a client-to-server message."""

    forward: bool
    """Relay the message's bytes, unchanged, to the server."""
    answer: bytes | None = None
    """A response (JSON text) to give the client instead, when a fault does not forward."""


def _decode(data: bytes) -> tuple[str, Any] | None:
    try:
        text = data.decode("utf-8").strip()
        return text, json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None


def _encode(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Relay:
    """Records every message and applies the planter; shared by the stdio and HTTP proxies.

    JSON-RPC batches (dropped from MCP in 2025-06-18) are relayed and recorded, never
    planted into.
    """

    def __init__(self, writer: SessionWriter, planter: Planter | None = None) -> None:
        self.writer = writer
        self.planter = planter

    def client_message(self, data: bytes, channel: Channel | None = None) -> ClientOutcome:
        """A message from the client (one JSON-RPC message or batch, without framing);
        ``channel``: where it travelled over HTTP (None: the one stdio stream)."""
        stamp = self.writer.stamp()
        decoded = _decode(data)
        if decoded is None:
            self.writer.unparsed(CLIENT_TO_SERVER, data, stamp=stamp, channel=channel)
            return ClientOutcome(forward=True)
        raw, message = decoded
        scope = None if channel is None else channel.scope
        planting = (self.planter.request(message, scope=scope)
                    if self.planter is not None else None)
        if planting is None:
            self.writer.message(CLIENT_TO_SERVER, message, raw=raw, stamp=stamp,
                                channel=channel)
            return ClientOutcome(forward=True)
        self.writer.message(CLIENT_TO_SERVER, message, raw=raw, stamp=stamp,
                            planted=planting.planted, channel=channel)
        self.writer.message(SERVER_TO_CLIENT, planting.response, stamp=self.writer.stamp(),
                            planted=planting.planted, channel=channel)
        return ClientOutcome(forward=False, answer=_encode(planting.response))

    def server_message(self, data: bytes, channel: Channel | None = None) -> bytes | None:
        """A message from the server; the planted replacement (JSON text), or None to relay
        the original bytes unchanged. The server has spoken: the session file is published."""
        self.writer.publish()
        stamp = self.writer.stamp()
        decoded = _decode(data)
        if decoded is None:
            self.writer.unparsed(SERVER_TO_CLIENT, data, stamp=stamp, channel=channel)
            return None
        raw, message = decoded
        scope = None if channel is None else channel.scope
        planting = (self.planter.response(message, scope=scope)
                    if self.planter is not None else None)
        if planting is None:
            self.writer.message(SERVER_TO_CLIENT, message, raw=raw, stamp=stamp,
                                channel=channel)
            return None
        self.writer.message(SERVER_TO_CLIENT, planting.message, stamp=stamp,
                            planted=planting.planted, original=message, channel=channel)
        return _encode(planting.message)


def upstream_failed(relay: Relay, reason: str, channel: Channel) -> None:
    """Record a request the upstream could not be reached for; a recording failure is
    reported on stderr, never raised."""
    try:
        relay.writer.failure(reason, stamp=relay.writer.stamp(), channel=channel)
    except Exception as exc:
        _warn("a failed request could not be recorded", exc)


def _warn(what: str, exc: Exception) -> None:
    print(f"toolscore mcp record: {what} ({type(exc).__name__}: {exc}); relayed unchanged",
          file=sys.stderr, flush=True)


def from_client(relay: Relay, data: bytes, channel: Channel | None = None) -> ClientOutcome:
    """``relay.client_message``, except that a recording failure never breaks the session:
    it is reported on stderr and the message relayed unchanged."""
    try:
        return relay.client_message(data, channel)
    except Exception as exc:
        _warn("a client message could not be recorded", exc)
        return ClientOutcome(forward=True)


def from_server(relay: Relay, data: bytes, channel: Channel | None = None) -> bytes | None:
    """``relay.server_message``, with failures reported and the message relayed unchanged."""
    try:
        return relay.server_message(data, channel)
    except Exception as exc:
        _warn("a server message could not be recorded", exc)
        return None
