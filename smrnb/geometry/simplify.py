# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Quadric decimation and subdivision.

* :func:`simplify_mesh` decimates through `fast-simplification` (the Fast-Quadric-Mesh-Simplification
  core, MIT). It runs on the CPU; the result is moved back to the mesh's device.
* :func:`subdivide_mesh` subdivides: ``"midpoint"`` (pure PyTorch, CPU and CUDA, keeps the geometry
  exactly) or ``"loop"`` (Loop's smoothing scheme through trimesh, CPU; kaolin's
  ``subdivide_trianglemesh`` is also Loop).

The thin-structure pitfall: a global face budget lets QEM collapse a thin part (a cable, a tube a
few triangles around) to nothing, giving "0 faces after simplification" for that part. Here the
budget is distributed over connected components in proportion to their face counts with a floor
per component, and a component that still vanishes is subdivided first and decimated again; if it
vanishes even then, :func:`simplify_mesh` refuses with a message naming the component.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbValueError
from smrnb.geometry._validate import check_choice, check_finite, check_int_range
from smrnb.geometry.mesh import Mesh

#: faces kept at least per connected component (a closed tube needs a few around its circumference)
MIN_FACES_PER_COMPONENT = 24


@dataclass
class SimplifyReport:
    """What :func:`simplify_mesh` did; stored in ``mesh.meta["simplify"]`` of the result."""

    vertices_before: int
    faces_before: int
    vertices_after: int
    faces_after: int
    target_number_of_vertices: int
    components: int
    components_subdivided_first: int = 0
    hausdorff: float | None = None  # symmetric, sampled, in mesh units
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _check_mesh(mesh: Any, name: str = "mesh") -> Mesh:
    if not isinstance(mesh, Mesh):
        from smrnb._errors import SmrnbTypeError

        raise SmrnbTypeError(f"{name} must be a smrnb.Mesh, got {type(mesh).__name__}")
    check_finite(mesh.vertices, f"{name}.vertices")
    if mesh.num_faces:
        fmin, fmax = int(mesh.faces.min()), int(mesh.faces.max())
        if fmin < 0 or fmax >= mesh.num_vertices:
            raise SmrnbValueError(
                f"{name}.faces must index vertices in [0, {mesh.num_vertices - 1}], got indices in [{fmin}, {fmax}]")
    return mesh


def _components(faces: np.ndarray, n_vertices: int) -> np.ndarray:
    """Connected-component label per face (faces sharing a vertex are connected)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if len(faces) == 0:
        return np.zeros(0, dtype=np.int64)
    rows = np.repeat(np.arange(len(faces)), 3)
    cols = faces.reshape(-1)
    # bipartite face-vertex graph; components of faces
    g = coo_matrix((np.ones(len(rows)), (rows, cols + len(faces))), shape=(len(faces) + n_vertices,) * 2)
    _, labels = connected_components(g, directed=False)
    return labels[: len(faces)]


def _merge_degenerate(v: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Merge vertices at identical positions, drop faces that become degenerate (repeated index).

    Marching cubes (skimage's default ``allow_degenerate=True``, and ours, which matches it) emits
    zero-area triangles where the field equals the iso value at a grid point; quadric decimation
    rejects every collapse around them and stalls far above the target. Returns the cleaned
    arrays, the number of merged vertices and of dropped faces.
    """
    uniq, inv = np.unique(v, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    f2 = inv[f]
    keep = (f2[:, 0] != f2[:, 1]) & (f2[:, 1] != f2[:, 2]) & (f2[:, 2] != f2[:, 0])
    return uniq, f2[keep], len(v) - len(uniq), int((~keep).sum())


def _decimate(v: np.ndarray, f: np.ndarray, target_faces: int, preserve_border: bool, agg: float):
    import fast_simplification

    target_faces = int(max(1, min(target_faces, len(f))))
    if target_faces >= len(f):
        return v, f
    vo, fo = fast_simplification.simplify(v.astype(np.float64), f.astype(np.int64), target_count=target_faces,
                                          agg=agg, preserve_border=preserve_border)
    return vo, fo.astype(np.int64)


def _midpoint_np(v: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = subdivide_mesh(Mesh(torch.as_tensor(v, dtype=torch.float64), torch.as_tensor(f)), iterations=1)
    return m.vertices.numpy(), m.faces.numpy()


def _sampled_hausdorff(va, fa, vb, fb, n: int = 100_000, seed: int = 0) -> float:
    """Symmetric Hausdorff distance estimated from area-weighted surface samples (KD-tree on samples)."""
    from scipy.spatial import cKDTree

    def sample(v, f):
        if len(f) == 0:
            return v
        tri = v[f]
        area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
        rng = np.random.default_rng(seed)
        p = area / area.sum() if area.sum() > 0 else None
        idx = rng.choice(len(f), size=n, p=p)
        r1, r2 = rng.random(n), rng.random(n)
        s = np.sqrt(r1)
        w = np.stack([1 - s, s * (1 - r2), s * r2], 1)
        return np.concatenate([(tri[idx] * w[:, :, None]).sum(1), v])

    a, b = sample(va, fa), sample(vb, fb)
    return float(max(cKDTree(b).query(a)[0].max(), cKDTree(a).query(b)[0].max()))


def simplify_mesh(mesh: Mesh, target_number_of_vertices: int = 80000, preserve_border: bool = True,
                  aggressiveness: float = 7.0, measure_hausdorff: bool = True) -> Mesh:
    """Quadric decimation to at most ``target_number_of_vertices`` vertices.

    Parameters
    ----------
    mesh : Mesh
        Any frame; units kept. Vertex colors are carried over (each output vertex takes the color of
        the nearest input vertex).
    target_number_of_vertices : int
        Upper bound on the output's vertex count. A target >= the mesh's vertex count is a
        documented no-op (the mesh is returned unchanged, with a note).
    preserve_border : bool
        Never collapse an edge touching an open boundary: boundary vertices stay where they were.
    aggressiveness : float
        fast-simplification's ``agg`` (0 = slow and careful, 10 = fast and rough).
    measure_hausdorff : bool
        Report the sampled symmetric Hausdorff distance to the input in the result's meta.

    Returns
    -------
    Mesh
        On the input's device, with ``meta["simplify"]`` = :class:`SimplifyReport` as a dict.

    Raises
    ------
    SmrnbValueError
        Bad target, NaN vertices, out-of-range faces, or a connected component that vanishes even
        after subdividing it first (the message names it).
    """
    mesh = _check_mesh(mesh)
    target = check_int_range(target_number_of_vertices, "target_number_of_vertices", lo=4)
    V, F = mesh.num_vertices, mesh.num_faces
    if F == 0:
        raise SmrnbValueError("mesh must have faces to simplify, got 0 faces")
    if target >= V:
        rep = SimplifyReport(V, F, V, F, target, 1, notes=[f"target {target} >= {V} vertices: nothing to do"])
        return mesh.replace(meta={**mesh.meta, "simplify": rep.as_dict()})

    device = mesh.device
    notes: list[str] = []
    v = mesh.vertices.detach().cpu().double().numpy()
    f = mesh.faces.detach().cpu().long().numpy()
    v, f, merged, dropped = _merge_degenerate(v, f)
    if merged or dropped:
        notes.append(f"merged {merged} coincident vertices and dropped {dropped} degenerate faces first")
    labels = _components(f, len(v))
    comp_ids, comp_sizes = np.unique(labels, return_counts=True)
    # faces grouped by component once (stable: each component keeps its face order), so that the loop
    # below slices instead of scanning all faces per component (quadratic with many components)
    comp_faces = np.split(f[np.argsort(labels, kind="stable")], np.cumsum(comp_sizes)[:-1])
    subdivided = 0

    def run(target_faces_total: int):
        parts_v, parts_f, off, vanished = [], [], 0, []
        nonlocal subdivided
        for cid, size, cf in zip(comp_ids, comp_sizes, comp_faces):
            used, inv = np.unique(cf, return_inverse=True)
            cv, cf = v[used], inv.reshape(-1, 3)
            share = max(MIN_FACES_PER_COMPONENT, int(round(target_faces_total * size / len(f))))
            if share >= len(cf):
                ov, of = cv, cf
            else:
                ov, of = _decimate(cv, cf, share, preserve_border, aggressiveness)
                if len(of) == 0:  # the thin-structure pitfall: subdivide first, then decimate again
                    sv, sf = _midpoint_np(cv, cf)
                    ov, of = _decimate(sv, sf, max(share, MIN_FACES_PER_COMPONENT), preserve_border, aggressiveness)
                    subdivided += 1
                    if len(of) == 0:
                        vanished.append((int(cid), int(size)))
            parts_v.append(ov)
            parts_f.append(of + off)
            off += len(ov)
        return np.concatenate(parts_v), np.concatenate(parts_f), vanished

    # faces ~ 2 x vertices on a closed surface; shrink the face budget until the vertex bound holds
    target_faces = max(2 * target, 1)
    for _ in range(6):
        subdivided = 0
        ov, of, vanished = run(target_faces)
        if vanished:
            cid, size = vanished[0]
            raise SmrnbValueError(
                f"simplify_mesh would reduce connected component {cid} ({size} faces, a thin part) to 0 faces even "
                f"after subdividing it first; raise target_number_of_vertices (got {target}) or remove that part")
        # drop vertices no face uses (fast-simplification keeps none, but components keep theirs)
        used, inv = np.unique(of, return_inverse=True)
        ov, of = ov[used], inv.reshape(-1, 3)
        if len(ov) <= target:
            break
        target_faces = int(target_faces * target / len(ov) * 0.97)
    else:
        raise SmrnbValueError(
            f"simplify_mesh could not reach target_number_of_vertices={target} (got {len(ov)}): the mesh has "
            f"{len(comp_ids)} connected components and each keeps at least {MIN_FACES_PER_COMPONENT} faces; "
            f"raise the target or remove small components first")
    if subdivided:
        notes.append(f"{subdivided} thin component(s) subdivided before decimation so they keep faces")

    colors = None
    if mesh.vertex_colors is not None:
        from scipy.spatial import cKDTree

        _, nn = cKDTree(mesh.vertices.detach().cpu().double().numpy()).query(ov)
        colors = mesh.vertex_colors.detach().cpu()[torch.as_tensor(nn)].to(device)
    haus = _sampled_hausdorff(v, f, ov, of) if measure_hausdorff else None
    rep = SimplifyReport(V, F, len(ov), len(of), target, len(comp_ids), subdivided, haus, notes)
    return Mesh(torch.as_tensor(ov, dtype=mesh.vertices.dtype).to(device),
                torch.as_tensor(of, dtype=torch.int64).to(device), vertex_colors=colors, frame=mesh.frame,
                meta={**mesh.meta, "simplify": rep.as_dict()})


def subdivide_mesh(mesh: Mesh, iterations: int = 1, method: str = "midpoint") -> Mesh:
    """Subdivide every triangle into four, ``iterations`` times.

    ``method="midpoint"`` inserts edge midpoints (pure PyTorch on the mesh's device, vertex colors
    interpolated, the surface unchanged: use it before simplifying thin parts). ``method="loop"``
    applies Loop's scheme (through trimesh, on the CPU, moved back; the surface is smoothed; colors
    taken from the nearest midpoint-subdivided vertex).

    Returns a new :class:`Mesh`; vertices ``V + E`` per iteration, faces ``4 F``.
    """
    mesh = _check_mesh(mesh)
    iterations = check_int_range(iterations, "iterations", lo=0, hi=6)
    method = check_choice(method, "method", ("midpoint", "loop"))
    est = mesh.num_faces * 4 ** iterations
    if est > 50_000_000:
        raise SmrnbValueError(f"subdivide_mesh would create {est} faces; lower iterations (got {iterations})")
    out = mesh
    for _ in range(iterations):
        out = _midpoint_once(out) if method == "midpoint" else _loop_once(out)
    return out


def _midpoint_once(mesh: Mesh) -> Mesh:
    v, f = mesh.vertices, mesh.faces.long()
    V = v.shape[0]
    if f.numel() == 0:
        return mesh
    e = torch.cat([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]], 0)  # (3F, 2) as edges 01, 12, 20
    e_sorted, _ = e.sort(dim=1)
    uniq, inv = torch.unique(e_sorted, dim=0, return_inverse=True)
    mids = 0.5 * (v[uniq[:, 0]] + v[uniq[:, 1]])
    F = f.shape[0]
    m01, m12, m20 = (inv[:F] + V), (inv[F:2 * F] + V), (inv[2 * F:] + V)
    a, b, c = f[:, 0], f[:, 1], f[:, 2]
    nf = torch.cat([torch.stack([a, m01, m20], 1), torch.stack([m01, b, m12], 1),
                    torch.stack([m20, m12, c], 1), torch.stack([m01, m12, m20], 1)], 0)
    colors = None
    if mesh.vertex_colors is not None:
        vc = mesh.vertex_colors
        colors = torch.cat([vc, 0.5 * (vc[uniq[:, 0]] + vc[uniq[:, 1]])], 0)
    return Mesh(torch.cat([v, mids], 0), nf.to(mesh.faces.dtype), vertex_colors=colors, frame=mesh.frame,
                meta=dict(mesh.meta))


def _loop_once(mesh: Mesh) -> Mesh:
    import trimesh.remesh

    v = mesh.vertices.detach().cpu().double().numpy()
    f = mesh.faces.detach().cpu().long().numpy()
    nv, nf = trimesh.remesh.subdivide_loop(v, f, iterations=1)
    colors = None
    if mesh.vertex_colors is not None:
        from scipy.spatial import cKDTree

        mid = _midpoint_once(mesh.to("cpu"))
        _, nn = cKDTree(mid.vertices.double().numpy()).query(nv)
        colors = mid.vertex_colors[torch.as_tensor(nn)].to(mesh.device)
    return Mesh(torch.as_tensor(nv, dtype=mesh.vertices.dtype).to(mesh.device),
                torch.as_tensor(nf).to(mesh.device).to(mesh.faces.dtype), vertex_colors=colors,
                frame=mesh.frame, meta=dict(mesh.meta))


def thin_part_risk(mesh: Mesh, target_number_of_vertices: int) -> list[dict[str, Any]]:
    """Connected components whose share of the vertex budget is below what a closed part needs.

    Returns one dict per component at risk (``component``, ``faces``, ``share_vertices``); an empty
    list means no part is expected to vanish. Used by the widgets to warn before running.
    """
    mesh = _check_mesh(mesh)
    f = mesh.faces.detach().cpu().long().numpy()
    labels = _components(f, mesh.num_vertices)
    ids, sizes = np.unique(labels, return_counts=True)
    out = []
    for cid, size in zip(ids, sizes):
        share = target_number_of_vertices * size / max(mesh.num_faces, 1)
        if share < MIN_FACES_PER_COMPONENT / 2:
            out.append({"component": int(cid), "faces": int(size), "share_vertices": float(share)})
    return out


__all__ = ["simplify_mesh", "subdivide_mesh", "thin_part_risk", "SimplifyReport", "MIN_FACES_PER_COMPONENT"]
_ = math
