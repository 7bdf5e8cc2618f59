# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""simplify_mesh vs fast-simplification (the QEM library it wraps): time and accuracy, same run.

Meshes (built once, cached as .npz in ``--cache``):

* ``livingroom``: TSDF of the 190 non-held-out frames (every 10th held out) of
  ``redwood-livingroom1-clean-micro`` at ``--voxel`` (default 1 cm), truncation 4 voxels,
  ``extract_mesh`` (the mesh the profile and the issue were measured on).
* ``components``: 2,000 closed ellipsoids (icosphere level 2, 320 faces each, semi-axes 1-8 cm,
  random rotations, in a 4 m cube; seed 0): many parts of one size class.
* held out (not looked at while tuning): ``bunny`` (``stanford-bunny-pymeshfix/StanfordBunny.ply``,
  one closed part) and ``rgbd5`` (TSDF of the 5 frames of ``redwood-livingroom1-rgbd5``, real-sensor
  holes, at ``--voxel``).

Protocol per mesh: the reference is ``fast_simplification.simplify(vertices, faces,
target_reduction=1 - fraction, preserve_border=...)`` on the mesh's numpy arrays; smrnb is
``simplify_mesh(mesh, target_number_of_vertices=<the vertex count the reference produced>,
preserve_border=...)`` with its defaults, and once more with ``measure_hausdorff=True`` (the
optional distance estimate in the report). ``--repeats`` rounds, the order of the systems alternating per round;
medians and the ratio of medians. Accuracy, measured the same way for both outputs with Open3D's
``RaycastingScene`` (exact point-to-triangle distances): mean over the input's vertices of the
distance to the output surface, and the symmetric Hausdorff distance over the vertices plus 200,000
area-weighted points of each surface. ``uptime`` is recorded before and after.

Usage::

    python benchmarks/bench_simplify.py [--meshes livingroom,components,bunny,rgbd5] [--fraction 0.1]
        [--repeats 5] [--voxel 0.01] [--preserve-border] [--threads 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unavailable"


def _fuse(frames, voxel: float):
    from smrnb.geometry import fuse_tsdf

    m = fuse_tsdf(frames, voxel, 4 * voxel, progress=False).extract_mesh()
    return m.vertices.numpy().astype(np.float32), m.faces.numpy().astype(np.int64)


def build(name: str, voxel: float) -> tuple[np.ndarray, np.ndarray]:
    if name == "livingroom":
        from smrnb.datasets import iter_redwood

        keep = [i for i in range(211) if i % 10]
        return _fuse(iter_redwood(DATA / "redwood-livingroom1-clean-micro", frames=keep, batch_size=8), voxel)
    if name == "rgbd5":
        from smrnb.datasets import load_redwood

        return _fuse(load_redwood(DATA / "redwood-livingroom1-rgbd5"), voxel)
    if name == "bunny":
        import trimesh

        tm = trimesh.load(DATA / "stanford-bunny-pymeshfix" / "StanfordBunny.ply", process=False)
        return np.asarray(tm.vertices, np.float32), np.asarray(tm.faces, np.int64)
    if name == "components":
        import trimesh
        from scipy.spatial.transform import Rotation

        rng = np.random.default_rng(0)
        ico = trimesh.creation.icosphere(2)
        n = 2000
        axes = rng.uniform(0.01, 0.08, size=(n, 1, 3))
        rot = Rotation.random(n, random_state=0).as_matrix()
        centres = rng.uniform(0, 4, size=(n, 1, 3))
        v = np.einsum("nij,nkj->nki", rot, ico.vertices[None] * axes) + centres
        f = ico.faces[None] + (np.arange(n) * len(ico.vertices))[:, None, None]
        return v.reshape(-1, 3).astype(np.float32), f.reshape(-1, 3).astype(np.int64)
    raise SystemExit(f"unknown mesh {name!r}")


def load(name: str, voxel: float, cache: Path) -> tuple[np.ndarray, np.ndarray]:
    path = cache / (f"{name}_{voxel:g}.npz" if name in ("livingroom", "rgbd5") else f"{name}.npz")
    if path.exists():
        z = np.load(path)
        return z["v"], z["f"]
    v, f = build(name, voxel)
    cache.mkdir(parents=True, exist_ok=True)
    np.savez(path, v=v, f=f)
    return v, f


def accuracy(v: np.ndarray, f: np.ndarray, vo: np.ndarray, fo: np.ndarray, n: int = 200_000) -> dict:
    """Mean distance of the input's vertices to the output surface; symmetric Hausdorff over the
    vertices and ``n`` area-weighted points of each surface (Open3D RaycastingScene, exact)."""
    import open3d as o3d

    def scene(vx, fx):
        s = o3d.t.geometry.RaycastingScene()
        s.add_triangles(o3d.core.Tensor(vx.astype(np.float32)), o3d.core.Tensor(fx.astype(np.uint32)))
        return s

    def dist(s, q):
        return s.compute_distance(o3d.core.Tensor(q.astype(np.float32))).numpy().astype(np.float64)

    def samples(vx, fx, rng):
        tri = vx[fx].astype(np.float64)
        area = np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
        idx = rng.choice(len(fx), size=n, p=area / area.sum())
        r1, r2 = np.sqrt(rng.random(n)), rng.random(n)
        w = np.stack([1 - r1, r1 * (1 - r2), r1 * r2], 1)
        return np.concatenate([vx[np.unique(fx)], (tri[idx] * w[:, :, None]).sum(1)])

    rng = np.random.default_rng(0)
    s_in, s_out = scene(v, f), scene(vo, fo)
    d_vert = dist(s_out, v[np.unique(f)])
    h = max(dist(s_out, samples(v, f, rng)).max(), dist(s_in, samples(vo, fo, rng)).max())
    return {"mean_mm": 1000 * float(d_vert.mean()), "hausdorff_mm": 1000 * float(h)}


def components(f: np.ndarray, nv: int) -> int:
    from smrnb.geometry._simplify import _components

    return len(np.unique(_components(f, nv)))


def run_mesh(name: str, v: np.ndarray, f: np.ndarray, args) -> dict:
    import fast_simplification
    import torch

    import smrnb

    mesh = smrnb.Mesh(torch.from_numpy(v), torch.from_numpy(f))
    pb = args.preserve_border

    def ref():
        return fast_simplification.simplify(v, f, target_reduction=1 - args.fraction, preserve_border=pb)

    rv, rf = ref()
    target = len(rv)

    def ours(h=False):
        return smrnb.simplify_mesh(mesh, target_number_of_vertices=target, preserve_border=pb, measure_hausdorff=h)

    systems = {"fast_simplification": ref, "smrnb": ours, "smrnb_hausdorff": lambda: ours(True)}
    times: dict[str, list[float]] = {k: [] for k in systems}
    for r in range(args.repeats):
        names = list(systems) if r % 2 == 0 else list(reversed(systems))
        for k in names:
            t = time.perf_counter()
            systems[k]()
            times[k].append(time.perf_counter() - t)
    out = ours(True)
    rep = out.meta["simplify"]
    ov, of = out.vertices.numpy().astype(np.float64), out.faces.numpy()
    med = {k: statistics.median(ts) for k, ts in times.items()}
    row = {
        "mesh": name, "vertices": len(v), "faces": len(f), "components": components(f, len(v)),
        "fraction": args.fraction, "preserve_border": pb, "target_vertices": target,
        "ref_vertices": len(rv), "ref_faces": len(rf), "ref_components": components(rf, len(rv)),
        "smrnb_vertices": out.num_vertices, "smrnb_faces": out.num_faces, "smrnb_components": components(of, len(ov)),
        "smrnb_reached": rep["reached"], "smrnb_hausdorff_estimate_mm": 1000 * rep["hausdorff"],
        "median_s": med, "times_s": times,
        "ratio": med["smrnb"] / med["fast_simplification"],
        "ratio_hausdorff": med["smrnb_hausdorff"] / med["fast_simplification"],
        "ref_accuracy": accuracy(v.astype(np.float64), f, rv, rf),
        "smrnb_accuracy": accuracy(v.astype(np.float64), f, ov, of),
    }
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--meshes", default="livingroom,components,bunny,rgbd5")
    ap.add_argument("--fraction", type=float, default=0.1)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--voxel", type=float, default=0.01)
    ap.add_argument("--preserve-border", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", default=str(Path(os.environ.get("TMPDIR", "/tmp")) / "smrnb_bench_simplify"))
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    sys.path.insert(0, str(REPO))
    head = {"uptime_before": _uptime(), "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
            "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}",
            "fast_simplification": __import__("importlib.metadata").metadata.version("fast-simplification")}
    print(json.dumps(head), flush=True)
    rows = []
    for name in args.meshes.split(","):
        v, f = load(name, args.voxel, Path(args.cache))
        row = run_mesh(name, v, f, args)
        rows.append(row)
        print(json.dumps({k: row[k] for k in row if k != "times_s"}), flush=True)
    head["uptime_after"] = _uptime()
    print(json.dumps({"uptime_after": head["uptime_after"]}))
    print("\n| mesh | V / F / parts | target V | fast-simplification | smrnb (default) | ratio | smrnb "
          "measure_hausdorff=True | ratio | mean dist fs / smrnb (mm) | Hausdorff fs / smrnb (mm) | parts out fs / smrnb |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        m, ra, sa = r["median_s"], r["ref_accuracy"], r["smrnb_accuracy"]
        print(f"| {r['mesh']} | {r['vertices']} / {r['faces']} / {r['components']} | {r['target_vertices']} | "
              f"{m['fast_simplification']:.3f} s | {m['smrnb']:.3f} s | {r['ratio']:.2f} | "
              f"{m['smrnb_hausdorff']:.3f} s | {r['ratio_hausdorff']:.2f} | {ra['mean_mm']:.3f} / "
              f"{sa['mean_mm']:.3f} | {ra['hausdorff_mm']:.2f} / {sa['hausdorff_mm']:.2f} | "
              f"{r['ref_components']} / {r['smrnb_components']} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"run": head, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
