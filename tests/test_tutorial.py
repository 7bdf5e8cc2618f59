# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The tutorial, running: every snippet of the seed tutorial, in order, with only ``kal.`` -> ``smr.``,
on a real cloud from the bundled sample, asserting what the tutorial's comments claim.

The code between ``# --- snippet N`` markers is the code of ``docs/tutorial.md`` (checked by
``test_the_docs_page_shows_this_code``). The snippets share one namespace, as cells of a notebook do.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

import smrnb as smr

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def points():
    """A real cloud: 8 frames of the bundled living room, every 2nd pixel, as an (N, 3) tensor in
    the world frame of the poses (OpenNI/OpenCV axes), thinned to 1 cm."""
    frames = smr.load_sample(stride=9)
    cloud = smr.frames_to_points(frames, stride=2)
    cloud = smr.voxel_downsample(cloud, voxel_size=0.01)
    pts = cloud.points
    assert pts.shape[0] > 50_000
    return pts


@pytest.fixture(scope="module")
def tutorial(points):
    """Runs the snippets in order; returns the namespace after each one."""
    ns: dict = {"torch": torch, "smr": smr, "points": points}
    states = []
    for code in _snippets():
        exec(compile(code, "tutorial", "exec"), ns)
        states.append(dict(ns))
    return states


# --- snippet 1: OpenNI (y down, z forward) -> OpenGL (y up, z backward)
openni_to_opengl = torch.tensor([[1.0, 0.0, 0.0, 0.0],
                                 [0.0, -1.0, 0.0, 0.0],
                                 [0.0, 0.0, -1.0, 0.0],
                                 [0.0, 0.0, 0.0, 1.0]])
SNIPPET_1 = """
openni_to_opengl = torch.tensor([[1.0, 0.0, 0.0, 0.0],
                                 [0.0, -1.0, 0.0, 0.0],
                                 [0.0, 0.0, -1.0, 0.0],
                                 [0.0, 0.0, 0.0, 1.0]])
points_h = torch.cat([points, torch.ones_like(points[:, :1])], dim=1)
points = (points_h @ openni_to_opengl.T)[:, :3]
"""

# --- snippet 2: voxelize (output shape: [1, 256, 256, 256])
SNIPPET_2 = """
voxel_grid = smr.pointcloud_to_voxelgrid(points.unsqueeze(0), voxel_size=0.02, grid_shape=[256, 256, 256])
print(voxel_grid.shape)  # [1, 256, 256, 256]
"""

# --- snippet 3: marching cubes
SNIPPET_3 = """
vertices, faces = smr.voxelgrid_to_mesh(voxel_grid.squeeze(0), iso_value=0.5, smooth=False)
mesh = smr.Mesh(vertices=vertices, faces=faces)
"""

# --- snippet 4: fill holes (three passes)
SNIPPET_4 = """
for _ in range(3):
    mesh = smr.fill_holes(mesh, max_hole_edges=30)
"""

# --- snippet 5: simplify to a vertex budget
SNIPPET_5 = """
mesh = smr.simplify_mesh(mesh, target_number_of_vertices=80000, preserve_border=True)
"""

# --- snippet 6: split by face normal before unwrapping, then unwrap each part
SNIPPET_6 = """
face_normals = smr.compute_face_normals(mesh.vertices, mesh.faces)
dominant_axis = face_normals.abs().argmax(dim=1)
parts = []
for axis in range(3):
    part_faces = mesh.faces[dominant_axis == axis]
    if len(part_faces) == 0:
        continue
    used, part_faces = torch.unique(part_faces, return_inverse=True)
    part = smr.Mesh(vertices=mesh.vertices[used], faces=part_faces)
    uvs, face_uvs_idx = smr.auto_uv(part.vertices, part.faces, chart_num=100, padding=0.001)
    parts.append((part, uvs, face_uvs_idx))
"""

# --- snippet 7: thin structures: subdivide once before simplifying
SNIPPET_7 = """
mesh = smr.subdivide_mesh(mesh)
mesh = smr.simplify_mesh(mesh, target_number_of_vertices=80000, preserve_border=True)
"""

# --- snippet 8: pure-PyTorch fallback when kaolin is not available
SNIPPET_8 = """
voxel_grid_pt = smr.pointcloud_to_voxelgrid_pt(points.unsqueeze(0), voxel_size=0.02, grid_shape=[256, 256, 256])
"""


def _snippets() -> list[str]:
    return [globals()[f"SNIPPET_{i}"] for i in range(1, 9)]


def test_openni_to_opengl_matches_smrnb_constant(tutorial):
    assert torch.equal(tutorial[0]["openni_to_opengl"], smr.OPENNI_TO_OPENGL)
    # y and z flipped, x kept
    before = tutorial[0]["points_h"][:, :3]
    after = tutorial[0]["points"]
    assert torch.equal(after[:, 0], before[:, 0]) and torch.equal(after[:, 1:], -before[:, 1:])


def test_voxel_grid_has_the_commented_shape_and_keeps_its_placement(tutorial):
    grid = tutorial[1]["voxel_grid"]
    assert tuple(grid.shape) == (1, 256, 256, 256)
    assert int(grid.sum()) > 1000  # the room's surface occupies voxels
    sq = grid.squeeze(0)
    assert tuple(sq.shape) == (256, 256, 256)
    assert sq.voxel_size == 0.02 and torch.equal(sq.origin, grid.origin)  # placement kept
    assert torch.equal(torch.as_tensor(grid), grid.occupancy) and np.asarray(grid).shape == (1, 256, 256, 256)
    assert tuple(sq.unsqueeze(0).shape) == (1, 256, 256, 256) and sq.unsqueeze(0).voxel_size == 0.02
    assert sq.float().dtype == torch.float32 and sq.float().bool().dtype == torch.bool


def test_marching_cubes_unpacks_into_vertices_and_faces(tutorial):
    ns = tutorial[2]
    v, f, mesh = ns["vertices"], ns["faces"], ns["mesh"]
    assert v.shape[1] == 3 and f.shape[1] == 3 and f.shape[0] > 1000
    assert mesh.num_vertices == v.shape[0] and mesh.num_faces == f.shape[0]
    grid = ns["voxel_grid"]
    lo = grid.origin.float()
    hi = lo + 256 * 0.02
    assert bool(((v >= lo - 1e-4) & (v <= hi + 1e-4)).all())  # world units, inside the grid


def test_fill_holes_three_passes_add_only_and_then_change_nothing(tutorial):
    before = tutorial[2]["mesh"]
    after = tutorial[3]["mesh"]
    assert isinstance(after, smr.Mesh)
    assert after.num_faces >= before.num_faces  # no lost faces: patches are only appended
    assert torch.equal(after.faces[: before.num_faces], before.faces)
    rep = after.meta["fill_holes"]
    assert rep["repeated"] is True  # passes 2 and 3 found their own output and did nothing
    again = smr.fill_holes(after, max_hole_edges=30)
    assert again.vertices is after.vertices and again.faces is after.faces
    first = smr.fill_holes(before, max_hole_edges=30)
    assert torch.equal(first.faces, after.faces) and torch.equal(first.vertices, after.vertices)


def test_simplify_meets_the_vertex_budget_without_losing_parts(tutorial):
    filled, simple = tutorial[3]["mesh"], tutorial[4]["mesh"]
    assert simple.num_vertices <= 80000 and simple.num_faces > 0
    rep = simple.meta["simplify"]
    assert rep["target_number_of_vertices"] == 80000
    if filled.num_vertices > 80000:
        assert simple.num_vertices < filled.num_vertices
    from smrnb.geometry._simplify import _components
    n_out = len(np.unique(_components(simple.faces.numpy(), simple.num_vertices)))
    assert n_out >= rep["components"] - 1


def test_normal_split_loses_no_face_and_every_part_unwraps(tutorial):
    ns = tutorial[5]
    mesh, parts = ns["mesh"], ns["parts"]
    assert sum(p.num_faces for p, _, _ in parts) == mesh.num_faces  # no lost faces
    for part, uvs, fidx in parts:
        assert fidx.shape == part.faces.shape
        assert float(uvs.min()) >= 0.0 and float(uvs.max()) <= 1.0
        n = smr.compute_face_normals(part.vertices, part.faces)
        assert bool((n.abs().argmax(1) == n.abs().argmax(1)[0]).all())


def test_subdivide_then_simplify_keeps_the_budget(tutorial):
    before, after = tutorial[5]["mesh"], tutorial[6]["mesh"]
    assert after.num_vertices <= 80000 and after.num_faces > 0
    sub = smr.subdivide_mesh(before)
    assert sub.num_faces == 4 * before.num_faces


def test_pure_pytorch_fallback_gives_the_same_grid(tutorial):
    ns = tutorial[7]
    a, b = ns["voxel_grid"], ns["voxel_grid_pt"]
    assert tuple(b.shape) == (1, 256, 256, 256)
    assert torch.equal(a.occupancy, b.occupancy) and torch.equal(a.origin, b.origin) and a.voxel_size == b.voxel_size


def test_the_docs_page_shows_this_code():
    page = (REPO / "docs" / "tutorial.md").read_text(encoding="utf-8")
    blocks = [b.strip() for b in re.findall(r"```python\n(.*?)```", page, flags=re.S)]
    snippets = [s.strip() for s in _snippets()]
    assert blocks == snippets
    assert "kal." not in "".join(snippets)
