# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Peak memory and extraction time: smrnb (streamed fuse_tsdf + extract_mesh) vs Open3D VoxelBlockGrid,
each in its own child process (peak RSS from ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of that child).

Data: the 190 non-held-out frames (every 10th held out) of ``redwood-livingroom1-clean-micro``, 1 cm
voxels, truncation 4 voxels, depth_max 3 m, color; then mesh extraction timed at 5 mm as well.

Usage::

    python benchmarks/bench_tsdf_memory.py [--data PATH] [--voxel 0.01] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "redwood-livingroom1-clean-micro"


def child(system: str, data: str, voxel: float, threads: int, o3d_blocks: int) -> dict:
    import numpy as np
    import torch

    torch.set_num_threads(threads)
    sys.path.insert(0, str(REPO))
    from smrnb.datasets import iter_redwood

    keep = [i for i in range(211) if i % 10]
    out = {"system": system}
    t0 = time.perf_counter()
    if system == "smrnb":
        from smrnb.geometry.tsdf import fuse_tsdf

        vol = fuse_tsdf(iter_redwood(data, frames=keep, batch_size=8), voxel, 4 * voxel, progress=False)
        out["fuse_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        mesh = vol.extract_mesh()
        out["extract_s"] = time.perf_counter() - t1
        out["vertices"] = mesh.num_vertices
    else:
        import open3d as o3d
        import open3d.core as o3c

        vbg = o3d.t.geometry.VoxelBlockGrid(attr_names=("tsdf", "weight", "color"), attr_dtypes=(o3c.float32,) * 3,
                                            attr_channels=(1, 1, 3), voxel_size=voxel, block_resolution=16,
                                            block_count=o3d_blocks, device=o3c.Device("CPU:0"))
        for batch in iter_redwood(data, frames=keep, batch_size=8):
            K = o3c.Tensor(batch.K.double().numpy())
            for i in range(len(batch)):
                dep = o3d.t.geometry.Image(o3c.Tensor((batch.depth[i].numpy() * 1000).round().astype(np.uint16)))
                col = o3d.t.geometry.Image(o3c.Tensor(np.ascontiguousarray(batch.color[i].numpy())))
                ext = o3c.Tensor(np.linalg.inv(batch.poses[i].double().numpy()))
                bc = vbg.compute_unique_block_coordinates(dep, K, ext, 1000.0, 3.0, 4.0)
                vbg.integrate(bc, dep, col, K, K, ext, 1000.0, 3.0, 4.0)
        out["fuse_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        mesh = vbg.extract_triangle_mesh(weight_threshold=1.0)
        out["extract_s"] = time.perf_counter() - t1
        out["vertices"] = int(mesh.vertex.positions.shape[0])
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--voxel", type=float, default=0.01)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--child", default=None)
    ap.add_argument("--o3d-blocks", type=int, default=50000,
                    help="Open3D block_count (its pre-allocated capacity; size it to the scene for a fair peak)")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.data, args.voxel, args.threads, args.o3d_blocks)))
        return
    rows = []
    for system in ("smrnb", "open3d"):
        r = subprocess.run([sys.executable, __file__, "--child", system, "--data", args.data, "--voxel",
                            str(args.voxel), "--threads", str(args.threads), "--o3d-blocks", str(args.o3d_blocks)], capture_output=True, text=True,
                           timeout=1800)
        if r.returncode:
            print(r.stderr[-2000:])
            continue
        rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    if len(rows) == 2:
        s, o = rows
        print(f"peak RSS ratio smrnb/Open3D {s['peak_rss_mb'] / o['peak_rss_mb']:.2f}, "
              f"extraction time ratio {s['extract_s'] / o['extract_s']:.2f}")


if __name__ == "__main__":
    main()
