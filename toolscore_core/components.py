"""toolscore's own version, and the components besides the plugins whose versions can change
a result."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from functools import cache

from toolscore_core.models import Component

DISTRIBUTION = "toolscore"


@cache
def distribution_version(name: str) -> str | None:
    """The installed version of the distribution ``name``; None when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def toolscore_version() -> str:
    """The installed version of the ``toolscore`` distribution."""
    return distribution_version(DISTRIBUTION) or "0+unknown"


def python_version() -> str:
    """The interpreter: implementation and version (``cpython 3.11.7``)."""
    return f"{sys.implementation.name} {'.'.join(map(str, sys.version_info[:3]))}"


PYTHON = Component(name="python", version=python_version)
CORE: tuple[str | Component, ...] = (PYTHON, "scipy", "detect-secrets")
"""What every evaluation depends on: the interpreter, the pairing's assignment solver
(SciPy), and the credential detectors that redact the record (detect-secrets)."""


def versions(dependencies: Iterable[str | Component]) -> dict[str, str | None]:
    """Each dependency's version now, by name, sorted by name."""
    found: dict[str, str | None] = {}
    for dependency in dependencies:
        if isinstance(dependency, Component):
            found.setdefault(dependency.name, dependency.version())
        else:
            found.setdefault(dependency, distribution_version(dependency))
    return dict(sorted(found.items()))


def version_changes(
    recorded: Mapping[str, object], now: Mapping[str, object], *, prefix: str = ""
) -> list[str]:
    """``name old -> new`` for each name whose version differs (``(none)`` when absent)."""
    out = []
    for name in sorted(set(recorded) | set(now)):
        before, after = recorded.get(name), now.get(name)
        if before != after:
            out.append(f"{prefix}{name} {_shown(before)} -> {_shown(after)}")
    return out


def _shown(version: object) -> str:
    return "(none)" if version is None else str(version)
