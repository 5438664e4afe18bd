"""A weather agent instrumented with OpenTelemetry as its developer would instrument it.

The official OpenAI instrumentation (``opentelemetry-instrumentation-openai-v2``) traces its
model calls, ``opentelemetry-util-genai`` its agent run and tool calls, and the SDK's
OTLP/HTTP exporters send the spans and log records where ``OTEL_EXPORTER_OTLP_ENDPOINT``
says. Content capture follows the standard ``OTEL_INSTRUMENTATION_GENAI_*`` variables.

    python otel_openai_agent.py OPENAI_BASE_URL "What is the weather in Paris?"
"""

from __future__ import annotations

import json
import sys

from openai import OpenAI
from opentelemetry import _logs, trace
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.util.genai.handler import get_telemetry_handler

MODEL = "gpt-4.1-mini"
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city now.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]


def get_weather(city: str) -> str:
    return f"18C and sunny in {city}"


def main() -> None:
    base_url, question = sys.argv[1], sys.argv[2]
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(tracer_provider)
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
    _logs.set_logger_provider(logger_provider)
    OpenAIInstrumentor().instrument()
    handler = get_telemetry_handler()
    client = OpenAI(base_url=base_url, api_key="test-key", max_retries=0)
    messages: list[dict[str, object]] = [{"role": "user", "content": question}]
    with handler.invoke_local_agent(agent_name="weather", request_model=MODEL):
        while True:
            response = client.chat.completions.create(model=MODEL, messages=messages,
                                                      tools=TOOLS)
            message = response.choices[0].message
            if not message.tool_calls:
                break
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                with handler.tool(call.function.name, tool_call_id=call.id) as tool:
                    arguments = json.loads(call.function.arguments)
                    tool.arguments = arguments
                    result = get_weather(**arguments)
                    tool.tool_result = result
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    print(message.content)
    tracer_provider.shutdown()
    logger_provider.shutdown()


if __name__ == "__main__":
    main()
