# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Mesh extraction time: ``TSDFVolume.extract_mesh`` vs Open3D ``VoxelBlockGrid.extract_triangle_mesh``,
in one process, on the same scene.

Both systems fuse the 189 fusion frames of ``redwood-livingroom1-clean-micro`` (every 10th frame held
out) at each ``--voxels`` size (truncation 4 voxels, depth_max 3 m, color), each into its own volume;
then their extractions are timed alternately (smrnb, Open3D, Open3D, smrnb, ...) ``--repeat`` times
each, after one untimed call each, with the same thread count (torch threads; ``OMP_NUM_THREADS`` for
Open3D, set before it is imported) and passive waiting OpenMP threads (``OMP_WAIT_POLICY=PASSIVE``).
Reported: every timing, the medians and their ratio, vertex and face counts, the load average.

Usage::

    python benchmarks/bench_tsdf_extract.py [--voxels 0.005,0.01] [--threads 2] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _results import append_results

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "redwood-livingroom1-clean-micro"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--voxels", default="0.005,0.01")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--o3d-blocks", type=int, default=10000, help="Open3D initial block_count (grows by rehash)")
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    # waiting OpenMP threads sleep instead of spinning (both libraries; on a shared machine spinning
    # threads turn a busy core into a 10x slower step, see smrnb/_threads.py)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import numpy as np
    import open3d as o3d
    import open3d.core as o3c
    import torch

    torch.set_num_threads(args.threads)
    sys.path.insert(0, str(REPO))
    from smrnb.datasets import iter_redwood
    from smrnb.geometry import fuse_tsdf

    keep = [i for i in range(211) if i % 10]
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    lines = [f"## Mesh extraction vs Open3D ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
             f"Command: `python benchmarks/bench_tsdf_extract.py --voxels {args.voxels} --threads {args.threads} "
             f"--repeat {args.repeat}`; 189 frames (every 10th of 211 held out), trunc 4 vox, color, weight threshold 1; "
             f"one process, extractions alternated; OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}; `uptime` at start: "
             f"{uptime}", "",
             "| voxel | system | extraction times (s) | median | vertices / faces | load |",
             "| --- | --- | --- | --- | --- | --- |"]
    for voxel in (float(v) for v in args.voxels.split(",")):
        vol = fuse_tsdf(iter_redwood(args.data, frames=keep, batch_size=8), voxel, 4 * voxel, progress=False)
        vbg = o3d.t.geometry.VoxelBlockGrid(attr_names=("tsdf", "weight", "color"), attr_dtypes=(o3c.float32,) * 3,
                                            attr_channels=(1, 1, 3), voxel_size=voxel, block_resolution=16,
                                            block_count=args.o3d_blocks, device=o3c.Device("CPU:0"))
        for batch in iter_redwood(args.data, frames=keep, batch_size=8):
            K = o3c.Tensor(batch.K.double().numpy())
            for i in range(len(batch)):
                dep = o3d.t.geometry.Image(o3c.Tensor((batch.depth[i].numpy() * 1000).round().astype(np.uint16)))
                col = o3d.t.geometry.Image(o3c.Tensor(np.ascontiguousarray(batch.color[i].numpy())))
                ext = o3c.Tensor(np.linalg.inv(batch.poses[i].double().numpy()))
                bc = vbg.compute_unique_block_coordinates(dep, K, ext, 1000.0, 3.0, 4.0)
                vbg.integrate(bc, dep, col, K, K, ext, 1000.0, 3.0, 4.0)

        def ours(vol=vol):
            m = vol.extract_mesh()
            return m.num_vertices, m.num_faces

        def theirs(vbg=vbg):
            m = vbg.extract_triangle_mesh(weight_threshold=1.0)
            return int(m.vertex.positions.shape[0]), int(m.triangle.indices.shape[0])

        counts = {"smrnb": ours(), "open3d": theirs()}  # untimed first calls
        times: dict[str, list[float]] = {"smrnb": [], "open3d": []}
        loads = []
        for k in range(args.repeat):
            loads.append(os.getloadavg()[0])
            for name in (("smrnb", "open3d") if k % 2 == 0 else ("open3d", "smrnb")):
                t = time.perf_counter()
                (ours if name == "smrnb" else theirs)()
                times[name].append(time.perf_counter() - t)
        med = {k: statistics.median(v) for k, v in times.items()}
        load = f"{min(loads):.1f}-{max(loads):.1f}"
        lines.append(f"| {voxel * 1000:g} mm | smrnb `extract_mesh` ({vol.num_blocks} blocks of 8^3) | "
                     f"{', '.join(f'{t:.2f}' for t in times['smrnb'])} | {med['smrnb']:.2f} | "
                     f"{counts['smrnb'][0]} / {counts['smrnb'][1]} | {load} |")
        lines.append(f"| {voxel * 1000:g} mm | Open3D `extract_triangle_mesh` ({int(vbg.hashmap().size())} blocks "
                     f"of 16^3) | {', '.join(f'{t:.2f}' for t in times['open3d'])} | {med['open3d']:.2f} | "
                     f"{counts['open3d'][0]} / {counts['open3d'][1]} | {load} |")
        lines.append(f"| {voxel * 1000:g} mm | **ratio smrnb / Open3D** | | **{med['smrnb'] / med['open3d']:.2f}** | | |")
        print("\n".join(lines[-3:]), flush=True)
    append_results(lines, "RESULTS_tsdf.md")


if __name__ == "__main__":
    main()
