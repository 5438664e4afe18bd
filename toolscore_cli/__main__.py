"""``python -m toolscore_cli``: the toolscore command (used to wrap MCP servers for agents)."""

from __future__ import annotations

from toolscore_cli.app import main

if __name__ == "__main__":
    main()
