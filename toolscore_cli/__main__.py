"""``python -m toolscore_cli``: the ``toolscore`` command."""

from __future__ import annotations

from toolscore_cli.app import main

main()
