"""toolscore's own version, read from the installed distribution."""

from __future__ import annotations

from functools import cache

DISTRIBUTION = "toolscore"


@cache
def toolscore_version() -> str:
    """The installed version of the ``toolscore`` distribution."""
    from toolscore_core.distributions import distribution_version

    found = distribution_version(DISTRIBUTION)  # without importing importlib.metadata
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"
