"""Parse speed and memory of the trace readers against plain ``json.load``.

Run from the repository root::

    python bench/bench_parse.py            # 50 MB files (the targets)
    python bench/bench_parse.py --mb 5     # a quicker look

It writes a 50 MB OTLP JSON export, a 50 MB OTLP export whose content is in log records
(``resourceLogs``, the calls joined to their tool spans), a 50 MB OpenAI Chat Completions
message log and a 50 MB Amazon Bedrock Converse message list in a temporary folder, times
``json.load`` and ``toolscore_core.traces.load_trace`` (auto detection included) on each,
best of 3, and measures each one's peak memory with tracemalloc in a fresh subprocess.

Targets: load_trace at least 0.5x the speed of json.load on each file. Memory: the OTLP
exports and the chat log are streamed, and must peak under 3x the file size; the Converse
list (read whole, like every format without a streaming reader) must
peak under 3x what json.load of it peaks at. load_trace pauses the garbage collector while
it reads (json.load as users call it does not), so json.load with the collector off is
printed too, for reference.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPEED_TARGET = 0.5
MEMORY_TARGET = 3.0


def _attr(key: str, value: object) -> dict[str, object]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": str(value)}}


def _any_value(value: object) -> dict[str, object]:
    """A JSON value as an OTLP AnyValue, as the instrumentations write structured log
    attributes (gen_ai.input.messages and gen_ai.output.messages of an event)."""
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": _any_value(v)}
                                           for k, v in value.items()]}}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_any_value(v) for v in value]}}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def otlp_export(target_bytes: int, rng: random.Random) -> dict[str, object]:
    """Agent runs as GenAI spans: a chat span per turn, then its tool spans, then the agent."""
    spans: list[dict[str, object]] = []
    size = 0
    clock = 1_790_978_944_000_000_000
    turn = 0
    while size < target_bytes:
        turn += 1
        trace_id = f"{rng.getrandbits(128):032x}"
        agent_id = f"{rng.getrandbits(64):016x}"
        start = clock
        batch = []
        for step in range(3):
            chat_id = f"{rng.getrandbits(64):016x}"
            words = " ".join(rng.choice(("order", "refund", "customer", "status", "open"))
                             for _ in range(60))
            batch.append({
                "traceId": trace_id, "spanId": chat_id, "parentSpanId": agent_id,
                "name": "chat gpt-4.1-mini", "kind": "SPAN_KIND_CLIENT",
                "startTimeUnixNano": str(clock), "endTimeUnixNano": str(clock + 900_000_000),
                "attributes": [
                    _attr("gen_ai.operation.name", "chat"),
                    _attr("gen_ai.request.model", "gpt-4.1-mini"),
                    _attr("gen_ai.usage.input_tokens", 812),
                    _attr("gen_ai.usage.output_tokens", 96),
                    _attr("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [
                        {"type": "text", "content": words}]}])),
                ],
                "status": {},
            })
            clock += 1_000_000_000
            tool_id = f"{rng.getrandbits(64):016x}"
            failed = rng.random() < 0.1
            batch.append({
                "traceId": trace_id, "spanId": tool_id, "parentSpanId": agent_id,
                "name": "execute_tool search_orders", "kind": "SPAN_KIND_INTERNAL",
                "startTimeUnixNano": str(clock), "endTimeUnixNano": str(clock + 20_245_516),
                "attributes": [
                    _attr("gen_ai.operation.name", "execute_tool"),
                    _attr("gen_ai.tool.name", "search_orders"),
                    _attr("gen_ai.tool.call.id", f"call_{turn}_{step}"),
                    _attr("gen_ai.tool.type", "function"),
                    _attr("gen_ai.tool.call.arguments", json.dumps(
                        {"customer": f"user{turn}@example.com", "status": "open"})),
                    _attr("gen_ai.tool.call.result", json.dumps(
                        {"orders": [{"id": f"A-{turn}-{i}", "total": 42.5} for i in range(4)]})),
                    *([_attr("error.type", "tool_error")] if failed else []),
                ],
                "status": {"code": "STATUS_CODE_ERROR", "message": "timeout"} if failed else {},
            })
            clock += 30_000_000
        batch.append({
            "traceId": trace_id, "spanId": agent_id, "name": "invoke_agent support-bot",
            "kind": "SPAN_KIND_INTERNAL", "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(clock),
            "attributes": [_attr("gen_ai.operation.name", "invoke_agent")], "status": {},
        })
        spans.extend(batch)
        size += len(json.dumps(batch))
    return {"resourceSpans": [{
        "resource": {"attributes": [_attr("service.name", "support-bot")]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}],
    }]}


def otlp_logs_export(target_bytes: int, rng: random.Random) -> dict[str, object]:
    """Agent runs whose content went to log records: per turn, chat spans and tool spans
    without content, and a gen_ai.client.inference.operation.details record per chat with
    its input and output messages as structured attributes (the calls as tool_call parts,
    joined to the tool spans)."""
    spans: list[dict[str, object]] = []
    records: list[dict[str, object]] = []
    size = 0
    clock = 1_790_978_944_000_000_000
    turn = 0
    while size < target_bytes:
        turn += 1
        trace_id = f"{rng.getrandbits(128):032x}"
        agent_id = f"{rng.getrandbits(64):016x}"
        start = clock
        history: list[dict[str, object]] = [{"role": "user", "parts": [
            {"type": "text", "content": f"Where are the open orders of user{turn}?"}]}]
        batch: list[dict[str, object]] = []
        logs: list[dict[str, object]] = []
        for step in range(3):
            chat_id = f"{rng.getrandbits(64):016x}"
            call_id = f"call_{turn}_{step}"
            asked = {"role": "assistant", "parts": [{
                "type": "tool_call", "id": call_id, "name": "search_orders",
                "arguments": {"customer": f"user{turn}@example.com", "status": "open"}}]}
            batch.append({
                "traceId": trace_id, "spanId": chat_id, "parentSpanId": agent_id,
                "name": "chat gpt-4.1-mini", "kind": "SPAN_KIND_CLIENT",
                "startTimeUnixNano": str(clock), "endTimeUnixNano": str(clock + 900_000_000),
                "attributes": [_attr("gen_ai.operation.name", "chat"),
                               _attr("gen_ai.request.model", "gpt-4.1-mini")],
                "status": {},
            })
            logs.append({
                "timeUnixNano": str(clock + 900_000_000), "traceId": trace_id,
                "spanId": chat_id, "eventName": "gen_ai.client.inference.operation.details",
                "attributes": [
                    _attr("gen_ai.operation.name", "chat"),
                    {"key": "gen_ai.input.messages", "value": _any_value(history)},
                    {"key": "gen_ai.output.messages", "value": _any_value([asked])}],
            })
            clock += 1_000_000_000
            batch.append({
                "traceId": trace_id, "spanId": f"{rng.getrandbits(64):016x}",
                "parentSpanId": agent_id, "name": "execute_tool search_orders",
                "kind": "SPAN_KIND_INTERNAL", "startTimeUnixNano": str(clock),
                "endTimeUnixNano": str(clock + 20_245_516),
                "attributes": [_attr("gen_ai.operation.name", "execute_tool"),
                               _attr("gen_ai.tool.name", "search_orders"),
                               _attr("gen_ai.tool.call.id", call_id)],
                "status": {},
            })
            result = {"orders": [{"id": f"A-{turn}-{i}", "total": 42.5} for i in range(4)]}
            history = [*history, asked, {"role": "tool", "parts": [
                {"type": "tool_call_response", "id": call_id, "response": result}]}]
            clock += 30_000_000
        batch.append({
            "traceId": trace_id, "spanId": agent_id, "name": "invoke_agent support-bot",
            "kind": "SPAN_KIND_INTERNAL", "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(clock),
            "attributes": [_attr("gen_ai.operation.name", "invoke_agent")], "status": {},
        })
        spans.extend(batch)
        records.extend(logs)
        size += len(json.dumps(batch)) + len(json.dumps(logs))
    return {"resourceSpans": [{
        "resource": {"attributes": [_attr("service.name", "support-bot")]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}],
    }], "resourceLogs": [{
        "resource": {"attributes": [_attr("service.name", "support-bot")]},
        "scopeLogs": [{"scope": {"name": "agent"}, "logRecords": records}],
    }]}


def chat_log(target_bytes: int, rng: random.Random) -> dict[str, object]:
    """A long Chat Completions conversation: questions, parallel tool calls, results, answers."""
    messages: list[dict[str, object]] = [{"role": "system", "content": "You help customers."}]
    size = 0
    turn = 0
    while size < target_bytes:
        turn += 1
        text = " ".join(rng.choice(("where", "is", "my", "order", "refund", "please"))
                        for _ in range(40))
        calls = [{"id": f"call_{turn}_{i}", "type": "function", "function": {
            "name": "lookup_order", "arguments": json.dumps({"order_id": f"A-{turn}-{i}"})}}
            for i in range(2)]
        batch: list[dict[str, object]] = [
            {"role": "user", "content": text},
            {"role": "assistant", "content": None, "tool_calls": calls},
            *({"role": "tool", "tool_call_id": c["id"], "content": json.dumps(
                {"status": "shipped", "items": [text[:80]] * 3})} for c in calls),
            {"role": "assistant", "content": f"Both orders shipped. {text}"},
        ]
        messages.extend(batch)
        size += len(json.dumps(batch))
    return {"model": "gpt-4.1-mini", "messages": messages}


def converse_log(target_bytes: int, rng: random.Random) -> dict[str, object]:
    """A long Bedrock Converse conversation: questions, parallel toolUse blocks, toolResult
    blocks (one in ten an error), answers."""
    messages: list[dict[str, object]] = []
    size = 0
    turn = 0
    while size < target_bytes:
        turn += 1
        text = " ".join(rng.choice(("where", "is", "my", "order", "refund", "please"))
                        for _ in range(40))
        uses = [{"toolUseId": f"tooluse_{turn}_{i}", "name": "lookup_order",
                 "input": {"order_id": f"A-{turn}-{i}"}} for i in range(2)]
        results = [{"toolResult": {
            "toolUseId": use["toolUseId"],
            "content": [{"json": {"status": "shipped", "items": [text[:80]] * 3}}],
            **({"status": "error"} if rng.random() < 0.1 else {})}} for use in uses]
        batch: list[dict[str, object]] = [
            {"role": "user", "content": [{"text": text}]},
            {"role": "assistant", "content": [{"text": "Let me look."},
                                              *({"toolUse": use} for use in uses)]},
            {"role": "user", "content": results},
            {"role": "assistant", "content": [{"text": f"Both orders shipped. {text}"}]},
        ]
        messages.extend(batch)
        size += len(json.dumps(batch))
    return {"messages": messages}


MEASURE = """
import json, sys, tracemalloc
path, what = sys.argv[1], sys.argv[2]
tracemalloc.start()
if what == "json":
    with open(path, "rb") as handle:
        document = json.load(handle)
else:
    from toolscore_core.traces import load_trace
    trace, choice = load_trace(path)
print(tracemalloc.get_traced_memory()[1])
"""


def peak_memory(path: Path, what: str) -> int:
    if what != "json":  # import toolscore first, so its own modules do not count as parsing
        code = "import toolscore_core.traces, toolscore_core.plugins as p; p.default_registry()\n"
    else:
        code = ""
    output = subprocess.run([sys.executable, "-c", code + MEASURE, str(path), what],
                            check=True, capture_output=True, text=True).stdout
    return int(output.strip().splitlines()[-1])


def best_of(runs: int, action) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of each file (MB)")
    parser.add_argument("--runs", type=int, default=3, help="timing runs (best is kept)")
    options = parser.parse_args()
    from toolscore_core.plugins import default_registry
    from toolscore_core.traces import load_trace

    default_registry()
    rng = random.Random(7)
    target = int(options.mb * 1_000_000)
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        files = {"otlp export": (Path(folder) / "export.json", otlp_export),
                 "otlp + logs": (Path(folder) / "export_logs.json", otlp_logs_export),
                 "openai chat log": (Path(folder) / "chat.json", chat_log),
                 "bedrock converse": (Path(folder) / "converse.json", converse_log)}
        streamed = ("otlp export", "otlp + logs", "openai chat log")
        print(f"{'file':<16} {'MB':>6} {'calls':>7} {'json.load':>10} {'(gc off)':>9} "
              f"{'load_trace':>11} {'speed':>6} {'(gc off)':>9} {'mem json':>9} {'mem trace':>10}")
        for label, (path, build) in files.items():
            path.write_text(json.dumps(build(target, rng)), encoding="utf-8")
            megabytes = path.stat().st_size / 1e6

            def plain(path: Path = path) -> object:
                with path.open("rb") as handle:
                    return json.load(handle)

            json_time = best_of(options.runs, plain)
            gc.disable()  # for reference: json.load without the collector load_trace pauses
            try:
                json_quiet = best_of(options.runs, plain)
            finally:
                gc.enable()
            trace_time = best_of(options.runs, lambda path=path: load_trace(path))
            calls = len(load_trace(path)[0].calls)
            speed = json_time / trace_time
            json_mem = peak_memory(path, "json") / path.stat().st_size
            trace_mem = peak_memory(path, "trace") / path.stat().st_size
            print(f"{label:<16} {megabytes:>6.1f} {calls:>7} {json_time:>9.3f}s "
                  f"{json_quiet:>8.3f}s {trace_time:>10.3f}s {speed:>5.2f}x "
                  f"{json_quiet / trace_time:>8.2f}x {json_mem:>8.2f}x {trace_mem:>9.2f}x")
            memory_ok = (trace_mem < MEMORY_TARGET if label in streamed
                         else trace_mem < MEMORY_TARGET * json_mem)
            ok = ok and speed >= SPEED_TARGET and memory_ok
    print(f"memory columns: peak / file size. targets: speed >= {SPEED_TARGET}x json.load; "
          f"memory < {MEMORY_TARGET}x file size (streamed: {', '.join(streamed)}), < "
          f"{MEMORY_TARGET}x json.load's (read whole: the others): "
          + ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
