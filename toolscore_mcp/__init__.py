"""The MCP recording proxy: relay, record and plant faults and prompt injections."""

DEFAULT_MAX_BODY = 4 * 1024 * 1024
"""The largest HTTP request body the proxy relays (the official SDK's servers accept the same)."""
