# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Face and vertex normals: analytic shapes, degenerate input, bad input, CUDA parity."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import trimesh

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._normals import compute_face_normals, compute_vertex_normals


def sphere(sub=3, dtype=torch.float32):
    s = trimesh.creation.icosphere(subdivisions=sub)
    return torch.as_tensor(np.asarray(s.vertices), dtype=dtype), torch.as_tensor(np.asarray(s.faces))


def test_single_triangle_right_hand_rule():
    v = torch.tensor([[0.0, 0, 0], [2, 0, 0], [0, 3, 0]])
    f = torch.tensor([[0, 1, 2]])
    assert torch.allclose(compute_face_normals(v, f), torch.tensor([[0.0, 0, 1]]))
    raw = compute_face_normals(v, f, unit=False)
    assert torch.allclose(raw, torch.tensor([[0.0, 0, 6]]))  # length = twice the area (3)
    assert torch.allclose(compute_face_normals(v, f[:, [0, 2, 1]]), torch.tensor([[0.0, 0, -1]]))


def test_cube_face_and_corner_normals():
    box = trimesh.creation.box(extents=(2.0, 2.0, 2.0))
    v = torch.as_tensor(np.asarray(box.vertices), dtype=torch.float64)
    f = torch.as_tensor(np.asarray(box.faces))
    fn = compute_face_normals(v, f)
    centroids = v[f].mean(dim=1)
    # each face normal is the axis its centroid sits on (outward)
    expected = torch.where(centroids.abs() > 0.999, centroids.sign(), torch.zeros_like(centroids))
    assert torch.allclose(fn, expected)
    # angle weighting is independent of how each square is split: corners get (±1, ±1, ±1)/sqrt(3)
    vn = compute_vertex_normals(v, f, weighting="angle")
    assert torch.allclose(vn, v.sign() / math.sqrt(3.0), atol=1e-12)
    # area weighting with 1 or 2 triangles per square at a corner is biased away from the diagonal
    vna = compute_vertex_normals(v, f, weighting="area")
    assert torch.allclose(vna.norm(dim=1), torch.ones(8, dtype=v.dtype))
    assert not torch.allclose(vna, vn, atol=1e-3)


@pytest.mark.parametrize("weighting", ["area", "angle"])
def test_sphere_vertex_normals_are_radial(weighting):
    v, f = sphere(3)
    vn = compute_vertex_normals(v, f, weighting=weighting)
    radial = v / v.norm(dim=1, keepdim=True)
    cos = (vn * radial).sum(dim=1)
    assert float(cos.min()) > 0.9995
    assert vn.dtype == v.dtype


def test_degenerate_faces_and_unused_vertices_give_zero_not_nan():
    v = torch.tensor([[0.0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0], [5, 5, 5]])
    f = torch.tensor([[0, 1, 2], [0, 1, 3], [1, 1, 3]])  # collinear, fine, repeated index
    fn = compute_face_normals(v, f)
    assert torch.isfinite(fn).all()
    assert fn[0].abs().sum() == 0 and fn[2].abs().sum() == 0
    assert torch.allclose(fn[1], torch.tensor([0.0, 0, 1]))
    for w in ("area", "angle"):
        vn = compute_vertex_normals(v, f, weighting=w)
        assert torch.isfinite(vn).all()
        assert vn[4].abs().sum() == 0  # used by no face
        assert torch.allclose(vn[3], torch.tensor([0.0, 0, 1]))


def test_all_faces_degenerate_and_empty():
    v = torch.zeros((3, 3))
    f = torch.tensor([[0, 1, 2]])
    assert compute_vertex_normals(v, f).abs().sum() == 0
    e = compute_face_normals(v, torch.zeros((0, 3), dtype=torch.long))
    assert e.shape == (0, 3)
    assert compute_vertex_normals(v, torch.zeros((0, 3), dtype=torch.long)).shape == (3, 3)


def test_numpy_input_and_int32_faces():
    v, f = sphere(1)
    a = compute_vertex_normals(v.numpy(), f.numpy().astype(np.int32))
    b = compute_vertex_normals(v, f)
    assert torch.allclose(a, b)


def _textbook_area_normals(v, f):
    """Gather the corners, cross the edges, add each face's normal to its three vertices."""
    fn = torch.linalg.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]], dim=-1)
    out = torch.zeros_like(v)
    for k in range(3):
        out = out.index_add(0, f[:, k], fn)
    n = out.norm(dim=1, keepdim=True)
    return torch.where(n > 0, out / n.clamp_min(1e-300), torch.zeros_like(out))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_planar_area_normals_equal_the_textbook_formula_and_keep_gradients(dtype):
    from smrnb.geometry._normals import area_vertex_normals

    v, f = sphere(4)
    g = torch.Generator().manual_seed(3)
    v = (v * (1 + 0.3 * torch.rand(len(v), 1, generator=g, dtype=v.dtype))).to(dtype)  # bumpy: weighting matters
    v = torch.cat([v, torch.tensor([[9.0, 9.0, 9.0]], dtype=dtype)])  # unused vertex
    f = torch.cat([f, torch.tensor([[0, 0, 5]])])  # degenerate face
    ref = _textbook_area_normals(v, f)
    ours = area_vertex_normals(v, f)
    assert ours.shape == v.shape and ours.dtype == dtype
    assert torch.allclose(ours, ref, atol=1e-6 if dtype == torch.float32 else 1e-12)
    assert (ours[-1] == 0).all()  # unused: zero, not NaN
    assert compute_vertex_normals(v, f).is_contiguous()
    # differentiable like the textbook form (a normal-based loss can move vertices)
    a = v.clone().requires_grad_()
    b = v.clone().requires_grad_()
    w = torch.randn(v.shape, generator=g, dtype=v.dtype).to(dtype)
    (area_vertex_normals(a, f) * w).sum().backward()
    (_textbook_area_normals(b, f) * w).sum().backward()
    assert torch.allclose(a.grad, b.grad, atol=1e-4 if dtype == torch.float32 else 1e-9)


def test_bad_input_messages():
    v, f = sphere(1)
    with pytest.raises(SmrnbValueError, match=r"faces must index vertices in \[0, 41\], got indices in \[0, 42\]"):
        compute_face_normals(v, torch.cat([f, torch.tensor([[0, 1, 42]])]))
    with pytest.raises(SmrnbValueError, match=r"got indices in \[-1, 41\]"):
        compute_vertex_normals(v, torch.cat([f, torch.tensor([[0, 1, -1]])]))
    bad = v.clone()
    bad[3, 1] = float("nan")
    with pytest.raises(SmrnbValueError, match=r"vertices must be finite, got 1 NaN/inf value\(s\)"):
        compute_vertex_normals(bad, f)
    with pytest.raises(SmrnbValueError, match=r"weighting must be one of 'area', 'angle', got 'cotan'"):
        compute_vertex_normals(v, f, weighting="cotan")
    with pytest.raises(SmrnbTypeError, match=r"vertices must be a floating-point tensor, got dtype torch.int64"):
        compute_face_normals(v.long(), f)
    with pytest.raises(SmrnbValueError, match=r"faces must have shape \(N, 3\), got \(10, 4\)"):
        compute_face_normals(v, torch.zeros((10, 4), dtype=torch.long))
    with pytest.raises(SmrnbTypeError, match=r"faces must be an integer tensor, got dtype torch.float32"):
        compute_face_normals(v, f.float())


@pytest.mark.cuda
@pytest.mark.parametrize("weighting", ["area", "angle"])
def test_cuda_parity(weighting):
    v, f = sphere(5)  # 10,242 vertices / 20,480 faces
    v = v + 0.01 * torch.randn(v.shape, generator=torch.Generator().manual_seed(0))
    cpu_f = compute_face_normals(v, f)
    cpu_v = compute_vertex_normals(v, f, weighting=weighting)
    gpu_f = compute_face_normals(v.cuda(), f.cuda())
    gpu_v = compute_vertex_normals(v.cuda(), f.cuda(), weighting=weighting)
    assert gpu_f.device.type == "cuda" and gpu_v.device.type == "cuda"
    assert torch.allclose(gpu_f.cpu(), cpu_f, atol=1e-5)
    assert torch.allclose(gpu_v.cpu(), cpu_v, atol=1e-5)
