# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Voxelization timings: smrnb ``pointcloud_to_voxelgrid`` (plain scatter) vs kaolin.

    python3 benchmarks/bench_voxelize.py --device cuda     # 1M and 10M points -> 256^3 (+ kaolin if present)
    python3 benchmarks/bench_voxelize.py --device cpu

Points: a noisy unit sphere (radius 1 m, 1 cm Gaussian noise) in a 256^3 grid of 1 cm voxels
(2.56 m cube), as the H200 reference of shared/reference/recon-facts.md section 0. Timed twice:
with a given origin, and with ``origin=None`` (bounding-box centring adds two reductions).
CUDA: CUDA events, 3 warm-ups, median of 20. CPU: median of 5 wall-clock runs.
kaolin (when importable) is timed with its own defaults (origin = min, scale = extent).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from _timing import cuda_graph_modes, cuda_median, wall_median

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smrnb.geometry import _backend, pointcloud_to_voxelgrid


def noisy_sphere(n: int, device: str) -> torch.Tensor:
    g = torch.Generator(device=device).manual_seed(0)
    p = torch.randn(n, 3, generator=g, device=device)
    p = p / p.norm(dim=1, keepdim=True)
    return (p + 0.01 * torch.randn(n, 3, generator=g, device=device)).contiguous()


def timer(device: str, fn, repeats: int) -> float:
    if device == "cuda":
        return cuda_median(fn, repeats, warmup=3)
    return wall_median(fn, repeats)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    ap.add_argument("--points", type=int, nargs="+", default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    dev = args.device
    if dev == "cuda" and not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    repeats = 20 if dev == "cuda" else 5
    counts = args.points or ([1_000_000, 10_000_000] if dev == "cuda" else [1_000_000])
    st = _backend.kaolin_status()
    kal = _backend.get_kaolin() if st.available else None
    name = torch.cuda.get_device_name() if dev == "cuda" else "cpu"
    print(f"# {name} torch {torch.__version__} threads {torch.get_num_threads()} kaolin: "
          f"{st.version if st.available else 'absent (' + str(st.reason) + ')'}")
    rows = []
    origin = torch.tensor([-1.28, -1.28, -1.28])
    for n in counts:
        pts = noisy_sphere(n, dev)
        grid = pointcloud_to_voxelgrid(pts, 0.01, (256, 256, 256), origin)
        given = lambda pts=pts: pointcloud_to_voxelgrid(pts, 0.01, (256, 256, 256), origin)  # noqa: E731
        auto = lambda pts=pts: pointcloud_to_voxelgrid(pts, 0.01, (256, 256, 256))  # noqa: E731
        r = {"device": name, "points": n, "occupied": grid.num_occupied(), "dropped": grid.dropped,
             "smrnb_origin_ms": timer(dev, given, repeats) * 1e3,
             "smrnb_auto_origin_ms": timer(dev, auto, repeats) * 1e3, "kaolin_ms": None}
        if dev == "cuda":  # the same calls without CUDA graphs, and the first and second (capture) calls
            r.update({f"origin_{k}_ms": t * 1e3 for k, t in cuda_graph_modes(given, repeats).items()})
            r.update({f"auto_{k}_ms": t * 1e3 for k, t in cuda_graph_modes(auto, repeats).items()})
        if kal is not None:
            conv = kal.ops.conversions.pointclouds_to_voxelgrids
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r["kaolin_ms"] = timer(dev, lambda pts=pts, conv=conv: conv(pts[None], 256), repeats) * 1e3
        rows.append(r)
    print("| device | points | smrnb, origin given | smrnb, origin=None | kaolin (defaults) | occupied voxels | dropped |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        k = f"{r['kaolin_ms']:.3f} ms" if r["kaolin_ms"] is not None else "n/a"
        print(f"| {r['device']} | {r['points']:,} | {r['smrnb_origin_ms']:.3f} ms | {r['smrnb_auto_origin_ms']:.3f} ms | "
              f"{k} | {r['occupied']:,} | {r['dropped']} |")
    if dev == "cuda":
        print()
        print("| points | origin | repeated (CUDA graphs) | graphs off | first call | second call (capture) |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            for o in ("origin", "auto"):
                print(f"| {r['points']:,} | {'given' if o == 'origin' else 'None'} | {r[o + '_graphs_ms']:.3f} ms | "
                      f"{r[o + '_eager_ms']:.3f} ms | {r[o + '_first_ms']:.3f} ms | {r[o + '_capture_ms']:.3f} ms |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
