"""Benchmark: regrading agent-run JSONL on a local Ray cluster against the local engine.

    python bench/bench_regrade_ray.py                  # 1,000,000 rows (about 12 min on 2 CPUs)
    python bench/bench_regrade_ray.py --rows 100000    # a quicker look

Both engines regrade the same file (rows of 10 calls each, 100 distinct evidence sets, made
as bench_regrade_jsonl.py makes them) with 2 workers: the local engine's process pool of 2,
and a local Ray cluster of 2 CPUs started before the clock starts (its start-up is printed
apart). Prints each engine's rows/s, the Ray engine's overhead per row, the driver's CPU
time per row (what bounds a cluster's throughput: the driver reads, sends, receives and
writes every row), and the driver's peak RSS at --small rows and at --rows (flat in rows:
the window of chunks is bounded).
Each measurement runs in a fresh process; the outputs are compared byte for byte.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

from bench_regrade_jsonl import DATA, generate, load, spec, templates, vm_hwm_kib


def child(engine: str, source: str, output: str, spec_path: str) -> None:
    from toolscore_studies.regrade import RegradeSettings, regrade_file

    started = None
    if engine == "ray":
        import ray

        began = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
        started = time.perf_counter() - began
    began = time.perf_counter()
    cpu = time.process_time()
    summary = regrade_file(source, output, RegradeSettings(spec=spec_path), jobs=2,
                           engine=engine)
    seconds = time.perf_counter() - began
    cpu = time.process_time() - cpu
    digest = hashlib.sha256()
    with open(output, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    Path(output).unlink()
    print(json.dumps({"rows": summary.rows, "seconds": seconds, "start_seconds": started,
                      "driver_cpu_seconds": cpu,
                      "driver_peak_kib": vm_hwm_kib(), "sha256": digest.hexdigest()}))


def measure(engine: str, source: Path, spec_path: Path) -> dict:
    output = source.with_suffix(f".{engine}.jsonl")
    done = subprocess.run([sys.executable, __file__, "--child", engine, str(source),
                           str(output), str(spec_path)], capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=10_000,
                        help="Rows of the driver-memory baseline.")
    parser.add_argument("--child", nargs=4, metavar=("ENGINE", "SRC", "OUT", "SPEC"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    import yaml

    DATA.mkdir(exist_ok=True)
    spec_path = DATA / "study-v2.yaml"
    spec_path.write_text(yaml.safe_dump(spec(threshold=0.95), sort_keys=False))
    lines = templates(variants=20)  # 100 distinct evidence sets
    source = DATA / "runs-ray.jsonl"
    results: dict[tuple[str, int], dict] = {}
    try:
        for rows in (args.small, args.rows):
            print(f"generating {rows:,} rows ...", flush=True)
            generate(source, rows, lines)
            for engine in ("local", "ray"):
                result = measure(engine, source, spec_path)
                results[engine, rows] = result
                start = ("" if result["start_seconds"] is None else
                         f", cluster start {result['start_seconds']:.1f}s not counted")
                print(f"  {engine:5}: {rows:,} rows in {result['seconds']:.1f}s = "
                      f"{rows / result['seconds']:,.0f} rows/s, driver peak "
                      f"{result['driver_peak_kib'] / 1024:.1f} MiB{start} (load {load()})",
                      flush=True)
            if results["local", rows]["sha256"] != results["ray", rows]["sha256"]:
                sys.exit(f"the engines wrote different bytes at {rows:,} rows")
    finally:
        source.unlink(missing_ok=True)
    big = args.rows
    local, ray = results["local", big], results["ray", big]
    print(f"[1] regrade {big:,} rows, 2 workers: local {big / local['seconds']:,.0f} rows/s, "
          f"ray {big / ray['seconds']:,.0f} rows/s (same bytes)")
    overhead = (ray["seconds"] - local["seconds"]) / big * 1e6
    ratio = ray["seconds"] / local["seconds"]
    print(f"[2] Ray's overhead: {overhead:+.1f} µs per row ({ratio:.2f}x the local engine's "
          "time)")
    for engine in ("local", "ray"):
        per_row = results[engine, big]["driver_cpu_seconds"] / big * 1e6
        print(f"[3] driver CPU, {engine}: {per_row:.1f} µs per row (the driver alone could "
              f"feed {1e6 / per_row:,.0f} rows/s)")
    for engine in ("local", "ray"):
        ratio = (results[engine, big]["driver_peak_kib"]
                 / results[engine, args.small]["driver_peak_kib"])
        print(f"[4] driver peak RSS, {engine}: {big:,} rows / {args.small:,} rows = "
              f"{ratio:.3f}x ({results[engine, big]['driver_peak_kib'] / 1024:.1f} MiB)")


if __name__ == "__main__":
    main()
