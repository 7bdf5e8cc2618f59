# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Throughput of ``smrnb.batch``: N scans of the bundled sample on a LocalCluster of W workers vs the
same scans one after another in this process, and the overhead per task.

``python benchmarks/bench_batch.py [--scans 8] [--workers 2]`` prints one markdown row.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

CONFIG = """source: {{path: sample, stride: {stride}}}
steps:
  - step: tsdf
    params: {{voxel_size: {voxel}, depth_max: 4.0}}
  - step: extract_mesh
  - step: fill_holes
  - step: export
    params: {{path: mesh.ply}}
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scans", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--voxel", type=float, default=0.03, help="TSDF voxel size: smaller = longer scans")
    ap.add_argument("--stride", type=int, default=5, help="every k-th sample frame (k .. k+7 over the scans)")
    args = ap.parse_args()
    import smrnb
    from smrnb.pipeline._batch import config_key, run_scan

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        cfgs = []
        for i in range(args.scans):  # strides k..k+7: scans of slightly different sizes, as a class would hand in
            p = root / "configs" / f"scan{i:02d}.yaml"
            p.parent.mkdir(exist_ok=True)
            p.write_text(CONFIG.format(stride=args.stride + i % 8, voxel=args.voxel))
            cfgs.append(p)
        t0 = time.perf_counter()
        task_s = []
        for p in cfgs:
            rec = run_scan(os.fspath(p), p.stem, os.fspath(root / "seq"), config_key(p))
            task_s.append(rec["seconds"])
        seq = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = smrnb.batch(cfgs, root / "par", local=args.workers, progress=False)
        par = time.perf_counter() - t0
        assert not res.failed, res.failed
        in_tasks = sum(s.seconds or 0.0 for s in res.scans)
        overhead = (par * args.workers - in_tasks) / args.scans
        print(f"| {args.scans} scans ({args.voxel * 100:g} cm voxels, stride {args.stride}+), {args.workers} workers, "
              f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} "
              f"| sequential {seq:.1f} s | batch {par:.1f} s (cluster start included) | speed-up {seq / par:.2f}x "
              f"| overhead per task {overhead:.2f} s (worker time not spent in the pipeline) |")


if __name__ == "__main__":
    main()
