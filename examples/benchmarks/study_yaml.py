"""Writing a study spec as YAML for the benchmarks' ``make_study.py`` scripts: matchers on
one line, as the contracts write them by hand."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml


class Flow(dict[str, Any]):
    """A mapping written on one line: a matcher reads as the contracts write it."""


class Dumper(yaml.SafeDumper):
    """YAML's safe dumper, with matchers on one line."""


def _flow(dumper: Dumper, data: Flow) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True)


Dumper.add_representer(Flow, _flow)


def write_study(spec: dict[str, Any], header: str, output: Path | None) -> None:
    """The spec under its header comment, to ``output`` (None: standard output)."""
    written = header + yaml.dump(spec, Dumper=Dumper, sort_keys=False, allow_unicode=True,
                                 width=100)
    if output is None:
        sys.stdout.write(written)
    else:
        output.write_text(written, encoding="utf-8")
