# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""CPU / CUDA / kaolin parity of marching cubes and voxelization at realistic sizes (>= 128^3).

Marked ``cuda`` (and ``kaolin``): they skip with a reason on machines without them.
"""

from __future__ import annotations

import pytest
import torch

from smrnb.geometry._marching_cubes import marching_cubes, voxelgrid_to_mesh
from smrnb.geometry._voxels import pointcloud_to_voxelgrid


def _sphere(n: int, r: float) -> torch.Tensor:
    c = (n - 1) / 2
    i = torch.arange(n, dtype=torch.float32) - c
    return (r - torch.sqrt(i[:, None, None] ** 2 + i[None, :, None] ** 2 + i[None, None, :] ** 2)).contiguous()


def _smooth_random(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 1, n, n, n, generator=g)
    k = torch.exp(-0.5 * (torch.arange(-6, 7, dtype=torch.float32) / 2.5) ** 2)
    k = k / k.sum()
    for d in range(3):
        shape = [1, 1, 1, 1, 1]
        shape[2 + d] = 13
        x = torch.nn.functional.conv3d(x, k.view(shape), padding="same")
    return x[0, 0].contiguous()


FIELDS = {
    "sphere_sdf_128": lambda: (_sphere(128, 50.3), 0.0, None),
    "smooth_random_128": lambda: (_smooth_random(128, 1), 0.0, None),
    "binary_occupancy_144": lambda: ((_smooth_random(144, 2) > 0).float(), 0.5, None),
    "white_noise_masked_128": lambda: (torch.randn(128, 128, 128, generator=torch.Generator().manual_seed(3)), 0.0,
                                       torch.rand(128, 128, 128, generator=torch.Generator().manual_seed(4)) > 0.05),
}


@pytest.mark.cuda
@pytest.mark.parametrize("name", list(FIELDS))
def test_marching_cubes_cpu_cuda_parity(name):
    vol, level, mask = FIELDS[name]()
    v_cpu, f_cpu = marching_cubes(vol, level, mask=mask)
    v_gpu, f_gpu = marching_cubes(vol.cuda(), level, mask=None if mask is None else mask.cuda())
    assert v_gpu.device.type == "cuda" and f_gpu.device.type == "cuda"
    assert v_cpu.shape[0] > 1000
    # same numbering by construction (owner cube order, then edge order): identical faces
    assert v_gpu.shape == v_cpu.shape and f_gpu.shape == f_cpu.shape
    assert torch.equal(f_gpu.cpu(), f_cpu)
    assert torch.allclose(v_gpu.cpu(), v_cpu, atol=1e-4)


@pytest.mark.cuda
def test_voxelize_cpu_cuda_parity():
    g = torch.Generator().manual_seed(0)
    p = torch.randn(1_000_000, 3, generator=g)
    p = p / p.norm(dim=1, keepdim=True) + 0.01 * torch.randn(1_000_000, 3, generator=g)
    a = pointcloud_to_voxelgrid(p, 0.01, (256, 256, 256))
    b = pointcloud_to_voxelgrid(p.cuda(), 0.01, (256, 256, 256))
    assert b.occupancy.device.type == "cuda"
    assert torch.allclose(a.origin, b.origin.cpu())
    diff = (a.occupancy != b.occupancy.cpu()).sum().item()
    # float32 division may round a point sitting on a cell boundary differently on the two devices
    assert diff <= 1e-5 * a.num_occupied()
    assert a.dropped == b.dropped


@pytest.mark.cuda
def test_voxelgrid_to_mesh_cuda_torch_backend_world_units():
    n, r = 128, 40.0
    occ = _sphere(n, r) > 0
    from smrnb.geometry._voxels import VoxelGrid

    grid = VoxelGrid(occ.cuda(), torch.tensor([-0.64, -0.64, -0.64]), 0.01)
    mesh = voxelgrid_to_mesh(grid, backend="torch")
    assert mesh.meta["backend"] == "torch CUDA"
    centre = -0.64 + (n / 2) * 0.01
    radius = (mesh.vertices - centre).norm(dim=1)
    assert abs(radius.mean().item() - r * 0.01) < 0.01


def _keys(v: torch.Tensor) -> set:
    return set(map(tuple, torch.round(v.cpu().double() * 1e3).long().tolist()))


@pytest.mark.cuda
@pytest.mark.kaolin
def test_kaolin_marching_cubes_matches_torch():
    """kaolin runs classic (Lorensen) marching cubes: on a smooth closed shape it gives skimage's
    counts (recon-facts section 0); where cubes are ambiguous its triangles may differ, but its
    vertices are crossed-edge vertices, a subset of ours (Lewiner adds some cube-interior ones)."""
    from smrnb.geometry import _backend

    sphere = (_sphere(128, 50.3) > 0).float()
    blobs = (_smooth_random(128, 5) > 0.02).float()
    for vol in (sphere, blobs):
        vol[0], vol[-1], vol[:, 0], vol[:, -1], vol[:, :, 0], vol[:, :, -1] = 0, 0, 0, 0, 0, 0
    for name, vol in (("sphere", sphere), ("blobs", blobs)):
        vt, ft = marching_cubes(vol.cuda(), 0.5)
        out = _backend.kaolin_marching_cubes(vol.cuda(), 0.5)
        assert out is not None, _backend.distrusted()
        vk, fk = out
        kt, kk = _keys(vt), _keys(vk)
        if name == "sphere":
            assert (vk.shape[0], fk.shape[0]) == (vt.shape[0], ft.shape[0])
            assert kt == kk
        else:
            assert kk <= kt and len(kt) - len(kk) <= 0.01 * len(kt)
            assert abs(fk.shape[0] - ft.shape[0]) <= 0.01 * ft.shape[0]
        # oriented like ours: positive enclosed volume
        tri = vk[fk].double()
        assert (tri[:, 0] * torch.linalg.cross(tri[:, 1], tri[:, 2])).sum().item() > 0


@pytest.mark.cuda
@pytest.mark.kaolin
def test_kaolin_voxelize_matches_floor_convention():
    g = torch.Generator().manual_seed(0)
    p = (torch.rand(200_000, 3, generator=g) * 1.2 - 0.1).cuda()
    a = pointcloud_to_voxelgrid(p, 0.01, 128, origin=[0.0, 0.0, 0.0])
    b = pointcloud_to_voxelgrid(p, 0.01, 128, origin=[0.0, 0.0, 0.0], backend="kaolin")
    assert b.meta["backend"] == "kaolin"
    diff = (a.occupancy != b.occupancy).sum().item()
    assert diff <= 1e-3 * a.num_occupied()
    assert abs(a.dropped - b.dropped) <= 1e-3 * p.shape[0]


@pytest.mark.cuda
@pytest.mark.kaolin
def test_auto_keeps_torch_when_inside_touches_the_border():
    vol = (_smooth_random(128, 6) > 0).float().cuda()
    mesh = voxelgrid_to_mesh(vol)
    vt, ft = marching_cubes(vol, 0.5)
    assert mesh.meta["backend"] == "torch CUDA" and mesh.num_faces == ft.shape[0]


@pytest.mark.cuda
def test_marching_cubes_cuda_graphs_replay_the_exact_mesh(monkeypatch):
    """Repeated extractions on the GPU are replayed from CUDA graphs (captured on the second call
    of a shape and capacities): every call, for fields of the same shape with other counts, another
    level, the ascent winding, gives what the eager exact path and the CPU give, and a result is
    not overwritten by the next call."""
    import smrnb.geometry._graphs as graphs
    import smrnb.geometry._marching_cubes as mc

    monkeypatch.delenv("SMRNB_CUDA_GRAPHS", raising=False)
    graphs.release()
    before = graphs.status()
    vols = [(_sphere(128, 50.3), 0.0), (_sphere(128, 50.3), 0.0), (_sphere(128, 50.3), 0.0),
            (_sphere(128, 47.9), 0.0), (_smooth_random(128, 1), 0.0), (_smooth_random(128, 1), 0.0),
            (_smooth_random(128, 1), 0.1), (_smooth_random(128, 1), 0.1), (_sphere(128, 50.3), 0.0)]
    results = []
    for vol, level in vols:
        v, f = marching_cubes(vol.cuda(), level)
        v0, f0 = mc._marching_cubes_exact(vol.cuda(), level, None)
        vc, fc = marching_cubes(vol, level)
        assert torch.equal(f, f0) and torch.equal(v, v0)
        assert torch.equal(f.cpu(), fc) and torch.allclose(v.cpu(), vc, atol=1e-4)
        results.append((v.clone(), f.clone(), v, f))
    for v_copy, f_copy, v, f in results:  # later replays did not write into earlier results
        assert torch.equal(v, v_copy) and torch.equal(f, f_copy)
    after = graphs.status()
    assert after["off_reason"] is None, after["off_reason"]
    assert after["captures"] - before["captures"] >= 4  # the four segments of the sphere at least
    assert after["replays"] - before["replays"] >= 8
    total = torch.cuda.get_device_properties(0).total_memory
    assert 0 < after["bytes"] <= min(graphs.MAX_BYTES, graphs.MAX_BYTES_FRACTION * total) + (512 << 20)
    va, fa = marching_cubes(_sphere(128, 50.3).cuda(), 0.0, gradient_direction="ascent")
    assert torch.equal(fa.cpu(), results[0][1].cpu().flip(1))
    bad = _sphere(128, 50.3)
    bad[3, 4, 5] = float("nan")
    with pytest.raises(Exception, match="volume must be finite, got 1 NaN"):
        marching_cubes(bad.cuda(), 0.0)
    v, f = marching_cubes(_sphere(128, 50.3).cuda(), 0.0)  # the graphs still work after the error
    assert torch.equal(f, results[0][1])
    graphs.release()
    assert graphs.status()["segments"] == 0


@pytest.mark.cuda
def test_voxelize_cuda_graphs_same_grid_and_counts(monkeypatch):
    """Voxelization replayed from a CUDA graph (points padded with +inf up to a capacity): clouds of
    different sizes in one capacity give the eager grid and the exact dropped counts."""
    import smrnb.geometry._graphs as graphs
    import smrnb.geometry._voxels as vx

    monkeypatch.delenv("SMRNB_CUDA_GRAPHS", raising=False)
    graphs.release()
    g = torch.Generator().manual_seed(5)
    before = graphs.status()["replays"]
    grids = []
    for n in (1_000_000, 1_000_000, 1_000_000, 990_001, 1_040_000, 1_000_000):
        p = (torch.randn(n, 3, generator=g) * 0.5).cuda()
        origin = (-1.28, -1.28, -1.28)
        grid = pointcloud_to_voxelgrid(p, 0.01, 256, origin)
        monkeypatch.setenv("SMRNB_CUDA_GRAPHS", "0")
        ref = pointcloud_to_voxelgrid(p, 0.01, 256, origin)
        monkeypatch.delenv("SMRNB_CUDA_GRAPHS")
        assert torch.equal(grid.occupancy, ref.occupancy)
        assert grid.dropped == ref.dropped > 0
        inside = ((p - torch.tensor(origin, device="cuda")) / 0.01).floor()
        assert grid.dropped == int((~((inside >= 0) & (inside <= 255)).all(1)).sum())
        grids.append((grid.occupancy, grid.occupancy.clone()))
    for occ, copy in grids:
        assert torch.equal(occ, copy)
    assert graphs.status()["replays"] - before >= 3
    assert graphs.status()["off_reason"] is None
    for n in (1_000_000, 1_000_000, 1_000_000, 1_020_000):  # origin=None at a realistic size
        p = (torch.randn(n, 3, generator=g) * 0.4 + torch.tensor([0.3, -0.2, 1.1])).cuda()
        grid = pointcloud_to_voxelgrid(p, 0.01, 256)
        monkeypatch.setenv("SMRNB_CUDA_GRAPHS", "0")
        ref = pointcloud_to_voxelgrid(p, 0.01, 256)
        monkeypatch.delenv("SMRNB_CUDA_GRAPHS")
        assert torch.equal(grid.origin, ref.origin) and grid.origin.dtype == torch.float64
        assert torch.equal(grid.occupancy, ref.occupancy) and grid.dropped == ref.dropped > 0
    pb = torch.randn(2, 5000, 3, generator=g).cuda()
    for _ in range(3):  # batched clouds, origin=None
        grid = pointcloud_to_voxelgrid(pb, 0.05, (40, 50, 60))
        occ, kept = vx._voxelize_torch(pb, 0.05, (40, 50, 60), grid.origin.float())
        assert torch.equal(grid.occupancy, occ) and grid.meta["dropped_per_batch"] == (5000 - kept).tolist()
    graphs.release()


@pytest.mark.cuda
def test_cuda_graphs_keep_to_their_memory_budget(monkeypatch):
    """A noise field (nearly every cube active: gigabytes of working set) is not kept in graphs: the
    graphs stay within their budget and the mesh is still the exact one."""
    import smrnb.geometry._graphs as graphs
    import smrnb.geometry._marching_cubes as mc

    monkeypatch.delenv("SMRNB_CUDA_GRAPHS", raising=False)
    graphs.release()
    vol = torch.randn(200, 200, 200, generator=torch.Generator().manual_seed(9)).cuda()
    ref = mc._marching_cubes_exact(vol, 0.0, None)
    for _ in range(3):
        v, f = marching_cubes(vol, 0.0)
        assert torch.equal(f, ref[1]) and torch.equal(v, ref[0])
    st = graphs.status()
    total = torch.cuda.get_device_properties(0).total_memory
    assert st["off_reason"] is None and st["replays"] >= 1  # the dense first segment is still replayed
    assert st["bytes"] <= min(graphs.MAX_BYTES, graphs.MAX_BYTES_FRACTION * total)
    graphs.release()


@pytest.mark.cuda
def test_a_failed_capture_falls_back_to_eager_and_says_why(monkeypatch):
    """A segment that cannot be captured (here: it reads a value back to the host) runs eagerly, turns
    graphs off for the process with the reason in ``status()``, and the steps keep working."""
    import smrnb.geometry._graphs as graphs

    monkeypatch.setitem(graphs._STATE, "off_reason", None)  # restored afterwards
    monkeypatch.delenv("SMRNB_CUDA_GRAPHS", raising=False)
    graphs.release()
    vol = _sphere(96, 30.3).cuda()
    marching_cubes(vol, 0.0)
    marching_cubes(vol, 0.0)  # captured
    assert graphs.status()["segments"] >= 1
    x = torch.arange(10.0, device="cuda")

    def syncing(x):
        return {"y": x * 2, "n": int((x > 3).sum())}

    results = [graphs.run(("syncing",), syncing, {"x": x}, device=x.device, copy_inputs=True) for _ in range(3)]
    for out, graphed in results:
        assert not graphed and out["n"] == 6 and torch.equal(out["y"], x * 2)
    st = graphs.status()
    assert "capture of syncing failed" in st["off_reason"] and st["segments"] == 0
    assert not graphs.enabled(x.device)
    v, f = marching_cubes(vol, 0.0)
    vc, fc = marching_cubes(vol.cpu(), 0.0)
    assert torch.equal(f.cpu(), fc)
    graphs.release()
