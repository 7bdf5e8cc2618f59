# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Quadric decimation and subdivision.

* :func:`simplify_mesh` decimates through `fast-simplification` (the Fast-Quadric-Mesh-Simplification
  core, MIT). It runs on the CPU; the result is moved back to the mesh's device.
* :func:`subdivide_mesh` subdivides: ``"midpoint"`` (pure PyTorch, CPU and CUDA, keeps the geometry
  exactly) or ``"loop"`` (Loop's smoothing scheme through trimesh, CPU; kaolin's
  ``subdivide_trianglemesh`` is also Loop).

The thin-structure pitfall: a global face budget lets QEM collapse a thin part (a cable, a tube a
few triangles around) to nothing, giving "0 faces after simplification" for that part, and
fast-simplification refuses every collapse that would leave a sliver (an angle under about 2.5
degrees), so a thin tube, made of slivers, does not shrink at all. Here every part keeps a floor of
:data:`MIN_FACES_PER_COMPONENT` faces (parts that small are kept as they are). All other parts are
decimated together by one fast-simplification call (as fast as the library on the whole mesh, and
QEM spends the budget where the error is), traced back to the parts through the library's collapse
history (:func:`_trace`). A part the call took under the floor is decimated on its own to its
proportional share of the budget; one that vanishes then is subdivided first and decimated again;
one the call could not decimate (all slivers) goes to a sliver-tolerant quadric edge collapse that
keeps the surface a closed 2-manifold (:func:`_collapse_decimate`), and the call is repeated for the
others. A component is never returned with 0 faces: if nothing works it is kept as it was. When the
target cannot be reached the best mesh comes back with ``reached=False`` and the reason in its
report; nothing raises for that.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._mesh import Mesh
from smrnb.geometry._validate import check_choice, check_finite, check_int_range

#: faces kept at least per connected component (a closed tube needs a few around its circumference)
MIN_FACES_PER_COMPONENT = 24
#: components up to this many faces go to the sliver-tolerant collapse when fast-simplification stalls
_COLLAPSE_MAX_FACES = 20_000


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
    reached: bool = True  # the output has at most target_number_of_vertices vertices
    reason: str | None = None  # why not, when reached is False
    components_collapsed: int = 0  # decimated by the sliver-tolerant collapse instead of fast-simplification

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _check_mesh(mesh: Any, name: str = "mesh") -> Mesh:
    if not isinstance(mesh, Mesh):
        from smrnb._errors import SmrnbTypeError

        raise SmrnbTypeError(f"{name} must be a smrnb.Mesh, got {type(mesh).__name__}")
    check_finite(mesh.vertices, f"{name}.vertices")
    if mesh.num_faces:
        _check_face_range(int(mesh.faces.min()), int(mesh.faces.max()), mesh.num_vertices, name)
    return mesh


def _check_face_range(fmin: int, fmax: int, nv: int, name: str) -> None:
    if fmin < 0 or fmax >= nv:
        raise SmrnbValueError(f"{name}.faces must index vertices in [0, {nv - 1}], got indices in [{fmin}, {fmax}]")


def _mesh_arrays(mesh: Any, name: str = "mesh") -> tuple[np.ndarray, np.ndarray]:
    """``(vertices float64, faces int64)`` as numpy arrays, checked as :func:`_check_mesh` does; the
    checks run on the arrays (one pass each, no torch intra-op threads to wait for on a busy machine)."""
    if not isinstance(mesh, Mesh):
        from smrnb._errors import SmrnbTypeError

        raise SmrnbTypeError(f"{name} must be a smrnb.Mesh, got {type(mesh).__name__}")
    v = mesh.vertices.detach().cpu().double().numpy()  # float16 / bfloat16 widened (numpy has no bfloat16)
    f = mesh.faces.detach().cpu().numpy().astype(np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        suspect = v.size and not np.isfinite(v.sum())  # a NaN/inf term makes the sum non-finite (so may overflow)
    if suspect:
        bad = int((~np.isfinite(v)).sum())
        if bad:
            raise SmrnbValueError(f"{name}.vertices must be finite, got {bad} NaN/inf value(s)")
    if f.size:
        _check_face_range(int(f.min()), int(f.max()), len(v), name)
    return v, f


def _vertex_components(a: np.ndarray, b: np.ndarray, n_vertices: int) -> np.ndarray:
    """A component label per vertex of the graph with edges ``a[i] - b[i]``: the smallest vertex index of
    its component. Min-label hooking with pointer jumping (numpy; rounds grow with the log of the
    components' diameters), so no sparse-graph library is imported for it."""
    lab = np.arange(n_vertices, dtype=np.int64)
    while True:
        la, lb = lab[a], lab[b]
        lo, hi = np.minimum(la, lb), np.maximum(la, lb)
        moved = lo != hi
        if not moved.any():
            return lab
        np.minimum.at(lab, hi[moved], lo[moved])  # hook each root onto the smaller label it meets
        while True:  # pointer jumping: every vertex straight to its root
            nxt = lab[lab]
            if np.array_equal(nxt, lab):
                break
            lab = nxt


def _components(faces: np.ndarray, n_vertices: int) -> np.ndarray:
    """Connected-component label per face, ``0 .. C-1`` (faces sharing a vertex are connected)."""
    if len(faces) == 0:
        return np.zeros(0, dtype=np.int64)
    # two edges per face connect its three corners; components of vertices, read at each face's first corner
    vlabels = _vertex_components(np.concatenate([faces[:, 0], faces[:, 1]]),
                                 np.concatenate([faces[:, 1], faces[:, 2]]), n_vertices)
    _, vlabels = np.unique(vlabels, return_inverse=True)
    flabels = vlabels[faces[:, 0]]
    present = np.zeros(int(vlabels.max()) + 1, dtype=bool)
    present[flabels] = True  # vertices used by no face are components of their own: number only the others
    return (np.cumsum(present) - 1)[flabels]


def _row_hash(bits: np.ndarray) -> np.ndarray:
    """64-bit hash of each row of an ``(N, 3)`` uint64 array (splitmix64's finaliser over each column in turn)."""
    h = np.zeros(len(bits), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(bits.shape[1]):
            h = h ^ bits[:, k]
            h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            h = h ^ (h >> np.uint64(31))
    return h


def _merge_degenerate(v: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Merge vertices at identical positions, drop faces that become degenerate (repeated index).

    Marching cubes (skimage's default ``allow_degenerate=True``, and ours, which matches it) emits
    zero-area triangles where the field equals the iso value at a grid point; quadric decimation
    rejects every collapse around them and stalls far above the target. Returns the cleaned
    arrays (the inputs themselves when nothing changed; kept vertices keep their order), the number
    of merged vertices and of dropped faces.
    """
    vv = v + 0.0  # -0.0 -> 0.0, so that equal coordinates have equal bits
    bits = vv.view(np.uint64).reshape(-1, 3)
    # one sort of a 64-bit hash instead of np.unique(axis=0)'s sort of rows; equal hashes are then
    # checked coordinate by coordinate, and a collision between different rows (about one in 10^7
    # for a million rows) falls back to the exact row sort
    h = _row_hash(bits)
    order = np.argsort(h, kind="stable")
    hs = h[order]
    same_h = hs[1:] == hs[:-1]
    pairs = np.flatnonzero(same_h)
    same = np.zeros(len(same_h), dtype=bool)
    same[pairs] = (vv[order[pairs]] == vv[order[pairs + 1]]).all(1)
    if len(pairs) and not same[pairs].all():
        _, first_idx, inv = np.unique(vv, axis=0, return_index=True, return_inverse=True)
        rep = first_idx[inv.reshape(-1)]
    else:
        start = np.concatenate([[True], ~same])
        group = np.cumsum(start) - 1
        rep = np.empty(len(v), dtype=np.int64)
        rep[order] = order[np.flatnonzero(start)][group]  # stable sort: a group's first is its lowest index
    merged = int((rep != np.arange(len(v))).sum())
    f2 = rep[f] if merged else f
    keep = (f2[:, 0] != f2[:, 1]) & (f2[:, 1] != f2[:, 2]) & (f2[:, 2] != f2[:, 0])
    dropped = int((~keep).sum())
    if merged:
        first = rep == np.arange(len(v))
        new = np.cumsum(first) - 1
        v, f2 = v[first], new[f2]
    return v, (f2[keep] if dropped else f2), merged, dropped


def _decimate(v: np.ndarray, f: np.ndarray, target_faces: int, preserve_border: bool, agg: float):
    import fast_simplification

    target_faces = int(max(1, min(target_faces, len(f))))
    if target_faces >= len(f):
        return v, f
    vo, fo = fast_simplification.simplify(v.astype(np.float64), f.astype(np.int64), target_count=target_faces,
                                          agg=agg, preserve_border=preserve_border)[:2]
    return vo, fo.astype(np.int64)


def _trace(n_vertices: int, f: np.ndarray, collapses: np.ndarray, vo: np.ndarray, fo: np.ndarray
           ) -> np.ndarray | None:
    """Input vertex that each output vertex of a fast-simplification call stands for, or None.

    The core collapses edges only: ``collapses[i] = (i0, i1)`` moves ``i1`` into ``i0``, a face dies
    exactly when two of its corners end in the same survivor, and the output lists the surviving
    vertices and faces in input order. So the survivors of the input faces, renumbered, must equal the
    output faces; when they do not (another core, another version) None is returned and nothing is
    assumed about the output.
    """
    parent = np.arange(n_vertices)
    if len(collapses):
        c = np.asarray(collapses, dtype=np.int64).reshape(-1, 2)
        parent[c[:, 1]] = c[:, 0]
        while True:  # pointer jumping: every vertex to the end of its chain of collapses
            nxt = parent[parent]
            if np.array_equal(nxt, parent):
                break
            parent = nxt
    rf = parent[f]
    surv = rf[(rf[:, 0] != rf[:, 1]) & (rf[:, 1] != rf[:, 2]) & (rf[:, 2] != rf[:, 0])]
    src = np.unique(surv)
    if len(src) != len(vo) or surv.shape != fo.shape or not np.array_equal(np.searchsorted(src, surv), fo):
        return None
    return src


def _det3(m: np.ndarray, i: tuple[int, ...]) -> np.ndarray:
    """fast-simplification's ``SymetricMatrix::det`` on rows of 10 quadric entries."""
    a11, a12, a13, a21, a22, a23, a31, a32, a33 = (m[:, k] for k in i)
    return a11 * a22 * a33 + a13 * a21 * a32 + a12 * a23 * a31 - a13 * a22 * a31 - a11 * a23 * a32 - a12 * a21 * a33


def _quadric_error(m: np.ndarray, p: np.ndarray) -> np.ndarray:
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    return (m[:, 0] * x * x + 2 * m[:, 1] * x * y + 2 * m[:, 2] * x * z + 2 * m[:, 3] * x + m[:, 4] * y * y
            + 2 * m[:, 5] * y * z + 2 * m[:, 6] * y + m[:, 7] * z * z + 2 * m[:, 8] * z + m[:, 9])


def _replay_prefix(v: np.ndarray, f: np.ndarray, vlab: np.ndarray, collapses: np.ndarray, keep: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The parts with ``keep[c] >= 0`` as they were after the first ``keep[c]`` of their own collapses
    in a fast-simplification call on ``(v, f)`` (``vlab``: part of each vertex; -1: not wanted).

    A part's collapses do not depend on the other parts (they share no vertex), so a prefix of them is
    that part decimated less far, with the library's own choices. Faces: those whose corners end in
    three different survivors. Positions: what the library computes at a survivor's last collapse,
    its quadric error minimiser, from the summed plane quadrics of the vertices merged into it (sums
    do not depend on the order); where the library falls back to an end point or the midpoint (a
    singular quadric, or two border vertices), and where a nearly singular quadric puts the
    minimiser beyond twice the reach of the merged vertices, the best of those candidates is taken
    at their input positions.
    Returns the parts' vertices, faces (indexing those vertices) and each face's part.
    """
    c = np.asarray(collapses, dtype=np.int64).reshape(-1, 2)
    part = vlab[c[:, 0]]
    sel = np.flatnonzero(keep[part] >= 0)
    cs, ps = c[sel], part[sel]
    order = np.argsort(ps, kind="stable")
    per = np.bincount(ps, minlength=len(keep))
    rank = np.empty(len(sel), dtype=np.int64)
    rank[order] = np.arange(len(sel)) - (np.cumsum(per) - per)[ps[order]]
    cs = cs[rank < keep[ps]]  # still in the order the library did them
    parent = np.arange(len(v))
    parent[cs[:, 1]] = cs[:, 0]
    while True:
        nxt = parent[parent]
        if np.array_equal(nxt, parent):
            break
        parent = nxt
    ff = f[keep[vlab[f[:, 0]]] >= 0]
    rf = parent[ff]
    surv = rf[(rf[:, 0] != rf[:, 1]) & (rf[:, 1] != rf[:, 2]) & (rf[:, 2] != rf[:, 0])]
    used = np.unique(surv)
    pos = v[used].copy()
    # survivors something was merged into: the library's position for their last collapse
    last = np.zeros(len(v), dtype=np.int64) - 1
    last[cs[:, 0]] = cs[:, 1]  # fancy assignment keeps the last write: the last collapse into each vertex
    moved = np.flatnonzero(last[used] >= 0)
    if len(moved):
        s, s1 = used[moved], last[used[moved]]
        p0, p1, p2 = v[ff[:, 0]], v[ff[:, 1]], v[ff[:, 2]]
        n = _cross(p1 - p0, p2 - p0)
        with np.errstate(invalid="ignore", divide="ignore"):
            n = np.nan_to_num(n / np.linalg.norm(n, axis=1, keepdims=True))
        a, b, cc = n[:, 0], n[:, 1], n[:, 2]
        d = -(n * p0).sum(1)
        entries = (a * a, a * b, a * cc, a * d, b * b, b * cc, b * d, cc * cc, cc * d, d * d)
        slot = np.full(len(v), -1, dtype=np.int64)
        slot[s] = np.arange(len(s))
        m = np.zeros((len(s), 10))
        for j in range(3):
            tgt = slot[parent[ff[:, j]]]
            ok = tgt >= 0
            for k, e in enumerate(entries):
                m[:, k] += np.bincount(tgt[ok], weights=e[ok], minlength=len(s))
        e = np.sort(np.concatenate([ff[:, [0, 1]], ff[:, [1, 2]], ff[:, [2, 0]]]), axis=1)
        key = e[:, 0] * len(v) + e[:, 1]
        uk, cnt = np.unique(key, return_counts=True)
        border = np.zeros(len(v), dtype=bool)
        border[uk[cnt == 1] // len(v)] = True
        border[uk[cnt == 1] % len(v)] = True
        det = _det3(m, (0, 1, 2, 1, 4, 5, 2, 5, 7))
        solve = (det != 0) & ~(border[s] & border[s1])
        safe = np.where(solve, det, 1.0)
        opt = np.stack([-_det3(m, (1, 2, 3, 4, 5, 6, 5, 7, 8)), _det3(m, (0, 2, 3, 1, 5, 6, 2, 7, 8)),
                        -_det3(m, (0, 1, 3, 1, 4, 6, 2, 5, 8))], 1) / safe[:, None]
        # a nearly singular quadric (a thin tube) puts the minimiser anywhere, and rounding that differs
        # from the library's moves it further: keep it only within twice the merged vertices' reach
        members = np.flatnonzero(slot[parent] >= 0)
        reach = np.zeros(len(s))
        np.maximum.at(reach, slot[parent[members]], np.linalg.norm(v[members] - v[parent[members]], axis=1))
        solve &= np.linalg.norm(opt - v[s], axis=1) <= 2 * reach
        cand = np.stack([v[s], v[s1], 0.5 * (v[s] + v[s1])])
        err = np.stack([_quadric_error(m, x) for x in cand])
        pick = cand[np.argmin(err, axis=0), np.arange(len(s))]
        pos[moved] = np.where(solve[:, None], opt, pick)
    return pos, np.searchsorted(used, surv), vlab[surv[:, 0]]


def _global_pass(v: np.ndarray, f: np.ndarray, target_faces: int, preserve_border: bool, agg: float):
    """One fast-simplification call on every face of ``f`` (any number of components at once).

    Returns ``(vo, fo, src, collapses)``: the decimated mesh, per output vertex the input vertex it
    stands for (``src`` is None when the call cannot be traced back, see :func:`_trace`) and the
    library's collapse history.
    """
    import fast_simplification

    target_faces = int(max(1, min(target_faces, len(f))))
    if target_faces >= len(f):
        src = np.unique(f)
        return v[src], np.searchsorted(src, f), src, np.zeros((0, 2), dtype=np.int64)
    res = fast_simplification.simplify(v, f, target_count=target_faces, agg=agg, preserve_border=preserve_border,
                                       return_collapses=True)
    vo, fo = res[0], np.asarray(res[1], dtype=np.int64)
    src = _trace(len(v), f, res[2], vo, fo) if len(res) > 2 else None
    return vo, fo, src, (res[2] if len(res) > 2 else None)


def _decimate_component(cv: np.ndarray, cf: np.ndarray, share: int, vshare: int, preserve_border: bool, agg: float
                        ) -> tuple[np.ndarray, np.ndarray, int, int, bool]:
    """One connected component to about ``share`` faces (``vshare`` vertices), never to nothing.

    fast-simplification first; a part it wipes out is subdivided (midpoint, same surface) and
    decimated again; a part it loses or cannot bring near its share (a thin part is made of the
    slivers it refuses to create) goes to :func:`_collapse_decimate` when small enough; a part lost
    even then is kept as it was. Returns ``(v, f, subdivided, collapsed, kept_as_it_was)``.
    """
    if share >= len(cf):
        return cv, cf, 0, 0, False
    subdivided = collapsed = 0
    ov, of = _decimate(cv, cf, share, preserve_border, agg)
    if len(of) == 0:  # the thin-structure pitfall: subdivide first, then decimate again
        sv, sf = _midpoint_np(cv, cf)
        ov, of = _decimate(sv, sf, max(share, MIN_FACES_PER_COMPONENT), preserve_border, agg)
        subdivided = 1
    if (len(of) == 0 or len(of) > 1.25 * share) and len(cf) <= _COLLAPSE_MAX_FACES:
        ov, of = _collapse_decimate(cv, cf, max(4, vshare), preserve_border)
        collapsed = 1
    if len(of) == 0:  # never drop a part nobody asked to delete: keep it as it was
        return cv, cf, subdivided, collapsed, True
    return ov, of, subdivided, collapsed, False


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross product of (N, 3) arrays (np.cross' axis handling costs more than the maths)."""
    return np.stack([a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1], a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                     a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]], 1)


def _edges(f: np.ndarray, n_vertices: int) -> tuple[np.ndarray, np.ndarray]:
    """The (E, 2) undirected edges of faces ``f`` (smaller index first, sorted) and how many faces hold each: one
    1-D unique of ``a * n + b`` (a row-wise ``np.unique(axis=0)`` took 11 s on the 3.5M edges of a 5 mm room)."""
    e = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]).astype(np.int64), axis=1)
    n = max(int(n_vertices), int(e.max()) + 1 if len(e) else 1)
    key, cnt = np.unique(e[:, 0] * n + e[:, 1], return_counts=True)
    return np.stack([key // n, key % n], 1), cnt


def _collapse_candidates(v: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(E, 3, 4): the homogeneous places an edge ``(a, b)`` may collapse to: ``a``, ``b``, their midpoint."""
    H = np.ones((len(a), 3, 4))
    H[:, 0, :3], H[:, 1, :3] = v[a], v[b]
    H[:, 2, :3] = 0.5 * (v[a] + v[b])
    return H


def _collapse_costs(Q: np.ndarray, v: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each edge's quadric error ``h^T (Q_a + Q_b) h`` at its best place (the first of ``a``, ``b``, midpoint
    that is smallest; NaN never wins: an edge whose every place is NaN costs inf and goes to ``a``) and which."""
    H = _collapse_candidates(v, a, b)
    err = np.einsum("eci,eij,ecj->ec", H, Q[a] + Q[b], H)
    err = np.where(np.isnan(err), np.inf, err)
    i = err.argmin(1)
    return err[np.arange(len(a)), i], i


def _collapse_decimate(v: np.ndarray, f: np.ndarray, target_vertices: int, preserve_border: bool
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Quadric edge collapse without fast-simplification's sliver test, for the components it
    cannot decimate (each collapse there is refused because it would leave a triangle with an angle
    under about 2.5 degrees: a 3 mm tube 1 m long is made of nothing else).

    Greedy Garland-Heckbert: every edge costs the summed plane quadric of its two ends at the best
    of (a, b, midpoint); a collapse is done only if it keeps the surface a 2-manifold (link
    condition: the two ends share exactly the opposite vertices of the edge's two faces), turns no
    face normal by more than 90 degrees, keeps at least 4 vertices (a closed part stays closed) and,
    with ``preserve_border``, touches no boundary vertex. Pure numpy/heapq, meant for small parts.
    """
    v = v.astype(np.float64).copy()
    f = f.astype(np.int64).copy()
    nV = len(v)
    tri = v[f]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    ln = np.linalg.norm(n, axis=1)
    nu = n / np.maximum(ln, 1e-300)[:, None]
    plane = np.concatenate([nu, -(nu * tri[:, 0]).sum(1, keepdims=True)], 1)
    Kf = plane[:, :, None] * plane[:, None, :] * (0.5 * ln)[:, None, None]
    Q = np.zeros((nV, 4, 4))
    for k in range(3):
        np.add.at(Q, f[:, k], Kf)
    alive_f = np.ones(len(f), bool)
    vf: list[set[int]] = [set() for _ in range(nV)]
    for i, t in enumerate(f.tolist()):
        for x in t:
            vf[x].add(i)
    ue, cnt = _edges(f, nV)
    border = np.zeros(nV, bool)
    border[ue[cnt == 1].ravel()] = True
    stamp = np.zeros(nV, np.int64)
    used = np.zeros(nV, bool)
    used[f.ravel()] = True
    alive_v = int(used.sum())

    def nbrs(x: int) -> set[int]:
        out: set[int] = set()
        for fi in vf[x]:
            out.update(f[fi].tolist())
        out.discard(x)
        return out

    heap: list[tuple[float, int, int, int, int, int]] = []

    def push_all(a: np.ndarray, b: np.ndarray) -> None:
        """Price the edges ``(a[k], b[k])`` (a < b) at once and queue them with the stamps of their ends and
        the index of their best place (valid while neither end has changed, which the stamps tell)."""
        if preserve_border:
            inner = ~(border[a] | border[b])
            a, b = a[inner], b[inner]
        if len(a) == 0:
            return
        costs, where = _collapse_costs(Q, v, a, b)
        for item in zip(costs.tolist(), a.tolist(), b.tolist(), stamp[a].tolist(), stamp[b].tolist(), where.tolist()):
            heapq.heappush(heap, item)

    # every edge's first cost at once; after each collapse only the edges around it are priced again
    push_all(ue[:, 0], ue[:, 1])
    while alive_v > max(target_vertices, 4) and heap:
        _, a, b, sa, sb, where = heapq.heappop(heap)
        if stamp[a] != sa or stamp[b] != sb or not used[a] or not used[b]:
            continue
        shared = vf[a] & vf[b]
        if len(shared) != 2:
            continue
        opposite = {x for fi in shared for x in f[fi].tolist()} - {a, b}
        if nbrs(a) & nbrs(b) != opposite:
            continue  # the collapse would pinch the surface (non-manifold edge or vertex)
        p = v[a].copy() if where == 0 else v[b].copy() if where == 1 else 0.5 * (v[a] + v[b])
        ring = f[list((vf[a] | vf[b]) - shared)]
        old = v[ring]
        new = old.copy()
        new[(ring == a) | (ring == b)] = p
        d0, d1 = old[:, 1:] - old[:, :1], new[:, 1:] - new[:, :1]
        n0 = _cross(d0[:, 0], d0[:, 1])
        n1 = _cross(d1[:, 0], d1[:, 1])
        if len(ring) and float((n0 * n1).sum(1).min()) <= 0.0:
            continue  # a face would turn over
        for fi in shared:
            alive_f[fi] = False
            for x in f[fi].tolist():
                vf[x].discard(fi)
        for fi in list(vf[b]):
            f[fi][f[fi] == b] = a
            vf[a].add(fi)
        vf[b].clear()
        v[a] = p
        Q[a] += Q[b]
        border[a] |= border[b]
        used[b] = False
        alive_v -= 1
        stamp[a] += 1
        stamp[b] += 1
        xs = np.fromiter(nbrs(a), np.int64)
        push_all(np.minimum(xs, a), np.maximum(xs, a))
    fo = f[alive_f]
    keep, inv = np.unique(fo, return_inverse=True)
    return v[keep], inv.reshape(-1, 3)


def _midpoint_np(v: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = subdivide_mesh(Mesh(torch.as_tensor(v, dtype=torch.float64), torch.as_tensor(f)), iterations=1)
    return m.vertices.numpy(), m.faces.numpy()


def _point_triangle_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Distance from each point ``p[:, i]`` to the triangle ``(a[:, i], b[:, i], c[:, i])``, all ``(3, M)``
    (coordinates first, so every step is a flat array operation), exact: to the plane when the foot
    falls inside the triangle, else to the nearest of its three edges."""

    def dot(x, y):
        return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]

    def seg(x, y):
        d, xp = y - x, p - x
        t = np.clip(dot(xp, d) / np.maximum(dot(d, d), 1e-300), 0.0, 1.0)
        r = xp - t * d
        return dot(r, r)

    ab, ac, ap = b - a, c - a, p - a
    d00, d01, d11, d20, d21 = dot(ab, ab), dot(ab, ac), dot(ac, ac), dot(ap, ab), dot(ap, ac)
    den = d00 * d11 - d01 * d01
    ok = den > 0
    safe = np.where(ok, den, 1.0)
    s, t = (d11 * d20 - d01 * d21) / safe, (d00 * d21 - d01 * d20) / safe
    inside = ok & (s >= 0) & (t >= 0) & (s + t <= 1)
    # squared distance to the plane: (ap . n)^2 / |n|^2 with |n|^2 = den (Lagrange's identity)
    n = np.stack([ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]])
    plane = dot(ap, n) ** 2 / safe
    edges = np.minimum(np.minimum(seg(a, b), seg(b, c)), seg(c, a))
    return np.sqrt(np.where(inside, plane, edges))


class _Surface:
    """A triangle mesh laid out for distance queries: corners as ``(3, F)`` coordinate rows (flat array
    operations instead of small-axis reductions), area-weighted sampling, a KD-tree on the centroids."""

    def __init__(self, v: np.ndarray, f: np.ndarray):
        self.v, self.f = v, f
        vt = np.ascontiguousarray(v.T)
        self.a, self.b, self.c = vt[:, f[:, 0]], vt[:, f[:, 1]], vt[:, f[:, 2]]
        self._tree = None

    def samples(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` points: half corners of random faces, half area-weighted points of the surface."""
        a, b, c = self.a, self.b, self.c
        nf = a.shape[1]
        corners = self.v[self.f[rng.integers(nf, size=n // 2), rng.integers(3, size=n // 2)]]
        u, w = b - a, c - a
        area = np.sqrt((u[1] * w[2] - u[2] * w[1]) ** 2 + (u[2] * w[0] - u[0] * w[2]) ** 2
                       + (u[0] * w[1] - u[1] * w[0]) ** 2)
        total = float(area.sum())
        if not total > 0:
            return corners
        m = n - len(corners)
        idx = np.minimum(np.searchsorted(np.cumsum(area), rng.random(m) * total), nf - 1)
        r1, r2 = np.sqrt(rng.random(m)), rng.random(m)
        pts = a[:, idx] * (1 - r1) + b[:, idx] * (r1 * (1 - r2)) + c[:, idx] * (r1 * r2)
        return np.concatenate([corners, pts.T])

    def distances(self, q: np.ndarray, k: int = 4) -> np.ndarray:
        """Distance from each point of ``q`` to the surface: exact point-triangle distance to the ``k``
        triangles whose centroids are nearest (the nearest triangle is among them unless triangles are
        much longer than the spacing of their neighbours)."""
        from scipy.spatial import cKDTree

        if self._tree is None:
            cen = np.ascontiguousarray(((self.a + self.b + self.c) / 3.0).T)
            self._tree = cKDTree(cen, leafsize=32, balanced_tree=False, compact_nodes=False)
        k = min(k, self.a.shape[1])
        _, idx = self._tree.query(q, k=k)
        idx = np.asarray(idx).reshape(-1)
        p = np.repeat(q, k, axis=0).T
        return _point_triangle_distance(p, self.a[:, idx], self.b[:, idx], self.c[:, idx]).reshape(-1, k).min(1)


def _surface_distances(q: np.ndarray, v: np.ndarray, f: np.ndarray, k: int = 4) -> np.ndarray:
    """Distance from each query point to the surface ``(v, f)`` (see :meth:`_Surface.distances`)."""
    return _Surface(v, f).distances(q, k)


def _sampled_hausdorff(va, fa, vb, fb, n: int = 5_000, seed: int = 0) -> float:
    """Symmetric Hausdorff distance between two meshes, estimated on ``n`` points of each surface
    (corners of random faces and area-weighted points), each measured exactly to the other surface
    (:meth:`_Surface.distances`). A sample: it can miss a single far point, it never adds spacing."""
    rng = np.random.default_rng(seed)
    sa, sb = _Surface(va, fa), _Surface(vb, fb)
    return float(max(sb.distances(sa.samples(n, rng)).max(), sa.distances(sb.samples(n, rng)).max()))


class _Parts:
    """The connected components of a mesh and where each is decimated: kept as it is (at or under the
    face floor), in the pool (one fast-simplification call for all of them, traced back to the parts),
    on its own, or replayed from a pool call's history (no new decimation)."""

    def __init__(self, v: np.ndarray, f: np.ndarray, target: int, preserve_border: bool, aggressiveness: float):
        self.v, self.f, self.target = v, f, target
        self.preserve_border, self.aggressiveness = preserve_border, aggressiveness
        self.labels = labels = _components(f, len(v))
        self.sizes = sizes = np.bincount(labels)
        self.ncomp = ncomp = len(sizes)
        self.vlab = vlab = np.full(len(v), -1, dtype=np.int64)  # component of each vertex (-1: used by no face)
        vlab[f.reshape(-1)] = np.repeat(labels, 3)
        self.vsizes = vsizes = np.bincount(vlab[vlab >= 0], minlength=ncomp)
        # the face budget of the whole mesh from its own face/vertex ratio; a component decimated on its
        # own aims at its proportional share of it, never under the floor
        total_faces = max(1, int(target * len(f) / max(int(vsizes.sum()), 1)))
        self.shares = np.maximum(MIN_FACES_PER_COMPONENT, np.round(total_faces * sizes / len(f))).astype(np.int64)
        self.vshares = np.floor(target * vsizes / max(int(vsizes.sum()), 1)).astype(np.int64)
        self.order = np.argsort(labels, kind="stable")
        self.starts = np.concatenate([[0], np.cumsum(sizes)])

        self.kept = sizes <= MIN_FACES_PER_COMPONENT  # parts at or under the floor stay as they are
        self.in_pool = ~self.kept  # parts decimated together, in one fast-simplification call
        self.separate: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # parts decimated on their own
        self.replayed: list[tuple[np.ndarray, np.ndarray]] = []  # parts taken from a pool call's history
        self.vanished: dict[int, int] = {}
        self.subdivided: set[int] = set()
        self.collapsed: set[int] = set()
        self.pool_out: tuple[np.ndarray, np.ndarray] | None = None  # the pool's last output

    def on_their_own(self, cids) -> None:
        f, v = self.f, self.v
        for c in cids:
            cf = f[self.order[self.starts[c]:self.starts[c + 1]]]
            used, inv = np.unique(cf, return_inverse=True)
            ov, of, s, k, lost = _decimate_component(v[used], inv.reshape(-1, 3), int(self.shares[c]),
                                                     int(self.vshares[c]), self.preserve_border, self.aggressiveness)
            self.separate[c] = (ov, of)
            self.in_pool[c] = False
            for flag, into in ((s, self.subdivided), (k, self.collapsed)):
                if flag:
                    into.add(c)
            if lost:
                self.vanished[c] = int(self.sizes[c])

    def rescue(self, pv, pf, pvlab, hist, cids: np.ndarray) -> None:
        """Parts a pool call took under the floor: each as it was in that call's own history when it
        still had the floor's faces (:func:`_replay_prefix`, no new decimation); on their own if that fails."""
        ncomp = self.ncomp
        keep = np.full(ncomp, -1, dtype=np.int64)
        had = np.bincount(pvlab[pf[:, 0]], minlength=ncomp)
        # back to the floor (the call found these parts cheap to simplify); a collapse removes at most two faces
        keep[cids] = np.maximum(0, (had[cids] - MIN_FACES_PER_COMPONENT) // 2)
        rv, rf, rl = _replay_prefix(pv, pf, pvlab, hist, keep)
        got = np.bincount(rl, minlength=ncomp)
        good = np.zeros(ncomp, dtype=bool)
        good[cids] = got[cids] >= np.minimum(MIN_FACES_PER_COMPONENT, had[cids])
        if good.any():
            rf_ok = rf[good[rl]]
            used, inv = np.unique(rf_ok, return_inverse=True)
            self.replayed.append((rv[used], inv.reshape(-1, 3)))
            self.in_pool[good] = False
        self.on_their_own([c for c in cids.tolist() if not good[c]])

    def others(self) -> int:
        """Vertices outside the pool."""
        return (int(self.vsizes[self.kept].sum()) + sum(len(ov) for ov, _ in self.separate.values())
                + sum(len(rv) for rv, _ in self.replayed))

    def decimate(self) -> None:
        """One call for every part of the pool (as fast as fast-simplification on the whole mesh), traced
        back to the parts. A part the call took under the floor is decimated on its own. A part it could
        not decimate (thin, all slivers) too, and the call is repeated from the input for the rest, which
        it squeezed in its place. When the face budget simply gave too many vertices, the (small) output
        is decimated further; when only parts decimated on their own are left over, their shares shrink."""
        v, f, labels, target, in_pool = self.v, self.f, self.labels, self.target, self.in_pool
        shares, vshares, ncomp = self.shares, self.vshares, self.ncomp
        pv, pf, pvlab, pvs = v, f[in_pool[labels]], self.vlab, self.vsizes
        pool_nv, from_output, last, gain = 0, False, None, 1.0
        for _ in range(8):
            pf = pf[in_pool[pvlab[pf[:, 0]]]]
            stuck = True
            if len(pf):
                allowed, nv = target - self.others(), int(pvs[in_pool].sum())
                if from_output:  # a collapse removes a vertex and at most two faces; gain: see below
                    budget = len(pf) - 2 * max(int(math.ceil((nv - allowed) * gain)), 1)
                else:  # Euler: V = F/2 + B/2 + chi; chi + B/2 kept with the border, else ~2 per closed part
                    c = nv - len(pf) / 2
                    budget = int(2 * (allowed - (c if self.preserve_border else min(c, 2 * int(in_pool.sum())))))
                budget = max(budget, MIN_FACES_PER_COMPONENT * int(in_pool.sum()))
                vo, fo, src, hist = _global_pass(pv, pf, budget, self.preserve_border, self.aggressiveness)
                if src is None:  # the call cannot be traced back to the parts: each part on its own
                    self.on_their_own(np.flatnonzero(in_pool).tolist())
                    self.pool_out, pool_nv, pf, last = None, 0, pf[:0], None
                else:
                    ovlab = pvlab[src]
                    flab = ovlab[fo[:, 0]]
                    counts = np.bincount(flab, minlength=ncomp)
                    stuck = len(fo) > 1.05 * budget  # the call stopped above its face budget
                    stalled = in_pool & (counts > 1.25 * shares) & (self.sizes <= _COLLAPSE_MAX_FACES)
                    if stuck and stalled.any() and len(vo) + self.others() > target:
                        # the call squeezed the other parts (some maybe under the floor) in place of the
                        # stalled ones: those on their own, the call again from the input for the rest
                        self.on_their_own(np.flatnonzero(stalled).tolist())
                        pv, pf, pvlab, pvs, from_output, last = v, f[in_pool[labels]], self.vlab, self.vsizes, False, None
                        continue
                    crushed = np.flatnonzero(in_pool & (counts < MIN_FACES_PER_COMPONENT))
                    if len(crushed):
                        self.rescue(pv, pf, pvlab, hist, crushed)
                    fo = fo[in_pool[flab]]
                    ovs = np.bincount(ovlab, minlength=ncomp) * in_pool
                    self.pool_out, pool_nv = (vo, fo), int(ovs.sum())
                    pv, pf, pvlab, pvs, from_output = vo, fo, ovlab, ovs, True
            else:
                self.pool_out, pool_nv = None, 0
            total = pool_nv + self.others()
            if total <= target or (last is not None and total >= last):
                break
            if from_output and last is not None:
                # parts this pass took under the floor came back at the floor: ask the next pass for more,
                # by the share of the excess this one failed to remove (no cascade of small passes)
                gain = min(4.0, gain * (last - target) / max(last - total, 1))
            last = total
            if not stuck:
                continue  # the pool can go further
            redo = [c for c in self.separate if c not in self.vanished]
            if not redo:
                break
            own = sum(len(self.separate[c][0]) for c in redo)
            scale = max(0.0, own - (total - target)) / own * 0.97
            shares[redo] = np.maximum(MIN_FACES_PER_COMPONENT, np.floor(shares[redo] * scale))
            vshares[redo] = np.maximum(4, np.floor(vshares[redo] * scale))
            self.on_their_own(redo)

    def assemble(self) -> tuple[np.ndarray, np.ndarray]:
        """Every part's vertices and faces in one mesh, without the vertices no face uses."""
        pieces = [self.pool_out] if self.pool_out is not None else []
        if self.kept.any():
            pieces.append((self.v, self.f[self.kept[self.labels]]))
        pieces += list(self.separate.values()) + self.replayed
        offsets = np.cumsum([0] + [len(pv_) for pv_, _ in pieces])
        ov = np.concatenate([pv_ for pv_, _ in pieces])
        of = np.concatenate([pf_ + off for (_, pf_), off in zip(pieces, offsets)])
        used, inv = np.unique(of, return_inverse=True)
        return ov[used], inv.reshape(-1, 3)

    def notes(self, n_out: int) -> tuple[list[str], str | None]:
        """The report's notes on the parts, and the reason the target was missed (None when reached)."""
        notes: list[str] = []
        reason = None
        if self.vanished:
            notes.append(f"{len(self.vanished)} component(s) could not be decimated without losing them and were "
                         f"kept as they were: {list(self.vanished.items())[:5]} (component, faces)")
        if n_out > self.target:
            why = []
            if self.preserve_border:
                ue, cnt = _edges(self.f, len(self.v))
                nb = len(np.unique(ue[cnt == 1]))
                if nb:
                    why.append(f"preserve_border=True keeps its {nb} boundary vertices where they are "
                               "(pass preserve_border=False to let the border move)")
            why.append(f"the mesh has {self.ncomp} connected components and each keeps at least "
                       f"{MIN_FACES_PER_COMPONENT} faces (or its own faces when it cannot be decimated)")
            reason = (f"stopped at {n_out} vertices, over target_number_of_vertices={self.target}: " + "; ".join(why)
                      + "; raise the target or remove small components")
            notes.append(reason)
        if self.subdivided:
            notes.append(f"{len(self.subdivided)} thin component(s) subdivided before decimation so they keep faces")
        if self.collapsed:
            notes.append(f"{len(self.collapsed)} thin component(s) decimated by the sliver-tolerant edge collapse "
                         "(fast-simplification could not reach their share)")
        return notes, reason


def _nearest_colors(mesh: Mesh, points: np.ndarray) -> torch.Tensor | None:
    """Each of ``points`` takes the vertex color of the nearest vertex of ``mesh`` (None without colors)."""
    if mesh.vertex_colors is None:
        return None
    from scipy.spatial import cKDTree

    tree = cKDTree(mesh.vertices.detach().cpu().double().numpy(), balanced_tree=False, compact_nodes=False)
    _, nn = tree.query(points)
    return mesh.vertex_colors.detach().cpu()[torch.as_tensor(nn)].to(mesh.device)


def simplify_mesh(mesh: Mesh, target_number_of_vertices: int = 80000, preserve_border: bool = True,
                  aggressiveness: float = 7.0, measure_hausdorff: bool = False) -> Mesh:
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
        Report an estimate of the symmetric Hausdorff distance to the input in ``meta["simplify"]
        ["hausdorff"]`` (None when off): 5,000 points of each surface (corners of random faces and
        area-weighted points), each measured exactly to the nearest of the other surface's
        triangles; a sample, so it can miss a single far point. Off by default: it needs a search
        tree over the input's triangles and costs 20-50 % of the decimation itself
        (``benchmarks/RESULTS_simplify.md``).

    Returns
    -------
    Mesh
        On the input's device, with ``meta["simplify"]`` = :class:`SimplifyReport` as a dict.

    Raises
    ------
    SmrnbValueError
        Bad target, NaN vertices, out-of-range faces. An unreachable target does not raise: the
        best mesh comes back with ``meta["simplify"]["reached"] = False`` and ``"reason"``.
    """
    v, f = _mesh_arrays(mesh)
    target = check_int_range(target_number_of_vertices, "target_number_of_vertices", lo=4)
    if isinstance(aggressiveness, bool) or not isinstance(aggressiveness, (int, float, np.integer, np.floating)) \
            or not 0.0 <= float(aggressiveness) <= 10.0:  # NaN fails the comparison too
        raise SmrnbValueError(f"aggressiveness must be a number in [0, 10] (0 careful, 10 fast), got {aggressiveness!r}")
    for flag, value in (("preserve_border", preserve_border), ("measure_hausdorff", measure_hausdorff)):
        if not isinstance(value, (bool, np.bool_)):
            raise SmrnbTypeError(f"{flag} must be True or False, got {type(value).__name__} {value!r:.40}")
    aggressiveness = float(aggressiveness)
    V, F = mesh.num_vertices, mesh.num_faces
    if F == 0:
        raise SmrnbValueError("mesh must have faces to simplify, got 0 faces")
    if target >= V:
        rep = SimplifyReport(V, F, V, F, target, 1, notes=[f"target {target} >= {V} vertices: nothing to do"])
        return mesh.replace(meta={**mesh.meta, "simplify": rep.as_dict()})

    device = mesh.device
    notes: list[str] = []
    v, f, merged, dropped = _merge_degenerate(v, f)
    if merged or dropped:
        notes.append(f"merged {merged} coincident vertices and dropped {dropped} degenerate faces first")
    if len(f) == 0:
        raise SmrnbValueError(f"mesh must have faces of non-zero area to simplify, got {F} face(s), all degenerate "
                              "(repeated or coincident vertices)")
    parts = _Parts(v, f, target, preserve_border, aggressiveness)
    parts.decimate()
    ov, of = parts.assemble()
    more, reason = parts.notes(len(ov))
    notes += more
    haus = _sampled_hausdorff(v, f, ov, of) if measure_hausdorff else None
    rep = SimplifyReport(V, F, len(ov), len(of), target, parts.ncomp, len(parts.subdivided), haus, notes,
                         len(ov) <= target, reason, len(parts.collapsed))
    return Mesh(torch.as_tensor(ov, dtype=mesh.vertices.dtype).to(device),
                torch.as_tensor(of, dtype=torch.int64).to(device), vertex_colors=_nearest_colors(mesh, ov),
                frame=mesh.frame, meta={**mesh.meta, "simplify": rep.as_dict()})


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
