"""toolscore's own version, read from the installed distribution."""

from __future__ import annotations

from functools import cache

DISTRIBUTION = "toolscore"


@cache
def toolscore_version() -> str:
    """The installed version of the ``toolscore`` distribution."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"
