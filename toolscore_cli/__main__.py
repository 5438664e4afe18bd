"""``python -m toolscore_cli``: the same as the ``toolscore`` command."""

from toolscore_cli.app import main

main()
