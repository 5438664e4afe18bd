"""Instructions per distinct regraded row and per trace of a many-trace eval (cachegrind).

    python bench/bench_row_instructions.py [--items 100]    # needs valgrind
    python bench/bench_row_instructions.py --stages         # and where a row's go

The throughput benchmarks' wall rates and CPU times move with other work on a shared
machine; the instructions a process executes do not. This counts, in one process, the
regrade of bench_regrade_jsonl.py's distinct rows (``RowRegrader.regrade``) and the
evaluation of bench_eval_many.py's traces with their JSON entries and table rows
(``evaluate_chunk``, ``batch_json``, ``table_text``), each as the difference between a
process that handles ``--items`` items and then 100 more, and one that handles the 100
alone: start-up, imports and first-use costs (``scipy.optimize``) cancel out.

``--stages`` also counts the regrade's stages, each as the same difference: decoding the
line; that and the canonical JSON of its values with the old row's hash; the whole regrade
without the new record's JSON (its text is a constant) and with it. Each stage is the
difference between two of these.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_evaluate import byte_compile_toolscore  # noqa: E402
from bench_instructions import instructions  # noqa: E402
from synthetic import agent_run, make_case  # noqa: E402

WARM_UP = 100

CHILD = """
import sys
kind, folder, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if kind != "eval":
    from toolscore_core.canonical import join_members, sha256_hex
    from toolscore_core.context import Evaluation
    from toolscore_studies.regrade import RegradeSettings, RowRegrader
    from toolscore_studies.row_json import decode_row, row_pieces
    if kind == "no-record":  # the record's JSON left out: a constant text
        Evaluation.record_json = property(lambda self: "{}")
    regrader = RowRegrader(RegradeSettings(spec=folder + "/spec.yaml"))
    lines = open(folder + "/rows.jsonl", "rb").read().splitlines(keepends=True)
    for line in lines[first:last]:
        if kind == "decode":
            decode_row(line.decode())
        elif kind == "pieces":
            row, shown = decode_row(line.decode())
            sha256_hex(join_members(row_pieces(row, shown)).encode())
        else:
            regrader.regrade(line)
else:
    from toolscore_cli import eval_many
    from toolscore_core.plugins import default_registry
    registry = default_registry()
    items = eval_many.items_from_traces(folder + "/gold.json",
                                        [f"{folder}/t{n}.json" for n in range(first, last)])
    outcomes = eval_many.evaluate_chunk(items, eval_many.Settings(want_record=True), registry)
    eval_many.batch_json(outcomes)
    eval_many.table_text(outcomes)
"""


def write_inputs(folder: Path, items: int) -> None:
    """The regrade's distinct rows and spec, and the eval's contract and traces."""
    import bench_regrade_jsonl as regrade_bench
    import yaml

    total = WARM_UP + items
    (folder / "spec.yaml").write_text(yaml.safe_dump(regrade_bench.spec(threshold=0.95),
                                                     sort_keys=False))
    rows = regrade_bench.templates(variants=-(-total // regrade_bench.TASKS))
    (folder / "rows.jsonl").write_text("\n".join(rows) + "\n")
    expected, _ = make_case(10, 5, seed=0)
    (folder / "gold.json").write_text(json.dumps(expected))
    tools = [f"tool_{i}" for i in range(5)]
    for n in range(total):
        calls = agent_run(expected, tools, random.Random(n + 1))
        for i, call in enumerate(calls):
            call["id"] = f"call_{n}_{i}"
        (folder / f"t{n}.json").write_text(json.dumps({"calls": calls}))


def per_item(kind: str, folder: Path, items: int) -> float:
    """Instructions per item: (``items`` and the warm-up) minus (the warm-up alone), over
    ``items``."""
    script = folder / "child.py"
    script.write_text(CHILD)
    # once uncounted: the first run of a module writes its .pyc, which no count should hold
    subprocess.run([sys.executable, str(script), kind, str(folder), "0", "1"], check=True)
    alone = instructions([sys.executable, str(script), kind, str(folder), str(items),
                          str(items + WARM_UP)])
    both = instructions([sys.executable, str(script), kind, str(folder), "0",
                         str(items + WARM_UP)])
    return (both - alone) / items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--stages", action="store_true",
                        help="also count the regrade's stages")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write_inputs(folder, options.items)
        byte_compile_toolscore()  # so that no count includes compiling a module
        whole = 0.0
        for kind, what in (("regrade", "regraded row (distinct, 10 calls)"),
                           ("eval", "trace of a many-trace eval (10 calls, JSON entry)")):
            count = per_item(kind, folder, options.items)
            print(f"{count / 1e6:.2f} million instructions per {what}", flush=True)
            if kind == "regrade":
                whole = count
        if options.stages:
            print_stages(folder, options.items, whole)


def print_stages(folder: Path, items: int, whole: float) -> None:
    """Where a regraded row's instructions go (see the module's docstring)."""
    decode = per_item("decode", folder, items)
    pieces = per_item("pieces", folder, items)
    no_record = per_item("no-record", folder, items)
    for what, count in (("decoding the line", decode),
                        ("the canonical JSON of its values and the old row's hash",
                         pieces - decode),
                        ("the evaluation, the new row's values and hashes",
                         no_record - pieces),
                        ("the record's JSON and its credential prefilter", whole - no_record)):
        print(f"  {count / 1e6:.2f} M {what}", flush=True)


if __name__ == "__main__":
    main()
