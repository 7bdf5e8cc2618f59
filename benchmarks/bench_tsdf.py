# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""TSDF fusion benchmark: smrnb.fuse_tsdf vs Open3D's VoxelBlockGrid, measured in one run.

Data: the Redwood/ICL living-room sample (211 RGB-D frames, 640x480, clean depth) from
``../shared/data/redwood-livingroom1-clean-micro`` (or ``--data``).

1. Speed (CPU, or the frames' device): all 211 frames at 1 cm voxels, truncation 8 voxels, depth_max
   3 m, with color; frames per second of smrnb and of Open3D (block_resolution 16, its default), and
   the ratio. On CUDA the frames are pre-loaded on the GPU; "whole fuse_tsdf" is the call users make
   (block planning, then groups of frames updated in one pass each), while "integrate only" and
   "prepare + integrate" time the frame-by-frame update (the path of ``TSDFVolume.integrate``) with
   CUDA events.
2. Quality: fuse all frames but every 10th (1 cm, truncation 4 voxels) with both systems, extract
   meshes, re-render them with smrnb's rasterizer into the 22 held-out frames and compare with the
   measured depth (median / mean absolute error, coverage). Pixel-centre convention: integer centres,
   the data's own (pixel ``(u, v)`` looks through ``((u - cx) / fx, (v - cy) / fy, 1)`` with cx = 319.5);
   Open3D's ray caster uses ``u + 0.5``. ``bench_pixel_centre.py`` reports both conventions with both
   renderers.

Open3D is optional (``pip install open3d-cpu``); without it its rows are skipped with a message.

Usage::

    python benchmarks/bench_tsdf.py [--device cpu|cuda] [--data PATH] [--out benchmarks/RESULTS_tsdf.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import smrnb  # noqa: E402
from smrnb.geometry import (  # noqa: E402
    TSDFVolume,
    depth_error,
    fuse_tsdf,
)


def _open3d():
    try:
        import open3d as o3d
        import open3d.core as o3c
    except ImportError as exc:
        print(f"[skip] Open3D not installed ({exc}); `pip install open3d-cpu` to compare", flush=True)
        return None, None
    return o3d, o3c


def o3d_fuse(frames, voxel: float, trunc_vox: float, depth_max: float = 3.0, color: bool = True):
    """Open3D tensor VoxelBlockGrid on the CPU; returns (seconds, legacy mesh or None)."""
    o3d, o3c = _open3d()
    if o3d is None:
        return None, None
    names = ("tsdf", "weight", "color") if color else ("tsdf", "weight")
    dtypes = (o3c.float32,) * len(names)
    chans = ((1), (1), (3)) if color else ((1), (1))
    vbg = o3d.t.geometry.VoxelBlockGrid(attr_names=names, attr_dtypes=dtypes, attr_channels=chans,
                                        voxel_size=voxel, block_resolution=16, block_count=50000,
                                        device=o3c.Device("CPU:0"))
    K = o3c.Tensor(frames.K.double().cpu().numpy())
    deps = [o3d.t.geometry.Image(o3c.Tensor((frames.depth[i].cpu().numpy() * 1000).round().astype(np.uint16)))
            for i in range(len(frames))]
    cols = ([o3d.t.geometry.Image(o3c.Tensor(np.ascontiguousarray(frames.color[i].cpu().numpy())))
             for i in range(len(frames))] if color else None)
    exts = [o3c.Tensor(np.linalg.inv(frames.poses[i].double().cpu().numpy())) for i in range(len(frames))]
    t0 = time.perf_counter()
    for i in range(len(frames)):
        bc = vbg.compute_unique_block_coordinates(deps[i], K, exts[i], 1000.0, depth_max, trunc_vox)
        if color:
            vbg.integrate(bc, deps[i], cols[i], K, K, exts[i], 1000.0, depth_max, trunc_vox)
        else:
            vbg.integrate(bc, deps[i], K, exts[i], 1000.0, depth_max, trunc_vox)
    dt = time.perf_counter() - t0
    mesh = vbg.extract_triangle_mesh(weight_threshold=1.0).to_legacy()
    return dt, mesh


def o3d_to_smrnb(mesh) -> smrnb.Mesh:
    return smrnb.Mesh(torch.tensor(np.asarray(mesh.vertices), dtype=torch.float32),
                      torch.tensor(np.asarray(mesh.triangles), dtype=torch.int64), frame="opencv")


def cuda_integrate_only(frames, voxel: float, trunc: float, reps: int = 3) -> dict:
    """Pre-plan the blocks (fuse_tsdf's first pass), then time only the per-frame updates with CUDA
    events (best of ``reps``). Also times the whole fuse_tsdf call."""
    dev = frames.depth.device
    fuse_tsdf(frames.select(slice(0, 8)), voxel, trunc, progress=False)  # warm-up
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    vol = fuse_tsdf(frames, voxel, trunc, progress=False)
    torch.cuda.synchronize()
    whole = time.perf_counter() - t0
    Kc = frames.K.double().cpu()
    poses = frames.poses.double().cpu()
    prepared = [vol._prepare(frames.depth[i], Kc, poses[i], frames.color[i]) for i in range(len(frames))]
    ids = []
    for fr in prepared:
        cand = vol._touch(fr)
        ids.append(vol._tbl[vol._flat(cand)].long())
    voxels = sum(int(i.numel()) for i in ids) * vol.block_size ** 3
    best = float("inf")
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for fr, i in zip(prepared, ids):
            vol._integrate_blocks(i, fr)
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) / 1000)
    # prepare + integrate (what a caller of fuse_tsdf pays per frame once blocks are planned)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for i in range(len(frames)):
        vol._integrate_blocks(ids[i], vol._prepare(frames.depth[i], Kc, poses[i], frames.color[i]))
    end.record()
    torch.cuda.synchronize()
    prep_int = start.elapsed_time(end) / 1000
    n = len(frames)
    return {"frames": n, "integrate_s": best, "integrate_fps": n / best, "prepare_integrate_fps": n / prep_int,
            "fuse_tsdf_s": whole, "fuse_tsdf_fps": n / whole, "voxel_updates_per_frame": voxels / n,
            "blocks": vol.num_blocks, "device": torch.cuda.get_device_name(dev)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "redwood-livingroom1-clean-micro"))
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "RESULTS_tsdf.md"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-quality", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    frames = smrnb.load_redwood(args.data)
    lines = [f"## TSDF fusion ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.node()}, "
             f"torch {torch.__version__}, {args.threads} CPU threads)", "",
             f"Command: `python benchmarks/bench_tsdf.py --device {args.device} --threads {args.threads}`; data: "
             f"{len(frames)} frames {frames.width}x{frames.height} ({Path(args.data).name}); load average at start "
             f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.", ""]

    def emit(s: str = "") -> None:
        print(s, flush=True)
        lines.append(s)

    if args.device.startswith("cuda"):
        fr = frames.to(args.device)
        emit("| setting | integrate only (CUDA events) | prepare + integrate | whole fuse_tsdf | voxel updates/frame |")
        emit("| --- | --- | --- | --- | --- |")
        for trunc_vox in (8, 4):
            r = cuda_integrate_only(fr, 0.01, 0.01 * trunc_vox)
            emit(f"| 1 cm, trunc {trunc_vox} vox, color, {r['device']} | {r['integrate_fps']:.0f} FPS "
                 f"({r['integrate_s'] * 1000:.1f} ms / {r['frames']}) | {r['prepare_integrate_fps']:.0f} FPS | "
                 f"{r['fuse_tsdf_fps']:.0f} FPS ({r['fuse_tsdf_s']:.2f} s, incl. block planning) | "
                 f"{r['voxel_updates_per_frame'] / 1e6:.2f} M |")
    else:
        emit("| system | 211 frames, 1 cm, trunc 8 vox, depth_max 3 m, color | FPS | blocks / vertices |")
        emit("| --- | --- | --- | --- |")
        fuse_tsdf(frames.select(slice(0, 5)), 0.01, 0.08, progress=False)  # warm-up
        t0 = time.perf_counter()
        vol = fuse_tsdf(frames, 0.01, 0.08, progress=False)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        mesh = vol.extract_mesh()
        ext = time.perf_counter() - t0
        emit(f"| smrnb fuse_tsdf (CPU) | {ours:.2f} s (+ extract {ext:.2f} s) | {len(frames) / ours:.1f} | "
             f"{vol.num_blocks} blocks of 8^3 / {mesh.num_vertices} |")
        o_dt, o_mesh = o3d_fuse(frames, 0.01, 8.0)
        if o_dt is not None:
            emit(f"| Open3D VoxelBlockGrid (CPU, block_resolution 16) | {o_dt:.2f} s | {len(frames) / o_dt:.1f} | "
                 f"- / {len(o_mesh.vertices)} |")
            emit(f"| **ratio smrnb / Open3D FPS** | | **{o_dt / ours:.2f}** | |")
    if not args.skip_quality:
        emit("")
        emit("| held-out depth error (fuse 189 frames, 1 cm, trunc 4 vox; 22 held-out frames; integer pixel centres) "
             "| median | mean | coverage |")
        emit("| --- | --- | --- | --- |")
        held = torch.arange(len(frames)) % 10 == 0
        train, test = frames.select(~held), frames.select(held)
        dev = args.device
        vol = fuse_tsdf(train.to(dev), 0.01, 0.04, progress=False)
        ours_mesh = vol.extract_mesh()
        e = depth_error(ours_mesh, test.to(dev))
        emit(f"| smrnb fuse_tsdf | {e['median_abs_error'] * 1000:.2f} mm | {e['mean_abs_error'] * 1000:.2f} mm | "
             f"{e['coverage']:.3f} |")
        _, o_mesh = o3d_fuse(train, 0.01, 4.0, color=False) if not dev.startswith("cuda") else (None, None)
        if o_mesh is not None:
            eo = depth_error(o3d_to_smrnb(o_mesh).to(dev), test.to(dev))
            emit(f"| Open3D VoxelBlockGrid | {eo['median_abs_error'] * 1000:.2f} mm | "
                 f"{eo['mean_abs_error'] * 1000:.2f} mm | {eo['coverage']:.3f} |")
    out = Path(args.out)
    prev = out.read_text() if out.exists() else "# TSDF benchmark results\n\n"
    out.write_text(prev.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n")
    print(f"appended to {out}")


if __name__ == "__main__":
    assert TSDFVolume  # the class under test
    main()
