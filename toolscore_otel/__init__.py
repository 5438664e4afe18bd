"""OpenTelemetry: verdicts written back as GenAI evaluation events, and the OTLP recorder."""
