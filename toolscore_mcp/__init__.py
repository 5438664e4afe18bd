"""The MCP recording proxy: relay, record and plant faults and prompt injections."""
