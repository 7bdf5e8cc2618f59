# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The z-buffer rasterizer against analytic shapes (plane, tilted plane, sphere) and trimesh rays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import trimesh

import smrnb
from smrnb.geometry._mesh import Mesh
from smrnb.geometry._render import rasterize, render_depth

H, W = 60, 80
K = torch.tensor([[70.0, 0.0, 39.5], [0.0, 70.0, 29.5], [0.0, 0.0, 1.0]])


def _rays(h=H, w=W, k=K):
    v, u = torch.meshgrid(torch.arange(h, dtype=torch.float64), torch.arange(w, dtype=torch.float64), indexing="ij")
    return torch.stack([(u - float(k[0, 2])) / float(k[0, 0]), (v - float(k[1, 2])) / float(k[1, 1]),
                        torch.ones_like(u)], dim=-1)  # camera frame, z = 1


def _quad(corners) -> Mesh:
    return Mesh(torch.tensor(np.asarray(corners), dtype=torch.float32), torch.tensor([[0, 1, 2], [0, 2, 3]]))


def _look_at(cam, target=(0.0, 0.0, 0.0), up=(0.0, 0.0, 1.0)) -> torch.Tensor:
    cam = np.asarray(cam, float)
    f = np.asarray(target, float) - cam
    f /= np.linalg.norm(f)
    r = np.cross(f, up)
    r /= np.linalg.norm(r)
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = r, np.cross(f, r), f, cam
    return torch.tensor(T, dtype=torch.float32)


def test_public_names():
    assert smrnb.render_depth is render_depth


def test_fronto_parallel_plane_depth_is_exact():
    plane = _quad([[-5, -5, 2.5], [5, -5, 2.5], [5, 5, 2.5], [-5, 5, 2.5]])
    d = render_depth(plane, K, torch.eye(4), H, W)
    assert d.shape == (H, W) and d.dtype == torch.float32
    assert torch.allclose(d, torch.full_like(d, 2.5), atol=1e-5)


def test_tilted_plane_matches_ray_plane_intersection_with_pose():
    # plane n . x = c in world; camera translated and rotated by a known pose
    n = np.array([0.3, -0.2, 1.0])
    n /= np.linalg.norm(n)
    c = 3.0
    e1 = np.cross(n, [1.0, 0, 0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(n, e1)
    target = np.array([0.5, 0.3, 3.0])
    p0 = target - (n @ target - c) * n  # plane point in front of the camera
    corners = [p0 + 4 * (a * e1 + b * e2) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    pose = _look_at([0.2, -0.1, 0.0], target=target, up=(0.0, -1.0, 0.0))
    cz = (torch.tensor(np.array(corners)) - pose[:3, 3].double()) @ pose[:3, :3].double()
    assert (cz[:, 2] > 0.5).all()  # no near-plane clipping is involved
    d = render_depth(_quad(corners), K, pose, H, W)
    R, t = pose[:3, :3].double(), pose[:3, 3].double()
    rw = _rays() @ R.T  # world direction per pixel for camera-z = 1
    s = (c - torch.tensor(n) @ t) / (rw @ torch.tensor(n))  # camera z along the ray
    assert (s > 0).all()
    assert torch.allclose(d.double(), s, rtol=1e-5, atol=1e-5)


def test_sphere_depth_matches_analytic_ray_intersection():
    r = 0.3
    sph = trimesh.creation.icosphere(subdivisions=5, radius=r)
    mesh = Mesh(torch.tensor(sph.vertices, dtype=torch.float32), torch.tensor(sph.faces))
    pose = torch.eye(4)
    pose[:3, 3] = torch.tensor([0.05, -0.02, -1.2])
    d = render_depth(mesh, K, pose, H, W).double()
    ray = _rays()
    o = -pose[:3, 3].double()  # sphere centre in camera coords
    a = (ray * ray).sum(-1)
    b = -2 * (ray @ o)
    cc = o @ o - r * r
    disc = b * b - 4 * a * cc
    s = (-b - disc.clamp_min(0).sqrt()) / (2 * a)
    hit = disc > 0
    # inscribed polyhedron: max sagitta r (1 - cos(theta/2)) ~ 0.1 mm here; silhouettes differ by a pixel
    inner = disc > 0.2 * disc.max()
    assert (d[inner] - s[inner]).abs().max() < 3e-4
    assert ((d > 0) != hit).sum() <= 0.02 * hit.sum()
    assert (d[~hit & (d > 0)] > 0).all()


def test_face_index_and_barycentrics_reconstruct_the_hit_point():
    sph = trimesh.creation.icosphere(subdivisions=3, radius=0.4)
    mesh = Mesh(torch.tensor(sph.vertices, dtype=torch.float32), torch.tensor(sph.faces))
    pose = _look_at([1.0, 0.6, 0.5])
    depth, fidx, bary = rasterize(mesh, K, pose, H, W)
    hit = fidx >= 0
    assert torch.equal(hit, depth > 0)
    assert (bary[hit] >= -1e-4).all() and torch.allclose(bary[hit].sum(-1), torch.ones(int(hit.sum())), atol=1e-5)
    assert (bary[~hit] == 0).all()
    P = (bary[hit][:, :, None] * mesh.vertices[mesh.faces[fidx[hit]]]).sum(1)
    Pc = (P - pose[:3, 3]) @ pose[:3, :3]
    assert torch.allclose(Pc[:, 2], depth[hit], atol=1e-5)
    v, u = torch.nonzero(hit, as_tuple=True)
    assert torch.allclose(70 * Pc[:, 0] / Pc[:, 2] + 39.5, u.float(), atol=1e-3)
    assert torch.allclose(70 * Pc[:, 1] / Pc[:, 2] + 29.5, v.float(), atol=1e-3)
    # the visible face is front-facing (normal towards the camera)
    f = mesh.faces[fidx[hit]]
    tri = mesh.vertices[f]
    nrm = torch.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0], dim=1)
    assert ((nrm * (pose[:3, 3] - P)).sum(1) > 0).all()


def test_matches_trimesh_ray_casting_on_occluding_shapes():
    box = trimesh.creation.box(extents=(0.4, 0.3, 0.5))
    ball = trimesh.creation.icosphere(subdivisions=2, radius=0.2)
    ball.apply_translation([0.15, 0.1, 0.35])
    tm = trimesh.util.concatenate([box, ball])
    mesh = Mesh(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces))
    pose = _look_at([1.1, -0.7, 0.8])
    d = render_depth(mesh, K, pose, H, W).double()
    R, t = pose[:3, :3].double().numpy(), pose[:3, 3].double().numpy()
    dirs = (_rays().reshape(-1, 3).numpy()) @ R.T
    locs, ray_idx, _ = tm.ray.intersects_location(np.repeat(t[None], len(dirs), 0), dirs, multiple_hits=True)
    z = ((locs - t) @ R)[:, 2]
    ref = np.zeros(len(dirs))
    order = np.argsort(-z)  # nearest written last
    ref[ray_idx[order]] = z[order]
    ref = torch.tensor(ref).reshape(H, W)
    both = (ref > 0) & (d > 0)
    assert ((ref > 0) != (d > 0)).sum() <= 0.01 * (ref > 0).sum()  # edge pixels may differ
    assert (d[both] - ref[both]).abs().max() < 1e-4


def test_empty_mesh_and_geometry_behind_camera_give_no_surface():
    empty = Mesh(torch.zeros(0, 3), torch.zeros(0, 3, dtype=torch.int64))
    depth, fidx, bary = rasterize(empty, K, torch.eye(4), H, W)
    assert (depth == 0).all() and (fidx == -1).all() and (bary == 0).all()
    behind = _quad([[-1, -1, -2], [1, -1, -2], [1, 1, -2], [-1, 1, -2]])
    assert (render_depth(behind, K, torch.eye(4), H, W) == 0).all()


def test_bad_input_messages():
    plane = _quad([[-1, -1, 2], [1, -1, 2], [1, 1, 2], [-1, 1, 2]])
    with pytest.raises(smrnb.SmrnbValueError, match=r"K must have shape \(3, 3\), got \(4, 4\)"):
        render_depth(plane, torch.eye(4), torch.eye(4), H, W)
    with pytest.raises(smrnb.SmrnbValueError, match=r"pose must have shape \(4, 4\), got \(3, 4\)"):
        render_depth(plane, K, torch.eye(4)[:3], H, W)
    with pytest.raises(smrnb.SmrnbValueError, match="height must be in"):
        render_depth(plane, K, torch.eye(4), 0, W)
    with pytest.raises(smrnb.SmrnbTypeError, match="mesh must be a smrnb.Mesh, got ndarray"):
        render_depth(np.zeros((3, 3)), K, torch.eye(4), H, W)
    bad = K.clone()
    bad[0, 0] = -1
    with pytest.raises(smrnb.SmrnbValueError, match="positive focal lengths"):
        render_depth(plane, bad, torch.eye(4), H, W)


@pytest.mark.cuda
def test_cuda_matches_cpu():
    sph = trimesh.creation.icosphere(subdivisions=4, radius=0.4)
    mesh = Mesh(torch.tensor(sph.vertices, dtype=torch.float32), torch.tensor(sph.faces))
    pose = _look_at([1.0, 0.6, 0.5])
    d0, f0, b0 = rasterize(mesh, K, pose, 240, 320)
    d1, f1, b1 = rasterize(mesh.to("cuda"), K.cuda(), pose.cuda(), 240, 320)
    assert d1.device.type == "cuda"
    same = f0 == f1.cpu()
    assert same.float().mean() > 0.999
    assert torch.allclose(d0, d1.cpu(), atol=1e-5)
    assert torch.allclose(b0[same], b1.cpu()[same], atol=1e-4)


# ------------------------------------------------------------------ pixel-centre convention

def _tilted_plane_scene():
    n = np.array([0.5, -0.3, 1.0])
    n /= np.linalg.norm(n)
    c = 2.0
    # the plane n . x = c where the rays through points just outside the image's corners meet it
    k = K.double().numpy()
    corners = []
    for u, v in ((-3, -3), (W + 2, -3), (W + 2, H + 2), (-3, H + 2)):
        ray = np.array([(u - k[0, 2]) / k[0, 0], (v - k[1, 2]) / k[1, 1], 1.0])
        assert ray @ n > 0.1
        corners.append(ray * c / (ray @ n))
    return _quad(corners), n, c


def test_pixel_center_half_samples_at_u_plus_half():
    plane, n, c = _tilted_plane_scene()
    for pc in (0.0, 0.5):
        d = render_depth(plane, K, torch.eye(4), H, W, pixel_center=pc).double()
        k = K.clone()
        k[0, 2] -= pc  # the analytic ray of pixel u passes through u + pc
        k[1, 2] -= pc
        s = c / (_rays(k=k) @ torch.tensor(n))
        assert torch.allclose(d, s, rtol=1e-5, atol=1e-5), pc
    # the half-pixel shift is visible on a slanted surface (this is what the convention decides)
    d0 = render_depth(plane, K, torch.eye(4), H, W)
    d5 = render_depth(plane, K, torch.eye(4), H, W, pixel_center=0.5)
    assert float((d0 - d5).abs().median()) > 1e-3
    # depth_error renders with the convention it is given: frames "measured" by a u + 0.5 renderer
    frames = smrnb.Frames(d5[None].clone(), K, poses=torch.eye(4)[None])
    assert smrnb.depth_error(plane, frames, pixel_center=0.5)["median_abs_error"] < 1e-6
    assert smrnb.depth_error(plane, frames)["median_abs_error"] > 1e-3
    with pytest.raises(smrnb.SmrnbValueError, match=r"pixel_center must be in \[0, 1\) pixels"):
        render_depth(plane, K, torch.eye(4), H, W, pixel_center=1.0)
    with pytest.raises(smrnb.SmrnbTypeError, match="pixel_center must be a number"):
        render_depth(plane, K, torch.eye(4), H, W, pixel_center="half")


_O3D_CAST = """
import sys
import numpy as np
import open3d as o3d
import open3d.core as o3c

a = np.load(sys.argv[1])
pose = a["pose"]
h, w = int(a["hw"][0]), int(a["hw"][1])
scene = o3d.t.geometry.RaycastingScene()
scene.add_triangles(o3c.Tensor(a["vertices"].astype(np.float32)), o3c.Tensor(a["faces"].astype(np.uint32)))
out = {}
for name in ("K_raw", "K_half"):
    rays = o3d.t.geometry.RaycastingScene.create_rays_pinhole(o3c.Tensor(a[name]), o3c.Tensor(np.linalg.inv(pose)), w, h)
    t = scene.cast_rays(rays)["t_hit"].numpy()
    z = t * (rays.numpy()[..., 3:] @ pose[:3, 2])  # camera z of the hit (the rays are in world coordinates)
    out[name] = np.where(np.isfinite(t), z, 0.0)
np.savez(sys.argv[2], **out)
"""


def _open3d_depths(tm, K_raw: np.ndarray, K_half: np.ndarray, pose: torch.Tensor, h: int, w: int, tmp: Path):
    """Camera-z depth from Open3D's ray caster (rays from ``create_rays_pinhole``, i.e. through u + 0.5)
    for two intrinsics, computed in a child process: Open3D is a bench extra, not a test requirement,
    and the dependency audit of the test session counts what the session itself imports."""
    import subprocess
    import sys

    np.savez(tmp / "in.npz", vertices=np.asarray(tm.vertices), faces=np.asarray(tm.faces), pose=pose.double().numpy(),
             hw=np.array([h, w]), K_raw=K_raw, K_half=K_half)
    r = subprocess.run([sys.executable, "-c", _O3D_CAST, str(tmp / "in.npz"), str(tmp / "out.npz")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = np.load(tmp / "out.npz")
    return torch.tensor(out["K_raw"]), torch.tensor(out["K_half"])


def test_matches_open3d_ray_caster_under_the_same_pixel_centre_convention(tmp_path):
    import importlib.util

    if importlib.util.find_spec("open3d") is None:
        pytest.skip("Open3D is a bench extra (pip install open3d-cpu); the pixel-centre cross-check against its ray "
                    "caster needs it")
    box = trimesh.creation.box(extents=(0.4, 0.3, 0.5))
    ball = trimesh.creation.icosphere(subdivisions=3, radius=0.2)
    ball.apply_translation([0.15, 0.1, 0.35])
    tm = trimesh.util.concatenate([box, ball])
    mesh = Mesh(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces))
    pose = _look_at([1.1, -0.7, 0.8])
    Kn = K.double().numpy()
    K_half = Kn.copy()
    K_half[:2, 2] += 0.5  # Open3D through u + 0.5 with cx + 0.5 == through u with cx

    def agree(a, b):
        both = (a > 0) & (b > 0)
        assert ((a > 0) != (b > 0)).sum() <= 0.01 * (b > 0).sum()  # silhouette pixels may differ
        return float((a[both] - b[both]).abs().max())

    ours_int = render_depth(mesh, K, pose, H, W).double()
    ours_half = render_depth(mesh, K, pose, H, W, pixel_center=0.5).double()
    # Open3D's own convention (u + 0.5), and Open3D made to sample at integer centres
    o3d_raw, o3d_int = _open3d_depths(tm, Kn, K_half, pose, H, W, tmp_path)
    assert agree(ours_half, o3d_raw) < 1e-4
    assert agree(ours_int, o3d_int) < 1e-4
    # across conventions they do not agree: half a pixel on these slanted faces is millimetres
    both = (ours_int > 0) & (o3d_raw > 0)
    assert float((ours_int[both] - o3d_raw[both]).abs().median()) > 1e-3
