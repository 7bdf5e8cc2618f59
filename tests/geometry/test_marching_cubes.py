# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Marching cubes: parity with scikit-image (counts, vertex sets, oriented triangles), analytic
areas and volumes, watertightness, winding, masks, smoothing and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.ndimage import gaussian_filter
from scipy.special import ellipeinc, ellipkinc

import smrnb
from smrnb.geometry._marching_cubes import marching_cubes, voxelgrid_to_mesh
from smrnb.geometry._voxels import VoxelGrid, pointcloud_to_voxelgrid

skmeasure = pytest.importorskip("skimage.measure")


# ---------------------------------------------------------------- helpers


def _grid(n0, n1=None, n2=None):
    n1, n2 = n1 or n0, n2 or n0
    return np.mgrid[:n0, :n1, :n2].astype(np.float64)


def sphere_field(n, r, c=None):
    """Positive inside: r - |x - c| (index units)."""
    g = _grid(n)
    c = (n - 1) / 2 if c is None else c
    return (r - np.sqrt(((g - np.asarray(c, dtype=float).reshape(-1, 1, 1, 1)) ** 2).sum(0))).astype(np.float32)


def ellipsoid_field(n, axes, c=None):
    g = _grid(n)
    c = (n - 1) / 2 if c is None else c
    a = np.asarray(axes, dtype=float).reshape(3, 1, 1, 1)
    q = np.sqrt((((g - c) / a) ** 2).sum(0))
    # first-order distance: (1 - q) * |x| / |grad q| ~ signed distance near the surface, positive inside
    grad = np.sqrt(((((g - c) / a**2) / np.maximum(q, 1e-9)) ** 2).sum(0))
    return ((1 - q) / np.maximum(grad, 1e-9)).astype(np.float32)


def skimage_mask(mask):
    """scikit-image keeps a cube when mask[i+1, j+1, k+1]; ours when all 8 corners are True."""
    ok = mask[:-1, :-1, :-1].copy()
    for d in [(0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]:
        ok &= mask[d[0]:mask.shape[0] - 1 + d[0], d[1]:mask.shape[1] - 1 + d[1], d[2]:mask.shape[2] - 1 + d[2]]
    out = np.zeros_like(mask)
    out[1:, 1:, 1:] = ok
    return out


def sk_mc(vol, level, mask=None):
    try:
        v, f, _, _ = skmeasure.marching_cubes(vol, level, mask=None if mask is None else skimage_mask(mask))
    except RuntimeError:  # "No surface found"
        return np.zeros((0, 3), np.float32), np.zeros((0, 3), np.int64)
    return v, f


def oriented(faces):
    """Triangles rotated to start at their smallest index (orientation kept), rows sorted."""
    t = np.asarray(faces)
    shift = np.argmin(t, axis=1)
    rolled = np.stack([t[np.arange(len(t)), (shift + k) % 3] for k in range(3)], 1)
    return rolled[np.lexsort(rolled.T[::-1])]


def assert_same_as_skimage(vol, level, mask=None):
    """Equal counts; our vertices map one-to-one onto skimage's (within 1e-4); the same oriented triangles."""
    from scipy.spatial import cKDTree

    v, f = marching_cubes(torch.from_numpy(vol), level, mask=None if mask is None else torch.from_numpy(mask))
    sv, sf = sk_mc(vol, level, mask)
    assert (v.shape[0], f.shape[0]) == (sv.shape[0], sf.shape[0]), "vertex/face counts differ from skimage"
    if len(sv):
        dist, match = cKDTree(sv.astype(np.float64)).query(v.numpy().astype(np.float64))
        assert dist.max() < 1e-4
        assert len(np.unique(match)) == len(sv)  # a bijection
        # skimage's "descent" faces use a left-hand rule: the same triangles in reverse order
        np.testing.assert_array_equal(oriented(match[f.numpy()]), oriented(sf[:, ::-1]))
    return v, f


def area(v, f):
    v = v.double()
    t = v[f]
    return 0.5 * torch.linalg.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]).norm(dim=1).sum().item()


def volume(v, f):
    t = v.double()[f]
    return (t[:, 0] * torch.linalg.cross(t[:, 1], t[:, 2])).sum().item() / 6


def edge_use(f):
    """Each undirected edge's count and each directed edge's count."""
    e = torch.cat([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    und = torch.unique(e.sort(1).values, dim=0, return_counts=True)[1]
    dire = torch.unique(e, dim=0, return_counts=True)[1]
    return und, dire


def ellipsoid_area(a, b, c):
    """Exact area (Legendre's elliptic-integral form), a >= b >= c."""
    a, b, c = sorted((a, b, c), reverse=True)
    phi = math.acos(c / a)
    k2 = a * a * (b * b - c * c) / (b * b * (a * a - c * c))
    s = math.sin(phi)
    return 2 * math.pi * c * c + 2 * math.pi * a * b / s * (ellipeinc(phi, k2) * s * s + ellipkinc(phi, k2) * math.cos(phi) ** 2)


def thomsen_area(a, b, c, p=1.6075):
    return 4 * math.pi * (((a * b) ** p + (a * c) ** p + (b * c) ** p) / 3) ** (1 / p)


# ---------------------------------------------------------------- parity with scikit-image


def test_sphere_and_ellipsoid_sdf_same_as_skimage():
    assert_same_as_skimage(sphere_field(40, 14.3, c=(19.2, 20.1, 18.7)), 0.0)
    assert_same_as_skimage(-sphere_field(40, 14.3, c=(19.2, 20.1, 18.7)), 0.0)
    assert_same_as_skimage(ellipsoid_field(40, (16, 10, 7)), 0.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_smooth_fields_same_as_skimage(seed):
    r = gaussian_filter(np.random.default_rng(seed).standard_normal((30, 27, 33)), 2).astype(np.float32)
    assert_same_as_skimage(r, 0.0)
    assert_same_as_skimage(r, float(r.mean() + 0.4 * r.std()))


@pytest.mark.parametrize("seed", [0, 1])
def test_white_noise_exercises_ambiguous_cases_same_as_skimage(seed):
    # white noise hits every Lewiner case and both outcomes of the face and interior tests
    r = np.random.default_rng(seed).standard_normal((22, 23, 24)).astype(np.float32)
    v, f = assert_same_as_skimage(r, 0.0)
    # interior vertices exist (tilings with the cube-centre vertex were used)
    assert f.shape[0] > 0


@pytest.mark.parametrize("extra", [0, 1, 29])
def test_padded_segments_give_the_exact_mesh(extra, monkeypatch):
    """The formulation the GPU replays from CUDA graphs (every size padded up to a capacity, the pads
    pointing at an empty cube, the first active cube or the last real face), run eagerly on the CPU:
    the same vertices and faces, bit for bit, as the exact path, whatever the padding."""
    import smrnb.geometry._graphs as graphs
    import smrnb.geometry._marching_cubes as mc

    monkeypatch.setattr(graphs, "capacity", lambda n, minimum=16: int(n) + extra)
    rng = np.random.default_rng(extra)
    fields = [
        (rng.standard_normal((22, 23, 24)).astype(np.float32), 0.0),  # every ambiguous case, interior vertices
        (sphere_field(30, 11.3, c=(14.2, 15.1, 13.7)), 0.0),
        ((rng.random((16, 17, 18)) > 0.5).astype(np.float32), 0.5),
        (np.zeros((5, 6, 7), np.float32), 0.5),  # no surface
        (np.array([1, 0, 0, 0, 0, 0, 0, 0], np.float32).reshape(2, 2, 2), 0.5),  # one cube
    ]
    for vol, level in fields:
        t = torch.from_numpy(vol)
        v0, f0 = mc._marching_cubes_exact(t, level, None)
        v1, f1 = mc._marching_cubes_padded(t, level, graphs=False)
        assert torch.equal(f0, f1) and torch.equal(v0, v1)
        if f0.shape[0]:
            sv, sf = sk_mc(vol, level)
            assert (v1.shape[0], f1.shape[0]) == (sv.shape[0], sf.shape[0])
    bad = rng.standard_normal((9, 9, 9)).astype(np.float32)
    bad[3, 4, 5] = np.nan
    with pytest.raises(smrnb.SmrnbValueError, match="volume must be finite, got 1 NaN"):
        mc._marching_cubes_padded(torch.from_numpy(bad), 0.0, graphs=False)


def test_padding_cube_adds_nothing():
    """What the padding relies on: cube index 0 has no tests, no triangles and no vertices; the node
    (0, 0, N2 - 1) always gets cube index 0; an unambiguous cube run through the face and interior
    tests (the padded ambiguous list repeats the first active cube) keeps its test-free row."""
    import smrnb.geometry._marching_cubes as mc

    d = mc._decision_tables()
    assert not d["ambiguous"][0] and d["ntri"][d["row"][:128]].max() == 0
    T = mc._tables_on(torch.device("cpu"))
    plain = torch.from_numpy(np.flatnonzero(~d["ambiguous"]))
    vals = torch.from_numpy(np.random.default_rng(3).standard_normal((plain.numel(), 8)))
    assert int(mc._face_and_interior_bits(vals, plain, T).abs().max()) == 0
    vol = torch.ones(4, 5, 6)
    st = mc._seg_classify(vol, 0.5, 0.5, dims=mc._dims(vol), count=True)
    assert int(st["cube"][6 - 1]) == 0
    assert mc._edge_tables()["crossed"][0] == 0


def test_every_cube_configuration_same_as_skimage():
    """All 256 corner-sign patterns, each with several random magnitudes, as isolated cubes."""
    rng = np.random.default_rng(7)
    reps = 6
    k = 256 * reps
    side = math.ceil(k ** (1 / 3))
    vol = np.zeros((3 * side,) * 3, np.float32)
    mask = np.zeros_like(vol, dtype=bool)
    corners = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 1], [1, 1, 0]])
    for j in range(k):
        idx = j % 256
        base = 3 * np.array(np.unravel_index(j, (side,) * 3))
        mag = rng.uniform(0.05, 1.0, 8)
        for c in range(8):
            sign = 1.0 if (idx >> c) & 1 else -1.0
            p = base + corners[c]
            vol[tuple(p)] = sign * mag[c]
            mask[tuple(p)] = True
    v, f = assert_same_as_skimage(vol, 0.0, mask)
    assert f.shape[0] > 256 * reps  # every non-trivial cube made at least one triangle


def test_binary_occupancy_same_as_skimage():
    rng = np.random.default_rng(3)
    b = (gaussian_filter(rng.standard_normal((26, 25, 24)), 1.5) > 0.05).astype(np.float32)
    assert_same_as_skimage(b, 0.5)
    noise = (rng.random((16, 17, 18)) > 0.5).astype(np.float32)  # many ambiguous faces
    assert_same_as_skimage(noise, 0.5)


def test_mask_same_as_skimage_with_equivalent_mask():
    rng = np.random.default_rng(5)
    r = gaussian_filter(rng.standard_normal((24, 24, 24)), 1.2).astype(np.float32)
    m = rng.random(r.shape) > 0.08
    assert_same_as_skimage(r, 0.0, m)
    noise = rng.standard_normal((18, 18, 18)).astype(np.float32)
    assert_same_as_skimage(noise, 0.0, rng.random(noise.shape) > 0.2)


def test_level_not_representable_in_float32_classifies_like_skimage():
    # level between two float32 values: skimage compares in float64
    vol = np.full((4, 4, 4), np.float32(0.1), np.float32)
    vol[2:] = np.nextafter(np.float32(0.1), np.float32(1))
    assert_same_as_skimage(vol, 0.1)


# ---------------------------------------------------------------- geometry


def test_sphere_area_and_volume_128():
    n, r = 128, 50.0
    v, f = marching_cubes(torch.from_numpy(sphere_field(n, r, c=(63.3, 64.1, 63.7))), 0.0)
    a_true = 4 * math.pi * r * r
    assert abs(area(v, f) - a_true) / a_true < 0.01
    vol_true = 4 / 3 * math.pi * r**3
    assert abs(volume(v, f) - vol_true) / vol_true < 0.01
    assert volume(v, f) > 0  # outward normals: positive enclosed volume


def test_ellipsoid_area_128_exact_and_thomsen():
    axes = (55.0, 38.0, 24.0)
    v, f = marching_cubes(torch.from_numpy(ellipsoid_field(128, axes)), 0.0)
    exact = ellipsoid_area(*axes)
    thomsen = thomsen_area(*axes)
    assert abs(thomsen - exact) / exact < 0.011  # Knud Thomsen's approximation is within ~1 %
    assert abs(area(v, f) - exact) / exact < 0.01
    vol_true = 4 / 3 * math.pi * axes[0] * axes[1] * axes[2]
    assert abs(volume(v, f) - vol_true) / vol_true < 0.01


def test_closed_surface_is_watertight_and_consistently_wound():
    v, f = marching_cubes(torch.from_numpy(ellipsoid_field(48, (20, 13, 9))), 0.0)
    und, dire = edge_use(f)
    assert bool((und == 2).all())  # every edge shared by exactly two faces
    assert bool((dire == 1).all())  # each directed edge once: neighbours agree on orientation


def test_winding_points_out_of_the_superlevel_set():
    n = 64
    c = torch.tensor([31.7, 32.2, 31.9])
    v, f = marching_cubes(torch.from_numpy(sphere_field(n, 22.0, c=c.tolist())), 0.0)
    t = v[f]
    normal = torch.linalg.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    outward = t.mean(1) - c
    cos = (normal * outward).sum(1) / (normal.norm(dim=1) * outward.norm(dim=1))
    assert bool((cos > 0.5).all())  # every triangle faces away from the centre
    v2, f2 = marching_cubes(torch.from_numpy(sphere_field(n, 22.0, c=c.tolist())), 0.0, gradient_direction="ascent")
    assert torch.equal(f2, f.flip(1))


def test_spacing_and_origin_map_index_units_to_world():
    vol = torch.from_numpy(sphere_field(32, 10.0))
    v, f = marching_cubes(vol, 0.0)
    v2, f2 = marching_cubes(vol, 0.0, spacing=(0.5, 1.0, 2.0), origin=(1.0, -2.0, 3.0))
    assert torch.equal(f, f2)
    assert torch.allclose(v2, v * torch.tensor([0.5, 1.0, 2.0]) + torch.tensor([1.0, -2.0, 3.0]), atol=1e-5)


def test_anisotropic_volume_axis_order():
    # a slab normal to axis 0 at 3.5: every vertex has coordinate 0 == 3.5
    vol = torch.zeros(8, 5, 6)
    vol[:4] = 1.0
    v, f = marching_cubes(vol, 0.5)
    assert f.shape[0] == 2 * 4 * 5
    assert torch.allclose(v[:, 0], torch.full((v.shape[0],), 3.5))


def test_mask_drops_cubes_touching_unobserved_voxels():
    n = 40
    vol = torch.from_numpy(sphere_field(n, 14.0))
    mask = torch.ones(n, n, n, dtype=torch.bool)
    mask[:, :, 21:] = False  # unobserved half
    v, f = marching_cubes(vol, 0.0, mask=mask)
    full_v, full_f = marching_cubes(vol, 0.0)
    assert 0 < f.shape[0] < full_f.shape[0]
    assert float(v[:, 2].max()) <= 20.0  # no cube reaching into index 21 made a triangle
    assert int(f.max()) == v.shape[0] - 1 and torch.unique(f).numel() == v.shape[0]  # no unused vertex


def test_dtypes_bool_int_float64_give_same_mesh():
    f32 = (torch.from_numpy(sphere_field(24, 8.0)) > 0)
    ref_v, ref_f = marching_cubes(f32.float(), 0.5)
    for vol in (f32, f32.to(torch.uint8), f32.double(), f32.numpy()):
        v, f = marching_cubes(vol, 0.5)
        assert torch.equal(f, ref_f) and torch.equal(v, ref_v)
        assert v.dtype == torch.float32 and f.dtype == torch.int64


def test_empty_result_has_one_form():
    for vol, level in ((torch.zeros(5, 5, 5), 0.5), (torch.ones(5, 5, 5), 0.5), (torch.rand(5, 5, 5), 7.0)):
        v, f = marching_cubes(vol, level)
        assert v.shape == (0, 3) and f.shape == (0, 3) and v.dtype == torch.float32 and f.dtype == torch.int64
    mesh = voxelgrid_to_mesh(torch.zeros(6, 6, 6))
    assert mesh.vertices.shape == (0, 3) and mesh.faces.shape == (0, 3)


# ---------------------------------------------------------------- bad input


def _one_nan(field):
    v = torch.as_tensor(field).clone()
    v[0, 0, 0] = float("nan")
    return v


@pytest.mark.parametrize(
    ("call", "exc", "text"),
    [
        (lambda: marching_cubes(torch.full((4, 4, 4), float("nan")), 0.0), smrnb.SmrnbValueError, "volume must be finite"),
        # a surface to extract and one bad value: the check is deferred to the size sync, it must still fire
        (lambda: marching_cubes(_one_nan(sphere_field(12, 4.0)), 0.0), smrnb.SmrnbValueError,
         "volume must be finite, got 1 NaN/inf value"),
        (lambda: marching_cubes(torch.zeros(4, 4), 0.0), smrnb.SmrnbValueError, "volume must have shape"),
        (lambda: marching_cubes(torch.zeros(1, 4, 4), 0.0), smrnb.SmrnbValueError, "at least 2 x 2 x 2"),
        (lambda: marching_cubes(torch.zeros(4, 4, 4), float("nan")), smrnb.SmrnbValueError, "level must be finite"),
        (lambda: marching_cubes(torch.zeros(4, 4, 4), "a"), smrnb.SmrnbTypeError, "level must be a number"),
        (lambda: marching_cubes(torch.zeros(4, 4, 4), 0.0, mask=torch.ones(4, 4, 3, dtype=torch.bool)),
         smrnb.SmrnbValueError, "mask must have the volume's shape"),
        (lambda: marching_cubes(torch.zeros(4, 4, 4), 0.0, mask=torch.ones(4, 4, 4)), smrnb.SmrnbTypeError,
         "mask must be a bool tensor"),
        (lambda: marching_cubes(torch.zeros(4, 4, 4), 0.0, spacing=(1, 2)), smrnb.SmrnbValueError, "spacing must be 3"),
        (lambda: marching_cubes(torch.zeros(4, 4, 4), 0.0, gradient_direction="up"), smrnb.SmrnbValueError,
         "gradient_direction must be one of"),
        (lambda: marching_cubes("volume", 0.0), smrnb.SmrnbTypeError, "volume must be a torch.Tensor"),
        (lambda: voxelgrid_to_mesh(torch.zeros(4, 4, 4), backend="fast"), smrnb.SmrnbValueError,
         "backend must be one of"),
        (lambda: voxelgrid_to_mesh(torch.zeros(4, 4, 4), iso_value=float("inf")), smrnb.SmrnbValueError,
         "iso_value must be finite"),
        (lambda: voxelgrid_to_mesh(torch.zeros(4, 4, 4), smooth="yes"), smrnb.SmrnbTypeError, "smooth must be a bool"),
        (lambda: voxelgrid_to_mesh(torch.tensor([[[1.0, float("nan")]] * 2] * 2)), smrnb.SmrnbValueError,
         "voxelgrid must be finite, got 4 NaN/inf"),
    ],
)
def test_bad_input_names_the_argument(call, exc, text):
    with pytest.raises(exc, match=text):
        call()


def test_kaolin_backend_refused_clearly_without_kaolin_or_cuda():
    with pytest.raises(smrnb.SmrnbValueError, match="backend='kaolin' needs a working kaolin and a CUDA grid"):
        voxelgrid_to_mesh(torch.ones(4, 4, 4), backend="kaolin")


def test_memory_estimate_refuses_with_knob(monkeypatch):
    monkeypatch.setenv("SMRNB_MEMORY_BUDGET", "100000")
    with pytest.raises(smrnb.MemoryEstimateError, match="grid_shape") as ei:
        marching_cubes(torch.zeros(40, 40, 40), 0.5)
    assert ei.value.estimate_bytes > ei.value.budget_bytes == 100000
    assert ei.value.knob == "grid_shape/voxel_size"


# ---------------------------------------------------------------- voxelgrid_to_mesh


def _ball_grid(n=64, r_m=0.2, vs=0.01):
    """A solid ball of radius r_m voxelized exactly: voxel centres inside the ball are occupied."""
    origin = torch.tensor([-n / 2 * vs] * 3, dtype=torch.float64)
    i = torch.arange(n, dtype=torch.float64)
    c = origin[0] + (i + 0.5) * vs
    occ = (c[:, None, None] ** 2 + c[None, :, None] ** 2 + c[None, None, :] ** 2) <= r_m**2
    return VoxelGrid(occ, origin, vs, frame="opencv")


def test_voxelgrid_mesh_in_world_units_and_outward():
    grid = _ball_grid()
    mesh = voxelgrid_to_mesh(grid)
    assert isinstance(mesh, smrnb.Mesh) and mesh.frame == "opencv" and mesh.meta["backend"] == "torch CPU"
    r = mesh.vertices.double().norm(dim=1)
    assert abs(r.mean().item() - 0.2) < 0.01  # metres, centred on the origin of the world
    assert volume(mesh.vertices, mesh.faces) > 0
    # same surface as a plain tensor in index units, shifted by half a voxel and scaled
    plain = voxelgrid_to_mesh(grid.occupancy)
    assert torch.equal(plain.faces, mesh.faces)
    assert torch.allclose(plain.vertices * 0.01 - 0.32 + 0.005, mesh.vertices, atol=1e-6)


def test_smooth_brings_voxelized_sphere_area_closer_to_analytic():
    grid = _ball_grid(n=72, r_m=0.25, vs=0.01)
    true = 4 * math.pi * 0.25**2
    raw = voxelgrid_to_mesh(grid)
    smooth = voxelgrid_to_mesh(grid, smooth=True)
    err_raw = abs(area(raw.vertices, raw.faces) - true) / true
    err_smooth = abs(area(smooth.vertices, smooth.faces) - true) / true
    assert err_smooth < err_raw
    assert err_smooth < 0.03
    und, dire = edge_use(smooth.faces)
    assert bool((und == 2).all()) and bool((dire == 1).all())


def test_voxelgrid_to_mesh_from_points_end_to_end():
    g = torch.Generator().manual_seed(0)
    p = torch.randn(400_000, 3, generator=g, dtype=torch.float64)
    p = (p / p.norm(dim=1, keepdim=True) * torch.rand(400_000, 1, generator=g, dtype=torch.float64) ** (1 / 3) * 0.3)
    grid = pointcloud_to_voxelgrid(p.float() + 1.0, voxel_size=0.02, grid_shape=48)
    mesh = voxelgrid_to_mesh(grid, smooth=True)
    centre = torch.tensor([1.0, 1.0, 1.0])
    r = (mesh.vertices - centre).norm(dim=1)
    assert abs(r.median().item() - 0.3) < 0.02


def test_batched_grid_must_be_indexed():
    occ = torch.zeros(2, 8, 8, 8, dtype=torch.bool)
    occ[1, 2:5, 2:5, 2:5] = True
    grid = VoxelGrid(occ, torch.zeros(3), 0.1)
    with pytest.raises(smrnb.SmrnbValueError, match=r"voxelgrid must be unbatched.*grid\[b\]"):
        voxelgrid_to_mesh(grid)
    assert voxelgrid_to_mesh(grid[0]).num_faces == 0
    assert voxelgrid_to_mesh(grid[1]).num_faces > 0


def test_voxelgrid_mask_argument():
    grid = _ball_grid(n=40, r_m=0.12)
    mask = torch.ones(40, 40, 40, dtype=torch.bool)
    mask[:20] = False
    full = voxelgrid_to_mesh(grid)
    half = voxelgrid_to_mesh(grid, mask=mask)
    assert 0 < half.num_faces < full.num_faces
    assert float(half.vertices[:, 0].min()) >= -0.2 + 20.5 * 0.01 - 1e-6


def test_empty_kaolin_result_is_distrusted_and_torch_takes_over(monkeypatch):
    """kaolin built without kernels for the GPU returns empty meshes without raising: never trust it."""
    from smrnb.geometry import _backend

    calls = []

    def fake_kaolin_mc(grid, iso):
        calls.append(grid.shape)
        return torch.zeros(0, 3), torch.zeros(0, 3, dtype=torch.int64)

    monkeypatch.setattr(_backend, "_distrusted", {})
    monkeypatch.setattr(_backend, "use_kaolin", lambda op, device, backend="auto": op not in _backend._distrusted)
    monkeypatch.setattr(_backend, "kaolin_marching_cubes", fake_kaolin_mc)
    grid = _ball_grid(n=24, r_m=0.08)
    ref = voxelgrid_to_mesh(grid, backend="torch")
    mesh = voxelgrid_to_mesh(grid)
    assert len(calls) == 1
    assert mesh.meta["backend"] == "torch CPU" and "returned no faces" in mesh.meta["kaolin_fallback"]
    assert torch.equal(mesh.faces, ref.faces)
    assert "voxelgrids_to_trianglemeshes" in _backend.distrusted()
    voxelgrid_to_mesh(grid)
    assert len(calls) == 1  # not asked again in this process
    # auto leaves kaolin out when something inside touches the border (its padding would close it)
    monkeypatch.setattr(_backend, "_distrusted", {})
    voxelgrid_to_mesh(torch.ones(6, 6, 6))
    assert len(calls) == 1
    # ... and for grids from _KAOLIN_MC_MAX_VOXELS on (the PyTorch path is the faster one there)
    import smrnb.geometry._marching_cubes as mc

    monkeypatch.setattr(mc, "_KAOLIN_MC_MAX_VOXELS", grid.occupancy.numel())
    assert voxelgrid_to_mesh(grid).meta["backend"] == "torch CPU" and len(calls) == 1
    monkeypatch.setattr(mc, "_KAOLIN_MC_MAX_VOXELS", grid.occupancy.numel() + 1)
    voxelgrid_to_mesh(grid)
    assert len(calls) == 2


def test_raw_output_gives_each_vertex_as_its_lattice_edge():
    """The sparse TSDF extraction asks for vertices as lattice identities (an edge's lower node and
    axis; an interior vertex's cube and offset): placed by hand they are the returned positions."""
    from smrnb.geometry._marching_cubes import _marching_cubes_exact

    rng = np.random.default_rng(11)
    vol = torch.from_numpy(gaussian_filter(rng.standard_normal((23, 26, 29)), 1.2).astype(np.float32))
    mask = torch.from_numpy(gaussian_filter(rng.standard_normal(vol.shape), 3.0) > -0.1)
    X, Y, Z = vol.shape

    def coords(n):
        return torch.stack([n // (Y * Z), (n // Z) % Y, n % Z], 1)

    for m in (None, mask):
        v, f = marching_cubes(vol, 0.0, mask=m)
        r = _marching_cubes_exact(vol, 0.0, m, raw=True)
        assert torch.equal(r["faces"], f)
        ne, nc = r["edge_node"].numel(), r["cen_node"].numel()
        assert ne + nc == v.shape[0] and nc > 0  # noise has ambiguous cubes with interior vertices
        step = torch.tensor([Y * Z, Z, 1])[r["edge_axis"]]
        flat = vol.reshape(-1)
        d0, d1 = flat[r["edge_node"]].abs(), flat[r["edge_node"] + step].abs()
        t = d0 / (d0 + d1)
        pos = coords(r["edge_node"]).float() + t[:, None] * torch.nn.functional.one_hot(r["edge_axis"], 3).float()
        assert torch.allclose(pos, v[:ne], atol=1e-5)
        assert torch.allclose(coords(r["cen_node"]).float() + r["cen_off"], v[ne:], atol=1e-5)
