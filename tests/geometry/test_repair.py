# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Hole filling and non-manifold repair: break a mesh, check it is broken, repair, check it is back."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import trimesh

import smrnb
from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._mesh import Mesh
from smrnb.geometry._normals import compute_face_normals
from smrnb.geometry._repair import (
    FillHolesResult,
    _liepa_dp,
    _liepa_dp_small,
    _no_flip_blend,
    fill_holes,
    repair_non_manifold,
)
from smrnb.geometry._topology import (
    boundary_loops,
    edges_with_counts,
    euler_characteristic,
    is_watertight,
    is_winding_consistent,
    non_manifold_edges,
    open_boundary_edges,
)


def icosphere(sub: int = 3) -> tuple[np.ndarray, np.ndarray]:
    s = trimesh.creation.icosphere(subdivisions=sub)
    return np.asarray(s.vertices, np.float64), np.asarray(s.faces, np.int64)


def mesh_without(v: np.ndarray, f: np.ndarray, remove) -> Mesh:
    keep = np.setdiff1d(np.arange(len(f)), np.asarray(remove, np.int64))
    return Mesh(torch.as_tensor(v, dtype=torch.float32), torch.as_tensor(f[keep]))


def faces_at(f: np.ndarray, vtx) -> np.ndarray:
    return np.nonzero(np.isin(f, np.atleast_1d(vtx)).any(axis=1))[0]


def region_boundary_size(f: np.ndarray, remove) -> int:
    """Edges used by exactly one removed face: the hole's size, counted independently."""
    e, c = edges_with_counts(f[np.asarray(remove)])
    return int((c == 1).sum())


def assert_repaired_sphere(before: Mesh, res: FillHolesResult, min_dot: float = 0.5) -> None:
    """Watertight, consistently wound, genus 0, nothing moved or deleted, patch faces outward."""
    after = res.mesh
    f = after.faces.numpy()
    assert is_watertight(f)
    assert is_winding_consistent(f)
    assert euler_characteristic(after.num_vertices, f) == 2
    assert len(non_manifold_edges(f)) == 0
    V, F = before.num_vertices, before.num_faces
    assert torch.equal(after.vertices[:V], before.vertices)  # nothing moved
    assert torch.equal(after.faces[:F], before.faces)  # nothing deleted or re-ordered
    assert after.num_vertices == V + res.vertices_added
    assert after.num_faces == F + res.faces_added
    # patch normals agree with the surface around (on a unit sphere: point outward)
    fn = compute_face_normals(after.vertices, after.faces)[F:]
    centre = after.vertices[after.faces[F:]].mean(dim=1)
    radial = centre / centre.norm(dim=1, keepdim=True)
    assert float((fn * radial).sum(dim=1).min()) > min_dot


def test_single_triangle_hole():
    v, f = icosphere(3)
    m = mesh_without(v, f, [17])
    assert [len(lp) for lp in boundary_loops(m.faces)] == [3]
    res = fill_holes(m, return_report=True)
    assert res.holes_found == [3] and res.holes_filled == [3] and res.holes_left == []
    assert res.faces_added == 1 and res.vertices_added == 0
    assert_repaired_sphere(m, res)
    # the patch is the removed triangle with its original winding
    assert sorted(res.mesh.faces[-1].tolist()) == sorted(f[17].tolist())


def star_hole(f: np.ndarray, centre: int) -> list[int]:
    """Faces of the 1-ring of ``centre`` plus, for every other ring vertex, that vertex's 1-ring:
    a star with concave (reflex) corners between its arms."""
    ring_faces = faces_at(f, centre)
    ring = [x for x in dict.fromkeys(f[ring_faces].ravel().tolist()) if x != centre]
    # order the ring by walking the fan
    order = [ring[0]]
    while len(order) < len(ring):
        last = order[-1]
        nxt = next(x for x in ring if x not in order and any(
            {last, x, centre} == set(f[g].tolist()) for g in ring_faces))
        order.append(nxt)
    arms = order[::2][: len(order) // 2]
    return sorted(set(ring_faces.tolist()) | set(faces_at(f, arms).tolist()))


@pytest.mark.parametrize("refine,fair", [(False, False), (True, False), (True, True)])
def test_concave_star_hole(refine, fair):
    v, f = icosphere(3)
    remove = star_hole(f, centre=100)
    m = mesh_without(v, f, remove)
    loops = boundary_loops(m.faces)
    assert [len(lp) for lp in loops] == [region_boundary_size(f, remove)]
    n = len(loops[0])
    assert n >= 12
    # the hole is concave: in the tangent plane at its centre, some corners are reflex
    P = v[loops[0].numpy()]
    nz = P.mean(axis=0) / np.linalg.norm(P.mean(axis=0))
    ex = np.cross(nz, [0.0, 0.0, 1.0] if abs(nz[2]) < 0.9 else [1.0, 0.0, 0.0])
    ex /= np.linalg.norm(ex)
    ey = np.cross(nz, ex)
    Q = np.stack([P @ ex, P @ ey], axis=1)
    d1 = Q - np.roll(Q, 1, axis=0)
    d2 = np.roll(Q, -1, axis=0) - Q
    turn = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    assert (turn > 0).any() and (turn < 0).any()
    res = fill_holes(m, max_hole_edges=None, refine=refine, fair=fair, return_report=True)
    assert res.holes_filled == [n]
    assert_repaired_sphere(m, res)
    if refine:
        assert res.vertices_added > 0
        # the patch's edges are on the scale of the surrounding ones (no long fan spokes)
        after = res.mesh
        pf = after.faces[m.num_faces:]
        el = (after.vertices[pf] - after.vertices[pf[:, [1, 2, 0]]]).norm(dim=-1)
        e0 = (m.vertices[m.faces] - m.vertices[m.faces[:, [1, 2, 0]]]).norm(dim=-1)
        assert float(el.max()) < 2.5 * float(e0.mean())
    else:
        assert res.vertices_added == 0 and res.faces_added == n - 2
    if fair:
        # faired new vertices sit near the sphere the hole was cut from
        r = res.mesh.vertices[m.num_vertices:].norm(dim=1)
        assert float((1 - r).abs().max()) < 0.02


def test_fan_would_flip_but_patch_does_not():
    """A fan (trimesh's ``use_fan``, valid only for convex holes) folds over on the star hole from
    most apexes; the DP patch has no folded triangle."""
    v, f = icosphere(3)
    remove = star_hole(f, centre=100)
    m = mesh_without(v, f, remove)
    loop = boundary_loops(m.faces)[0].numpy()
    folded = 0
    for s in range(len(loop)):
        lp = np.roll(loop, -s)
        fan = np.stack([np.full(len(lp) - 2, lp[0]), lp[1:-1], lp[2:]], axis=1)
        fn = compute_face_normals(m.vertices, torch.as_tensor(fan)).numpy()
        c = v[fan].mean(axis=1)
        folded += int(((fn * c).sum(axis=1) < 0).any())
    assert folded >= len(loop) // 2
    res = fill_holes(m, refine=False, fair=False, max_hole_edges=None, return_report=True)
    assert_repaired_sphere(m, res)


def test_two_holes_sharing_a_vertex():
    v, f = icosphere(3)
    vtx = 0
    fan = faces_at(f, vtx)
    a = fan[0]
    b = next(g for g in fan[1:] if len(set(f[g]) & set(f[a])) == 1)
    # grow each into a bigger hole through its edge opposite the shared vertex
    edge_faces: dict[tuple[int, int], list[int]] = {}
    for i, face in enumerate(f):
        for k in range(3):
            edge_faces.setdefault(tuple(sorted((int(face[k]), int(face[(k + 1) % 3])))), []).append(i)
    remove = [int(a), int(b)]
    for g in (a, b):
        outer = tuple(sorted(int(x) for x in f[g] if x != vtx))
        remove.append(next(h for h in edge_faces[outer] if h != g))
    m = mesh_without(v, f, remove)
    loops = boundary_loops(m.faces)
    assert sorted(len(lp) for lp in loops) == [4, 4]
    assert all(vtx in lp.tolist() for lp in loops)
    res = fill_holes(m, return_report=True)
    assert sorted(res.holes_filled) == [4, 4]
    assert_repaired_sphere(m, res)


def test_two_holes_sharing_two_vertices():
    v, f = icosphere(3)
    edges, _ = edges_with_counts(f)
    u, w = (int(x) for x in edges[0])
    on_edge = [i for i, t in enumerate(f) if u in t and w in t]
    ring = [i for i, t in enumerate(f) if (u in t or w in t) and i not in on_edge]
    m = mesh_without(v, f, ring)
    res = fill_holes(m, return_report=True)
    assert len(res.holes_filled) == 2 and sum(res.holes_filled) == region_boundary_size(f, ring)
    assert_repaired_sphere(m, res)


def test_hole_next_to_a_flipped_face_follows_the_majority():
    v, f = icosphere(3)
    remove = star_hole(f, centre=100)
    keep = np.setdiff1d(np.arange(len(f)), remove)
    g = f[keep].copy()
    loop = boundary_loops(g)[0]
    # flip one face that has an edge on the hole
    e0 = {int(loop[0]), int(loop[1])}
    j = next(i for i, face in enumerate(g) if e0 <= set(face.tolist()))
    g[j] = g[j, ::-1]
    m = Mesh(torch.as_tensor(v, dtype=torch.float32), torch.as_tensor(g))
    assert boundary_loops(m.faces) == []  # the directed loop is broken by the flip
    res = fill_holes(m, max_hole_edges=None, return_report=True)
    assert res.holes_found == [len(loop)] and res.holes_filled == [len(loop)]
    assert res.holes_with_winding_flips == 1 and res.open_boundary_edges == 0
    out = res.mesh.faces.numpy().copy()
    assert is_watertight(out) and euler_characteristic(res.mesh.num_vertices, out) == 2
    assert not is_winding_consistent(out)
    out[j] = out[j, ::-1]  # un-flip the face: then everything, patch included, agrees
    assert is_winding_consistent(out)


def test_max_hole_edges_limits_what_is_filled():
    v, f = icosphere(3)
    small = [5]
    big = star_hole(f, centre=300)
    assert not set(faces_at(f, f[5]).tolist()) & set(big)
    m = mesh_without(v, f, small + big)
    n_big = region_boundary_size(f, big)
    res = fill_holes(m, max_hole_edges=10, return_report=True)
    assert f"1 left: larger than max_hole_edges=10 (1 hole, {n_big} edges)" in res.summary()
    assert res.holes_found == [n_big, 3]
    assert res.holes_filled == [3]
    assert res.holes_left == [n_big]
    assert res.left_reasons == ["larger than max_hole_edges=10"]
    assert [len(lp) for lp in boundary_loops(res.mesh.faces)] == [n_big]
    full = fill_holes(m, max_hole_edges=None, return_report=True)
    assert sorted(full.holes_filled) == [3, n_big]
    assert_repaired_sphere(m, full)


def test_long_loop_uses_ear_clipping_and_stays_manifold():
    """A cap bigger than the DP limit (200 edges): the ear-clipping fallback closes it."""
    v, f = icosphere(6)
    remove = np.nonzero(v[f].mean(axis=1)[:, 2] > 0.5)[0]
    m = mesh_without(v, f, remove)
    n = [len(lp) for lp in boundary_loops(m.faces)]
    assert len(n) == 1 and n[0] > 200
    res = fill_holes(m, max_hole_edges=None, refine=False, fair=False, return_report=True)
    assert res.holes_filled == n
    # a flat cap over the z = 0.5 circle: its normals lean up to 60 degrees off the radius there
    assert_repaired_sphere(m, res, min_dot=0.3)


def test_flat_sheet_rim_is_not_a_hole_but_its_inner_hole_is():
    n = 12
    xs, ys = np.meshgrid(np.arange(n), np.arange(n))
    v = np.stack([xs.ravel(), ys.ravel(), np.zeros(n * n)], axis=1).astype(np.float32)
    f = []
    for i in range(n - 1):
        for j in range(n - 1):
            a = i * n + j
            f += [[a, a + 1, a + n + 1], [a, a + n + 1, a + n]]
    f = np.asarray(f)
    c = v[f].mean(axis=1)
    inner = (np.abs(c[:, 0] - 5.5) < 1.6) & (np.abs(c[:, 1] - 5.5) < 1.6)
    m = Mesh(torch.as_tensor(v), torch.as_tensor(f[~inner]))
    res = fill_holes(m, max_hole_edges=None, return_report=True)
    assert res.holes_found == [44, 12]
    assert res.holes_filled == [12] and res.holes_left == [44]
    assert "fold back onto the surface" in res.left_reasons[0]
    new = res.mesh.faces[m.num_faces:]
    fn = compute_face_normals(res.mesh.vertices, new)
    assert torch.allclose(fn, torch.tensor([0.0, 0.0, 1.0]).expand_as(fn), atol=1e-5)  # coplanar, same side
    assert float(res.mesh.vertices[m.num_vertices:, 2].abs().max()) < 1e-5


def test_sheet_folding_exactly_back_is_left_with_its_angle_not_a_math_error():
    # two triangles of a real 8 mm scan: the patch over their 4-edge rim folds exactly onto them, and the
    # mean of the unit cosines rounds to -1.0000000000000002 (a math domain error in the reason's text)
    P = np.array([[-1.54400003, -0.47760761, 1.96000004], [-1.53600001, -0.47706738, 1.96000004],
                  [-1.53600001, -0.47581851, 1.95200002], [-1.54400003, -0.47635874, 1.95200002]])
    for faces in ([[0, 1, 2], [0, 2, 3]], [[0, 1, 3], [1, 2, 3]]):
        res = fill_holes(Mesh(torch.tensor(P), torch.tensor(faces)), return_report=True)
        assert res.holes_found == [4] and res.holes_left == [4] and res.faces_added == 0
        assert "mean dihedral 180 deg at the rim" in res.left_reasons[0]
        assert "(1 hole, 4 edges, mean dihedral 180 deg at the rim)" in res.summary()


def test_summary_is_a_short_line_and_details_list_every_hole():
    res = FillHolesResult(mesh=None, holes_found=[900, 40, 12, 5, 3, 3], holes_filled=[12, 5, 3],
                          holes_left=[900, 40, 3], left_reasons=[
                              "larger than max_hole_edges=30", "larger than max_hole_edges=30",
                              "the patch triangle would duplicate an existing face"],
                          vertices_added=2, faces_added=20)
    s = res.summary()
    assert s.startswith("fill_holes: 6 holes found, 3 filled (3-12 edges), 3 left: larger than max_hole_edges=30 "
                        "(2 holes, 40-900 edges); the patch triangle would duplicate an existing face (1 hole, 3 edges)")
    assert "[" not in s  # no size lists in the one line
    assert res.details() == "hole sizes in edges: found [900, 40, 12, 5, 3, 3]; filled [12, 5, 3]; left [900, 40, 3]"
    many = FillHolesResult(mesh=None, holes_found=[3] * 169, holes_left=[3] * 169,
                           left_reasons=[f"the patch would fold back onto the surface (mean dihedral {120 + k % 61} "
                                         "deg at the rim): the open rim of a sheet, not a hole" for k in range(169)])
    assert len(many.summary()) < 250
    assert "(169 holes, 3 edges, mean dihedral 120-180 deg at the rim)" in many.summary()


def test_dp_never_uses_an_existing_edge():
    # a square loop 0-1-2-3 where the diagonal 0-2 already exists elsewhere: must use 1-3
    P = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])
    nb = np.tile([0.0, 0, 1], (4, 1))
    forb = np.zeros((4, 4), bool)
    free = _liepa_dp(P, nb, forb)
    forb[0, 2] = forb[2, 0] = True
    tris = _liepa_dp(P, nb, forb)
    assert _liepa_dp_small(P, nb, forb) == tris
    assert free is not None and tris is not None
    diag = {(a, c) for a, b, c in tris if c - a > 1 and (a, c) != (0, 3)}
    assert diag == {(1, 3)}
    forb[1, 3] = forb[3, 1] = True
    assert _liepa_dp(P, nb, forb) is None


def test_dp_numpy_and_python_twins_agree():
    """The vectorized programme (long loops) and its plain-Python twin (short loops) choose the
    same triangulation, including exact ties (grid-snapped loops), degenerate triangles and
    forbidden diagonals."""
    rng = np.random.default_rng(1)
    for _ in range(120):
        n = int(rng.integers(3, 30))
        t = np.sort(rng.uniform(0, 2 * np.pi, n))
        r = 1 + 0.4 * rng.uniform(-1, 1, n) * (rng.random() < 0.7)
        P = np.stack([r * np.cos(t), r * np.sin(t), 0.3 * rng.normal(size=n) * (rng.random() < 0.5)], axis=1)
        if rng.random() < 0.3:
            P = np.round(P * 4) / 4
        nb = rng.normal(size=(n, 3))
        nb[:, 2] += 2 * np.linalg.norm(nb, axis=1)
        nb /= np.linalg.norm(nb, axis=1, keepdims=True)
        forb = np.zeros((n, n), bool)
        for a, b in rng.integers(0, n, (int(rng.integers(0, 4)), 2)):
            if abs(a - b) > 1:
                forb[a, b] = forb[b, a] = True
        fast, slow = _liepa_dp(P, nb, forb), _liepa_dp_small(P, nb, forb)
        assert (fast is None) == (slow is None)
        if fast is not None:
            assert sorted(fast) == sorted(slow)
            assert len(fast) == n - 2


def test_fairing_step_never_turns_a_triangle_over():
    v = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])
    faces = np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]])  # fan around new vertex 4
    before = np.array([[0.5, 0.5, 0.0]])
    ok = _no_flip_blend(v, before, np.array([[0.6, 0.4, 0.1]]), faces, 4)
    assert np.allclose(ok, [[0.6, 0.4, 0.1]])  # harmless step: taken in full
    far = _no_flip_blend(v, before, np.array([[1.4, 0.5, 0.0]]), faces, 4)
    assert np.allclose(far, [[0.95, 0.5, 0.0]])  # halved until the fan stays unflipped
    out = _no_flip_blend(v, before, np.array([[9.0, 0.5, 0.0]]), faces, 4)
    assert np.allclose(out, before)  # no safe step: keep the unfaired positions


def flap_mesh():
    """An icosphere with a triangle glued along two existing edges (as on the bunny scan)."""
    v, f = icosphere(2)
    a = 7
    ring = sorted(set(f[faces_at(f, a)].ravel().tolist()) - {a})
    edges, _ = edges_with_counts(f)
    eset = {tuple(e) for e in edges.tolist()}
    b, c = next((b, c) for b in ring for c in ring if b < c and (b, c) not in eset)
    g = np.concatenate([f, [[a, b, c]]])
    return Mesh(torch.as_tensor(v, dtype=torch.float32), torch.as_tensor(g)), (a, b, c)


def test_non_manifold_spot_is_reported_not_patched():
    m, _ = flap_mesh()
    res = fill_holes(m, max_hole_edges=None, return_report=True)
    assert res.holes_found == [] and res.faces_added == 0
    assert res.non_manifold_edges == 2
    assert res.open_boundary_edges == 1 and res.non_manifold_spots == 1
    assert res.mesh is m


def test_repair_non_manifold_splits_the_flap():
    m, (a, b, c) = flap_mesh()
    res = repair_non_manifold(m)
    assert res.non_manifold_edges_before == 2 and res.non_manifold_edges_after == 0
    out = res.mesh
    assert len(non_manifold_edges(out.faces)) == 0
    assert sorted(res.split_vertices.tolist()) == sorted([a, b, c])
    assert res.vertices_added == 3 and res.faces_changed == 1
    # copies sit where the originals are; the sphere itself is intact and watertight again
    V = m.num_vertices
    assert torch.equal(out.vertices[V:], m.vertices[torch.as_tensor(res.split_vertices)])
    assert is_watertight(out.faces[:-1]) and out.faces[-1].min() >= V
    # idempotent: nothing left to split
    again = repair_non_manifold(out)
    assert again.vertices_added == 0 and again.mesh is out


def test_repair_non_manifold_bowtie_only_with_split_vertices():
    # two triangles sharing only vertex 0 (a bow-tie): no non-manifold edge, one such vertex
    v = torch.tensor([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [-1, 0, 0], [-1, -1, 0]])
    f = torch.tensor([[0, 1, 2], [0, 3, 4]])
    m = Mesh(v, f, vertex_colors=torch.rand(5, 3))
    r = repair_non_manifold(m)
    assert r.non_manifold_vertices_before == 1 and r.vertices_added == 0 and r.mesh is m
    r2 = repair_non_manifold(m, split_vertices=True)
    assert r2.vertices_added == 1 and r2.split_vertices.tolist() == [0]
    assert r2.non_manifold_vertices_after == 0
    assert torch.equal(r2.mesh.vertex_colors[5], m.vertex_colors[0])


def test_three_sheets_on_one_edge():
    # three triangles on edge (0, 1): after the split every edge has at most two faces
    v = torch.tensor([[0.0, 0, 0], [0, 0, 1], [1, 0, 0], [-1, 0, 0], [0, 1, 0]])
    f = torch.tensor([[0, 1, 2], [1, 0, 3], [0, 1, 4]])
    res = repair_non_manifold(Mesh(v, f))
    assert res.non_manifold_edges_before == 1 and res.non_manifold_edges_after == 0
    _, counts = edges_with_counts(res.mesh.faces)
    assert int(counts.max()) <= 2


def test_colors_carried_and_normals_recomputed_uvs_dropped():
    v, f = icosphere(2)
    colors = torch.as_tensor(np.abs(v), dtype=torch.float32)
    keep = np.setdiff1d(np.arange(len(f)), star_hole(f, 30))
    m = Mesh(torch.as_tensor(v, dtype=torch.float32), torch.as_tensor(f[keep]), vertex_colors=colors,
             vertex_normals=torch.as_tensor(v, dtype=torch.float32),
             uvs=torch.zeros(1, 2), face_uvs_idx=torch.zeros(len(keep), 3, dtype=torch.long))
    res = fill_holes(m, max_hole_edges=None, return_report=True)
    out = res.mesh
    assert res.vertices_added > 0
    assert out.vertex_colors.shape == (out.num_vertices, 3)
    new_c = out.vertex_colors[m.num_vertices:]
    loop_c = colors[torch.as_tensor(boundary_loops(m.faces)[0])]
    assert bool(((new_c >= loop_c.min(0).values - 1e-6) & (new_c <= loop_c.max(0).values + 1e-6)).all())
    assert out.vertex_normals.shape == (out.num_vertices, 3)
    assert res.dropped == ["uvs"] and out.uvs is None and out.face_uvs_idx is None


def test_dtypes_kept():
    v, f = icosphere(2)
    m = mesh_without(v, f, [3, 40])
    m = Mesh(m.vertices.double(), m.faces.int())
    res = fill_holes(m, return_report=True)
    assert res.mesh.vertices.dtype == torch.float64 and res.mesh.faces.dtype == torch.int32
    assert_repaired_sphere(Mesh(m.vertices.float(), m.faces.long()),
                           FillHolesResult(Mesh(res.mesh.vertices.float(), res.mesh.faces.long()),
                                           vertices_added=res.vertices_added, faces_added=res.faces_added))


@pytest.mark.cuda
def test_cuda_mesh_comes_back_on_cuda():
    v, f = icosphere(3)
    m = mesh_without(v, f, star_hole(f, centre=100))
    cpu = fill_holes(m, return_report=True)
    gpu = fill_holes(m.to("cuda"), return_report=True)
    assert gpu.mesh.vertices.device.type == "cuda" and gpu.mesh.faces.device.type == "cuda"
    assert torch.equal(gpu.mesh.faces.cpu(), cpu.mesh.faces)
    assert torch.allclose(gpu.mesh.vertices.cpu(), cpu.mesh.vertices)
    rep = repair_non_manifold(flap_mesh()[0].to("cuda"))
    assert rep.mesh.vertices.device.type == "cuda" and rep.non_manifold_edges_after == 0


def test_public_names_resolve_here():
    assert smrnb.fill_holes is fill_holes
    assert smrnb.repair_non_manifold is repair_non_manifold


# ----------------------------------------------------------------------------------------------
# bad input


def test_no_faces_is_a_documented_no_op():
    m = Mesh(torch.rand(4, 3), torch.zeros((0, 3), dtype=torch.long))
    res = fill_holes(m, return_report=True)
    assert res.mesh is m and res.holes_found == [] and res.vertices_added == 0
    r = repair_non_manifold(m)
    assert r.mesh is m and r.vertices_added == 0


def test_bad_input_messages():
    v, f = icosphere(1)
    m = Mesh(torch.as_tensor(v, dtype=torch.float32), torch.as_tensor(f))
    with pytest.raises(SmrnbValueError, match=r"max_hole_edges must be an int >= 3 or None \(no limit\), got -1"):
        fill_holes(m, max_hole_edges=-1)
    with pytest.raises(SmrnbTypeError, match=r"max_hole_edges must be an int, got float"):
        fill_holes(m, max_hole_edges=30.0)
    with pytest.raises(SmrnbTypeError, match=r"mesh must be a smrnb.Mesh, got tuple"):
        fill_holes((v, f))
    with pytest.raises(SmrnbTypeError, match=r"refine must be a bool, got str"):
        fill_holes(m, refine="yes")
    bad = Mesh(m.vertices, torch.cat([m.faces, torch.tensor([[0, 1, 42]])]))
    with pytest.raises(SmrnbValueError, match=r"mesh.faces must index vertices in \[0, 41\], got indices in \[0, 42\]"):
        fill_holes(bad)
    with pytest.raises(SmrnbValueError, match=r"mesh.faces must index vertices"):
        repair_non_manifold(bad)
    nan = m.vertices.clone()
    nan[0, 0] = float("nan")
    with pytest.raises(SmrnbValueError, match=r"mesh.vertices must be finite, got 1 NaN/inf value\(s\)"):
        fill_holes(Mesh(nan, m.faces))
    with pytest.raises(SmrnbTypeError, match=r"split_vertices must be a bool, got int"):
        repair_non_manifold(m, split_vertices=1)


# ----------------------------------------------------------------------------------------------
# the real scan


@pytest.fixture(scope="module")
def bunny(bunny_path) -> Mesh:
    return Mesh.from_trimesh(trimesh.load(bunny_path, process=False))


def directed_duplicates(faces: torch.Tensor, first_face: int) -> int:
    """Half-edges of faces >= first_face that some other face uses in the same direction."""
    f = faces.numpy()
    he = np.stack([f, f[:, [1, 2, 0]]], axis=-1).reshape(-1, 2)
    key = he[:, 0] * (f.max() + 1) + he[:, 1]
    u, c = np.unique(key, return_counts=True)
    new = key[first_face * 3:]
    return int((c[np.searchsorted(u, new)] > 1).sum())


@pytest.mark.shared_data
def test_bunny_no_limit_closes_all_five_holes(bunny):
    res = fill_holes(bunny, max_hole_edges=None, return_report=True)
    assert res.holes_found == [90, 58, 58, 55, 26]
    assert res.holes_filled == [90, 58, 58, 55, 26] and res.holes_left == []
    assert res.non_manifold_edges == 132
    assert res.open_boundary_edges == 66 and res.non_manifold_spots == 66
    out = res.mesh
    assert boundary_loops(out.faces) == []
    assert len(open_boundary_edges(out.faces)) == 66  # the non-manifold spots, untouched
    assert len(non_manifold_edges(out.faces)) == 132  # no new non-manifold edge
    _, counts = edges_with_counts(out.faces)
    assert int((counts == 1).sum()) == 66
    assert torch.equal(out.vertices[:50000], bunny.vertices) and torch.equal(out.faces[:99785], bunny.faces)
    assert directed_duplicates(out.faces, bunny.num_faces) == 0  # patches wound like their neighbours
    # patch normals agree with the neighbouring scan faces across every loop edge
    fn = compute_face_normals(out.vertices.double(), out.faces).numpy()
    f = out.faces.numpy()
    F0 = bunny.num_faces
    he = np.stack([f, f[:, [1, 2, 0]]], axis=-1).reshape(-1, 2)
    n = int(f.max()) + 1
    old_key = he[: F0 * 3, 1] * n + he[: F0 * 3, 0]  # old half-edge b -> a, keyed as (a, b)
    order = np.argsort(old_key)
    new_key = he[F0 * 3:, 0] * n + he[F0 * 3:, 1]
    pos = np.searchsorted(old_key[order], new_key).clip(0, len(order) - 1)
    hit = old_key[order][pos] == new_key
    new_face = F0 + np.nonzero(hit)[0] // 3
    old_face = order[pos[hit]] // 3
    dots = (fn[new_face] * fn[old_face]).sum(axis=1)
    assert len(dots) == 26 + 55 + 58 + 58 + 90
    assert min(dots) > 0.3 and float(np.median(dots)) > 0.9


@pytest.mark.shared_data
def test_bunny_limit_30_closes_only_the_26_edge_hole(bunny):
    res = fill_holes(bunny, max_hole_edges=30, return_report=True)
    assert res.holes_filled == [26]
    assert res.holes_left == [90, 58, 58, 55]
    loops_before = {frozenset(lp.tolist()) for lp in boundary_loops(bunny.faces)}
    loops_after = {frozenset(lp.tolist()) for lp in boundary_loops(res.mesh.faces)}
    assert loops_after < loops_before and len(loops_before - loops_after) == 1
    assert len(non_manifold_edges(res.mesh.faces)) == 132


@pytest.mark.shared_data
def test_bunny_repair_non_manifold_then_fill(bunny):
    rep = repair_non_manifold(bunny)
    assert rep.non_manifold_edges_before == 132 and rep.non_manifold_edges_after == 0
    assert len(non_manifold_edges(rep.mesh.faces)) == 0
    assert rep.mesh.num_faces == bunny.num_faces
    res = fill_holes(rep.mesh, max_hole_edges=None, return_report=True)
    # the five real holes are still the ones found and closed; detached flaps are left alone
    assert sorted(res.holes_filled) == [26, 55, 58, 58, 90]
    assert len(non_manifold_edges(res.mesh.faces)) == 0


def test_default_returns_the_mesh_and_repeats_are_no_ops():
    v, f = icosphere(3)
    m = mesh_without(v, f, star_hole(f, centre=100))
    out = fill_holes(m, max_hole_edges=30)
    assert isinstance(out, Mesh) and out.num_faces > m.num_faces
    rep = out.meta["fill_holes"]
    assert rep["holes_filled"] and rep["repeated"] is False and rep["summary"].startswith("fill_holes:")
    again = fill_holes(out, max_hole_edges=30)
    assert again.vertices is out.vertices and again.faces is out.faces and again.meta["fill_holes"]["repeated"]
    third = fill_holes(again, max_hole_edges=30)
    assert third.faces is out.faces
    # the chain gives what one pass gives: a fresh pass on the output finds nothing to fill
    fresh = fill_holes(Mesh(out.vertices.clone(), out.faces.clone()), max_hole_edges=30, return_report=True)
    assert fresh.holes_filled == [] and fresh.faces_added == 0
    # other parameters, or an in-place edit since, are not a repeat
    assert fill_holes(out, max_hole_edges=None).meta["fill_holes"]["repeated"] is False
    out.vertices[0, 0] += 0.0
    assert fill_holes(out, max_hole_edges=30).meta["fill_holes"]["repeated"] is False
    with pytest.raises(SmrnbTypeError, match="return_report must be a bool, got int"):
        fill_holes(m, return_report=1)
