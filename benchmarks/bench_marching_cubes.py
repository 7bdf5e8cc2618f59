# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Marching cubes timings: smrnb (PyTorch) vs scikit-image on CPU, vs kaolin on CUDA.

    python3 benchmarks/bench_marching_cubes.py --device cpu            # 256^3, skimage in the same run
    python3 benchmarks/bench_marching_cubes.py --device cuda           # 128^3, 256^3, 512^3 (+ kaolin if present)

CPU: median of ``--repeats`` wall-clock runs after one warm-up, for each thread count in
``--threads`` (scikit-image is single-threaded). CUDA: CUDA events, 3 warm-ups, median of 20.
Fields: a sphere signed distance (positive inside, radius 0.4 n) at level 0, and the same sphere as
a float 0/1 occupancy at iso 0.5 (what kaolin's voxelgrids_to_trianglemeshes takes).
Prints a markdown table; ``--json PATH`` also writes the rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from _timing import cuda_graph_modes, cuda_median, wall_median

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smrnb.geometry import _backend
from smrnb.geometry._marching_cubes import marching_cubes


def sphere_sdf(n: int, device: str) -> torch.Tensor:
    c = (n - 1) / 2
    i = torch.arange(n, dtype=torch.float32, device=device) - c
    return (0.4 * n - torch.sqrt(i[:, None, None] ** 2 + i[None, :, None] ** 2 + i[None, None, :] ** 2)).contiguous()


def wall(fn, repeats: int) -> float:
    return wall_median(fn, repeats)


def cuda_time(fn, repeats: int = 20, warmup: int = 3) -> float:
    return cuda_median(fn, repeats, warmup)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--sizes", type=int, nargs="+", default=None)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    rows = []
    if args.device == "cpu":
        from skimage.measure import marching_cubes as sk_mc

        for n in args.sizes or [256]:
            for field in ("sphere SDF", "sphere occupancy"):
                vol = sphere_sdf(n, "cpu")
                level = 0.0
                if field == "sphere occupancy":
                    vol, level = (vol > 0).float(), 0.5
                npv = vol.numpy()
                sv, sf, _, _ = sk_mc(npv, level)
                t_sk = wall(lambda npv=npv, level=level: sk_mc(npv, level), args.repeats)
                for th in args.threads:
                    torch.set_num_threads(th)
                    v, f = marching_cubes(vol, level)
                    assert (v.shape[0], f.shape[0]) == (sv.shape[0], sf.shape[0]), "counts differ from skimage"
                    t = wall(lambda vol=vol, level=level: marching_cubes(vol, level), args.repeats)
                    rows.append({"device": "cpu", "n": n, "field": field, "threads": th, "smrnb_s": t,
                                 "skimage_s": t_sk, "ratio": t / t_sk, "V": int(v.shape[0]), "F": int(f.shape[0])})
        print("| grid | field | torch threads | smrnb | skimage | smrnb / skimage | V | F |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['n']}^3 | {r['field']} | {r['threads']} | {r['smrnb_s']:.3f} s | {r['skimage_s']:.3f} s | "
                  f"{r['ratio']:.2f} | {r['V']} | {r['F']} |")
    else:
        if not torch.cuda.is_available():
            print("no CUDA device", file=sys.stderr)
            return 2
        st = _backend.kaolin_status()
        kal = _backend.get_kaolin() if st.available else None
        print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} kaolin: "
              f"{st.version if st.available else 'absent (' + str(st.reason) + ')'}")
        for n in args.sizes or [128, 256, 512]:
            for field in ("sphere occupancy", "sphere SDF"):
                vol = sphere_sdf(n, "cuda")
                level = 0.0
                if field == "sphere occupancy":
                    vol, level = (vol > 0).float(), 0.5
                v, f = marching_cubes(vol, level)
                modes = cuda_graph_modes(lambda vol=vol, level=level: marching_cubes(vol, level))
                r = {"device": torch.cuda.get_device_name(), "n": n, "field": field, "smrnb_ms": modes["graphs"] * 1e3,
                     **{f"{k}_ms": t * 1e3 for k, t in modes.items()},
                     "V": int(v.shape[0]), "F": int(f.shape[0]), "kaolin_ms": None}
                if kal is not None and field == "sphere occupancy":
                    conv = kal.ops.conversions.voxelgrids_to_trianglemeshes
                    kv, kf = conv(vol[None], iso_value=level)
                    r["kaolin_ms"] = cuda_time(lambda vol=vol, level=level, conv=conv: conv(vol[None], iso_value=level)) * 1e3
                    r["kaolin_V"], r["kaolin_F"] = int(kv[0].shape[0]), int(kf[0].shape[0])
                rows.append(r)
                del vol
                torch.cuda.empty_cache()
        print("| grid | field | smrnb, repeated (CUDA graphs) | smrnb, graphs off | first call | second call "
              "(capture) | kaolin | V | F | kaolin V / F |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            k = f"{r['kaolin_ms']:.3f} ms" if r["kaolin_ms"] is not None else "n/a"
            kvf = f"{r.get('kaolin_V')} / {r.get('kaolin_F')}" if r["kaolin_ms"] is not None else "n/a"
            print(f"| {r['n']}^3 | {r['field']} | {r['graphs_ms']:.3f} ms | {r['eager_ms']:.3f} ms | "
                  f"{r['first_ms']:.3f} ms | {r['capture_ms']:.3f} ms | {k} | {r['V']} | {r['F']} | {kvf} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
