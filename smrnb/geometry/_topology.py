# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Mesh topology helpers: edge maps, boundary and non-manifold edges, boundary loops.

Shared by the repair, simplification and UV steps. Every function takes ``faces`` as an
``(F, 3)`` integer ``torch.Tensor`` (any device) or ``numpy.ndarray`` and returns the same kind
(tensors stay on their device). Edges are undirected and returned as ``(E, 2)`` with
``edges[:, 0] < edges[:, 1]``, sorted lexicographically.

Definitions used across smrnb:

* a **boundary edge** belongs to exactly one face;
* a **non-manifold edge** belongs to three or more faces;
* a mesh is **watertight** when it has faces and every edge belongs to exactly two faces;
* a **boundary loop** is a closed, simple cycle of boundary edges oriented like the hole it
  bounds (see :func:`boundary_loops`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError


def _to_numpy_faces(faces: Any) -> tuple[np.ndarray, torch.device | None]:
    dev = None
    if isinstance(faces, torch.Tensor):
        dev = faces.device
        arr = faces.detach().cpu().numpy()
    else:
        arr = np.asarray(faces)
    if arr.size == 0:
        arr = arr.reshape(0, 3)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise SmrnbValueError(f"faces must have shape (N, 3), got {tuple(arr.shape)}")
    if arr.dtype.kind not in "iu":
        raise SmrnbTypeError(f"faces must be an integer tensor or array, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False), dev


def _back(x: np.ndarray, device: torch.device | None) -> Any:
    return x if device is None else torch.from_numpy(np.ascontiguousarray(x)).to(device)


def _edges_np(f: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique undirected edges of ``f``, their face counts and, per face corner edge, its edge id.

    Returns ``edges (E, 2)``, ``counts (E,)`` and ``face_edges (F, 3)`` where ``face_edges[f, k]``
    is the id of the edge from corner ``k`` to corner ``k + 1`` of face ``f``.
    """
    if f.shape[0] == 0:
        return np.zeros((0, 2), np.int64), np.zeros(0, np.int64), np.zeros((0, 3), np.int64)
    nxt = f[:, [1, 2, 0]]
    lo = np.minimum(f, nxt).ravel()
    hi = np.maximum(f, nxt).ravel()
    n = int(hi.max()) + 1
    key = lo * n + hi
    order = np.argsort(key)
    srt = key[order]
    first = np.empty(len(srt), bool)
    first[0] = True
    np.not_equal(srt[1:], srt[:-1], out=first[1:])
    ids = np.cumsum(first) - 1
    inverse = np.empty(len(srt), np.int64)
    inverse[order] = ids
    uniq = srt[first]
    counts = np.bincount(ids)
    edges = np.stack([uniq // n, uniq % n], axis=1)
    return edges, counts, inverse.reshape(-1, 3)


def edges_with_counts(faces: Any) -> tuple[Any, Any]:
    """Unique undirected edges and how many faces use each.

    Parameters
    ----------
    faces : (F, 3) int tensor or array

    Returns
    -------
    edges : (E, 2) int64, ``edges[:, 0] < edges[:, 1]``, sorted
    counts : (E,) int64, number of faces containing each edge (1 = boundary, >= 3 = non-manifold)
    """
    f, dev = _to_numpy_faces(faces)
    edges, counts, _ = _edges_np(f)
    return _back(edges, dev), _back(counts, dev)


def boundary_edges(faces: Any) -> Any:
    """``(B, 2)`` int64 undirected edges used by exactly one face (sorted endpoints)."""
    f, dev = _to_numpy_faces(faces)
    edges, counts, _ = _edges_np(f)
    return _back(edges[counts == 1], dev)


def non_manifold_edges(faces: Any) -> Any:
    """``(N, 2)`` int64 undirected edges used by three or more faces (sorted endpoints)."""
    f, dev = _to_numpy_faces(faces)
    edges, counts, _ = _edges_np(f)
    return _back(edges[counts > 2], dev)


def is_watertight(faces: Any) -> bool:
    """True when the mesh has faces and every edge belongs to exactly two faces."""
    f, _ = _to_numpy_faces(faces)
    if f.shape[0] == 0:
        return False
    _, counts, _ = _edges_np(f)
    return bool((counts == 2).all())


def is_winding_consistent(faces: Any) -> bool:
    """True when every edge shared by two faces is used in opposite directions by them.

    Edges with one face are ignored; a non-manifold edge (three or more faces) makes it False.
    """
    f, _ = _to_numpy_faces(faces)
    if f.shape[0] == 0:
        return True
    edges, counts, fe = _edges_np(f)
    if (counts > 2).any():
        return False
    he_from = f.reshape(-1)
    # +1 when the face corner edge runs low -> high, -1 otherwise; a consistent pair sums to 0
    sign = np.where(he_from == edges[fe.reshape(-1), 0], 1, -1)
    total = np.zeros(len(edges), np.int64)
    np.add.at(total, fe.reshape(-1), sign)
    return bool((total[counts == 2] == 0).all())


def euler_characteristic(num_vertices: int, faces: Any) -> int:
    """``V - E + F`` counting only vertices used by a face."""
    f, _ = _to_numpy_faces(faces)
    if f.shape[0] == 0:
        return 0
    edges, _, _ = _edges_np(f)
    used = np.unique(f).size
    return int(used - len(edges) + f.shape[0])


# --------------------------------------------------------------------------------------------
# boundary loops


def _hole_halfedges(f: np.ndarray, emap: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Directed hole half-edges and their face.

    For each boundary edge, the face uses it as ``a -> b``; the hole side runs ``b -> a``. Returns
    ``(H, 2)`` hole half-edges ``(start, end)`` and ``(H,)`` the index of the face across each.
    ``emap`` is ``_edges_np(f)`` when the caller already has it.
    """
    edges, counts, fe = _edges_np(f) if emap is None else emap
    is_b = (counts[fe] == 1) & (f != f[:, [1, 2, 0]])  # (F, 3); a collapsed edge (a, a) bounds nothing
    fi, k = np.nonzero(is_b)
    a = f[fi, k]
    b = f[fi, (k + 1) % 3]
    return np.stack([b, a], axis=1), fi


def _wedge_successors(f: np.ndarray, hh: np.ndarray) -> dict[int, int]:
    """At vertices where several holes touch: for an incoming hole half-edge, the outgoing one
    reached by rotating through the faces around the vertex (the next hole's edge, never its own).

    Around a vertex where two holes touch, the faces form two wedges; rotating from hole A's
    incoming edge through the adjacent wedge arrives at hole B's outgoing edge. So at a vertex
    with exactly two holes, A's own outgoing edge is the other one. Rotation stops (no entry) at
    non-manifold or inconsistently wound spots. Returns ``{in half-edge id: out half-edge id}``.
    """
    starts, n_out = np.unique(hh[:, 0], return_counts=True)
    multi = starts[n_out > 1]
    if len(multi) == 0:
        return {}
    out_id = {(int(a), int(b)): i for i, (a, b) in enumerate(hh.tolist())}
    faces_at = np.nonzero(np.isin(f, multi).any(axis=1))[0]
    res: dict[int, int] = {}
    for v in multi.tolist():
        fv = faces_at[(f[faces_at] == v).any(axis=1)]
        out_map: dict[int, list[int]] = {}  # w -> faces using v -> w
        prev_of: dict[int, int] = {}  # face -> the vertex before v in it
        for fi in fv.tolist():
            a, b, c = f[fi].tolist()
            nxt, prv = {a: (b, c), b: (c, a), c: (a, b)}[v]
            out_map.setdefault(nxt, []).append(fi)
            prev_of[fi] = prv
        for i in np.nonzero(hh[:, 1] == v)[0].tolist():
            a = int(hh[i, 0])
            fl = out_map.get(a, [])
            steps = 0
            while len(fl) == 1 and steps <= len(fv):
                c = prev_of[fl[0]]
                fl = out_map.get(c, [])
                steps += 1
                if not fl:
                    j = out_id.get((v, c))
                    if j is not None:
                        res[i] = j
                    break
    return res


def _trace_loops(hh: np.ndarray, f: np.ndarray | None = None) -> tuple[list[np.ndarray], np.ndarray]:
    """Split directed hole half-edges into simple closed cycles.

    ``hh`` is ``(H, 2)`` (start, end). Half-edges that cannot be part of any closed walk (chains
    hanging from a vertex, e.g. the free edge of a triangle glued to the surface along its two
    other edges) are pruned first. Where several loops touch at a vertex, the walk leaves it by
    an outgoing half-edge of the same hole when the faces ``f`` tell which one that is (see
    :func:`_wedge_successors`), and closed walks are split at repeated vertices, so every returned
    loop visits each vertex once.

    Returns the loops (each an int64 array of half-edge indices into ``hh``, in walk order) and
    the indices of the half-edges left out (open chains).
    """
    H = len(hh)
    if H == 0:
        return [], np.zeros(0, np.int64)
    alive = np.ones(H, bool)
    out_of: dict[int, list[int]] = {}
    in_of: dict[int, list[int]] = {}
    for i, (s, e) in enumerate(hh.tolist()):
        out_of.setdefault(s, []).append(i)
        in_of.setdefault(e, []).append(i)
    n_in = {v: len(x) for v, x in in_of.items()}
    n_out = {v: len(x) for v, x in out_of.items()}
    # prune: a half-edge whose start has no live incoming, or whose end has no live outgoing
    stack = [i for i, (s, e) in enumerate(hh.tolist()) if n_in.get(s, 0) == 0 or n_out.get(e, 0) == 0]
    while stack:
        i = stack.pop()
        if not alive[i]:
            continue
        alive[i] = False
        s, e = int(hh[i, 0]), int(hh[i, 1])
        n_out[s] -= 1
        n_in[e] -= 1
        if n_out[s] == 0:
            stack.extend(j for j in in_of.get(s, ()) if alive[j])
        if n_in[e] == 0:
            stack.extend(j for j in out_of.get(e, ()) if alive[j])
    # a vertex with unequal live in/out degree cannot be fully covered by closed walks; the
    # surplus is left over after the walks below and reported as open
    used = ~alive
    loops: list[np.ndarray] = []
    ptr = {v: [j for j in lst if alive[j]] for v, lst in out_of.items()}
    avoid = _wedge_successors(f, hh) if f is not None else {}
    for start in range(H):
        if used[start]:
            continue
        walk = [start]
        used[start] = True
        cur = int(hh[start, 1])
        ok = True
        while cur != int(hh[start, 0]):
            nxt = None
            lst = ptr.get(cur, [])
            while lst and used[lst[-1]]:
                lst.pop()
            if lst:
                bad = avoid.get(walk[-1], -1)
                cand = [j for j in lst if not used[j] and j != bad]
                nxt = cand[-1] if cand else lst[-1]
                lst.remove(nxt)
            if nxt is None:
                ok = False
                break
            used[nxt] = True
            walk.append(nxt)
            cur = int(hh[nxt, 1])
        if not ok:
            # give the half-edges back as open: they are reported, not filled
            for j in walk:
                alive[j] = False
            continue
        loops.extend(_split_at_repeats(walk, hh))
    open_idx = np.nonzero(~alive)[0]
    return loops, open_idx


def _split_at_repeats(walk: list[int], hh: np.ndarray) -> list[np.ndarray]:
    """Split a closed walk of half-edges into simple cycles at repeated start vertices."""
    out: list[np.ndarray] = []
    stack: list[int] = []
    pos: dict[int, int] = {}
    for j in walk:
        s = int(hh[j, 0])
        if s in pos:
            k = pos[s]
            cyc = stack[k:]
            del stack[k:]
            for jj in cyc:
                pos.pop(int(hh[jj, 0]), None)
            out.append(np.asarray(cyc, np.int64))
        pos[s] = len(stack)
        stack.append(j)
    if stack:
        out.append(np.asarray(stack, np.int64))
    return out


def boundary_loops(faces: Any) -> list[Any]:
    """Closed boundary loops (holes) of a triangle mesh, robust to non-manifold boundary vertices.

    Each loop is an int64 vector of vertex indices ``v0, v1, ...`` such that ``v_i -> v_{i+1}``
    runs opposite to the adjacent face's winding, i.e. a patch triangle ``(v_i, v_j, v_k)`` with
    ``i < j < k`` in loop order is wound consistently with the surrounding faces. Where several
    loops touch at one vertex the loops are split there, so no vertex repeats inside a loop.
    Boundary edges that form no closed loop (e.g. the free edge of a triangle glued to the surface
    along its other two, non-manifold, edges) are not part of any loop; see
    :func:`open_boundary_edges`.

    Parameters
    ----------
    faces : (F, 3) int tensor or array

    Returns
    -------
    list of (L,) int64 (tensor on the faces' device, or numpy), longest first
    """
    f, dev = _to_numpy_faces(faces)
    hh, _ = _hole_halfedges(f)
    loops, _ = _trace_loops(hh, f)
    vloops = [hh[idx, 0] for idx in loops]
    vloops.sort(key=len, reverse=True)
    return [_back(v, dev) for v in vloops]


def open_boundary_edges(faces: Any) -> Any:
    """``(K, 2)`` boundary edges (sorted endpoints) that belong to no closed boundary loop."""
    f, dev = _to_numpy_faces(faces)
    hh, _ = _hole_halfedges(f)
    _, open_idx = _trace_loops(hh, f)
    e = np.sort(hh[open_idx], axis=1) if len(open_idx) else np.zeros((0, 2), np.int64)
    return _back(e, dev)
