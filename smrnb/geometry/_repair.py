# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Mesh repair: hole filling (:func:`fill_holes`) and non-manifold edge splitting
(:func:`repair_non_manifold`).

Both are topological work on small index sets, so they run on the CPU (numpy/scipy) whatever
the mesh's device, and move the result back to the mesh's device and dtypes. Neither deletes a
vertex or a face: hole filling only appends vertices and faces, the non-manifold split only
appends vertex copies and re-points face corners to them. Each returns a small result record that
says what it found and what it changed.
"""

from __future__ import annotations

import math
import re
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._mesh import Mesh
from smrnb.geometry._tensors import edit_version
from smrnb.geometry._topology import _edges_np, _hole_halfedges, _trace_loops
from smrnb.geometry._validate import check_int_range

__all__ = ["FillHolesResult", "RepairResult", "fill_holes", "repair_non_manifold"]

# loops up to this many edges use Liepa's O(n^3) dynamic programme; longer ones the ear clipper
_DP_MAX_EDGES = 200
# up to this many edges the plain-Python twin of the programme is the faster one
_DP_SMALL = 24
# two dihedral angles whose cosines are closer than this tie, and the smaller area decides
# (Liepa 2003 compares (max dihedral angle, area) lexicographically)
_COS_TIE = 1e-6
# a loop whose best patch meets its neighbours at a mean dihedral angle past 120 degrees would fold
# back onto the surface: the outer rim of an open sheet, not a hole
_RIM_FOLD_COS = -0.5
# Liepa's density factor: split a patch triangle when its centroid is farther than sigma / alpha
_ALPHA = math.sqrt(2.0)


# ------------------------------------------------------------------------------------------------
# results


@dataclass(eq=False)
class FillHolesResult:
    """What :func:`fill_holes` found and did.

    Attributes
    ----------
    mesh : the repaired :class:`Mesh` (on the input's device); the input mesh itself when there
        was nothing to do (no faces, or no hole to fill)
    holes_found : size in edges of every closed boundary loop, longest first
    holes_filled : sizes of the loops that were closed
    holes_left : sizes of the loops left open, with ``left_reasons`` (same order)
    left_reasons : why each loop in ``holes_left`` was left ("larger than max_hole_edges=30", ...)
    non_manifold_edges : edges used by three or more faces in the input (never touched here)
    open_boundary_edges : boundary edges that lie on no closed loop (dangling edges, e.g. the free
        edge of a triangle glued to the surface along two non-manifold edges); reported, not patched
    non_manifold_spots : connected groups of those open edges (one per place that needs
        :func:`repair_non_manifold` or a look, not a patch)
    holes_with_winding_flips : holes (counted in ``holes_found``) whose neighbouring faces are not
        consistently wound; their patch follows the majority of the neighbours
    vertices_added, faces_added : counts appended to the mesh
    dropped : attributes that could not be carried over (``"uvs"``, ``"texture"``...)
    time_s : wall time in seconds
    """

    mesh: Mesh
    holes_found: list[int] = field(default_factory=list)
    holes_filled: list[int] = field(default_factory=list)
    holes_left: list[int] = field(default_factory=list)
    left_reasons: list[str] = field(default_factory=list)
    non_manifold_edges: int = 0
    open_boundary_edges: int = 0
    non_manifold_spots: int = 0
    holes_with_winding_flips: int = 0
    vertices_added: int = 0
    faces_added: int = 0
    dropped: list[str] = field(default_factory=list)
    time_s: float = 0.0

    def summary(self) -> str:
        """One line for widgets and the CLI: counts, size ranges and why holes were left (the full
        size lists are in :meth:`details`)."""
        s = (f"fill_holes: {_count(len(self.holes_found), 'hole')} found, {len(self.holes_filled)} filled"
             f"{_size_range(self.holes_filled)}, {len(self.holes_left)} left")
        if self.left_reasons:
            s += ": " + "; ".join(_group_reasons(self.holes_left, self.left_reasons))
        s += f"; +{self.vertices_added:,} vertices, +{self.faces_added:,} faces"
        if self.holes_with_winding_flips:
            s += f"; {_count(self.holes_with_winding_flips, 'hole')} next to inconsistently wound faces"
        s += f"; {_count(self.non_manifold_edges, 'non-manifold edge')}"
        if self.open_boundary_edges:
            s += (f", {_count(self.open_boundary_edges, 'open boundary edge')} at "
                  f"{_count(self.non_manifold_spots, 'non-manifold spot')} left alone (see repair_non_manifold)")
        if self.dropped:
            s += f"; dropped {', '.join(self.dropped)}"
        return s + f"; {self.time_s:.3f} s"

    def details(self) -> str:
        """Every hole's size in edges (found, filled, left), longest first: the lists behind :meth:`summary`."""
        return (f"hole sizes in edges: found {self.holes_found}; filled {self.holes_filled}; "
                f"left {self.holes_left}")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _size_range(sizes: list[int]) -> str:
    if not sizes:
        return ""
    lo, hi = min(sizes), max(sizes)
    return f" ({lo} edges)" if lo == hi else f" ({lo}-{hi} edges)"


_FOLD_ANGLE = re.compile(r" \(mean dihedral (\d+) deg at the rim\)")


def _group_reasons(sizes: list[int], reasons: list[str]) -> list[str]:
    """``"larger than max_hole_edges=30 (29 holes, 33-4810 edges)"``: the loops left open, grouped by
    reason, with their count, size range and, for folded rims, the range of the dihedral angles."""
    groups: dict[str, tuple[list[int], list[int]]] = {}
    for size, why in zip(sizes, reasons):
        m = _FOLD_ANGLE.search(why)
        g = groups.setdefault(_FOLD_ANGLE.sub("", why), ([], []))
        g[0].append(size)
        if m:
            g[1].append(int(m.group(1)))
    out = []
    for why, (sz, angles) in groups.items():
        lo, hi = min(sz), max(sz)
        facts = [_count(len(sz), "hole"), f"{lo} edges" if lo == hi else f"{lo}-{hi} edges"]
        if angles:
            lo, hi = min(angles), max(angles)
            facts.append(f"mean dihedral {lo} deg at the rim" if lo == hi else f"mean dihedral {lo}-{hi} deg at the rim")
        out.append(f"{why} ({', '.join(facts)})")
    return out


@dataclass(eq=False)
class RepairResult:
    """What :func:`repair_non_manifold` found and changed.

    Attributes
    ----------
    mesh : the repaired :class:`Mesh` (the input mesh itself when nothing changed)
    non_manifold_edges_before, non_manifold_edges_after : edges with three or more faces
    non_manifold_vertices_before, non_manifold_vertices_after : vertices whose incident faces form
        more than one fan (edge-connected through manifold edges); counted among used vertices
    vertices_added : vertex copies appended
    split_vertices : (K,) int64 indices of the original vertices that were copied (one entry per
        copy, so a vertex copied twice appears twice); copy ``k`` is vertex ``V + k``
    faces_changed : faces with at least one corner moved to a copy
    time_s : wall time in seconds
    """

    mesh: Mesh
    non_manifold_edges_before: int = 0
    non_manifold_edges_after: int = 0
    non_manifold_vertices_before: int = 0
    non_manifold_vertices_after: int = 0
    vertices_added: int = 0
    split_vertices: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    faces_changed: int = 0
    time_s: float = 0.0

    def summary(self) -> str:
        return (f"repair_non_manifold: non-manifold edges {self.non_manifold_edges_before} -> "
                f"{self.non_manifold_edges_after}, non-manifold vertices {self.non_manifold_vertices_before} -> "
                f"{self.non_manifold_vertices_after}; +{self.vertices_added} vertex copies, "
                f"{self.faces_changed} face(s) re-pointed; {self.time_s:.3f} s")


# ------------------------------------------------------------------------------------------------
# validation


def _check_mesh(mesh: Any, name: str = "mesh") -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(mesh, Mesh):
        raise SmrnbTypeError(f"{name} must be a smrnb.Mesh, got {type(mesh).__name__}")
    v = mesh.vertices.detach().cpu().double().numpy()  # float16 / bfloat16 widened (numpy has no bfloat16)
    if not np.isfinite(v).all():
        bad = int((~np.isfinite(v)).sum())
        raise SmrnbValueError(f"{name}.vertices must be finite, got {bad} NaN/inf value(s)")
    f = mesh.faces.detach().cpu().numpy().astype(np.int64, copy=False)
    V = mesh.num_vertices
    if f.size:
        lo, hi = int(f.min()), int(f.max())
        if lo < 0 or hi >= V:
            raise SmrnbValueError(
                f"{name}.faces must index vertices in [0, {V - 1}], got indices in [{lo}, {hi}]")
    return v, f


# ------------------------------------------------------------------------------------------------
# triangulation of one loop


def _unit_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = np.linalg.norm(x, axis=-1)
    ok = n > 1e-300
    u = np.where(ok[..., None], x / np.where(ok, n, 1.0)[..., None], 0.0)
    return u, n


def _liepa_dp(P: np.ndarray, nb_normals: np.ndarray, forbidden: np.ndarray) -> list[tuple[int, int, int]] | None:
    """Minimum (max dihedral angle, area) triangulation of a closed loop (Liepa 2003).

    ``P`` (n, 3) loop points in loop order; ``nb_normals`` (n, 3) unit normal of the mesh face
    across loop edge ``i -> i+1``; ``forbidden`` (n, n) bool, True where a diagonal ``(i, j)``
    already exists as a mesh edge (using it would make a non-manifold edge). Returns triangles as
    loop-index triples ``(i, m, j)``, ``i < m < j``, wound like the loop, or None if every
    triangulation needs a forbidden diagonal.

    The dihedral angle is carried as its cosine (the largest angle is the smallest cosine); the
    table is filled one diagonal band ``j - i = d`` at a time, vectorized over ``i`` and the apex.
    """
    n = len(P)
    INF = np.inf
    nn = n * n
    # per (i, j) = i * n + j: [cos of max dihedral, area, normal x, y, z, forbidden] of the best
    # triangulation of sub-polygon i..j (the normal is that of its triangle on edge (i, j))
    G = np.zeros((nn, 6))
    G[:, 0] = -INF
    G[:, 1] = INF
    G[:, 5] = forbidden.ravel()
    apex = np.full(nn, -1, np.int64)
    idx = np.arange(n - 1)
    band1 = idx * n + idx + 1
    G[band1, 0] = 1.0
    G[band1, 1] = 0.0
    G[band1, 2:5] = nb_normals[:-1]
    d2 = ((P[:, None, :] - P[None, :, :]) ** 2).sum(-1).ravel()
    q = nb_normals[n - 1]
    for d in range(2, n):
        r = n - d
        i = np.arange(r)[:, None]
        k = np.arange(1, d)[None, :]
        m = i + k
        ij = (i * n + i + d)[:, 0]
        gim = G[i * n + m]  # (r, d-1, 6)
        gmj = G[m * n + i + d]
        a = P[m] - P[i]  # (r, d-1, 3)
        b = (P[i + d] - P[i])  # (r, 1, 3)
        cx = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
        cy = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
        cz = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
        nrm = np.sqrt(cx * cx + cy * cy + cz * cz)
        inv = 1.0 / np.where(nrm > 0, nrm, 1.0)
        cx, cy, cz = cx * inv, cy * inv, cz * inv
        cos = np.minimum(cx * gim[..., 2] + cy * gim[..., 3] + cz * gim[..., 4],
                         cx * gmj[..., 2] + cy * gmj[..., 3] + cz * gmj[..., 4])
        if d == n - 1:  # the root triangle also meets the mesh face across loop edge n-1 -> 0
            cos = np.minimum(cos, cx * q[0] + cy * q[1] + cz * q[2])
        # degenerate (zero-area) triangles count as folded over
        cos = np.where(nrm * nrm <= 1e-24 * d2[ij][:, None] ** 2, -1.0, cos)
        cos = np.minimum(cos, np.minimum(gim[..., 0], gmj[..., 0]))
        bad = ((gim[..., 5] > 0) & (k > 1)) | ((gmj[..., 5] > 0) & (k < d - 1))
        cos = np.where(bad, -INF, cos)
        best = cos.max(axis=1)
        tie = cos >= np.minimum(best - _COS_TIE, best)[:, None]
        tot = np.where(tie & ~bad, gim[..., 1] + gmj[..., 1] + 0.5 * nrm, INF)
        kk = np.argmin(tot, axis=1)
        rows = np.arange(r)
        c_best = cos[rows, kk]
        s_best = tot[rows, kk]
        ok = np.isfinite(c_best) & np.isfinite(s_best)
        if d < n - 1:
            ok &= G[ij, 5] == 0
        G[ij, 0] = np.where(ok, c_best, -INF)
        G[ij, 1] = np.where(ok, s_best, INF)
        G[ij, 2] = cx[rows, kk]
        G[ij, 3] = cy[rows, kk]
        G[ij, 4] = cz[rows, kk]
        apex[ij] = np.where(ok, rows + kk + 1, -1)
    if apex[n - 1] < 0:
        return None
    return _apex_triangles(apex.reshape(n, n).tolist(), n)


def _apex_triangles(apex: list[list[int]], n: int) -> list[tuple[int, int, int]]:
    """The triangulation a Liepa table encodes: ``apex[a][b]`` is the third vertex of the triangle
    on loop edge/diagonal (a, b); walked from (0, n - 1)."""
    tris: list[tuple[int, int, int]] = []
    stack = [(0, n - 1)]
    while stack:
        a, b = stack.pop()
        if b - a < 2:
            continue
        mm = apex[a][b]
        tris.append((a, mm, b))
        stack.append((a, mm))
        stack.append((mm, b))
    return tris


def _liepa_dp_small(P: np.ndarray, nb_normals: np.ndarray, forbidden: np.ndarray
                    ) -> list[tuple[int, int, int]] | None:
    """The same programme as :func:`_liepa_dp` in plain Python: faster for short loops (no
    per-band numpy overhead). Same inputs, same rule, same result (tests compare the two)."""
    n = len(P)
    p = P.tolist()
    q = nb_normals.tolist()
    fb = forbidden.tolist()
    INF = math.inf
    C = [[-INF] * n for _ in range(n)]
    S = [[INF] * n for _ in range(n)]
    T: list[list[tuple[float, float, float]]] = [[(0.0, 0.0, 0.0)] * n for _ in range(n)]
    apex = [[-1] * n for _ in range(n)]
    for i in range(n - 1):
        C[i][i + 1] = 1.0
        S[i][i + 1] = 0.0
        T[i][i + 1] = tuple(q[i])
    for d in range(2, n):
        for i in range(n - d):
            j = i + d
            if d < n - 1 and fb[i][j]:
                continue
            pi, pj = p[i], p[j]
            bx, by, bz = pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2]
            d2 = bx * bx + by * by + bz * bz
            cand = []
            for m in range(i + 1, j):
                if (m - i > 1 and fb[i][m]) or (j - m > 1 and fb[m][j]):
                    continue
                cim, cmj = C[i][m], C[m][j]
                if cim == -INF or cmj == -INF:
                    continue
                pm = p[m]
                ax, ay, az = pm[0] - pi[0], pm[1] - pi[1], pm[2] - pi[2]
                cx, cy, cz = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
                nrm = math.sqrt(cx * cx + cy * cy + cz * cz)
                inv = 1.0 / nrm if nrm > 0 else 1.0
                cx, cy, cz = cx * inv, cy * inv, cz * inv
                t1, t2 = T[i][m], T[m][j]
                cos = min(cx * t1[0] + cy * t1[1] + cz * t1[2], cx * t2[0] + cy * t2[1] + cz * t2[2])
                if d == n - 1:
                    r = q[n - 1]
                    cos = min(cos, cx * r[0] + cy * r[1] + cz * r[2])
                if nrm * nrm <= 1e-24 * d2 * d2:
                    cos = -1.0
                cos = min(cos, cim, cmj)
                cand.append((cos, S[i][m] + S[m][j] + 0.5 * nrm, m, (cx, cy, cz)))
            if not cand:
                continue
            best = max(c[0] for c in cand)
            lim = min(best - _COS_TIE, best)
            pick = min((c for c in cand if c[0] >= lim), key=lambda c: (c[1], c[2]))
            C[i][j], S[i][j], apex[i][j], T[i][j] = pick[0], pick[1], pick[2], pick[3]
    if apex[0][n - 1] < 0:
        return None
    return _apex_triangles(apex, n)


def _rim_fold(P: np.ndarray, nb_normals: np.ndarray, tris: list[tuple[int, int, int]]) -> float:
    """Mean cosine of the dihedral angle between the patch and the mesh across the loop edges, in [-1, 1]
    (a mean of unit dot products can round past -1 when patch and mesh fold exactly onto each other)."""
    n = len(P)
    t = np.asarray(tris, np.int64)
    nrm, _ = _unit_rows(np.cross(P[t[:, 1]] - P[t[:, 0]], P[t[:, 2]] - P[t[:, 0]]))
    across = {}
    for k in range(3):
        a, b = t[:, k], t[:, (k + 1) % 3]
        for ti in np.nonzero(b == (a + 1) % n)[0].tolist():
            across[int(a[ti])] = ti
    cos = [float(nrm[across[i]] @ nb_normals[i]) for i in range(n) if i in across]
    return min(1.0, max(-1.0, float(np.mean(cos)))) if cos else 1.0


def _ear_clip(P: np.ndarray, forbidden: np.ndarray) -> list[tuple[int, int, int]] | None:
    """Fallback for long loops: clip the sharpest valid ear first, in the loop's best-fit plane.

    An ear ``(prev, i, next)`` is valid when it is convex in the plane, no other remaining loop
    point lies inside it and its new edge ``(prev, next)`` is no existing mesh edge. Returns None
    when it gets stuck (the loop is left open rather than patched with a bad triangle).
    """
    n = len(P)
    c = P.mean(axis=0)
    area_vec = 0.5 * np.cross(P, np.roll(P, -1, axis=0)).sum(axis=0)
    nz, nn = _unit_rows(area_vec[None])
    if nn[0] <= 0:
        return None
    nz = nz[0]
    ref = np.array([1.0, 0.0, 0.0]) if abs(nz[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    ex = np.cross(ref, nz)
    ex /= np.linalg.norm(ex)
    ey = np.cross(nz, ex)
    Q = np.stack([(P - c) @ ex, (P - c) @ ey], axis=1)  # loop is counter-clockwise here
    used = forbidden.copy()
    ring = list(range(n))
    tris: list[tuple[int, int, int]] = []
    while len(ring) > 3:
        r = np.asarray(ring)
        pr = np.roll(r, 1)
        nx = np.roll(r, -1)
        e1 = Q[r] - Q[pr]
        e2 = Q[nx] - Q[r]
        turn = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
        u1, _ = _unit_rows(Q[pr] - Q[r])
        u2, _ = _unit_rows(Q[nx] - Q[r])
        angle = np.arccos(np.clip((u1 * u2).sum(-1), -1, 1))
        order = np.argsort(np.where(turn > 0, angle, np.inf))
        chosen = -1
        for t in order.tolist():
            if turn[t] <= 0:
                break
            a, b, cc = int(pr[t]), int(r[t]), int(nx[t])
            if used[a, cc]:
                continue
            # no remaining point strictly inside the ear
            others = r[(r != a) & (r != b) & (r != cc)]
            if len(others):
                p = Q[others]
                def side(u, v, p=p):
                    return (Q[v, 0] - Q[u, 0]) * (p[:, 1] - Q[u, 1]) - (Q[v, 1] - Q[u, 1]) * (p[:, 0] - Q[u, 0])
                inside = (side(a, b) > 0) & (side(b, cc) > 0) & (side(cc, a) > 0)
                if inside.any():
                    continue
            chosen = t
            break
        if chosen < 0:
            return None
        a, b, cc = int(pr[chosen]), int(r[chosen]), int(nx[chosen])
        tris.append((a, b, cc))
        used[a, cc] = used[cc, a] = True
        ring.pop(chosen)
    a, b, cc = ring
    tris.append((a, b, cc))
    return tris


# ------------------------------------------------------------------------------------------------
# refinement and fairing of one patch (Liepa 2003, sections 3.2-3.3)


class _Patch:
    """A patch being refined: triangles over local vertex ids with a half-edge map."""

    def __init__(self, tris: list[tuple[int, int, int]], pos: list[tuple[float, float, float]],
                 sigma: list[float], blocked: set[tuple[int, int]]):
        self.tris: list[tuple[int, int, int] | None] = []
        self.he: dict[tuple[int, int], int] = {}
        self.pos = pos
        self.sigma = sigma
        self.blocked = blocked  # undirected edges (min, max) that already exist outside the patch
        self.parents: list[tuple[int, int, int]] = []  # per new vertex: the triangle it split
        for t in tris:
            self.add(t)

    def add(self, t: tuple[int, int, int]) -> int:
        ti = len(self.tris)
        self.tris.append(t)
        a, b, c = t
        he = self.he
        he[(a, b)] = he[(b, c)] = he[(c, a)] = ti
        return ti

    def remove(self, ti: int) -> None:
        t = self.tris[ti]
        assert t is not None
        a, b, c = t
        he = self.he
        del he[(a, b)], he[(b, c)], he[(c, a)]
        self.tris[ti] = None

    def edge_exists(self, a: int, b: int) -> bool:
        return (a, b) in self.he or (b, a) in self.he or (min(a, b), max(a, b)) in self.blocked

    def relax(self, a: int, b: int) -> tuple[int, int] | None:
        """Flip interior edge (a, b) when its two opposite angles sum past pi (not Delaunay).

        Returns the new edge's opposite vertices ``(c, d)`` when flipped, else None.
        """
        t1 = self.he.get((a, b))
        t2 = self.he.get((b, a))
        if t1 is None or t2 is None:
            return None
        ta, tb = self.tris[t1], self.tris[t2]
        c = ta[0] + ta[1] + ta[2] - a - b
        d = tb[0] + tb[1] + tb[2] - a - b
        if c == d or self.edge_exists(c, d):
            return None
        # the opposite angles at c and d sum past pi  <=>  cot(c) + cot(d) < 0
        pa, pb, pc, pd = self.pos[a], self.pos[b], self.pos[c], self.pos[d]
        ax, ay, az = pa[0] - pc[0], pa[1] - pc[1], pa[2] - pc[2]
        bx, by, bz = pb[0] - pc[0], pb[1] - pc[1], pb[2] - pc[2]
        dot1 = ax * bx + ay * by + az * bz
        cr1 = math.sqrt((ay * bz - az * by) ** 2 + (az * bx - ax * bz) ** 2 + (ax * by - ay * bx) ** 2)
        ax, ay, az = pa[0] - pd[0], pa[1] - pd[1], pa[2] - pd[2]
        bx, by, bz = pb[0] - pd[0], pb[1] - pd[1], pb[2] - pd[2]
        dot2 = ax * bx + ay * by + az * bz
        cr2 = math.sqrt((ay * bz - az * by) ** 2 + (az * bx - ax * bz) ** 2 + (ax * by - ay * bx) ** 2)
        if cr1 == 0.0 or cr2 == 0.0 or dot1 * cr2 + dot2 * cr1 >= -1e-12 * (cr1 * cr2 + abs(dot1 * cr2) + abs(dot2 * cr1)):
            return None
        self.remove(t1)
        self.remove(t2)
        self.add((d, b, c))
        self.add((c, a, d))
        return c, d

    def relax_all(self, queue: list[tuple[int, int]]) -> None:
        """Delaunay-flip until no edge in the work queue (and those a flip touches) needs it."""
        budget = 50 * (len(self.he) + 10)
        he = self.he
        while queue and budget > 0:
            budget -= 1
            a, b = queue.pop()
            if (b, a) not in he or (a, b) not in he:  # boundary edge of the patch, or gone
                continue
            cd = self.relax(a, b)
            if cd is not None:
                c, d = cd
                queue.extend(((a, d), (d, b), (b, c), (c, a)))

    def live(self) -> list[tuple[int, int, int]]:
        return [t for t in self.tris if t is not None]


def _refine(patch: _Patch, n_loop: int, max_vertices: int) -> None:
    """Liepa's refinement: split triangles by their centroid until the patch's vertex density
    matches the surrounding mesh (edge lengths ~ sigma), relaxing edges by Delaunay flips."""
    pos = patch.pos
    sig = patch.sigma
    patch.relax_all([e for e in patch.he if e[0] < e[1]])
    for _ in range(64):
        split_any = False
        queue: list[tuple[int, int]] = []
        for ti in range(len(patch.tris)):
            t = patch.tris[ti]
            if t is None:
                continue
            if len(pos) - n_loop >= max_vertices:
                break
            p0, p1, p2 = pos[t[0]], pos[t[1]], pos[t[2]]
            c = ((p0[0] + p1[0] + p2[0]) / 3.0, (p0[1] + p1[1] + p2[1]) / 3.0, (p0[2] + p1[2] + p2[2]) / 3.0)
            sc = (sig[t[0]] + sig[t[1]] + sig[t[2]]) / 3.0
            if (_ALPHA * math.dist(c, p0) > max(sc, sig[t[0]]) and _ALPHA * math.dist(c, p1) > max(sc, sig[t[1]])
                    and _ALPHA * math.dist(c, p2) > max(sc, sig[t[2]])):
                ci = len(pos)
                pos.append(c)
                sig.append(sc)
                patch.parents.append(t)
                patch.remove(ti)
                a, b, cc = t
                patch.add((a, b, ci))
                patch.add((b, cc, ci))
                patch.add((cc, a, ci))
                queue.extend(((a, b), (b, cc), (cc, a)))
                split_any = True
        patch.relax_all(queue)
        if not split_any:
            break


def _fair_all(v: np.ndarray, edges: np.ndarray, new_pos: np.ndarray, new_faces: np.ndarray,
              loop_vertices: np.ndarray, V: int) -> np.ndarray:
    """Thin-plate (uniform bi-Laplacian) fairing of all new vertices at once.

    Unknowns: the new vertices (ids ``V ..``). Fixed: the hole loops' vertices and their mesh
    one-ring, so the Laplacian at the loop is complete and the patches meet the surrounding
    surface smoothly. Solves ``(L^2 x)_new = 0`` with ``L = D^-1 A - I`` on the graph of the
    patches plus the mesh edges at the loops (patches are independent blocks of one sparse
    system). Returns the new positions (unchanged where the solve fails).
    """
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    n_new = len(new_pos)
    if n_new == 0:
        return new_pos
    ring_e = edges[np.isin(edges, loop_vertices).any(axis=1)]
    pe = np.concatenate([new_faces[:, [0, 1]], new_faces[:, [1, 2]], new_faces[:, [2, 0]]])
    pairs = np.concatenate([ring_e, pe])
    ids, inv = np.unique(pairs, return_inverse=True)  # compact ids for every vertex involved
    inv = inv.reshape(-1, 2)
    N = len(ids)
    adj = sp.coo_matrix((np.ones(2 * len(inv)), (np.concatenate([inv[:, 0], inv[:, 1]]),
                                                 np.concatenate([inv[:, 1], inv[:, 0]]))), shape=(N, N)).tocsr()
    adj.data[:] = 1.0  # duplicate pairs collapse to one neighbour
    is_new = ids >= V
    rows = np.nonzero(is_new | np.isin(ids, loop_vertices))[0]  # complete neighbourhoods
    deg = np.asarray(adj[rows].sum(axis=1)).ravel()
    L = sp.diags(1.0 / np.maximum(deg, 1)) @ adj[rows] - sp.csr_matrix(
        (np.ones(len(rows)), (np.arange(len(rows)), rows)), shape=(len(rows), N))
    unk = np.nonzero(is_new)[0]
    r_of = np.full(N, -1, np.int64)
    r_of[rows] = np.arange(len(rows))
    L2 = L[r_of[unk]][:, rows] @ L  # (n_new, N)
    X = np.empty((N, 3))
    X[~is_new] = v[ids[~is_new]]
    X[is_new] = new_pos[ids[is_new] - V]
    fixed = np.nonzero(~is_new)[0]
    try:
        sol = spla.spsolve(L2[:, unk].tocsc(), -(L2[:, fixed] @ X[fixed]))
    except Exception:  # singular system: keep the refined positions
        return new_pos
    sol = np.asarray(sol).reshape(len(unk), 3)
    if not np.isfinite(sol).all():
        return new_pos
    out = new_pos.copy()
    out[ids[unk] - V] = sol
    return out


def _no_flip_blend(v: np.ndarray, before: np.ndarray, after: np.ndarray, faces: np.ndarray, V: int) -> np.ndarray:
    """Faired positions, or a partial step toward them, such that no patch triangle turns over.

    The fairing moves only new vertices; if that flips a patch triangle (its normal against the
    one it had before), the step is halved (up to 4 times) and finally dropped.
    """
    def normals(newp: np.ndarray) -> np.ndarray:
        allp = np.concatenate([v, newp], axis=0)
        p = allp[faces]
        return np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])

    n0 = normals(before)
    live = (n0 ** 2).sum(axis=1) > 0  # degenerate before: nothing to turn over
    for t in (1.0, 0.5, 0.25, 0.125):
        cand = before + t * (after - before)
        if ((normals(cand)[live] * n0[live]).sum(axis=1) > 0).all():
            return cand
    return before


# ------------------------------------------------------------------------------------------------
# fill_holes


def fill_holes(mesh: Mesh, max_hole_edges: int | None = 30, refine: bool = True, fair: bool = True, *,
               return_report: bool = False) -> Mesh | FillHolesResult:
    """Close the holes of a triangle mesh that have at most ``max_hole_edges`` boundary edges.

    Boundary loops are traced on directed hole half-edges, pruned of dangling chains and split
    at vertices where several loops touch, so each hole is a simple cycle; a cycle of boundary
    edges whose neighbouring faces flip winding is still a hole, and its patch follows the
    majority of its neighbours (counted in ``holes_with_winding_flips``). Each hole is
    triangulated with Liepa's minimum (max dihedral angle, area) dynamic programme (loops of up to
    200 edges; longer ones by clipping the sharpest valid ear in the loop's best-fit plane), never
    re-using an existing edge as a diagonal (so no non-manifold edge is created) and wound like
    the surrounding faces. With ``refine`` the patch is densified to the surrounding edge lengths
    (centroid splits and Delaunay flips), with ``fair`` the new interior vertices are placed by a
    thin-plate (uniform bi-Laplacian) solve with the loop and its one-ring fixed, so the patch
    continues the surrounding surface's slope (the converged form of umbrella smoothing
    iterations). Refinement adds at most ``50 * hole edges`` vertices per hole. A 3-edge hole whose
    triangle already exists (a detached flap) is left open rather than doubling that face, and so
    is a loop whose best patch would fold back onto the surface (mean dihedral angle at the rim
    past 120 degrees: the outer rim of an open sheet, not a hole). There
    is no self-intersection test: a patch over a hole facing other geometry may cross it.

    Boundary edges that lie on no closed loop (on the Stanford bunny scan: the free edges of
    triangles glued to the surface along two non-manifold edges) are reported as non-manifold
    spots and left alone; split them with :func:`repair_non_manifold` if needed. Non-manifold
    edges are never touched. Vertices and faces are only appended, never deleted or moved.

    Runs on the CPU (numpy/scipy): the work is topological and on small loops. The result is moved
    back to the input mesh's device and dtypes.

    Parameters
    ----------
    mesh : :class:`Mesh`, vertices (V, 3) float (any frame, any unit), faces (F, 3) int
    max_hole_edges : largest hole (in boundary edges) to close, ``>= 3``; ``None`` = no limit
    refine : densify the patches to match the surrounding edge lengths
    fair : smooth the new interior vertices (only acts when ``refine`` added some)

    return_report : ``False`` (default): return the repaired :class:`Mesh`, so the call chains
        (``for _ in range(3): mesh = fill_holes(mesh, max_hole_edges=30)``), with the report as a
        dict in ``mesh.meta["fill_holes"]`` (the fields of :class:`FillHolesResult` without the
        mesh, plus ``summary``). ``True``: return the :class:`FillHolesResult` itself.

    Returns
    -------
    :class:`Mesh` (default) or :class:`FillHolesResult`. A repeated call on a mesh this function
    returned, with the same parameters and its tensors unchanged since (same storage, no in-place
    edit), is a cheap no-op: nothing is traced again, the same tensors come back and the report
    says ``repeated: True``. A mesh with no faces is a documented no-op: the same mesh object
    comes back with empty lists. New vertices get vertex colors interpolated from their parents;
    vertex normals, if present, are recomputed (area-weighted); ``uvs``/``face_uvs_idx``/``texture``
    cannot be extended to the patch and are dropped (listed in ``dropped``).
    """
    t0 = time.perf_counter()
    if max_hole_edges is not None:
        max_hole_edges = check_int_range(max_hole_edges, "max_hole_edges")
        if max_hole_edges < 3:
            raise SmrnbValueError(f"max_hole_edges must be an int >= 3 or None (no limit), got {max_hole_edges}")
    if not isinstance(refine, bool):
        raise SmrnbTypeError(f"refine must be a bool, got {type(refine).__name__}")
    if not isinstance(fair, bool):
        raise SmrnbTypeError(f"fair must be a bool, got {type(fair).__name__}")
    if not isinstance(return_report, bool):
        raise SmrnbTypeError(f"return_report must be a bool, got {type(return_report).__name__}")
    if isinstance(mesh, Mesh):
        prev = mesh.meta.get("fill_holes")
        if isinstance(prev, dict) and _is_own_output(mesh, max_hole_edges, refine, fair):
            # a repeat on our own unchanged output: every hole was already filled or judged
            rep = {**prev, "repeated": True, "holes_filled": [], "vertices_added": 0, "faces_added": 0,
                   "time_s": time.perf_counter() - t0}
            rep["summary"] = ("fill_holes: repeated on its own unchanged output, nothing to do; "
                              f"{len(rep.get('holes_left', []))} hole(s) left as before {rep.get('holes_left', [])}")
            out = mesh.replace(meta={**mesh.meta, "fill_holes": rep})
            _remember(out, max_hole_edges, refine, fair)
            if return_report:
                kept = {k: rep[k] for k in FillHolesResult.__dataclass_fields__ if k in rep and k != "mesh"}
                return FillHolesResult(mesh=out, **kept)
            return out
    res = _fill_holes(mesh, max_hole_edges, refine, fair, t0)
    if res.mesh is mesh:
        if return_report:
            return res
        res.mesh = mesh.replace(meta=dict(mesh.meta))
    rep = {k: getattr(res, k) for k in FillHolesResult.__dataclass_fields__ if k != "mesh"}
    rep["summary"] = res.summary()
    rep["repeated"] = False
    res.mesh.meta["fill_holes"] = rep
    _remember(res.mesh, max_hole_edges, refine, fair)
    return res if return_report else res.mesh


# meshes returned by fill_holes: id(vertices) -> (weak refs to vertices and faces, their versions,
# the parameters). An entry is dropped when its vertices tensor dies, and a match needs the very
# same tensor objects (weakref identity), so a new tensor at a reused address never matches.
_OWN_OUTPUTS: dict[int, tuple] = {}


def _remember(mesh: Mesh, max_hole_edges: int | None, refine: bool, fair: bool) -> None:
    v, f = mesh.vertices, mesh.faces
    key = id(v)
    old = _OWN_OUTPUTS.get(key)
    if old is not None and old[0]() is v:
        vref = old[0]
    else:
        vref = weakref.ref(v, lambda _r, key=key: _OWN_OUTPUTS.pop(key, None)
                           if _OWN_OUTPUTS.get(key, (None,))[0] is _r else None)
    _OWN_OUTPUTS[key] = (vref, weakref.ref(f), edit_version(v), edit_version(f), (max_hole_edges, refine, fair))


def _is_own_output(mesh: Mesh, max_hole_edges: int | None, refine: bool, fair: bool) -> bool:
    """True when ``mesh``'s tensors are those :func:`fill_holes` returned with these parameters,
    not edited in place since (their version counters unchanged)."""
    v, f = mesh.vertices, mesh.faces
    entry = _OWN_OUTPUTS.get(id(v))
    return (entry is not None and entry[0]() is v and entry[1]() is f and entry[2] == edit_version(v)
            and entry[3] == edit_version(f) and entry[4] == (max_hole_edges, refine, fair))


def _fill_holes(mesh: Mesh, max_hole_edges: int | None, refine: bool, fair: bool, t0: float) -> FillHolesResult:
    v, f = _check_mesh(mesh)
    if f.shape[0] == 0:
        return FillHolesResult(mesh=mesh, time_s=time.perf_counter() - t0)
    V = len(v)
    emap = _edges_np(f)
    edges, counts, _ = emap
    hh, hface = _hole_halfedges(f, emap)
    loops_he, open_idx = _trace_loops(hh, f)
    fa = v[f[hface, 0]]
    fn, _ = _unit_rows(np.cross(v[f[hface, 1]] - fa, v[f[hface, 2]] - fa))
    # each loop: (vertices in patch order, unit normal of the face across each loop edge oriented
    # as the patch should be, index of that face)
    loops = [(hh[idx, 0], fn[idx], hface[idx]) for idx in loops_he]
    flipped, open_idx = _undirected_cycles(hh, open_idx)
    for verts, he_idx, sign in flipped:
        loops.append((verts, fn[he_idx] * sign[:, None], hface[he_idx]))
    loops.sort(key=lambda x: len(x[0]), reverse=True)
    res = FillHolesResult(mesh=mesh, non_manifold_edges=int((counts > 2).sum()),
                          open_boundary_edges=len(open_idx), holes_with_winding_flips=len(flipped))
    res.non_manifold_spots = _count_groups(hh[open_idx]) if len(open_idx) else 0
    res.holes_found = [len(lp[0]) for lp in loops]

    # existing undirected edges as sorted int64 keys, plus the ones patches add as we go
    key_n = np.int64(V + 1)
    ekeys = edges[:, 0] * key_n + edges[:, 1]
    added_keys: set[int] = set()
    # per-vertex mean incident edge length (Liepa's sigma)
    elen = np.linalg.norm(v[edges[:, 0]] - v[edges[:, 1]], axis=1)
    ssum = np.bincount(edges.ravel(), weights=np.repeat(elen, 2), minlength=V)
    scnt = np.bincount(edges.ravel(), minlength=V)
    sigma_v = ssum / np.maximum(scnt, 1)
    faired_loops: list[np.ndarray] = []  # loops whose patch got new vertices (fixed in the fairing)

    new_pos: list[np.ndarray] = []
    new_parents: list[tuple[int, int, int]] = []  # per new vertex: global ids of the 3 it averages
    new_faces: list[tuple[int, int, int]] = []
    next_id = V
    for loop, nb, across in loops:
        size = len(loop)
        if max_hole_edges is not None and size > max_hole_edges:
            res.holes_left.append(size)
            res.left_reasons.append(f"larger than max_hole_edges={max_hole_edges}")
            continue
        P = v[loop]
        # forbidden diagonals: pairs of loop vertices already joined by an edge
        lo = np.minimum(loop[:, None], loop[None, :])
        hi = np.maximum(loop[:, None], loop[None, :])
        keys = lo * key_n + hi
        pos_k = np.searchsorted(ekeys, keys)
        forb = (pos_k < len(ekeys)) & (ekeys[np.minimum(pos_k, len(ekeys) - 1)] == keys)
        if added_keys:
            forb |= np.array([k in added_keys for k in keys.ravel().tolist()]).reshape(keys.shape)
        if size == 3:
            tris = [(0, 1, 2)]
            # a 3-loop whose triangle already exists (with the other winding) would double a face
            sf = np.sort(f[across], axis=1)
            if (sf == np.sort(loop)).all(axis=1).any():
                res.holes_left.append(size)
                res.left_reasons.append("the patch triangle would duplicate an existing face")
                continue
        elif size <= _DP_SMALL:
            tris = _liepa_dp_small(P, nb, forb)
        elif size <= _DP_MAX_EDGES:
            tris = _liepa_dp(P, nb, forb)
        else:
            tris = _ear_clip(P, forb)
        if tris is None:
            res.holes_left.append(size)
            res.left_reasons.append("every triangulation would re-use an existing edge (non-manifold)")
            continue
        fold = _rim_fold(P, nb, tris)
        if fold < _RIM_FOLD_COS:
            res.holes_left.append(size)
            res.left_reasons.append(
                f"the patch would fold back onto the surface (mean dihedral {math.degrees(math.acos(fold)):.0f} deg "
                "at the rim): the open rim of a sheet, not a hole")
            continue
        pos_local: np.ndarray = P.copy()
        parents_local: list[tuple[int, int, int]] = []
        if refine:
            blocked = {(int(a), int(b)) for a, b in zip(*np.nonzero(np.triu(forb, 1)))}
            patch = _Patch(tris, [tuple(x) for x in P.tolist()], [float(x) for x in sigma_v[loop]], blocked)
            _refine(patch, size, max_vertices=max(64, 50 * size))
            tris = patch.live()
            pos_local = np.asarray(patch.pos)
            parents_local = patch.parents
            if len(pos_local) > size:
                faired_loops.append(loop)
        # map local ids -> global ids
        gid = np.empty(len(pos_local), np.int64)
        gid[:size] = loop
        n_new = len(pos_local) - size
        gid[size:] = np.arange(next_id, next_id + n_new)
        next_id += n_new
        new_pos.extend(pos_local[size:])
        new_parents.extend(tuple(int(gid[x]) for x in t) for t in parents_local)
        for t in tris:
            g = (int(gid[t[0]]), int(gid[t[1]]), int(gid[t[2]]))
            new_faces.append(g)
            for k in range(3):
                a, b = g[k], g[(k + 1) % 3]
                if a < V and b < V:
                    added_keys.add(min(a, b) * int(key_n) + max(a, b))
        res.holes_filled.append(size)

    res.vertices_added = len(new_pos)
    res.faces_added = len(new_faces)
    if fair and new_pos:
        before = np.asarray(new_pos).reshape(-1, 3)
        nf_arr = np.asarray(new_faces, np.int64).reshape(-1, 3)
        after = _fair_all(v, edges, before, nf_arr, np.unique(np.concatenate(faired_loops)), V)
        new_pos = list(_no_flip_blend(v, before, after, nf_arr, V))
    if new_faces:
        res.mesh = _append(mesh, new_pos, new_parents, new_faces, res)
    res.time_s = time.perf_counter() - t0
    return res


def _undirected_cycles(hh: np.ndarray, open_idx: np.ndarray):
    """Boundary cycles that the directed tracing left open because the winding flips along them.

    Among the open hole half-edges, each connected set whose vertices all have exactly two of
    them is a simple cycle: a real hole next to inconsistently wound faces. It is oriented like
    the majority of its half-edges; ``sign`` is -1 on the edges whose face is wound the other way
    (so their normals are flipped before the patch is matched to them). Returns
    ``[(vertices, half-edge ids, sign)]`` and the half-edge ids still open.
    """
    if len(open_idx) < 3:
        return [], open_idx
    e = hh[open_idx]
    inc: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(e.tolist()):
        inc.setdefault(a, []).append(k)
        inc.setdefault(b, []).append(k)
    used = np.zeros(len(e), bool)
    cycles = []
    for k0 in range(len(e)):
        if used[k0]:
            continue
        start, cur = int(e[k0, 0]), int(e[k0, 1])
        walk_v, walk_k, agree = [start], [k0], [True]
        ok = len(inc[start]) == 2
        prev = k0
        while ok and cur != start:
            nxt = [k for k in inc[cur] if k != prev]
            if len(inc[cur]) != 2 or len(nxt) != 1 or used[nxt[0]]:
                ok = False
                break
            k = nxt[0]
            walk_v.append(cur)
            walk_k.append(k)
            agree.append(int(e[k, 0]) == cur)
            prev = k
            cur = int(e[k, 1]) if int(e[k, 0]) == cur else int(e[k, 0])
        if not ok or len(walk_k) < 3 or all(agree):
            continue
        used[walk_k] = True
        verts = np.asarray(walk_v, np.int64)
        ks = np.asarray(walk_k, np.int64)
        sign = np.where(np.asarray(agree), 1.0, -1.0)
        if sign.sum() < 0:  # follow the majority: reverse the walk
            verts = np.concatenate([verts[:1], verts[1:][::-1]])
            ks = ks[::-1]
            sign = -sign[::-1]
        cycles.append((verts, open_idx[ks], sign))
    return cycles, open_idx[~np.isin(np.arange(len(open_idx)), np.nonzero(used)[0])]


def _count_groups(hedges: np.ndarray) -> int:
    """Connected components of a small edge set (by shared vertices)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in hedges.tolist():
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return len({find(x) for x in list(parent)})


def _append(mesh: Mesh, new_pos: list[np.ndarray], parents: list, new_faces: list, res: FillHolesResult) -> Mesh:
    dev = mesh.vertices.device
    nv = torch.as_tensor(np.asarray(new_pos).reshape(-1, 3), dtype=mesh.vertices.dtype, device=dev)
    verts = torch.cat([mesh.vertices, nv], dim=0)
    faces = torch.cat([mesh.faces, torch.as_tensor(np.asarray(new_faces, np.int64).reshape(-1, 3),
                                                   dtype=mesh.faces.dtype, device=mesh.faces.device)], dim=0)
    colors = None
    if mesh.vertex_colors is not None:
        # a new vertex is the centroid of a triangle of older vertices: average their colors
        c = mesh.vertex_colors.detach().cpu().double().numpy()
        allc = np.concatenate([c, np.zeros((len(parents), 3))], axis=0)
        for i, p in enumerate(parents):
            allc[len(c) + i] = allc[list(p)].mean(axis=0)
        colors = torch.as_tensor(allc, dtype=mesh.vertex_colors.dtype, device=mesh.vertex_colors.device)
    normals = None
    if mesh.vertex_normals is not None:
        from smrnb.geometry._normals import compute_vertex_normals

        normals = compute_vertex_normals(verts, faces).to(mesh.vertex_normals.dtype)
    for name in ("uvs", "texture"):
        if getattr(mesh, name) is not None:
            res.dropped.append(name)
    return Mesh(verts, faces, vertex_colors=colors, vertex_normals=normals, frame=mesh.frame,
                meta=dict(mesh.meta))


# ------------------------------------------------------------------------------------------------
# repair_non_manifold


def _fans(f: np.ndarray, counts: np.ndarray, fe: np.ndarray) -> np.ndarray:
    """Per face corner, the id of its fan: faces around a vertex joined through manifold edges.

    Corner ``(f, k)`` sits at vertex ``f[f, k]``. Two corners at the same vertex are in one fan
    when their faces share an edge with exactly two faces that contains that vertex, or are
    linked through a chain of such faces. Returns ``(F, 3)`` int64 fan ids.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    F = len(f)
    eid = fe.reshape(-1)
    slots = np.nonzero(counts[eid] == 2)[0]
    slots = slots[np.argsort(eid[slots], kind="stable")].reshape(-1, 2)
    f1, k1 = np.divmod(slots[:, 0], 3)
    f2, k2 = np.divmod(slots[:, 1], 3)
    same_dir = f[f1, k1] == f[f2, k2]  # inconsistently wound pair: a->b in both faces
    k1n = (k1 + 1) % 3
    k2n = (k2 + 1) % 3
    # the corner of face 2 at the vertex of corner k1 of face 1, and at k1 + 1
    m_a = np.where(same_dir, k2, k2n)
    m_b = np.where(same_dir, k2n, k2)
    src = np.concatenate([f1 * 3 + k1, f1 * 3 + k1n])
    dst = np.concatenate([f2 * 3 + m_a, f2 * 3 + m_b])
    g = sp.coo_matrix((np.ones(len(src), np.int8), (src, dst)), shape=(3 * F, 3 * F))
    _, labels = connected_components(g, directed=False)
    return labels.reshape(F, 3).astype(np.int64)


def _join_across_non_manifold(f: np.ndarray, nm: np.ndarray, fe: np.ndarray, corner_fan: np.ndarray) -> np.ndarray:
    """Keep one pair of faces joined across each non-manifold edge.

    Of the faces on a non-manifold edge, the pair that stays joined is a consistently wound one
    (one face runs ``a -> b``, the other ``b -> a``) whose fans are the largest at both endpoints:
    the surface the edge belongs to stays whole, while slivers and flaps (whose fans are small) are
    the ones split off. Returns updated ``(F, 3)`` fan ids (merged fans share an id).
    """
    flat_fan = corner_fan.reshape(-1)
    parent = np.arange(int(flat_fan.max()) + 1)
    size = np.bincount(flat_fan).astype(np.int64)

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = int(parent[x])
        return x

    slots = np.nonzero(nm[fe.reshape(-1)])[0]
    eid = fe.reshape(-1)[slots]
    order = np.argsort(eid, kind="stable")
    slots, eid = slots[order], eid[order]
    bounds = np.flatnonzero(np.diff(eid)) + 1
    for group in np.split(slots, bounds):
        cand = []
        info = []
        for sl in group.tolist():
            fi, k = divmod(sl, 3)
            kn = (k + 1) % 3
            info.append((fi, k, kn, int(f[fi, k])))
        for x in range(len(info)):
            for y in range(x + 1, len(info)):
                f1, k1, k1n, a1 = info[x]
                f2, k2, k2n, a2 = info[y]
                consistent = a1 != a2
                # corners of face 2 at the vertices of corners k1 and k1 + 1 of face 1
                m_a, m_b = (k2n, k2) if consistent else (k2, k2n)
                pairs = ((f1 * 3 + k1, f2 * 3 + m_a), (f1 * 3 + k1n, f2 * 3 + m_b))
                score = sum(min(size[find(int(flat_fan[p]))], size[find(int(flat_fan[q]))]) for p, q in pairs)
                cand.append((consistent, score, pairs))
        if not cand:
            continue
        _, _, pairs = max(cand, key=lambda c: (c[0], c[1]))
        for p, q in pairs:
            rp, rq = find(int(flat_fan[p])), find(int(flat_fan[q]))
            if rp != rq:
                parent[rp] = rq
                size[rq] += size[rp]
    roots = parent.copy()
    while True:  # pointer jumping to the roots, vectorized
        nxt = roots[roots]
        if np.array_equal(nxt, roots):
            break
        roots = nxt
    return roots[corner_fan]


def repair_non_manifold(mesh: Mesh, split_vertices: bool = False) -> RepairResult:
    """Split non-manifold edges (and, optionally, non-manifold vertices) by duplicating vertices.

    Around each vertex, the incident faces fall into fans: groups joined through manifold edges
    (edges with exactly two faces). Across each non-manifold edge one pair of faces stays
    joined: a consistently wound pair (``a -> b`` and ``b -> a``) whose fans are the largest, so
    the surface the edge belongs to stays whole and small flaps or slivers are what is cut off.
    Then, at every vertex of a non-manifold edge, each fan other than the vertex's largest that
    holds a face of that edge gets its own copy of the vertex; with ``split_vertices=True`` every
    extra fan of every vertex gets a copy (bow-tie vertices are separated too). If an edge still
    has more than two faces after that (sheets that also connect around both endpoints), the
    faces beyond one per direction get their own copies of that edge's endpoints. Afterwards
    every edge has at most two faces. No vertex or face is deleted; copies are appended and carry
    the original's color and normal; ``uvs``/``face_uvs_idx``/``texture`` are kept as they are
    (they index faces, not vertices). Positions are unchanged, so the surface looks the same;
    only connectivity changes. On the Stanford bunny scan this cuts off the 66 glued-on
    triangles (3 copies each) and leaves every other face as it was.

    Runs on the CPU (numpy); the result is moved back to the mesh's device.

    Parameters
    ----------
    mesh : :class:`Mesh`
    split_vertices : also separate the fans of non-manifold (bow-tie) vertices

    Returns
    -------
    :class:`RepairResult`; the same mesh object (and zero counts) when nothing needed splitting
    or the mesh has no faces.
    """
    t0 = time.perf_counter()
    if not isinstance(split_vertices, bool):
        raise SmrnbTypeError(f"split_vertices must be a bool, got {type(split_vertices).__name__}")
    v, f = _check_mesh(mesh)
    res = RepairResult(mesh=mesh)
    if f.shape[0] == 0:
        res.time_s = time.perf_counter() - t0
        return res
    V = len(v)
    edges, counts, fe = _edges_np(f)
    nm = counts > 2
    res.non_manifold_edges_before = int(nm.sum())
    corner_fan = _fans(f, counts, fe)
    res.non_manifold_vertices_before = _count_nm_vertices(f, corner_fan)
    if res.non_manifold_edges_before == 0 and not (split_vertices and res.non_manifold_vertices_before):
        res.non_manifold_vertices_after = res.non_manifold_vertices_before
        res.time_s = time.perf_counter() - t0
        return res
    corner_fan = _join_across_non_manifold(f, nm, fe, corner_fan)
    flat_v = f.reshape(-1)
    flat_fan = corner_fan.reshape(-1)
    n_fans = int(flat_fan.max()) + 1
    fan_v = np.zeros(n_fans, np.int64)
    fan_v[flat_fan] = flat_v
    fan_size = np.bincount(flat_fan, minlength=n_fans)
    # fans that hold a face of a non-manifold edge at one of that edge's endpoints
    s_nm = np.nonzero(nm[fe.reshape(-1)])[0]
    fi, k = np.divmod(s_nm, 3)
    touched = np.zeros(n_fans, bool)
    touched[corner_fan[fi, k]] = True
    touched[corner_fan[fi, (k + 1) % 3]] = True
    # the fan that keeps the original vertex index: the largest one (ties: lowest fan id)
    o = np.lexsort((np.arange(n_fans), -fan_size, fan_v))
    first = np.ones(n_fans, bool)
    first[1:] = fan_v[o][1:] != fan_v[o][:-1]
    keeper = np.full(V, -1, np.int64)
    keeper[fan_v[o][first]] = o[first]
    extra = keeper[fan_v] != np.arange(n_fans)
    needs_copy = extra if split_vertices else (extra & touched)
    copy_fans = np.nonzero(needs_copy)[0]
    new_id = np.full(n_fans, -1, np.int64)
    new_id[copy_fans] = V + np.arange(len(copy_fans))
    split_src: list[int] = fan_v[copy_fans].tolist()
    f2 = f.copy().reshape(-1)
    moved = new_id[flat_fan] >= 0
    f2[moved] = new_id[flat_fan[moved]]
    f2 = f2.reshape(-1, 3)
    # second pass: an edge still used by more than two faces (sheets that also join around both
    # endpoints) keeps one face per direction; the others get their own copies of its endpoints
    e2, c2, fe2 = _edges_np(f2)
    for ei in np.nonzero(c2 > 2)[0].tolist():
        slots = np.nonzero(fe2.reshape(-1) == ei)[0]
        seen_dir: set[bool] = set()
        for slot in slots.tolist():
            face_i, kk = divmod(slot, 3)
            forward = bool(f2[face_i, kk] == e2[ei, 0])
            if forward not in seen_dir:
                seen_dir.add(forward)
                continue
            for corner in (kk, (kk + 1) % 3):
                cur = int(f2[face_i, corner])
                split_src.append(cur if cur < V else split_src[cur - V])
                f2[face_i, corner] = V + len(split_src) - 1
    src = np.asarray(split_src, np.int64)
    e3, c3, fe3 = _edges_np(f2)
    res.non_manifold_edges_after = int((c3 > 2).sum())
    res.non_manifold_vertices_after = _count_nm_vertices(f2, _fans(f2, c3, fe3))
    res.vertices_added = len(src)
    res.split_vertices = src
    res.faces_changed = int((f2 != f).any(axis=1).sum())
    if len(src):
        res.mesh = _with_copies(mesh, src, f2)
    res.time_s = time.perf_counter() - t0
    return res


def _count_nm_vertices(f: np.ndarray, corner_fan: np.ndarray) -> int:
    """Vertices whose corners fall into more than one fan (fan ids are per vertex)."""
    fan = corner_fan.reshape(-1)
    fan_v = np.zeros(int(fan.max()) + 1, np.int64)
    fan_v[fan] = f.reshape(-1)
    return int((np.bincount(fan_v) > 1).sum())


def _with_copies(mesh: Mesh, src: np.ndarray, f2: np.ndarray) -> Mesh:
    dev = mesh.vertices.device
    s = torch.as_tensor(src, device=dev)
    verts = torch.cat([mesh.vertices, mesh.vertices[s]], dim=0)
    faces = torch.as_tensor(f2, dtype=mesh.faces.dtype, device=mesh.faces.device)
    kw: dict[str, Any] = {}
    for name in ("vertex_colors", "vertex_normals"):
        t = getattr(mesh, name)
        kw[name] = None if t is None else torch.cat([t, t[s.to(t.device)]], dim=0)
    return Mesh(verts, faces, uvs=mesh.uvs, face_uvs_idx=mesh.face_uvs_idx, texture=mesh.texture,
                frame=mesh.frame, meta=dict(mesh.meta), **kw)
