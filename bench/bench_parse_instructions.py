"""Instructions ``load_trace`` executes on a 3 MB OTLP export (cachegrind), beside the time
ratios of bench_parse.py, which other work on a small machine moves.

    python bench/bench_parse_instructions.py [--mb 3]    # needs valgrind

Writes bench_parse.py's OTLP export (the same spans, seed 0) of ``--mb`` megabytes, and
counts the instructions of a process that imports the readers and loads it, minus one that
only imports them: what reading the export costs, format detection included.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_evaluate import byte_compile_toolscore  # noqa: E402
from bench_instructions import instructions  # noqa: E402
from bench_parse import otlp_export  # noqa: E402

CHILD = ("import sys; from toolscore_core.traces import load_trace; "
         "import toolscore_formats.genai, toolscore_formats.otel; "
         "sys.argv[1] == 'load' and load_trace(sys.argv[2])")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=3.0)
    options = parser.parse_args()
    byte_compile_toolscore()
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "otlp.json"
        path.write_text(json.dumps(otlp_export(int(options.mb * 1_000_000), random.Random(0))))
        size = path.stat().st_size
        loaded = instructions([sys.executable, "-c", CHILD, "load", str(path)])
        imported = instructions([sys.executable, "-c", CHILD, "import", str(path)])
    print(f"{(loaded - imported) / 1e6:.1f} million instructions to load a "
          f"{size / 1e6:.1f} MB OTLP export")


if __name__ == "__main__":
    main()
