# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Hole filling on the real Stanford bunny scan (``../shared/data/stanford-bunny-pymeshfix``):
smrnb's :func:`fill_holes` against the references that are installed here: trimesh
(``repair.fill_holes``, default and ``use_fan=True``), Open3D (``t.geometry.TriangleMesh.fill_holes``,
VTK) and pymeshfix (AGPL: an optional, benchmark-only reference, never a dependency of smrnb).

For every tool: wall time (median of N runs) and process CPU time (min of N; what the call costs
when the 2 shared cores are busy with other jobs), boundary edges left, closed hole loops left,
non-manifold edges after, vertices deleted, and, where the tool keeps vertex indices, new faces
wound against their neighbours (a half-edge used twice in the same direction) and new faces folded
over against the scan face across a shared edge (normals with a negative dot product).

Run: ``python benchmarks/bench_fill_holes.py [path/to/StanfordBunny.ply]``. Asserts nothing;
prints a markdown table (bar: <= 0.5 s, all five holes closed with no limit, only the 26-edge hole
with ``max_hole_edges=30``, no new non-manifold edge, no vertex deleted).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

N = 5
DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "stanford-bunny-pymeshfix" / "StanfordBunny.ply"


def timed(fn, n=N):
    walls, cpus, out = [], [], None
    for _ in range(n):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), min(cpus), out


def stats(v0: np.ndarray, f0: np.ndarray, v: np.ndarray, f: np.ndarray, same_indices: bool) -> dict:
    from smrnb.geometry._topology import _edges_np, _hole_halfedges, _trace_loops

    edges, counts, fe = _edges_np(f)
    hh, _ = _hole_halfedges(f, (edges, counts, fe))
    loops, _ = _trace_loops(hh, f)
    row = {
        "boundary edges left": int((counts == 1).sum()),
        "hole loops left": sorted((len(x) for x in loops), reverse=True),
        "non-manifold edges": int((counts > 2).sum()),
        "vertices": len(v),
        "faces": len(f),
    }
    if same_indices:
        row["vertices deleted"] = int(len(v0) - min(len(v), len(v0)))
        row["original vertices moved"] = int((np.abs(v[: len(v0)] - v0) > 0).any(axis=1).sum()) if len(v) >= len(v0) else "n/a"
        he = np.stack([f, f[:, [1, 2, 0]]], axis=-1).reshape(-1, 2).astype(np.int64)
        key = he[:, 0] * (int(f.max()) + 1) + he[:, 1]
        u, c = np.unique(key, return_counts=True)
        new = key[len(f0) * 3:] if len(f) >= len(f0) and np.array_equal(f[: len(f0)], f0) else np.zeros(0, np.int64)
        row["new faces wound wrong"] = int((c[np.searchsorted(u, new)] > 1).sum()) if len(new) else 0
        row["new faces folded"] = _folded(v, f, len(f0)) if len(new) else 0
        if len(f) > len(f0):
            a = _min_angles(v, f[len(f0):])
            row["new faces: min angle deg (p5 / median)"] = f"{np.percentile(a, 5):.1f} / {np.median(a):.1f}"
        elif len(f) == len(f0):
            a = _min_angles(v, f)
            row["new faces: min angle deg (p5 / median)"] = f"scan: {np.percentile(a, 5):.1f} / {np.median(a):.1f}"
    else:
        row["vertices deleted"] = f"n/a (re-indexed; net {len(v) - len(v0):+d} vertices)"
    return row


def _min_angles(v: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Smallest interior angle of each face, degrees (60 = equilateral, 0 = sliver)."""
    p = v[f]
    out = []
    for k in range(3):
        u = p[:, (k + 1) % 3] - p[:, k]
        w = p[:, (k + 2) % 3] - p[:, k]
        c = (u * w).sum(1) / np.maximum(np.linalg.norm(u, axis=1) * np.linalg.norm(w, axis=1), 1e-300)
        out.append(np.degrees(np.arccos(np.clip(c, -1, 1))))
    return np.min(out, axis=0)


def _folded(v: np.ndarray, f: np.ndarray, n_old: int) -> int:
    """New faces whose normal points against the old face across a shared edge (dot < 0)."""
    n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
    old = {}
    for i, face in enumerate(f[:n_old].tolist()):
        for k in range(3):
            old[(face[(k + 1) % 3], face[k])] = i
    bad = 0
    for i, face in enumerate(f[n_old:].tolist(), start=n_old):
        nbrs = [old[(face[k], face[(k + 1) % 3])] for k in range(3) if (face[k], face[(k + 1) % 3]) in old]
        if any(float(n[i] @ n[j]) < 0 for j in nbrs):
            bad += 1
    return bad


def main() -> None:
    import torch
    import trimesh

    from smrnb.geometry import Mesh, fill_holes

    torch.set_num_threads(1)
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    tm0 = trimesh.load(path, process=False)
    v0 = np.asarray(tm0.vertices, np.float64)
    f0 = np.asarray(tm0.faces, np.int64)
    mesh = Mesh.from_trimesh(tm0)
    rows: list[tuple[str, float, float, dict, str]] = []
    rows.append(("input", 0.0, 0.0, stats(v0, f0, v0, f0, True), ""))

    for label, kw in [("smrnb fill_holes(max_hole_edges=None)", dict(max_hole_edges=None)),
                      ("smrnb fill_holes(max_hole_edges=30)", dict(max_hole_edges=30)),
                      ("smrnb fill_holes(None, refine=False, fair=False)", dict(max_hole_edges=None, refine=False, fair=False))]:
        fill_holes(mesh, **kw, return_report=True)  # warm-up
        w, c, res = timed(lambda kw=kw: fill_holes(mesh, **kw, return_report=True))
        m = res.mesh
        note = (f"filled {res.holes_filled}, left {res.holes_left}; {res.non_manifold_spots} non-manifold spots "
                f"reported; +{res.vertices_added} v")
        rows.append((label, w, c, stats(v0, f0, m.vertices.double().numpy(), m.faces.numpy(), True), note))

    for label, fan in [("trimesh repair.fill_holes", False), ("trimesh repair.fill_holes(use_fan=True)", True)]:
        def run_tm(fan=fan):
            t = trimesh.Trimesh(v0.copy(), f0.copy(), process=False, validate=False)
            trimesh.repair.fill_holes(t, use_fan=fan) if fan else trimesh.repair.fill_holes(t)
            return t
        try:
            w, c, t = timed(run_tm)
            rows.append((label, w, c, stats(v0, f0, np.asarray(t.vertices), np.asarray(t.faces, np.int64), True),
                         f"trimesh {trimesh.__version__}"))
        except TypeError as exc:  # older trimesh without use_fan
            rows.append((label, float("nan"), float("nan"), {}, f"not run: {exc}"))

    try:
        import open3d as o3d

        def run_o3d():
            tmesh = o3d.t.geometry.TriangleMesh(o3d.core.Tensor(v0), o3d.core.Tensor(f0.astype(np.int32)))
            return tmesh.fill_holes(hole_size=1e6)
        w, c, out = timed(run_o3d)
        rows.append(("Open3D t.TriangleMesh.fill_holes(hole_size=1e6)", w, c,
                     stats(v0, f0, out.vertex.positions.numpy().astype(np.float64),
                           out.triangle.indices.numpy().astype(np.int64), False), f"open3d {o3d.__version__}"))
    except ImportError:
        rows.append(("Open3D", float("nan"), float("nan"), {}, "not installed"))

    try:
        import pymeshfix

        def run_mf():
            mf = pymeshfix.MeshFix(v0.copy(), f0.astype(np.int32))
            mf.repair()
            return mf
        w, c, mf = timed(run_mf, n=3)
        rows.append(("pymeshfix MeshFix.repair() (AGPL, reference only)", w, c,
                     stats(v0, f0, np.asarray(mf.points, np.float64), np.asarray(mf.faces, np.int64), False),
                     "re-triangulates; removes non-manifold parts"))
    except ImportError:
        rows.append(("pymeshfix", float("nan"), float("nan"), {}, "not installed (optional, AGPL)"))

    load = os.getloadavg()
    print(f"# fill_holes on {path.name}: {len(v0)} vertices, {len(f0)} faces; load average {load[0]:.1f} "
          f"on {os.cpu_count()} CPUs; wall = median of {N}, CPU = min of {N}\n")
    cols = ["boundary edges left", "hole loops left", "non-manifold edges", "vertices deleted", "new faces wound wrong",
            "new faces folded", "new faces: min angle deg (p5 / median)"]
    print("| tool | wall s | CPU s | " + " | ".join(cols) + " | notes |")
    print("|---" * (len(cols) + 4) + "|")
    for label, w, c, row, note in rows:
        cells = [str(row.get(k, "")) for k in cols]
        print(f"| {label} | {w:.3f} | {c:.3f} | " + " | ".join(cells) + f" | {note} |")


def many_holes() -> None:
    """Scaling with the number of holes: 2-ring holes cut around random vertices of an icosphere."""
    import torch
    import trimesh

    from smrnb.geometry import Mesh, euler_characteristic, fill_holes, is_watertight

    s = trimesh.creation.icosphere(subdivisions=5)
    v, f = np.asarray(s.vertices), np.asarray(s.faces)
    rng = np.random.default_rng(0)
    taken: set[int] = set()
    remove: set[int] = set()
    for c in rng.permutation(len(v))[:3000].tolist():
        ring = set(f[(f == c).any(axis=1)].ravel().tolist())
        two = np.nonzero(np.isin(f, list(ring)).any(axis=1))[0]
        verts = set(f[two].ravel().tolist())
        if verts & taken:
            continue
        taken |= verts
        remove |= set(two.tolist())
    m = Mesh(torch.as_tensor(v, dtype=torch.float32), torch.as_tensor(np.delete(f, sorted(remove), axis=0)))
    print(f"\n# many holes: icosphere(5) ({len(f)} faces) with {len(remove)} faces removed as 2-ring holes\n")
    print("| call | holes | wall s | CPU s | watertight after | Euler | vertices added |")
    print("|---|---|---|---|---|---|---|")
    for kw in (dict(max_hole_edges=None), dict(max_hole_edges=None, refine=False, fair=False)):
        w, c, res = timed(lambda kw=kw: fill_holes(m, **kw, return_report=True), n=3)
        fo = res.mesh.faces.numpy()
        print(f"| fill_holes({', '.join(f'{k}={x}' for k, x in kw.items())}) | {len(res.holes_filled)} filled of "
              f"{len(res.holes_found)} | {w:.3f} | {c:.3f} | {is_watertight(fo)} | "
              f"{euler_characteristic(res.mesh.num_vertices, fo)} | {res.vertices_added} |")


if __name__ == "__main__":
    main()
    many_holes()
