"""A small OpenAI-compatible Chat Completions server on loopback that answers from a script.

The judge's tests start it in a thread; docs/judge.md runs it as a program
(``python tests/toolscore_judge/chat_server.py --port 8011 --answer "yes: ..."``) so that
its worked example runs without a model.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from attrs import define, field


@define
class Reply:
    """One scripted answer: the assistant's text or tool calls (or an HTTP error), after
    ``delay`` seconds; ``body``, when given, is sent as it is in place of a Chat Completions
    answer."""

    content: str | None = None
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(factory=dict)
    refusal: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    """Chat Completions tool calls (``{"id", "type": "function", "function"}``) to answer with."""
    body: bytes | None = None


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions tool call for a scripted ``Reply`` to answer with (the fixture
    generators' model asks for its calls so)."""
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def weather_script(prefix: str = "") -> list[Reply]:
    """The fixture generators' weather conversation: Paris's weather and Tokyo's time asked
    together and answered, then Atlantis's weather (which the tool refuses) and the reply.
    ``prefix``: what the framework puts before a tool's name (Semantic Kernel's plugin)."""
    return [
        Reply(tool_calls=[tool_call("call_w1", f"{prefix}get_weather", {"city": "Paris"}),
                          tool_call("call_t1", f"{prefix}get_time", {"city": "Tokyo"})]),
        Reply(content="Paris: sunny, 21 C. Tokyo: 18:00."),
        Reply(tool_calls=[tool_call("call_w2", f"{prefix}get_weather", {"city": "Atlantis"})]),
        Reply(content="I could not get the weather in Atlantis."),
    ]


@define
class Seen:
    """A request the server received."""

    body: dict[str, Any]
    authorization: str | None


def completion(reply: Reply, model: str) -> dict[str, Any]:
    """A Chat Completions response body carrying ``reply``."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content,
                               "refusal": reply.refusal}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "logprobs": None, "message": message,
                         "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}


class ChatServer:
    """Serves ``script`` in order, one reply per request (the last one repeats)."""

    def __init__(self, script: Sequence[Reply], port: int = 0) -> None:
        self.script = list(script)
        self.seen: list[Seen] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.seen.append(Seen(body=body,
                                        authorization=self.headers.get("Authorization")))
                reply = server.script[min(len(server.seen), len(server.script)) - 1]
                time.sleep(reply.delay)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    reply = Reply(status=404, content="not found")
                if reply.status == 200:
                    data = completion(reply, str(body.get("model")))
                else:
                    data = {"error": {"message": reply.content or "error", "type": "test",
                                      "code": reply.status}}
                payload = json.dumps(data).encode() if reply.body is None else reply.body
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout case)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True

    @property
    def url(self) -> str:
        """The base URL the openai SDK is given."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @contextmanager
    def running(self) -> Iterator[ChatServer]:
        thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.httpd.shutdown()
            self.httpd.server_close()
            thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--answer", action="append", required=True,
                        help="What the judge answers, in order (the last one repeats).")
    args = parser.parse_args()
    server = ChatServer([Reply(content=answer) for answer in args.answer], port=args.port)
    print(f"serving {server.url}", flush=True)
    server.httpd.serve_forever()


if __name__ == "__main__":
    main()
