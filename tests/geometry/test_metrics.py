# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Surface metrics on analytic cases (self-comparison noise floor, concentric spheres, half
spheres) and the depth re-render error on meshes with known offsets."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import trimesh

import smrnb
from smrnb.geometry._mesh import Frames, Mesh
from smrnb.geometry._metrics import depth_error, sample_surface, surface_metrics, vertex_depth_error
from smrnb.geometry._render import render_depth


def _sphere(r: float, sub: int = 5, center=(0.0, 0.0, 0.0)) -> Mesh:
    s = trimesh.creation.icosphere(subdivisions=sub, radius=r)
    return Mesh(torch.tensor(s.vertices + np.asarray(center), dtype=torch.float32), torch.tensor(s.faces))


def test_public_names():
    assert smrnb.surface_metrics is surface_metrics and smrnb.depth_error is depth_error


def test_samples_are_on_the_surface_with_unit_normals_and_area_weighted():
    box = trimesh.creation.box(extents=(1.0, 2.0, 4.0))  # face areas 2, 4, 8 per pair
    mesh = Mesh(torch.tensor(box.vertices, dtype=torch.float32), torch.tensor(box.faces))
    p, n = sample_surface(mesh, 70_000, seed=3)
    assert torch.allclose(n.norm(dim=1), torch.ones(len(n)), atol=1e-5)
    on_x = (p[:, 0].abs() - 0.5).abs() < 1e-5
    on_z = (p[:, 2].abs() - 2.0).abs() < 1e-5
    # area fractions: x faces 2*8/28, z faces 2*2/28
    assert abs(float(on_x.float().mean()) - 16 / 28) < 0.01
    assert abs(float(on_z.float().mean()) - 4 / 28) < 0.01
    p2, _ = sample_surface(mesh, 70_000, seed=3)
    assert torch.equal(p, p2)


def test_mesh_against_itself_is_at_the_sampling_noise_floor():
    s = _sphere(0.1)
    m = surface_metrics(s, s, tau=0.004, n_samples=20_000)
    # mean nearest-neighbour spacing of 20k uniform samples on a 0.126 m^2 sphere ~ 0.5 sqrt(A/n) = 1.3 mm
    assert 0.0003 < m["accuracy"] < 0.0015 and 0.0003 < m["completion"] < 0.0015
    assert m["chamfer_l1"] == pytest.approx(m["accuracy"] + m["completion"])
    assert m["fscore"] > 0.99 and m["normal_consistency"] > 0.99
    assert m["nn_backend"] == "scipy.cKDTree (cpu)"


def test_concentric_spheres_give_the_radius_gap():
    d = 0.02
    inner, outer = _sphere(0.2, sub=4), _sphere(0.2 + d, sub=4)
    m = surface_metrics(outer, inner, tau=0.01, n_samples=20_000)
    # nearest samples sit ~d away; the sampling spacing adds a little (in quadrature)
    assert m["accuracy"] == pytest.approx(d, rel=0.08) and m["completion"] == pytest.approx(d, rel=0.08)
    assert m["precision"] == 0.0 and m["recall"] == 0.0 and m["fscore"] == 0.0
    m2 = surface_metrics(outer, inner, tau=0.04, n_samples=20_000)
    assert m2["fscore"] == 1.0
    assert m2["normal_consistency"] > 0.99


def test_half_sphere_has_full_precision_half_recall():
    full = _sphere(0.2, sub=4)
    keep = (full.vertices[full.faces][:, :, 2] > 0).all(dim=1)
    half = Mesh(full.vertices, full.faces[keep])
    m = surface_metrics(half, full, tau=0.012, n_samples=20_000)
    assert m["precision"] > 0.99
    # the kept faces stop about half an edge (~7 mm) above the equator; the 12 mm band reaches a
    # few mm below it, so recall is about one half
    assert m["recall"] == pytest.approx(0.5, abs=0.04)
    assert m["accuracy"] < 0.004 and m["completion"] > 0.05  # 20k samples: ~5 mm spacing


def _views(n=4, dist=1.0):
    poses = []
    for k in range(n):
        a = 2 * math.pi * k / n
        cam = np.array([dist * math.cos(a), dist * math.sin(a), 0.3])
        f = -cam / np.linalg.norm(cam)
        r = np.cross(f, [0, 0, 1.0])
        r /= np.linalg.norm(r)
        T = np.eye(4)
        T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = r, np.cross(f, r), f, cam
        poses.append(T)
    return torch.tensor(np.stack(poses), dtype=torch.float32)


def test_depth_error_zero_on_own_rendering_and_tracks_a_shift():
    K = torch.tensor([[60.0, 0, 39.5], [0, 60.0, 29.5], [0, 0, 1]])
    sph = _sphere(0.25, sub=4)
    poses = _views()
    depth = torch.stack([render_depth(sph, K, p, 60, 80) for p in poses])
    frames = Frames(depth, K, poses=poses)
    e = depth_error(sph, frames)
    assert e["median_abs_error"] < 1e-6 and e["coverage"] == 1.0
    assert e["n_pixels"] == int((depth > 0).sum()) and len(e["per_frame"]) == 4
    bigger = _sphere(0.255, sub=4)  # 5 mm further out: seen depth shrinks by ~5 mm at the centre
    e2 = depth_error(bigger, frames)
    assert 0.004 < e2["median_abs_error"] < 0.0075
    assert e2["coverage"] == 1.0
    e3 = depth_error(bigger, frames, max_error=0.001)
    assert e3["outlier_fraction"] > 0.9
    smaller = _sphere(0.2, sub=4)  # covers fewer of the measured pixels
    assert depth_error(smaller, frames)["coverage"] < 0.8


def test_bad_input_messages():
    s = _sphere(0.1, sub=2)
    empty = Mesh(torch.zeros(0, 3), torch.zeros(0, 3, dtype=torch.int64))
    with pytest.raises(smrnb.SmrnbValueError, match=r"pred must have at least one face, got an empty mesh"):
        surface_metrics(empty, s)
    with pytest.raises(smrnb.SmrnbValueError, match=r"gt must have at least one face"):
        surface_metrics(s, empty)
    with pytest.raises(smrnb.SmrnbValueError, match=r"tau must be > 0 and finite, got -1"):
        surface_metrics(s, s, tau=-1)
    with pytest.raises(smrnb.SmrnbTypeError, match=r"gt must be a smrnb.Mesh, got str"):
        surface_metrics(s, "gt.ply")
    with pytest.raises(smrnb.SmrnbValueError, match=r"n_samples must be >= 1, got 0"):
        surface_metrics(s, s, n_samples=0)
    flat = Mesh(torch.zeros(3, 3), torch.tensor([[0, 1, 2]]))
    with pytest.raises(smrnb.SmrnbValueError, match="positive surface area"):
        surface_metrics(flat, s)
    frames = Frames(torch.ones(1, 6, 8), torch.tensor([[5.0, 0, 3.5], [0, 5.0, 2.5], [0, 0, 1]]))
    with pytest.raises(smrnb.SmrnbValueError, match=r"frames.poses is None: depth_error needs camera-to-world"):
        depth_error(s, frames)


@pytest.mark.cuda
def test_cuda_matches_cpu():
    pytest.importorskip("scipy")  # the CPU reference uses cKDTree
    a, b = _sphere(0.2, sub=4), _sphere(0.205, sub=3)
    m0 = surface_metrics(a, b, tau=0.004, n_samples=20_000)
    m1 = surface_metrics(a.to("cuda"), b.to("cuda"), tau=0.004, n_samples=20_000)
    assert m1["nn_backend"] == "torch.cdist (cuda)"
    for k in ("accuracy", "completion", "precision", "recall", "fscore", "normal_consistency"):
        assert m1[k] == pytest.approx(m0[k], rel=1e-3, abs=1e-5), k


def test_vertex_depth_error_is_zero_on_own_rendering_and_localises_a_bump():
    K = torch.tensor([[60.0, 0, 39.5], [0, 60.0, 29.5], [0, 0, 1]])
    sph = _sphere(0.25, sub=4)
    poses = _views()
    depth = torch.stack([render_depth(sph, K, p, 60, 80) for p in poses])
    frames = Frames(depth, K, poses=poses)
    e = vertex_depth_error(sph, frames)
    assert e.shape == (sph.num_vertices,) and e.dtype == torch.float32
    seen = torch.isfinite(e)
    assert seen.float().mean() > 0.5 and float(e[seen].max()) < 1e-6
    # push the vertices with y > 0.15 out by 2 cm: only they (and only by about that much) show an error
    bump = sph.vertices[:, 1] > 0.15
    moved = Mesh(torch.where(bump[:, None], sph.vertices * 1.08, sph.vertices), sph.faces)
    e2 = vertex_depth_error(moved, frames)
    ok = torch.isfinite(e2)
    assert float(e2[bump & ok].median()) > 0.01 and float(e2[~bump & ok & (sph.vertices[:, 1] < 0.05)].max()) < 3e-3
    with pytest.raises(smrnb.SmrnbValueError, match=r"visibility_tol must be > 0"):
        vertex_depth_error(sph, frames, visibility_tol=0)
    with pytest.raises(smrnb.SmrnbTypeError, match=r"frames must be a smrnb.Frames, got str"):
        vertex_depth_error(sph, "frames")
