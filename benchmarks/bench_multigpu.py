# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""N scans on one GPU vs on every GPU of this machine (``smrnb.batch`` on ``gpu_cluster``), scaling efficiency.

``python benchmarks/bench_multigpu.py [--scans 8] [--voxel 0.01] [--stride 2]``

1. ``T1``: the N scans on a cluster of one worker pinned to the first GPU;
2. ``TG``: the same scans on ``gpu_cluster("all")``, one pinned worker per GPU (G GPUs);
3. efficiency ``T1 / (G * TG)`` (1.0: G cards finish G times faster);
4. with one GPU only, instead of 2 and 3: two unpinned workers each offering a ``GPU`` resource on that one
   card (two TSDF volumes on it at once, which ``gpu_cluster`` never does), and "needs >= 2 GPUs for scaling".

Each cluster is started and warmed (one small scan in every worker: imports, the CUDA context, the kernels'
first loads) before its clock starts, so the times are the batch's alone; scans are the bundled sample at strides k .. k+3 (different
sizes, as a class hands them in). The doctor's per-GPU rows of the all-GPU cluster are printed too: which
worker's torch sees which card. ``--device cpu`` runs the same on the CPU (a dry run of the code path; the
GPU list still comes from NVML / nvidia-smi).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

CONFIG = """source: {{path: sample, stride: {stride}}}
steps:
  - step: tsdf
    params: {{voxel_size: {voxel}, depth_max: 4.0}}
  - step: extract_mesh
  - step: export
    params: {{path: mesh.ply}}
"""


def _warm(device: str, config: str, folder: str) -> str:
    """In a worker: one small scan (imports, the CUDA context, the kernels' first loads); returns what torch
    calls cuda:0 there."""
    import torch

    from smrnb.pipeline._batch import run_scan

    run_scan(config, f"warm-{os.getpid()}", folder, "warm", device)
    if device != "cuda":
        return "cpu"
    return f"{torch.cuda.get_device_name(0)} ({os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')})"


def timed_batch(client, cfgs, out: Path, device: str) -> dict:
    import smrnb

    warm = out.parent / "warm.yaml"
    warm.write_text(CONFIG.format(stride=30, voxel=0.05))
    seen = client.run(_warm, device, os.fspath(warm), os.fspath(out.parent / "warm"))
    t0 = time.perf_counter()
    res = smrnb.batch(cfgs, out, client=client, device=device, gpu=True, progress=False)
    wall = time.perf_counter() - t0
    failed = [f"{s.scan}: {s.error}" for s in res.failed]
    if failed:
        raise SystemExit("scans failed:\n" + "\n".join(failed))
    per_card: dict[str, int] = {}
    for s in res.scans:
        per_card[s.gpu or "?"] = per_card.get(s.gpu or "?", 0) + 1
    return {"wall": wall, "median_scan": statistics.median(s.seconds or 0.0 for s in res.scans),
            "per_card": per_card, "workers": sorted(seen.values())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scans", type=int, default=16)
    ap.add_argument("--voxel", type=float, default=0.005, help="TSDF voxel size in metres: smaller = longer scans")
    ap.add_argument("--stride", type=int, default=2, help="every k-th sample frame (k .. k+3 over the scans)")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    from smrnb.doctor import diagnose_cluster, list_gpus
    from smrnb.pipeline import gpu_cluster
    from smrnb.pipeline._gpus import gpu_label, select_gpus

    listed = list_gpus()
    rows = select_gpus("all")
    g = len(rows)
    try:
        import torch

        torch_line = f"torch {torch.__version__} (CUDA {torch.version.cuda})"
    except ImportError:
        torch_line = "torch not importable"
    print(f"# bench_multigpu: {args.scans} scans of the sample, {args.voxel * 100:g} cm voxels, strides "
          f"{args.stride}..{args.stride + 3}, device {args.device}; {g} GPU(s) listed by {listed.get('source')}: "
          f"{', '.join(gpu_label(r) for r in rows)}; driver {rows[0].get('driver_version')}; {torch_line}; "
          f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}", flush=True)
    lines = []
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        cfgs = []
        for i in range(args.scans):
            p = root / "configs" / f"scan{i:02d}.yaml"
            p.parent.mkdir(exist_ok=True)
            p.write_text(CONFIG.format(stride=args.stride + i % 4, voxel=args.voxel))
            cfgs.append(p)
        t0 = time.perf_counter()
        with gpu_cluster(1) as cluster, Client(cluster) as client:
            start1 = time.perf_counter() - t0
            one = timed_batch(client, cfgs, root / "one", args.device)
        lines.append(f"| 1 GPU, 1 pinned worker | T1 = {one['wall']:.2f} s | median scan {one['median_scan']:.2f} s "
                     f"| scans per card {one['per_card']} | cluster start {start1:.1f} s | torch in workers: "
                     f"{one['workers']} |")
        print(lines[-1], flush=True)
        if g >= 2:
            t0 = time.perf_counter()
            with gpu_cluster("all") as cluster, Client(cluster) as client:
                start_g = time.perf_counter() - t0
                rep = diagnose_cluster(client, layers=["driver"], timeout=20)
                print("\n".join(rep.gpu_lines()), flush=True)
                many = timed_batch(client, cfgs, root / "all", args.device)
            eff = one["wall"] / (g * many["wall"])
            lines.append(f"| {g} GPUs, {g} pinned workers | TG = {many['wall']:.2f} s | median scan "
                         f"{many['median_scan']:.2f} s | scans per card {many['per_card']} | cluster start "
                         f"{start_g:.1f} s | speed-up {one['wall'] / many['wall']:.2f}x, scaling efficiency "
                         f"T1 / (G * TG) = {eff:.2f} |")
        else:
            t0 = time.perf_counter()
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                              resources={"GPU": 1}) as cluster, Client(cluster) as client:
                start2 = time.perf_counter() - t0
                rep = diagnose_cluster(client, layers=["driver"], timeout=20)
                print("\n".join(rep.gpu_lines()), flush=True)
                shared = timed_batch(client, cfgs, root / "shared", args.device)
            lines.append(f"| 1 GPU, 2 unpinned workers sharing it (2 volumes on the card at once) | "
                         f"{shared['wall']:.2f} s | median scan {shared['median_scan']:.2f} s | scans per card "
                         f"{shared['per_card']} | cluster start {start2:.1f} s | vs T1: "
                         f"{one['wall'] / shared['wall']:.2f}x |")
            lines.append("| scaling over GPUs | needs >= 2 GPUs for scaling (this machine has 1) |")
    print("\n".join(["", "| run | batch wall time | per scan | where the scans ran | start | |", "|---|---|---|---|---|---|",
                     *lines]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
