"""Verifying a receipt whose inputs total 1 GB, against ``sha256sum`` on the same files.

Run from the repository root:

    python bench/bench_verify.py            # 1 GiB of inputs, best of 3
    python bench/bench_verify.py --mib 256  # smaller

It writes a trace-like JSON Lines file (most of the bytes) beside the gold file, forbidden
rules, honesty config and injected file in a temp folder, binds them all in a receipt,
then times ``verify_receipt`` and ``sha256sum`` over the same files (best of N each, in the
same run, caches warmed by a first untimed pass of each), prints both throughputs and the
ratio (target: >= 0.8), and deletes the folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from toolscore_core.evaluation import evaluate_files
from toolscore_core.receipts import write_evaluation_receipt
from toolscore_core.verify import verify_receipt

MIB = 1 << 20
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "contracts"


def _trace_block() -> bytes:
    """About 1 MiB of trace lines, each call different, as an agent trace would be."""
    lines = []
    size = 0
    i = 0
    while size < MIB:
        call = {"id": f"call_{i}", "tool": "search_docs",
                "args": {"query": f"reset password case {i}", "limit": i % 10},
                "result": {"hits": [f"kb/article-{i}", f"kb/article-{i + 1}"]},
                "duration": (i % 997) / 1000}
        line = json.dumps(call).encode() + b"\n"
        lines.append(line)
        size += len(line)
        i += 1
    return b"".join(lines)[:MIB]


def make_inputs(folder: Path, mib: int) -> dict[str, Path]:
    paths = {"gold": folder / "gold.json", "trace": folder / "trace.json",
             "forbidden": folder / "forbidden.json", "honesty_config": folder / "honesty.json",
             "injected": folder / "injected.json"}
    shutil.copy(EXAMPLE / "gold.json", paths["gold"])
    shutil.copy(EXAMPLE / "trace.json", paths["trace"])
    paths["forbidden"].write_text('[{"tool": "delete_user"}]\n')
    paths["honesty_config"].write_text("{}\n")
    paths["injected"].write_text("{}\n")
    paths["big"] = folder / "calls.jsonl"
    block = _trace_block()
    with open(paths["big"], "wb") as handle:
        for n in range(mib):
            # vary each block so no two MiB are the same bytes
            handle.write(n.to_bytes(8, "big") + block[8:])
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=1024, help="size of the big input in MiB")
    parser.add_argument("--repeat", type=int, default=3, help="best of N")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="toolscore-bench-verify-"))
    try:
        paths = make_inputs(folder, args.mib)
        evaluation = evaluate_files(paths["gold"], paths["trace"])
        receipt_path = folder / "run.receipt.json"
        # The big file is bound as the trace: verification hashes bytes, it does not parse.
        write_evaluation_receipt(receipt_path, evaluation, gold=paths["gold"],
                                 trace=paths["big"], forbidden=paths["forbidden"],
                                 honesty_config=paths["honesty_config"],
                                 injected=paths["injected"])
        files = [str(paths[r]) for r in ("gold", "big", "forbidden", "honesty_config",
                                         "injected")]
        total = sum(Path(f).stat().st_size for f in files)

        def run_verify() -> None:
            result = verify_receipt(receipt_path)
            if not result.ok:
                raise SystemExit(f"verification failed: {result.problems}")

        def run_sha256sum() -> None:
            subprocess.run(["sha256sum", *files], check=True, stdout=subprocess.DEVNULL)

        timings = {}
        runners = (("verify_receipt", run_verify), ("sha256sum", run_sha256sum))
        for _, func in runners:
            func()  # warm the page cache and imports
        for name, func in runners:
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                func()
                best = min(best, time.perf_counter() - start)
            timings[name] = best
        print(f"inputs: {len(files)} files, {total / MIB:.0f} MiB")
        for name, seconds in timings.items():
            print(f"{name:>15}: {seconds:.3f} s  {total / MIB / seconds:,.0f} MiB/s")
        ratio = timings["sha256sum"] / timings["verify_receipt"]
        print(f"{'ratio':>15}: {ratio:.2f}x the speed of sha256sum (target >= 0.80)")
        return 0 if ratio >= 0.8 else 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
