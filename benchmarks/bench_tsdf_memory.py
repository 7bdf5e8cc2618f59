# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Peak memory of streamed fusion + mesh extraction: smrnb vs Open3D VoxelBlockGrid, each run in its own
fresh child process (peak RSS = ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of that child, which
includes the interpreter and the library's own import: torch alone is ~220 MB resident here, Open3D ~125 MB).

Data: the 189 fusion frames of ``redwood-livingroom1-clean-micro`` (the held-out protocol: every 10th
frame left out), streamed: smrnb through ``smrnb.datasets.iter_redwood`` (batches of 8), Open3D through
its own readers (``o3d.t.io.read_image`` per frame, ``read_pinhole_camera_intrinsic`` /
``read_pinhole_camera_trajectory``, no torch in its process), as its examples do; voxel
``--voxel`` (1 cm), truncation 4 voxels, depth_max 3 m, color; then ``extract_mesh`` /
``extract_triangle_mesh(weight_threshold=1)``. Both run with ``--threads`` threads (torch threads,
``OMP_NUM_THREADS`` for Open3D).

Open3D's ``block_count`` is the capacity of its block hash map, allocated up front (16^3 voxels x 5
float32 = 80 KB a block) and doubled by a rehash when a frame needs more. Settings measured:

* ``example``: sized as Open3D's own example does for a living room (``integrate.py``: 50000 blocks at
  voxel 3/512 m), scaled to this voxel size by block area: ``50000 * (0.005859 / voxel)^2``;
* ``active``: the number of blocks the scene activates in the end (measured by a probe child that
  starts at 1000 and grows). Open3D still rehashes once with it (a frame's candidate blocks are
  reserved before they are matched with the ones it has), so the capacity column shows what it used;
* an integer: that ``block_count`` (e.g. the smallest one found that is never rehashed: the least
  memory Open3D can fuse this scene with);
* ``grow``: ``block_count=1000``, growing by rehash (what a user who does not size it gets).

Children run in alternating order over ``--repeat`` rounds; the load average is recorded before each.

Usage::

    python benchmarks/bench_tsdf_memory.py [--voxel 0.01] [--threads 2] [--repeat 2] [--o3d example,active,1250,grow]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _results import append_results

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "redwood-livingroom1-clean-micro"


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(system: str, data: str, voxel: float, threads: int) -> dict:
    keep = [i for i in range(211) if i % 10]
    out: dict = {"system": system}
    if system == "smrnb":
        import torch

        torch.set_num_threads(threads)
        sys.path.insert(0, str(REPO))
        from smrnb.datasets import iter_redwood
        from smrnb.geometry import fuse_tsdf

        out["rss_after_import_mb"] = _rss_mb()
        t0 = time.perf_counter()
        vol = fuse_tsdf(iter_redwood(data, frames=keep, batch_size=8), voxel, 4 * voxel, progress=False)
        out["fuse_s"] = time.perf_counter() - t0
        out["rss_after_fuse_mb"] = _rss_mb()
        out["blocks"] = f"{vol.num_blocks} of 8^3 ({vol.memory_bytes() / 2**20:.0f} MiB held)"
        t1 = time.perf_counter()
        mesh = vol.extract_mesh()
        out["extract_s"] = time.perf_counter() - t1
        out["vertices"] = mesh.num_vertices
    else:
        # Open3D as its own examples run it: its readers for the images, intrinsics and trajectory
        # (no torch in this process)
        import numpy as np
        import open3d as o3d
        import open3d.core as o3c

        blocks = int(system.split(":")[1])
        out["rss_after_import_mb"] = _rss_mb()
        root = Path(data)
        depths = sorted((root / "depth").glob("*.png"))
        colors = {p.stem: p for p in (root / "image").glob("*.jpg")}
        intr = o3d.io.read_pinhole_camera_intrinsic(str(root / "camera_primesense.json"))
        K = o3c.Tensor(np.asarray(intr.intrinsic_matrix, dtype=np.float64))
        traj = o3d.io.read_pinhole_camera_trajectory(str(root / "trajectory_open3d_estimated.log"))
        t0 = time.perf_counter()
        vbg = o3d.t.geometry.VoxelBlockGrid(attr_names=("tsdf", "weight", "color"), attr_dtypes=(o3c.float32,) * 3,
                                            attr_channels=(1, 1, 3), voxel_size=voxel, block_resolution=16,
                                            block_count=blocks, device=o3c.Device("CPU:0"))
        for i in keep:
            dep = o3d.t.io.read_image(str(depths[i]))
            col = o3d.t.io.read_image(str(colors[depths[i].stem]))
            ext = o3c.Tensor(np.asarray(traj.parameters[i].extrinsic, dtype=np.float64))  # world-to-camera
            bc = vbg.compute_unique_block_coordinates(dep, K, ext, 1000.0, 3.0, 4.0)
            vbg.integrate(bc, dep, col, K, K, ext, 1000.0, 3.0, 4.0)
        out["fuse_s"] = time.perf_counter() - t0
        out["rss_after_fuse_mb"] = _rss_mb()
        hm = vbg.hashmap()
        out["active_blocks"] = int(hm.size())
        out["blocks"] = f"{int(hm.size())} of 16^3 active, capacity {int(hm.capacity())}"
        t1 = time.perf_counter()
        mesh = vbg.extract_triangle_mesh(weight_threshold=1.0)
        out["extract_s"] = time.perf_counter() - t1
        out["vertices"] = int(mesh.vertex.positions.shape[0])
    out["peak_rss_mb"] = _rss_mb()
    return out


def run_child(system: str, args) -> dict | None:
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # no spinning threads on the shared machine (both systems)
    load = os.getloadavg()[0]
    r = subprocess.run([sys.executable, __file__, "--child", system, "--data", args.data, "--voxel", str(args.voxel),
                        "--threads", str(args.threads)], capture_output=True, text=True, timeout=1800, env=env)
    if r.returncode:
        print(f"[{system}] failed:\n{r.stderr[-2000:]}", flush=True)
        return None
    row = json.loads(r.stdout.strip().splitlines()[-1])
    row["load"] = load
    print(row, flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--voxel", type=float, default=0.01)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--o3d", default="example,active,grow",
                    help="Open3D block_count settings: example, active, grow or integers, comma-separated")
    ap.add_argument("--child", default=None)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.data, args.voxel, args.threads)))
        return
    settings: dict[str, int] = {}
    for s in args.o3d.split(","):
        if s == "example":
            settings["example"] = int(round(50000 * (3.0 / 512 / args.voxel) ** 2))
        elif s == "grow":
            settings["grow"] = 1000
        elif s == "active":
            probe = run_child("open3d:1000", args)  # starts small and grows: its final size is what the scene needs
            if probe is None:
                sys.exit(1)
            settings["active"] = probe["active_blocks"]
        else:
            settings[f"given, {s}"] = int(s)
    systems = ["smrnb"] + [f"open3d:{n}" for n in settings.values()]
    rows: dict[str, list[dict]] = {s: [] for s in systems}
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    for k in range(args.repeat):
        for s in (systems if k % 2 == 0 else systems[::-1]):
            r = run_child(s, args)
            if r is not None:
                rows[s].append(r)
    name = {f"open3d:{n}": f"Open3D VoxelBlockGrid, block_count {n} ({key})" for key, n in settings.items()}
    name["smrnb"] = "smrnb `fuse_tsdf(iter_redwood(...))` + `extract_mesh`"
    lines = [f"## Peak memory, streamed fusion + extraction ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
             f"Command: `python benchmarks/bench_tsdf_memory.py --voxel {args.voxel} --threads {args.threads} --repeat "
             f"{args.repeat} --o3d {args.o3d}`; 189 frames, voxel {args.voxel * 1000:g} mm, trunc 4 vox, color; one fresh "
             f"child per run, alternating order; `uptime` at start: {uptime}", "",
             "| system | peak RSS (MB), per run | after import | after fusion | fuse (s) | extract (s) | vertices | blocks | load at child start |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s in systems:
        rr = rows[s]
        if not rr:
            continue
        def col(key: str, fmt: str, rr=rr) -> str:
            return ", ".join(format(r[key], fmt) for r in rr)

        lines.append(f"| {name[s]} | {col('peak_rss_mb', '.0f')} | "
                     f"{statistics.median(r['rss_after_import_mb'] for r in rr):.0f} | {col('rss_after_fuse_mb', '.0f')} | "
                     f"{col('fuse_s', '.1f')} | {col('extract_s', '.2f')} | {rr[0]['vertices']} | {rr[0]['blocks']} | "
                     f"{col('load', '.1f')} |")
    if rows["smrnb"]:
        ours = statistics.median(r["peak_rss_mb"] for r in rows["smrnb"])
        for s in systems[1:]:
            if rows[s]:
                theirs = statistics.median(r["peak_rss_mb"] for r in rows[s])
                lines.append(f"| **ratio smrnb / {name[s].split(', ', 1)[1]}** | **{ours / theirs:.2f}** (medians "
                             f"{ours:.0f} / {theirs:.0f} MB) | | | | | | | |")
    append_results(lines, "RESULTS_tsdf.md")


if __name__ == "__main__":
    main()
