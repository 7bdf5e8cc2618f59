# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
import numpy as np
import pytest
import torch
import trimesh
from skimage.measure import marching_cubes

import smrnb
from smrnb.geometry import simplify as S


def _mesh(tm, colors=None):
    return smrnb.Mesh(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces), vertex_colors=colors)


def _edges(faces):
    e = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    _, c = np.unique(e, axis=0, return_counts=True)
    return c


def test_sphere_vertex_bound_hausdorff_and_closedness():
    sph = trimesh.creation.icosphere(5, radius=1.0)
    out = smrnb.simplify_mesh(_mesh(sph), target_number_of_vertices=1000)
    rep = out.meta["simplify"]
    assert out.num_vertices <= 1000
    assert out.num_vertices > 800  # it really simplified to near the target, not to nothing
    assert rep["vertices_before"] == 10242 and rep["vertices_after"] == out.num_vertices
    assert 0 < rep["hausdorff"] < 0.03  # 3 % of the radius
    assert (_edges(out.faces.numpy()) == 2).all()  # still closed and manifold
    r = out.vertices.norm(dim=1)
    assert float((r - 1).abs().max()) < 0.03


def test_noop_when_target_not_below_vertex_count():
    sph = trimesh.creation.icosphere(2)
    m = _mesh(sph)
    out = smrnb.simplify_mesh(m, target_number_of_vertices=10_000)
    assert out.num_vertices == m.num_vertices and torch.equal(out.faces, m.faces)
    assert "nothing to do" in out.meta["simplify"]["notes"][0]


def test_preserve_border_keeps_boundary_vertices_in_place():
    grid = trimesh.creation.box()  # placeholder to get trimesh helpers
    n = 40
    xs, ys = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    v = np.stack([xs.ravel(), ys.ravel(), 0.05 * np.sin(6 * xs.ravel()) * np.cos(5 * ys.ravel())], 1)
    idx = np.arange(n * n).reshape(n, n)
    a, b, c, d = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel()
    f = np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)])
    del grid
    tm = trimesh.Trimesh(v, f, process=False)
    border = np.unique(tm.edges[trimesh.grouping.group_rows(tm.edges_sorted, require_count=1)])
    out = smrnb.simplify_mesh(_mesh(tm), target_number_of_vertices=400, preserve_border=True)
    assert out.num_vertices <= 400
    ov = out.vertices.double().numpy()
    from scipy.spatial import cKDTree

    d, _ = cKDTree(ov).query(v[border])
    assert d.max() < 1e-6  # every boundary vertex is still there, where it was
    loose = smrnb.simplify_mesh(_mesh(tm), target_number_of_vertices=100, preserve_border=False)
    d2, _ = cKDTree(loose.vertices.double().numpy()).query(v[border])
    assert d2.max() > 1e-4  # without the flag the border does move: the flag is what kept it


def test_vertex_colors_are_carried_over():
    sph = trimesh.creation.icosphere(4)
    z = torch.tensor(sph.vertices[:, 2], dtype=torch.float32)
    colors = torch.stack([(z + 1) / 2, torch.zeros_like(z), 1 - (z + 1) / 2], 1)
    out = smrnb.simplify_mesh(_mesh(sph, colors), target_number_of_vertices=300)
    assert out.vertex_colors is not None and out.vertex_colors.shape == (out.num_vertices, 3)
    expected_red = (out.vertices[:, 2] + 1) / 2
    assert float((out.vertex_colors[:, 0] - expected_red).abs().max()) < 0.15


def _cable_scene():
    n = 128
    x, y, z = np.meshgrid(*[np.arange(n)] * 3, indexing="ij")
    sph = np.sqrt((x - 40) ** 2 + (y - 64) ** 2 + (z - 64) ** 2) - 30
    cable = np.maximum(np.sqrt((y - 64.3) ** 2 + (z - 100.4) ** 2) - 0.8, np.maximum(10 - x, x - 120))
    v, f, _, _ = marching_cubes(np.minimum(sph, cable), 0.0)  # skimage keeps degenerate faces, as fusion does
    return smrnb.Mesh(torch.tensor(v.copy()), torch.tensor(f.astype(np.int64)))


@pytest.mark.parametrize("target", [400, 60])
def test_thin_cable_keeps_faces(target):
    m = _cable_scene()
    labels = S._components(m.faces.numpy(), m.num_vertices)
    assert len(np.unique(labels)) == 2  # a sphere and a separate thin cable (1.6 voxels across)
    out = smrnb.simplify_mesh(m, target_number_of_vertices=target)
    assert out.num_vertices <= target
    cent = out.vertices[out.faces].mean(1)
    cable_faces = int((cent[:, 2] > 90).sum())
    assert cable_faces >= S.MIN_FACES_PER_COMPONENT // 2  # the cable did not vanish
    assert "degenerate faces" in out.meta["simplify"]["notes"][0]
    # the cable still spans its length
    cable_x = out.vertices[:, 0][out.vertices[:, 2] > 90]
    assert float(cable_x.max() - cable_x.min()) > 100


@pytest.mark.parametrize("wipe_below, rescued", [(2000, True), (10**9, False)])
def test_vanishing_part_is_subdivided_first_or_refused(monkeypatch, wipe_below, rescued):
    import fast_simplification

    real = fast_simplification.simplify
    calls = {"n": 0}

    def collapsing(points, triangles, target_count=None, **kw):
        # a decimator that wipes out small parts entirely, as QEM can on thin structures
        calls["n"] += 1
        if len(triangles) < wipe_below:
            return points[:0], triangles[:0]
        return real(points, triangles, target_count=target_count, **kw)

    monkeypatch.setattr(fast_simplification, "simplify", collapsing)
    if rescued:  # the cable (~1300 faces) vanishes, is subdivided (x4 faces) and survives the second pass
        out = smrnb.simplify_mesh(_cable_scene(), target_number_of_vertices=400)
        assert out.meta["simplify"]["components_subdivided_first"] >= 1
        assert any("subdivided before decimation" in n for n in out.meta["simplify"]["notes"])
        assert int((out.vertices[out.faces].mean(1)[:, 2] > 90).sum()) > 0
    else:
        with pytest.raises(smrnb.SmrnbValueError,
                           match=r"to 0 faces even after subdividing it first; raise target_number_of_vertices"):
            smrnb.simplify_mesh(_cable_scene(), target_number_of_vertices=200)
    assert calls["n"] >= 2


def test_bad_input_messages():
    sph = trimesh.creation.icosphere(2)
    m = _mesh(sph)
    with pytest.raises(smrnb.SmrnbValueError, match="mesh must have faces to simplify, got 0 faces"):
        smrnb.simplify_mesh(smrnb.Mesh(m.vertices, torch.zeros(0, 3, dtype=torch.long)), 10)
    bad = m.replace(faces=m.faces.clone())
    bad.faces[0, 0] = 10_000
    with pytest.raises(smrnb.SmrnbValueError, match=r"mesh.faces must index vertices in \[0, 161\], got indices in \[0, 10000\]"):
        smrnb.simplify_mesh(bad, 10)
    nan = m.replace(vertices=m.vertices.clone())
    nan.vertices[3, 1] = float("nan")
    with pytest.raises(smrnb.SmrnbValueError, match="mesh.vertices must be finite, got 1 NaN/inf value"):
        smrnb.simplify_mesh(nan, 10)
    with pytest.raises(smrnb.SmrnbValueError, match="target_number_of_vertices must be >= 4, got 2"):
        smrnb.simplify_mesh(m, 2)
    with pytest.raises(smrnb.SmrnbTypeError, match="target_number_of_vertices must be an int, got float"):
        smrnb.simplify_mesh(m, 10.5)
    with pytest.raises(smrnb.SmrnbTypeError, match="mesh must be a smrnb.Mesh, got ndarray"):
        smrnb.simplify_mesh(np.zeros((3, 3)), 10)


def test_midpoint_subdivision_counts_geometry_and_colors():
    sph = trimesh.creation.icosphere(2)
    colors = torch.rand(len(sph.vertices), 3)
    m = _mesh(sph, colors)
    out = smrnb.subdivide_mesh(m, iterations=2, method="midpoint")
    E = len(sph.edges_unique)
    assert out.num_faces == 16 * m.num_faces
    assert out.num_vertices == m.num_vertices + E + (E * 2 + 3 * 4 * m.num_faces // 2 - 2 * E)  # V1 + E1
    tm_out = trimesh.Trimesh(out.vertices.numpy(), out.faces.numpy(), process=False)
    assert tm_out.area == pytest.approx(sph.area, rel=1e-5)  # midpoints keep the surface exactly
    assert tm_out.is_watertight and tm_out.is_winding_consistent
    assert torch.equal(out.vertex_colors[: m.num_vertices], colors)
    # a new vertex's color is the mean of its edge's end colors
    one = smrnb.subdivide_mesh(m, 1)
    a, b = one.faces[0, 0].item(), one.faces[0, 1].item()  # a corner and an edge midpoint
    assert a < m.num_vertices <= b


def test_loop_subdivision_smooths_towards_a_sphere():
    ico = trimesh.creation.icosahedron()
    m = _mesh(ico)
    out = smrnb.subdivide_mesh(m, iterations=3, method="loop")
    assert out.num_faces == 64 * m.num_faces
    r = out.vertices.norm(dim=1)
    r0 = m.vertices.norm(dim=1)
    # Loop surfaces are much rounder than the icosahedron they come from
    face_c = m.vertices[m.faces].mean(1).norm(dim=1)
    assert float(r.std() / r.mean()) < 0.25 * float(torch.cat([r0, face_c]).std() / torch.cat([r0, face_c]).mean())


def test_subdivide_bad_input():
    m = _mesh(trimesh.creation.icosahedron())
    with pytest.raises(smrnb.SmrnbValueError, match="method must be one of 'midpoint', 'loop', got 'cubic'"):
        smrnb.subdivide_mesh(m, 1, method="cubic")
    with pytest.raises(smrnb.SmrnbValueError, match=r"iterations must be in \[0, 6\], got 9"):
        smrnb.subdivide_mesh(m, 9)


@pytest.mark.cuda
def test_midpoint_cuda_matches_cpu():
    sph = trimesh.creation.icosphere(5)
    m = _mesh(sph, torch.rand(len(sph.vertices), 3))
    a = smrnb.subdivide_mesh(m, 1)
    b = smrnb.subdivide_mesh(m.to("cuda"), 1)
    assert b.device.type == "cuda"
    assert torch.equal(a.faces, b.faces.cpu())
    assert torch.allclose(a.vertices, b.vertices.cpu()) and torch.allclose(a.vertex_colors, b.vertex_colors.cpu())
