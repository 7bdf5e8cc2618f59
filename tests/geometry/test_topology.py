# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Edge maps, boundary loops and manifoldness checks on meshes with known topology."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import trimesh

from smrnb.geometry._topology import (
    boundary_edges,
    boundary_loops,
    edges_with_counts,
    euler_characteristic,
    is_watertight,
    is_winding_consistent,
    non_manifold_edges,
    open_boundary_edges,
)


def icosphere(subdivisions: int = 2):
    s = trimesh.creation.icosphere(subdivisions=subdivisions)
    return np.asarray(s.vertices, np.float64), np.asarray(s.faces, np.int64)


def test_two_triangles_edge_counts():
    faces = np.array([[0, 1, 2], [2, 1, 3]])
    edges, counts = edges_with_counts(faces)
    assert edges.tolist() == [[0, 1], [0, 2], [1, 2], [1, 3], [2, 3]]
    assert counts.tolist() == [1, 1, 2, 1, 1]
    assert boundary_edges(faces).tolist() == [[0, 1], [0, 2], [1, 3], [2, 3]]
    assert non_manifold_edges(faces).shape == (0, 2)
    assert not is_watertight(faces)
    assert is_winding_consistent(faces)


def test_closed_icosphere_is_watertight_genus_zero():
    v, f = icosphere(2)
    assert is_watertight(f)
    assert is_winding_consistent(f)
    assert euler_characteristic(len(v), f) == 2
    assert boundary_loops(f) == []
    edges, counts = edges_with_counts(f)
    assert len(edges) == 3 * len(f) // 2 and (counts == 2).all()


def test_flipped_face_breaks_winding_consistency():
    v, f = icosphere(1)
    f = f.copy()
    f[5] = f[5, ::-1]
    assert is_watertight(f)
    assert not is_winding_consistent(f)


def test_empty_faces():
    f = np.zeros((0, 3), np.int64)
    assert not is_watertight(f)
    e, c = edges_with_counts(f)
    assert e.shape == (0, 2) and c.shape == (0,)
    assert boundary_loops(f) == []


def test_torch_in_torch_out():
    v, f = icosphere(1)
    ft = torch.as_tensor(f[1:])
    e, c = edges_with_counts(ft)
    assert isinstance(e, torch.Tensor) and e.device == ft.device
    loops = boundary_loops(ft)
    assert len(loops) == 1 and isinstance(loops[0], torch.Tensor) and loops[0].numel() == 3


def test_loop_runs_against_the_face_winding():
    v, f = icosphere(1)
    removed = f[0]
    loops = boundary_loops(f[1:])
    assert len(loops) == 1
    loop = loops[0].tolist()
    # the removed face (same winding as its neighbours) is exactly the patch (v0, v1, v2)
    rot = [loop[i:] + loop[:i] for i in range(3)]
    assert removed.tolist() in rot


def _vertex_ring(f, vtx):
    return np.nonzero((f == vtx).any(axis=1))[0]


def test_two_holes_sharing_a_vertex_are_split():
    v, f = icosphere(2)
    vtx = 0
    fan = _vertex_ring(f, vtx)  # 5 faces around an icosahedron corner
    # two faces of the fan that share only the vertex
    a = fan[0]
    others = [g for g in fan[1:] if len(set(f[g]) & set(f[a])) == 1]
    b = others[0]
    keep = np.setdiff1d(np.arange(len(f)), [a, b])
    loops = boundary_loops(f[keep])
    assert sorted(len(lp) for lp in loops) == [3, 3]
    for lp in loops:
        assert len(set(lp.tolist())) == len(lp)  # simple cycles
        assert vtx in lp.tolist()


def test_three_holes_at_one_vertex_bigger_holes():
    v, f = icosphere(3)
    vtx = 0
    ring = _vertex_ring(f, vtx)
    # grow three separate holes, each one face of the fan plus that face's outer neighbour
    edges = {}
    for i, face in enumerate(f):
        for k in range(3):
            edges.setdefault(tuple(sorted((face[k], face[(k + 1) % 3]))), []).append(i)
    remove = []
    picked = [ring[0]]
    for g in ring[1:]:
        if all(len(set(f[g]) & set(f[p])) == 1 for p in picked):
            picked.append(g)
    assert len(picked) == 2  # a 5-fan has at most 2 faces pairwise sharing only the centre
    for g in picked:
        outer = tuple(sorted(x for x in f[g] if x != vtx))
        nb = [h for h in edges[outer] if h != g][0]
        remove += [g, nb]
    keep = np.setdiff1d(np.arange(len(f)), remove)
    loops = boundary_loops(f[keep])
    assert sorted(len(lp) for lp in loops) == [4, 4]


def test_two_holes_sharing_two_vertices_pair_by_the_faces():
    """Remove the faces around both ends of an edge u-w except the two on the edge: a diamond
    x-u-y-w hangs between two holes that share x and y. Each hole is one side of the diamond
    plus the outer arc on that side; pairing the edges at x and y blindly can instead give the
    diamond itself and the two arcs joined, which would be filled across each other."""
    v, f = icosphere(3)
    edges, _ = edges_with_counts(f)
    u, w = (int(x) for x in edges[0])
    on_edge = [i for i, t in enumerate(f) if u in t and w in t]
    ring = [i for i, t in enumerate(f) if (u in t or w in t) and i not in on_edge]
    g = np.delete(f, ring, axis=0)
    loops = [lp.tolist() for lp in boundary_loops(g)]
    assert len(loops) == 2
    lu = next(lp for lp in loops if u in lp)
    lw = next(lp for lp in loops if w in lp)
    assert w not in lu and u not in lw
    shared = set(lu) & set(lw)
    assert len(shared) == 2  # x and y
    axis = v[u] - v[w]
    mid = (v[u] + v[w]) / 2
    assert all((v[x] - mid) @ axis > 0 for x in lu if x not in shared)
    assert all((v[x] - mid) @ axis < 0 for x in lw if x not in shared)
    assert sorted(map(len, loops)) == sorted([len(lu), len(lw)]) and len(lu) + len(lw) == region_edges(f, ring)


def region_edges(f, remove):
    e, c = edges_with_counts(f[np.asarray(remove)])
    return int((c == 1).sum())


def test_dangling_flap_edge_is_open_not_a_loop():
    """A triangle glued along two existing edges: two non-manifold edges, one open boundary edge."""
    v, f = icosphere(2)
    a = 0
    ring = sorted(set(f[_vertex_ring(f, a)].ravel()) - {a})
    edges, _ = edges_with_counts(f)
    eset = {tuple(e) for e in edges.tolist()}
    b, c = next((b, c) for b in ring for c in ring if b < c and (b, c) not in eset)
    flap = np.array([[a, b, c]])
    g = np.concatenate([f, flap])
    assert len(non_manifold_edges(g)) == 2
    assert boundary_edges(g).tolist() == [[b, c]]
    assert boundary_loops(g) == []
    assert open_boundary_edges(g).tolist() == [[b, c]]


def test_collapsed_edges_of_degenerate_faces_are_no_loops():
    faces = np.array([[0, 1, 2], [2, 1, 3], [4, 5, 5]])  # (5, 5) is used once, bounds nothing
    assert sorted(len(lp) for lp in boundary_loops(faces)) == [4]


def test_bad_faces_messages():
    from smrnb._errors import SmrnbTypeError, SmrnbValueError

    with pytest.raises(SmrnbValueError, match=r"faces must have shape \(N, 3\), got \(4, 4\)"):
        edges_with_counts(torch.zeros((4, 4), dtype=torch.long))
    with pytest.raises(SmrnbTypeError, match=r"faces must be an integer tensor or array, got dtype float32"):
        boundary_loops(np.zeros((2, 3), np.float32))


@pytest.mark.shared_data
def test_bunny_boundary_structure(bunny_path):
    tm = trimesh.load(bunny_path, process=False)
    f = np.asarray(tm.faces, np.int64)
    edges, counts = edges_with_counts(f)
    assert int((counts == 1).sum()) == 353
    assert int((counts > 2).sum()) == 132
    loops = boundary_loops(f)
    assert sorted(len(lp) for lp in loops) == [26, 55, 58, 58, 90]
    assert len(open_boundary_edges(f)) == 66
    # the boundary-edge graph has a 59-edge component: a 58-edge loop with one dangling flap edge
    # hanging from it (a vertex of degree 3 and one of degree 1), so only 58 edges bound a hole
    b = edges[counts == 1]
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    n = int(f.max()) + 1
    g = sp.coo_matrix((np.ones(len(b)), (b[:, 0], b[:, 1])), shape=(n, n))
    _, lab = connected_components(g, directed=False)
    comp = lab[b[:, 0]]
    sizes = np.bincount(comp)
    big = sorted(s for s in sizes if s > 1)
    assert big == [26, 55, 58, 59, 90]
    c59 = int(np.nonzero(sizes == 59)[0][0])
    deg = np.bincount(b[comp == c59].ravel(), minlength=n)
    assert sorted(deg[deg > 0].tolist()).count(1) == 1 and deg.max() == 3
    assert int((sizes == 1).sum()) == 65
