# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Cleaning ops, the z = 0 anomaly, and scipy / chunked-torch neighbour-search parity."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import smrnb
from smrnb.geometry._clean import (
    CleanResult,
    check_points,
    clean_points,
    crop_depth_range,
    remove_radius_outliers,
    remove_statistical_outliers,
    voxel_downsample,
)
from smrnb.geometry._mesh import PointCloud
from smrnb.geometry._points import depth_to_points


def _K(fx, fy, cx, cy):
    return torch.tensor([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]], dtype=torch.float64)


def _depth_with_holes(H=30, W=40, hole_fraction=0.2, seed=0):
    g = torch.Generator().manual_seed(seed)
    d = 1.0 + torch.rand(H, W, generator=g, dtype=torch.float64)
    d[torch.rand(H, W, generator=g) < hole_fraction] = 0.0
    return d


def _naive_backproject(depth, K, pose=None):
    """What the seed tutorial did: every pixel back-projected, depth 0 included."""
    H, W = depth.shape
    v, u = torch.meshgrid(torch.arange(H, dtype=depth.dtype), torch.arange(W, dtype=depth.dtype), indexing="ij")
    p = torch.stack([(u - K[0, 2]) / K[0, 0] * depth, (v - K[1, 2]) / K[1, 1] * depth, depth], -1).reshape(-1, 3)
    if pose is not None:
        p = p @ pose[:3, :3].T + pose[:3, 3]
    return p


def test_public_names():
    assert smrnb.clean_points is clean_points and smrnb.voxel_downsample is voxel_downsample
    assert smrnb.crop_depth_range is crop_depth_range
    assert smrnb.remove_statistical_outliers is remove_statistical_outliers
    assert smrnb.remove_radius_outliers is remove_radius_outliers


# ------------------------------------------------------------------------------------- z = 0 anomaly

def test_z0_anomaly_caught_and_dropped():
    d = _depth_with_holes()
    K = _K(30, 30, 19.5, 14.5)
    n_holes = int((d == 0).sum())
    cloud = PointCloud(_naive_backproject(d, K))
    rep = check_points(cloud)
    assert not rep.ok and rep.codes() == ["z0"]
    a = rep.anomalies[0]
    assert a.count == n_holes and abs(a.fraction - n_holes / d.numel()) < 1e-12
    assert f"{n_holes} of {d.numel()} points" in a.message and "lie at z = 0 in the camera frame" in a.message
    assert "depth pixels with value 0 (no measurement) were back-projected instead of dropped" in a.cause
    assert "black mesh" in a.cause and "clean_points" in a.fix
    assert "z = 0" in str(rep)
    res = clean_points(cloud)
    assert isinstance(res, CleanResult)
    assert res.steps[0].name == "drop_invalid" and res.steps[0].removed == n_holes
    assert res.steps[0].note == "dropped: z0"
    assert len(res.cloud) == d.numel() - n_holes
    assert check_points(res.cloud).ok
    assert "drop_invalid" in str(res) and "lie at z = 0" in str(res)
    # the same depth through depth_to_points never shows the anomaly
    assert check_points(depth_to_points(d, K)).ok


def test_collapsed_points_in_world_frame():
    d = _depth_with_holes(hole_fraction=0.3, seed=1)
    K = _K(30, 30, 19.5, 14.5)
    pose = torch.eye(4, dtype=torch.float64)
    pose[:3, 3] = torch.tensor([1.0, -2.0, 0.5])
    cloud = PointCloud(_naive_backproject(d, K, pose), meta={"space": "world"})
    rep = check_points(cloud)
    assert rep.codes() == ["collapsed"]
    assert "are the same point (1, -2, 0.5)" in rep.anomalies[0].message
    res = clean_points(cloud)
    assert len(res.cloud) == int((d > 0).sum())
    # two frames, each with 8 % holes: each camera centre holds 4 % of the cloud (< 5 %), together 8 %
    frames = []
    for k, seed in enumerate((2, 3)):
        dk = 1.0 + torch.rand(30, 40, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
        dk.view(-1)[torch.randperm(1200, generator=torch.Generator().manual_seed(seed))[:96]] = 0.0
        pk = pose.clone()
        pk[0, 3] += k
        frames.append(_naive_backproject(dk, K, pk))
    cloud = PointCloud(torch.cat(frames), meta={"space": "world"})
    rep = check_points(cloud)
    assert rep.codes() == ["collapsed"]
    assert rep.anomalies[0].message.startswith("192 of 2400 points (8.0 %) are 2 repeated points (the largest "
                                               "group at (")
    res = clean_points(cloud)
    assert len(res.cloud) == 2400 - 192 and check_points(res.cloud).ok


def test_scale_and_other_anomalies():
    K = _K(30, 30, 19.5, 14.5)
    d = torch.full((30, 40), 2500.0, dtype=torch.float64)  # millimetres read as metres
    rep = check_points(depth_to_points(d, K))
    assert rep.codes() == ["scale_large"] and "median depth is 2500 m" in rep.anomalies[0].message
    assert "depth_scale=1000" in rep.anomalies[0].fix
    rep = check_points(depth_to_points(d / 1e6, K))  # scaled twice
    assert rep.codes() == ["scale_small"] and "2.5 mm" in rep.anomalies[0].message
    p = depth_to_points(torch.full((30, 40), 2.0), K.float(), color=torch.zeros(30, 40, 3, dtype=torch.uint8))
    assert check_points(p).codes() == ["black_colors"]
    pts = torch.rand(100, 3, dtype=torch.float64) + 1
    pts[:3] = float("nan")
    rep = check_points(PointCloud(pts))
    assert rep.codes() == ["nonfinite"] and rep.anomalies[0].count == 3
    res = clean_points(PointCloud(pts))
    assert len(res.cloud) == 97 and res.steps[0].note == "dropped: nonfinite"
    assert check_points(PointCloud(torch.zeros(0, 3))).codes() == ["empty"]
    with pytest.raises(smrnb.SmrnbValueError, match=r"max_fraction must be in \(0, 1\), got 2"):
        check_points(PointCloud(pts), max_fraction=2)
    with pytest.raises(smrnb.SmrnbValueError, match="space must be one of 'camera', 'world', got 'cam'"):
        check_points(PointCloud(pts), space="cam")


def test_clean_points_all_invalid_is_an_error():
    cloud = PointCloud(torch.zeros(50, 3))
    with pytest.raises(smrnb.SmrnbValueError, match=r"no valid point left after dropping invalid points \(z0\)"):
        clean_points(cloud)


# ------------------------------------------------------------------------------------------ basic ops

def test_crop_depth_range():
    d = torch.linspace(0.2, 3.0, 30 * 40, dtype=torch.float64).reshape(30, 40)
    K = _K(30, 30, 19.5, 14.5)
    cam = depth_to_points(d, K)
    out = crop_depth_range(cam, 0.5, 2.0)
    assert len(out) == int(((d > 0.5) & (d <= 2.0)).sum())
    pose = torch.eye(4, dtype=torch.float64)
    pose[:3, :3] = torch.tensor([[0.0, 0, 1], [0, 1, 0], [-1, 0, 0]], dtype=torch.float64)
    pose[:3, 3] = torch.tensor([1.0, 2.0, 3.0])
    world = depth_to_points(d, K, pose)
    with pytest.raises(smrnb.SmrnbValueError, match=r"cloud is in the world frame \(meta\['space'\] == 'world'\): "
                                                   "pass pose="):
        crop_depth_range(world, 0.5, 2.0)
    wout = crop_depth_range(world, 0.5, 2.0, pose=pose)
    assert len(wout) == len(out)
    with pytest.raises(smrnb.SmrnbValueError, match="depth_min must be < depth_max, got depth_min=2"):
        crop_depth_range(cam, 2, 1)
    res = clean_points(cam, depth_min=0.5, depth_max=2.0)
    assert [s.name for s in res.steps] == ["drop_invalid", "crop_depth_range"] and len(res.cloud) == len(out)


def test_voxel_downsample_means():
    pts = torch.tensor([[0.01, 0.01, 0.01], [0.03, 0.05, 0.07], [0.15, 0.01, 0.01], [-0.01, 0.0, 0.0]],
                       dtype=torch.float64)
    cols = torch.tensor([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [0.5, 0.5, 0.5]], dtype=torch.float64)
    out = voxel_downsample(PointCloud(pts, cols), 0.1)
    # voxels: (-1,0,0) <- p3; (0,0,0) <- p0,p1; (1,0,0) <- p2  (lexicographic order)
    assert len(out) == 3
    assert torch.allclose(out.points, torch.tensor([[-0.01, 0, 0], [0.02, 0.03, 0.04], [0.15, 0.01, 0.01]],
                                                   dtype=torch.float64))
    assert torch.allclose(out.colors[1], torch.tensor([0.5, 0.5, 0.0], dtype=torch.float64))
    # a dense grid at 1 cm downsampled at 5 cm: one point per occupied 5 cm cell
    g = torch.stack(torch.meshgrid(*[torch.arange(20, dtype=torch.float64) * 0.01 + 0.005] * 3, indexing="ij"),
                    -1).reshape(-1, 3)
    out = voxel_downsample(PointCloud(g), 0.05)
    assert len(out) == 4 ** 3
    for bad, exc in ((0, "voxel_size must be > 0 and finite, got 0"), (-0.1, "got -0.1"),
                     (float("nan"), "got nan")):
        with pytest.raises(smrnb.SmrnbValueError, match=exc):
            voxel_downsample(PointCloud(g), bad)


def _grid_with_outliers(n=20, spacing=0.1, outliers=((5.0, 5.0, 5.0), (-3.0, 2.0, 1.0))):
    ij = torch.stack(torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij"), -1).reshape(-1, 2).double()
    grid = torch.cat([ij * spacing, torch.zeros(n * n, 1, dtype=torch.float64)], 1)
    return torch.cat([grid, torch.tensor(outliers, dtype=torch.float64)])


def test_statistical_outliers_remove_far_points():
    pts = _grid_with_outliers()
    out = remove_statistical_outliers(PointCloud(pts), nb_neighbors=8, std_ratio=2.0)
    assert len(out) == 400 and float(out.points.abs().max()) < 2.0


def _reference_statistical(p: np.ndarray, k: int, ratio: float) -> np.ndarray:
    D = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1))
    mean_d = np.sort(D, axis=1)[:, 1:k + 1].mean(1)
    thr = mean_d.mean() + ratio * mean_d.std(ddof=1)
    return mean_d <= thr


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_statistical_parity_scipy_torch_and_reference(dtype):
    g = torch.Generator().manual_seed(5)
    p = torch.cat([torch.rand(1000, 3, generator=g, dtype=torch.float64),
                   torch.rand(30, 3, generator=g, dtype=torch.float64) * 3]).to(dtype)
    cloud = PointCloud(p, colors=torch.rand(len(p), 3, generator=g))
    a = remove_statistical_outliers(cloud, 20, 2.0, backend="scipy")
    for be in ("torch", "torch-brute"):
        b = remove_statistical_outliers(cloud, 20, 2.0, backend=be)
        assert a.meta["knn_backend"] == "scipy" and b.meta["knn_backend"] == be
        assert torch.equal(a.points, b.points) and torch.equal(a.colors, b.colors)
        assert a.meta["statistical_threshold"] == b.meta["statistical_threshold"]
    ref = _reference_statistical(p.double().numpy(), 20, 2.0)
    assert 1000 - 30 < len(a) < len(p) and len(a) == int(ref.sum())
    assert torch.equal(a.points, p[torch.from_numpy(ref)])
    assert a.points.dtype == dtype


def test_radius_outliers_analytic_grid_and_parity():
    pts = _grid_with_outliers(n=10, spacing=0.1)
    cloud = PointCloud(pts)
    # radius 0.105: interior points have 4 neighbours, edges 3, corners 2, outliers 0
    out = remove_radius_outliers(cloud, nb_points=4, radius=0.105)
    assert len(out) == 8 * 8
    assert len(remove_radius_outliers(cloud, nb_points=3, radius=0.105)) == 100 - 4
    assert len(remove_radius_outliers(cloud, nb_points=2, radius=0.105)) == 100
    g = torch.Generator().manual_seed(7)
    p = torch.cat([torch.rand(1500, 3, generator=g, dtype=torch.float64),
                   torch.rand(40, 3, generator=g, dtype=torch.float64) * 3])
    a = remove_radius_outliers(PointCloud(p), 16, 0.15, backend="scipy")
    b = remove_radius_outliers(PointCloud(p), 16, 0.15, backend="torch")
    c = remove_radius_outliers(PointCloud(p), 16, 0.15, backend="torch-brute")
    assert 100 < len(a) < len(p) and torch.equal(a.points, b.points) and torch.equal(a.points, c.points)
    D = torch.cdist(p, p)
    assert len(a) == int(((D <= 0.15).sum(1) - 1 >= 16).sum())


@pytest.mark.slow
def test_grid_neighbours_equal_brute_force_on_surfaces_duplicates_and_outliers():
    from smrnb.geometry import _clean as C

    g = torch.Generator().manual_seed(9)
    plane = torch.cat([torch.rand(500, 2, generator=g, dtype=torch.float64), torch.zeros(500, 1,
                                                                                          dtype=torch.float64)], 1)
    sphere = torch.randn(300, 3, generator=g, dtype=torch.float64)
    sphere = sphere / sphere.norm(dim=1, keepdim=True) * 0.3 + 0.5
    far = torch.rand(15, 3, generator=g, dtype=torch.float64) * 5  # sparse: forces the doubled-cell rounds
    p = torch.cat([plane, sphere, far, plane[:20]])  # 20 exact duplicates
    for k in (1, 20):
        assert torch.equal(C._knn_sqdist_grid(p, k), C._knn_sqdist_brute(p, k))
    for r in (0.02, 0.1):
        assert torch.equal(C._radius_count_grid(p, r), C._radius_count_brute(p, r * r))
    # a tight pair budget splits the queries into many chunks and gives the same answer
    assert torch.equal(C._knn_sqdist_grid(p, 5, budget_pairs=5000, block=512), C._knn_sqdist_brute(p, 5))
    assert torch.equal(C._radius_count_grid(p, 0.05, budget_pairs=5000, block=512),
                       C._radius_count_brute(p, 0.05 ** 2))


def test_outlier_ops_bad_input():
    cloud = PointCloud(torch.rand(10, 3))
    with pytest.raises(smrnb.SmrnbValueError, match="cloud must have more than nb_neighbors=20 points, got 10"):
        remove_statistical_outliers(cloud)
    with pytest.raises(smrnb.SmrnbValueError, match="cloud is empty"):
        remove_statistical_outliers(PointCloud(torch.zeros(0, 3)))
    with pytest.raises(smrnb.SmrnbTypeError, match="cloud must be a smrnb.PointCloud, got Tensor"):
        remove_radius_outliers(torch.rand(10, 3))
    with pytest.raises(smrnb.SmrnbValueError, match="radius must be > 0 and finite, got -1"):
        remove_radius_outliers(cloud, 2, -1)
    with pytest.raises(smrnb.SmrnbValueError, match="nb_neighbors must be >= 1, got 0"):
        remove_statistical_outliers(cloud, 0)
    with pytest.raises(smrnb.SmrnbValueError, match="backend must be one of 'auto', 'scipy', 'torch', 'torch-brute', got 'cuda'"):
        remove_radius_outliers(cloud, 2, 0.1, backend="cuda")
    bad = torch.rand(30, 3)
    bad[0, 0] = float("nan")
    with pytest.raises(smrnb.SmrnbValueError, match=r"finite points for remove_statistical_outliers, got NaN/inf "
                                                   r"\(run clean_points first\)"):
        remove_statistical_outliers(PointCloud(bad), 5)


def test_clean_points_pipeline_counts():
    pts = _grid_with_outliers(n=20, spacing=0.02)
    pts[:, 2] += 1.0  # the grid at z = 1 m
    pts = torch.cat([pts, torch.zeros(50, 3, dtype=torch.float64)])  # 50 back-projected zeros (z = 0)
    res = clean_points(PointCloud(pts), voxel_size=0.01, nb_neighbors=8, nb_points=3, radius=0.05)
    names = [s.name for s in res.steps]
    assert names == ["drop_invalid", "voxel_downsample", "remove_statistical_outliers", "remove_radius_outliers"]
    assert res.steps[0].removed == 50 and "z0" in res.check.codes()
    for prev, nxt in zip(res.steps, res.steps[1:]):
        assert prev.after == nxt.before
    assert res.before == 452 and res.after == 400 and len(res.cloud) == 400
    assert "clean_points: 452 -> 400 points (52 removed)" in str(res)


@pytest.mark.cuda
def test_cuda_parity_and_device():
    g = torch.Generator().manual_seed(11)
    p = torch.cat([torch.rand(20000, 3, generator=g), torch.rand(200, 3, generator=g) * 3])
    cpu = PointCloud(p)
    gpu = cpu.to("cuda")
    a = remove_statistical_outliers(cpu, 20, 2.0)  # scipy
    b = remove_statistical_outliers(gpu, 20, 2.0)  # chunked torch on the GPU
    assert b.points.is_cuda and b.meta["knn_backend"] == "torch"
    assert torch.equal(a.points, b.points.cpu())
    a = remove_radius_outliers(cpu, 16, 0.06)
    b = remove_radius_outliers(gpu, 16, 0.06)
    assert b.points.is_cuda and torch.equal(a.points, b.points.cpu())
    v = voxel_downsample(gpu, 0.05)
    assert v.points.is_cuda and len(v) == len(voxel_downsample(cpu, 0.05))
    res = clean_points(gpu, voxel_size=0.02, nb_neighbors=10)
    assert res.cloud.points.is_cuda
