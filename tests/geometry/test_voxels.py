# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""pointcloud_to_voxelgrid and VoxelGrid: the floor rounding convention, placement, batching,
dropped-point accounting, memory refusal and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import smrnb
from smrnb.geometry._mesh import PointCloud
from smrnb.geometry._voxels import VoxelGrid, pointcloud_to_voxelgrid


def test_public_names_resolve_to_this_module():
    assert smrnb.VoxelGrid is VoxelGrid
    assert smrnb.pointcloud_to_voxelgrid is pointcloud_to_voxelgrid


def test_half_open_cells_floor_convention():
    vs = 0.25
    pts = torch.tensor([
        [0.0, 0.0, 0.0],      # on the min corner of voxel (0,0,0) -> (0,0,0)
        [0.2499, 0.0, 0.0],   # just below the boundary -> (0,0,0)
        [0.25, 0.0, 0.0],     # on the boundary: belongs to the next cell -> (1,0,0)
        [0.74, 0.5, 0.99],    # -> (2,2,3)
        [-0.001, 0.1, 0.1],   # just outside (negative) -> dropped
        [1.0, 0.1, 0.1],      # x = origin + 4 * vs: past the last cell of a 4-voxel axis -> dropped
    ], dtype=torch.float64)
    g = pointcloud_to_voxelgrid(pts, vs, (4, 4, 4), origin=(0.0, 0.0, 0.0))
    occupied = sorted(map(tuple, g.occupancy.nonzero().tolist()))
    assert occupied == [(0, 0, 0), (1, 0, 0), (2, 2, 3)]
    assert g.dropped == 2 and g.meta["dropped_per_batch"] == [2]
    assert torch.allclose(g.voxel_centers([2, 2, 3]), torch.tensor([0.625, 0.625, 0.875], dtype=torch.float64))


def test_matches_numpy_floor_reference_on_random_points():
    rng = np.random.default_rng(0)
    pts = rng.uniform(-0.3, 1.5, (50_000, 3))
    origin, vs, shape = np.array([0.1, -0.2, 0.05]), 0.037, (30, 41, 23)
    g = pointcloud_to_voxelgrid(torch.from_numpy(pts), vs, shape, origin=origin)
    idx = np.floor((pts - origin) / vs).astype(np.int64)
    inside = ((idx >= 0) & (idx < np.array(shape))).all(1)
    ref = np.zeros(shape, bool)
    ref[tuple(idx[inside].T)] = True
    np.testing.assert_array_equal(g.occupancy.numpy(), ref)
    assert g.dropped == int((~inside).sum())
    assert g.grid_shape == shape and g.occupancy.dtype == torch.bool


def test_origin_none_centres_the_cloud_on_the_voxel_lattice():
    pts = torch.tensor([[0.11, 2.03, -1.0], [0.51, 2.43, -0.2]])
    vs, shape = 0.02, (64, 32, 101)
    g = pointcloud_to_voxelgrid(pts, vs, shape)
    centre = (pts.double().min(0).values + pts.double().max(0).values) / 2
    # origin is on the lattice of multiples of voxel_size
    k = g.origin / vs
    assert torch.allclose(k, torch.round(k), atol=1e-9)
    # the bounding-box centre falls in voxel grid_shape // 2
    cidx = torch.floor((centre - g.origin) / vs).long()
    assert cidx.tolist() == [s // 2 for s in shape]
    assert g.dropped == 0 and g.num_occupied() == 2


def test_batched_points_give_batched_grid_and_counts():
    a = torch.rand(1000, 3) * 0.5
    b = torch.rand(1000, 3) * 0.5
    b[:10] += 5.0  # 10 points far outside
    g = pointcloud_to_voxelgrid(torch.stack([a, b]), 0.05, (16, 12, 10), origin=(0.0, 0.0, 0.0))
    assert g.batched and g.batch_size == 2 and g.occupancy.shape == (2, 16, 12, 10)
    assert g.meta["dropped_per_batch"] == [0, 10] and g.dropped == 10
    single = pointcloud_to_voxelgrid(b, 0.05, (16, 12, 10), origin=(0.0, 0.0, 0.0))
    assert torch.equal(g[1].occupancy, single.occupancy)
    assert g[1].dropped == 10 and g[0].dropped == 0


def test_frame_of_a_pointcloud_is_carried_and_coordinates_kept():
    pc = PointCloud(torch.tensor([[0.0, 0.0, 1.0], [0.1, -0.1, 1.2]]), frame="opencv")
    g = pointcloud_to_voxelgrid(pc, 0.1, 8)
    assert g.frame == "opencv"
    assert pointcloud_to_voxelgrid(pc.points, 0.1, 8).frame == "opengl"
    # coordinates are not converted: the occupied voxel centres are within half a voxel of the points
    centres = g.voxel_centers(g.occupancy.nonzero())
    d = torch.cdist(centres, pc.points.double()).min(1).values
    assert bool((d <= 0.1 * 3**0.5 / 2 + 1e-9).all())


def test_float_dtypes_and_numpy_input():
    pts = np.random.default_rng(1).random((100, 3)).astype(np.float32)
    g32 = pointcloud_to_voxelgrid(pts, 0.1, 12, origin=(0.0, 0.0, 0.0))
    g64 = pointcloud_to_voxelgrid(pts.astype(np.float64), 0.1, 12, origin=(0.0, 0.0, 0.0))
    assert g32.num_occupied() > 0
    assert (g32.occupancy != g64.occupancy).sum() <= 2  # float32 vs float64 rounding at cell boundaries


def test_kaolin_rounding_with_our_parameters_lands_on_floor_cells():
    """The docstring's claim: round((p - (o + vs/2)) / (vs (R-1)) * (R-1)) == floor((p - o) / vs) off ties,
    while kaolin's defaults (origin = min, scale = extent) pick a different lattice."""
    g = torch.Generator().manual_seed(0)
    p = torch.rand(200_000, 3, generator=g, dtype=torch.float64)
    R, vs, o = 64, 1.0 / 64, torch.zeros(3, dtype=torch.float64)
    ours = torch.floor((p - o) / vs)
    kaolin_ours = torch.round((p - (o + vs / 2)) / (vs * (R - 1)) * (R - 1))
    assert (ours != kaolin_ours).any(1).double().mean() < 1e-4
    lo, ext = p.min(0).values, (p.max(0).values - p.min(0).values).max()
    kaolin_default = torch.round((p - lo) / ext * (R - 1))

    def occ(idx):
        out = torch.zeros(R, R, R, dtype=torch.bool)
        ok = ((idx >= 0) & (idx < R)).all(1)
        out[tuple(idx[ok].long().T)] = True
        return out

    differ = (occ(ours) != occ(kaolin_default)).sum().item() / occ(ours).sum().item()
    assert differ > 0.005  # a different lattice: a visible fraction of voxels differs


# ---------------------------------------------------------------- refusals and bad input


def test_memory_estimate_refuses_huge_grid_naming_the_knob():
    with pytest.raises(smrnb.MemoryEstimateError, match=r"grid_shape.*voxel_size") as ei:
        pointcloud_to_voxelgrid(torch.rand(10, 3), 0.001, (100_000, 100_000, 100_000))
    err = ei.value
    assert err.estimate_bytes >= 10**15 and err.estimate_bytes > err.budget_bytes
    assert err.knob == "grid_shape/voxel_size"
    assert "TiB" in str(err)


@pytest.mark.parametrize(
    ("kwargs", "exc", "text"),
    [
        ({"points": torch.zeros(0, 3)}, smrnb.SmrnbValueError, "points must not be empty"),
        ({"points": torch.zeros(2, 0, 3)}, smrnb.SmrnbValueError, "points must not be empty"),
        ({"points": torch.zeros(4, 2)}, smrnb.SmrnbValueError, r"points must have shape \(N, 3\) or \(B, N, 3\), got \(4, 2\)"),
        ({"points": torch.zeros(4, 3, dtype=torch.int64)}, smrnb.SmrnbTypeError, "points must be a floating-point"),
        ({"points": torch.tensor([[0.0, float("nan"), 0.0], [0.1, 0.1, 0.1]])}, smrnb.SmrnbValueError,
         "points must be finite, got 1 point"),
        ({"points": torch.tensor([[0.0, float("inf"), 0.0]])}, smrnb.SmrnbValueError, "points must be finite"),
        ({"points": "abc"}, smrnb.SmrnbTypeError, "points must be a torch.Tensor"),
        ({"voxel_size": 0}, smrnb.SmrnbValueError, "voxel_size must be > 0"),
        ({"voxel_size": -0.01}, smrnb.SmrnbValueError, "voxel_size must be > 0"),
        ({"voxel_size": "big"}, smrnb.SmrnbTypeError, "voxel_size must be a number"),
        ({"grid_shape": (4, 4)}, smrnb.SmrnbTypeError, "grid_shape must be an int or 3 ints"),
        ({"grid_shape": (4, 0, 4)}, smrnb.SmrnbValueError, "grid_shape must be >= 1"),
        ({"grid_shape": 4.5}, smrnb.SmrnbTypeError, "grid_shape must be an int or 3 ints"),
        ({"origin": (0.0, 0.0)}, smrnb.SmrnbValueError, r"origin must have shape \(3,\)"),
        ({"origin": (0.0, float("nan"), 0.0)}, smrnb.SmrnbValueError, "origin must be finite"),
        ({"backend": "cuda"}, smrnb.SmrnbValueError, "backend must be one of"),
        ({"backend": "kaolin", "grid_shape": (8, 8, 4)}, smrnb.SmrnbValueError, "needs a cubic grid_shape"),
    ],
)
def test_bad_input_names_the_argument(kwargs, exc, text):
    args = {"points": torch.rand(10, 3), "voxel_size": 0.1, "grid_shape": 8}
    args.update(kwargs)
    with pytest.raises(exc, match=text):
        pointcloud_to_voxelgrid(**args)


def test_kaolin_backend_refused_clearly_when_unusable(monkeypatch):
    from smrnb.geometry import _backend

    monkeypatch.setattr(_backend, "use_kaolin", lambda *a, **k: False)
    with pytest.raises(smrnb.SmrnbValueError, match="backend='kaolin' is not usable here"):
        pointcloud_to_voxelgrid(torch.rand(10, 3), 0.1, 8, backend="kaolin")


def test_voxelgrid_container_checks_and_stores():
    occ = torch.zeros(3, 4, 5)
    g = VoxelGrid(occ, np.array([1.0, 2.0, 3.0]), 0.5)
    assert g.occupancy is occ and g.origin.dtype == torch.float64 and g.grid_shape == (3, 4, 5)
    assert torch.allclose(g.extent, torch.tensor([1.5, 2.0, 2.5], dtype=torch.float64))
    assert "VoxelGrid(3x4x5, voxel_size=0.5 m" in repr(g)
    with pytest.raises(smrnb.SmrnbValueError, match=r"occupancy must have shape \(X, Y, Z\) or \(B, X, Y, Z\)"):
        VoxelGrid(torch.zeros(3, 4), torch.zeros(3), 0.5)
    with pytest.raises(smrnb.SmrnbTypeError, match="occupancy must be a bool or float tensor"):
        VoxelGrid(torch.zeros(3, 4, 5, dtype=torch.int32), torch.zeros(3), 0.5)
    with pytest.raises(smrnb.SmrnbValueError, match=r"origin must have shape \(3,\)"):
        VoxelGrid(occ, torch.zeros(2), 0.5)
    with pytest.raises(smrnb.SmrnbValueError, match="voxel_size must be > 0"):
        VoxelGrid(occ, torch.zeros(3), 0.0)
    with pytest.raises(smrnb.SmrnbValueError, match="frame must be 'opengl' or 'opencv'"):
        VoxelGrid(occ, torch.zeros(3), 0.5, frame="y-up")
    assert torch.equal(g[0], occ[0])  # an unbatched grid indexes like its occupancy tensor
