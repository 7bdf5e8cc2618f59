# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Back-projection, axis conventions, and the conventions checked on real Redwood data."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import smrnb
from smrnb.geometry._mesh import Frames, Mesh, PointCloud
from smrnb.geometry._points import OPENNI_TO_OPENGL, convert_coordinates, depth_to_points, frames_to_points

K640 = torch.tensor([[525.0, 0.0, 319.5], [0.0, 525.0, 239.5], [0.0, 0.0, 1.0]])


def _K(fx, fy, cx, cy, dtype=torch.float64):
    return torch.tensor([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]], dtype=dtype)


def _rot(ax, ay, az):
    cx, sx, cy, sy, cz, sz = math.cos(ax), math.sin(ax), math.cos(ay), math.sin(ay), math.cos(az), math.sin(az)
    Rx = torch.tensor([[1, 0, 0], [0, cx, -sx], [0, sx, cx]], dtype=torch.float64)
    Ry = torch.tensor([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]], dtype=torch.float64)
    Rz = torch.tensor([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]], dtype=torch.float64)
    return Rz @ Ry @ Rx


def _pose(ax, ay, az, t):
    T = torch.eye(4, dtype=torch.float64)
    T[:3, :3] = _rot(ax, ay, az)
    T[:3, 3] = torch.tensor(t, dtype=torch.float64)
    return T


# ------------------------------------------------------------------------------------ conventions

def test_public_names_resolve_to_points_module():
    assert smrnb.OPENNI_TO_OPENGL is OPENNI_TO_OPENGL
    assert smrnb.convert_coordinates is convert_coordinates
    assert smrnb.depth_to_points is depth_to_points and smrnb.frames_to_points is frames_to_points


def test_openni_to_opengl_is_the_yz_flip_and_its_own_inverse():
    assert torch.equal(OPENNI_TO_OPENGL, torch.diag(torch.tensor([1.0, -1.0, -1.0, 1.0])))
    assert torch.equal(OPENNI_TO_OPENGL @ OPENNI_TO_OPENGL, torch.eye(4))
    assert float(torch.linalg.det(OPENNI_TO_OPENGL[:3, :3])) == 1.0  # a rotation: winding is kept


def test_points_round_trip_and_synonyms():
    g = torch.Generator().manual_seed(1)
    p = torch.randn(100, 3, generator=g)
    gl = convert_coordinates(p, "openni", "opengl")
    assert torch.equal(gl, p * torch.tensor([1.0, -1.0, -1.0]))
    assert torch.equal(convert_coordinates(gl, "opengl", "opencv"), p)
    assert torch.equal(convert_coordinates(p, "opencv", "openni"), p)
    b = torch.randn(2, 50, 3, generator=g, dtype=torch.float64)
    out = convert_coordinates(b, "opencv", "opengl")
    assert out.dtype == torch.float64 and torch.equal(convert_coordinates(out, "opengl", "openni"), b)
    # numpy in, tensor out, input untouched
    a = np.ones((4, 3), dtype=np.float32)
    t = convert_coordinates(a, "opencv", "opengl")
    assert isinstance(t, torch.Tensor) and t[0].tolist() == [1.0, -1.0, -1.0] and a[0].tolist() == [1.0, 1.0, 1.0]


def _project_cv(T_c2w, p, K):
    Tw2c = torch.linalg.inv(T_c2w)
    c = p @ Tw2c[:3, :3].T + Tw2c[:3, 3]
    return torch.stack([K[0, 0] * c[:, 0] / c[:, 2] + K[0, 2], K[1, 1] * c[:, 1] / c[:, 2] + K[1, 2]], 1)


def _project_gl(T_c2w, p, K):
    """OpenGL camera: looks along -z, y up; pixel rows still grow downwards."""
    Tw2c = torch.linalg.inv(T_c2w)
    c = p @ Tw2c[:3, :3].T + Tw2c[:3, 3]
    assert bool((c[:, 2] < 0).all())  # in front of an OpenGL camera means negative z
    return torch.stack([K[0, 0] * c[:, 0] / -c[:, 2] + K[0, 2], K[1, 2] - K[1, 1] * c[:, 1] / -c[:, 2]], 1)


def test_pose_conversion_keeps_projections():
    K = _K(500, 510, 320, 240)
    T = _pose(0.3, -0.5, 0.2, [0.4, -1.0, 2.0])
    g = torch.Generator().manual_seed(2)
    cam = torch.rand(200, 3, generator=g, dtype=torch.float64) * torch.tensor([2.0, 2.0, 3.0]) + torch.tensor(
        [-1.0, -1.0, 1.0])
    world = cam @ T[:3, :3].T + T[:3, 3]
    uv = _project_cv(T, world, K)
    # axes="both": converted points through the converted pose, OpenGL camera model -> same pixels
    T_both = convert_coordinates(T, "opencv", "opengl")
    assert torch.allclose(T_both, OPENNI_TO_OPENGL.double() @ T @ OPENNI_TO_OPENGL.double())
    assert torch.allclose(_project_gl(T_both, convert_coordinates(world, "opencv", "opengl"), K), uv, atol=1e-9)
    # axes="camera": the recon-facts recipe T @ diag(1,-1,-1,1); the world stays OpenCV
    T_cam = convert_coordinates(T, "opencv", "opengl", axes="camera")
    assert torch.allclose(T_cam, T @ OPENNI_TO_OPENGL.double())
    assert torch.allclose(_project_gl(T_cam, world, K), uv, atol=1e-9)
    # round trips, batched
    Tb = torch.stack([T, _pose(0.1, 0.2, 0.3, [1, 2, 3])])
    for axes in ("both", "camera"):
        back = convert_coordinates(convert_coordinates(Tb, "openni", "opengl", axes=axes), "opengl", "openni", axes=axes)
        assert torch.allclose(back, Tb, atol=1e-12)


def test_convert_containers():
    pc = PointCloud(torch.tensor([[1.0, 2.0, 3.0]]), normals=torch.tensor([[0.0, 0.0, -1.0]]))
    gl = convert_coordinates(pc, "opencv", "opengl")
    assert gl.frame == "opengl" and gl.points.tolist() == [[1.0, -2.0, -3.0]] and gl.normals.tolist() == [[0.0, 0.0, 1.0]]
    assert pc.points.tolist() == [[1.0, 2.0, 3.0]]
    m = Mesh(torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]), torch.tensor([[0, 1, 2]]),
             frame="opencv")
    mg = convert_coordinates(m, "openni", "opengl")
    assert mg.frame == "opengl" and mg.vertices[2].tolist() == [0.0, -1.0, -1.0]
    with pytest.raises(smrnb.SmrnbValueError, match="src must match the container's frame 'opencv', got src='opengl'"):
        convert_coordinates(pc, "opengl", "opencv")


def test_convert_bad_input():
    p = torch.zeros(3, 3)
    with pytest.raises(smrnb.SmrnbValueError, match="src must be one of 'opencv', 'openni', 'opengl', got 'ros'"):
        convert_coordinates(p, "ros", "opengl")
    with pytest.raises(smrnb.SmrnbValueError, match="axes must be one of 'both', 'camera'"):
        convert_coordinates(p, "opencv", "opengl", axes="world")
    with pytest.raises(smrnb.SmrnbValueError, match=r"x must have shape \(N, 3\) or \(N, N, 3\).*got \(4, 2\)"):
        convert_coordinates(torch.zeros(4, 2), "opencv", "opengl")
    with pytest.raises(smrnb.SmrnbTypeError, match="x must be a floating-point tensor, got dtype torch.int64"):
        convert_coordinates(torch.zeros(4, 3, dtype=torch.long), "opencv", "opengl")
    with pytest.raises(smrnb.SmrnbTypeError, match="x must be a torch.Tensor or numpy array, got str"):
        convert_coordinates("points", "opencv", "opengl")


# ---------------------------------------------------------------------------------- depth_to_points

def test_fronto_parallel_plane_exact():
    H, W = 48, 64
    K = _K(50.0, 55.0, 31.5, 23.5)
    pc = depth_to_points(torch.full((H, W), 2.0, dtype=torch.float64), K)
    assert len(pc) == H * W and pc.frame == "opencv" and pc.meta["space"] == "camera"
    assert pc.points.dtype == torch.float64 and torch.equal(pc.points[:, 2], torch.full((H * W,), 2.0, dtype=torch.float64))
    v, u = torch.meshgrid(torch.arange(H, dtype=torch.float64), torch.arange(W, dtype=torch.float64), indexing="ij")
    assert torch.allclose(pc.points[:, 0], ((u - 31.5) * 2.0 / 50.0).flatten(), atol=1e-12)
    assert torch.allclose(pc.points[:, 1], ((v - 23.5) * 2.0 / 55.0).flatten(), atol=1e-12)
    # pixel centres at integer coordinates: the pixel at (cx, cy) lies on the optical axis
    pc2 = depth_to_points(torch.full((5, 7), 1.5), _K(10, 10, 3, 2, torch.float32))
    assert pc2.points.dtype == torch.float32 and pc2.points[2 * 7 + 3].tolist() == [0.0, 0.0, 1.5]


def test_tilted_plane_recovered():
    H, W = 60, 80
    K = _K(70.0, 70.0, 39.5, 29.5)
    n = torch.tensor([0.2, -0.3, 1.0], dtype=torch.float64)
    n = n / n.norm()
    c = 1.7  # plane n . X = c
    v, u = torch.meshgrid(torch.arange(H, dtype=torch.float64), torch.arange(W, dtype=torch.float64), indexing="ij")
    rays = torch.stack([(u - 39.5) / 70.0, (v - 29.5) / 70.0, torch.ones_like(u)], -1)
    depth = c / (rays @ n)
    pc = depth_to_points(depth, K)
    assert len(pc) == H * W
    assert float((pc.points @ n - c).abs().max()) < 1e-12


def test_pose_puts_points_in_world_frame():
    T = _pose(0.1, 0.7, -0.2, [1.0, 2.0, -0.5])
    depth = torch.rand(20, 30, generator=torch.Generator().manual_seed(3), dtype=torch.float64) + 0.5
    K = _K(40, 40, 14.5, 9.5)
    cam = depth_to_points(depth, K)
    world = depth_to_points(depth, K, pose=T)
    assert world.meta["space"] == "world"
    assert torch.allclose(world.points, cam.points @ T[:3, :3].T + T[:3, 3], atol=1e-12)


def test_invalid_values_excluded_and_counted():
    d = torch.full((4, 5), 1.0)
    d[0, 0] = 0
    d[0, 1] = float("nan")
    d[0, 2] = float("inf")
    d[0, 3] = -float("inf")
    d[1, 0] = -2.0
    d[1, 1] = 9.0  # out of range below
    pc = depth_to_points(d, _K(5, 5, 2, 1.5, torch.float32), depth_max=5.0)
    assert len(pc) == 20 - 6
    # -inf counts as both non-finite and negative; the range count covers only otherwise-valid pixels
    assert pc.meta["excluded"] == {"zero": 1, "nonfinite": 3, "negative": 2, "raw_65535": 0, "out_of_range": 1}
    assert bool(torch.isfinite(pc.points).all()) and bool((pc.points[:, 2] == 1.0).all())
    # raw uint16 with 65535 sentinel and zeros (7-Scenes style)
    raw = np.full((4, 5), 1500, dtype=np.uint16)
    raw[0, :2] = 65535
    raw[3, 4] = 0
    pc = depth_to_points(raw, _K(5, 5, 2, 1.5), depth_scale=1000)
    assert len(pc) == 17 and pc.meta["excluded"]["raw_65535"] == 2 and pc.meta["excluded"]["zero"] == 1
    assert torch.allclose(pc.points[:, 2], torch.full((17,), 1.5))
    # depth range
    d2 = torch.linspace(0.1, 2.0, 20).reshape(4, 5)
    pc = depth_to_points(d2, _K(5, 5, 2, 1.5, torch.float32), depth_min=0.5, depth_max=1.5)
    assert bool(((pc.points[:, 2] > 0.5) & (pc.points[:, 2] <= 1.5)).all())
    assert len(pc) == int(((d2 > 0.5) & (d2 <= 1.5)).sum())


def test_nan_excluded_counts_exact():
    d = torch.full((4, 5), 1.0)
    d[0, 1] = float("nan")
    d[2, 2] = float("nan")
    pc = depth_to_points(d, _K(5, 5, 2, 1.5, torch.float32))
    assert pc.meta["excluded"] == {"zero": 0, "nonfinite": 2, "negative": 0, "raw_65535": 0, "out_of_range": 0}
    assert len(pc) == 18


def test_stride_and_colors():
    H, W = 9, 10
    color = torch.arange(H * W * 3, dtype=torch.int64).remainder(256).to(torch.uint8).reshape(H, W, 3)
    pc = depth_to_points(torch.ones(H, W), _K(5, 5, 4.5, 4, torch.float32), color=color, stride=4)
    assert len(pc) == math.ceil(H / 4) * math.ceil(W / 4)
    assert torch.allclose(pc.colors, color[::4, ::4].reshape(-1, 3).float() / 255.0)
    assert float(pc.colors.max()) <= 1.0
    # stride keeps pixel coordinates: the second point is pixel column 4
    assert abs(float(pc.points[1, 0]) - (4 - 4.5) / 5) < 1e-7
    fc = torch.full((H, W, 3), 0.5)
    assert torch.equal(depth_to_points(torch.ones(H, W), _K(5, 5, 4.5, 4), color=fc).colors, torch.full((H * W, 3), 0.5))


def test_depth_to_points_bad_input_messages():
    K = _K(5, 5, 2, 1.5)
    with pytest.raises(smrnb.SmrnbValueError, match=r"depth has no valid pixels: all 20 sampled pixels are excluded "
                                                   r"\(zero: 20"):
        depth_to_points(torch.zeros(4, 5), K)
    with pytest.raises(smrnb.SmrnbValueError, match=r"NaN/inf: 20"):
        depth_to_points(torch.full((4, 5), float("nan")), K)
    with pytest.raises(smrnb.SmrnbValueError, match="depth_scale is required for integer depth"):
        depth_to_points(np.ones((4, 5), dtype=np.uint16), K)
    with pytest.raises(smrnb.SmrnbValueError, match=r"depth must have shape \(H, W\), got \(2, 4, 5\) \(for several "
                                                   "frames use frames_to_points\\)"):
        depth_to_points(torch.ones(2, 4, 5), K)
    with pytest.raises(smrnb.SmrnbTypeError, match="depth must be a float .* got dtype torch.bool"):
        depth_to_points(torch.ones(4, 5, dtype=torch.bool), K)
    with pytest.raises(smrnb.SmrnbValueError, match=r"K must have shape \(3, 3\), got \(3, 4\)"):
        depth_to_points(torch.ones(4, 5), torch.zeros(3, 4))
    with pytest.raises(smrnb.SmrnbValueError, match="K must be finite, got 1 NaN/inf value"):
        depth_to_points(torch.ones(4, 5), _K(5, float("nan"), 2, 1.5))
    with pytest.raises(smrnb.SmrnbValueError, match="K must have positive focal lengths fx, fy, got fx=-5"):
        depth_to_points(torch.ones(4, 5), _K(-5, 5, 2, 1.5))
    # K made for 640x480 applied to a half-size image: cx = 319.5 lies outside [0, 319]
    with pytest.raises(smrnb.SmrnbValueError, match=r"K does not match the image size 320x240 \(width x height\): "
                                                   r"principal point \(cx, cy\) = \(319.5, 239.5\) lies outside"):
        depth_to_points(torch.ones(240, 320), K640)
    with pytest.raises(smrnb.SmrnbValueError, match=r"depth_min, depth_max must satisfy 0 <= depth_min < depth_max"):
        depth_to_points(torch.ones(4, 5), K, depth_min=2.0, depth_max=1.0)
    with pytest.raises(smrnb.SmrnbValueError, match="stride must be >= 1, got 0"):
        depth_to_points(torch.ones(4, 5), K, stride=0)
    with pytest.raises(smrnb.SmrnbValueError, match=r"color must have shape \(4, 5, 3\), got \(4, 5\)"):
        depth_to_points(torch.ones(4, 5), K, color=torch.zeros(4, 5))
    with pytest.raises(smrnb.SmrnbValueError, match=r"color must be uint8 or float in \[0, 1\], got float values in "
                                                   r"\[0, 255\]"):
        depth_to_points(torch.ones(4, 5), K, color=torch.full((4, 5, 3), 255.0).index_fill(0, torch.tensor([0]), 0))
    bad_pose = torch.eye(4)
    bad_pose[0, 3] = float("nan")
    with pytest.raises(smrnb.SmrnbValueError, match="pose must be finite"):
        depth_to_points(torch.ones(4, 5), K, pose=bad_pose)
    with pytest.raises(smrnb.SmrnbValueError, match="depth_scale must be > 0"):
        depth_to_points(torch.ones(4, 5), K, depth_scale=0)


# ---------------------------------------------------------------------------------- frames_to_points

def _two_frames(color=True):
    H, W = 12, 16
    K = _K(20, 20, 7.5, 5.5, torch.float32)
    depth = torch.stack([torch.full((H, W), 1.0), torch.full((H, W), 2.0)])
    poses = torch.stack([torch.eye(4, dtype=torch.float64), _pose(0, 0.3, 0, [0.5, 0, 0])]).float()
    col = torch.zeros(2, H, W, 3, dtype=torch.uint8) if color else None
    return Frames(depth, K, col, poses)


def test_frames_to_points_world_cloud():
    fr = _two_frames()
    pc = frames_to_points(fr)
    assert len(pc) == 2 * 12 * 16 and pc.meta["space"] == "world" and pc.colors is not None
    assert pc.meta["frame_counts"] == [192, 192] and pc.meta["frame_index"] == [0, 192]
    second = depth_to_points(fr.depth[1], fr.K, fr.poses[1])
    assert torch.equal(pc.points[192:], second.points)
    # an all-zero frame is skipped and reported
    fr.depth[0] = 0
    pc = frames_to_points(fr)
    assert pc.meta["empty_frames"] == [0] and len(pc) == 192


def test_frames_to_points_errors():
    fr = _two_frames()
    with pytest.raises(smrnb.SmrnbValueError, match="frames.poses is None: 2 frames cannot be put in one world frame"):
        frames_to_points(Frames(fr.depth, fr.K))
    assert frames_to_points(Frames(fr.depth, fr.K), indices=[1]).meta["space"] == "camera"
    with pytest.raises(smrnb.MemoryEstimateError, match=r"raise stride \(e.g. stride=2\)") as ei:
        frames_to_points(fr, max_bytes=1000)
    assert ei.value.knob == "stride" and ei.value.estimate_bytes == 2 * 192 * 24
    with pytest.raises(smrnb.SmrnbTypeError, match="frames must be a smrnb.Frames, got Tensor"):
        frames_to_points(fr.depth)
    fr.depth.zero_()
    with pytest.raises(smrnb.SmrnbValueError, match="frames has no valid depth pixel in any of the 2 selected frames"):
        frames_to_points(fr)
    with pytest.raises(smrnb.SmrnbValueError, match=r"indices must be in \[0, 1\] \(frames has 2\), got 5"):
        frames_to_points(fr, indices=[5])


# ---------------------------------------------------------------------- conventions on real data

def reprojection_dz(frames: Frames, i: int, j: int, inverse: bool = False) -> float:
    """Median |dz| (metres) of frame i's points seen from frame j vs frame j's depth."""
    P = frames.poses.double()
    if inverse:  # the wrong reading: the .log matrices as world-to-camera
        P = torch.linalg.inv(P)
    pc = depth_to_points(frames.depth[i].double(), frames.K, P[i])
    Tw2c = torch.linalg.inv(P[j])
    c = pc.points @ Tw2c[:3, :3].T + Tw2c[:3, 3]
    K = frames.K.double()
    z = c[:, 2]
    u = torch.round(K[0, 0] * c[:, 0] / z + K[0, 2]).long()
    v = torch.round(K[1, 1] * c[:, 1] / z + K[1, 2]).long()
    m = (z > 0.1) & (u >= 0) & (u < frames.width) & (v >= 0) & (v < frames.height)
    dj = frames.depth[j].double()[v[m], u[m]]
    ok = dj > 0
    assert int(ok.sum()) > 10000  # the frames overlap
    return float((dj[ok] - z[m][ok]).abs().median())


@pytest.mark.shared_data
def test_reprojection_redwood_micro_confirms_camera_to_world(redwood_micro):
    fr = smrnb.load_redwood(redwood_micro, frames=[50, 60])
    assert fr.names == ["00050", "00060"]
    dz = reprojection_dz(fr, 1, 0)
    assert dz < 0.003  # data README: 0.7 mm
    assert reprojection_dz(fr, 1, 0, inverse=True) > 10 * dz


def test_reprojection_bundled_sample_confirms_camera_to_world():
    fr = smrnb.load_sample(frames=[17, 20])  # original frames 51 and 60
    assert fr.names == ["00051", "00060"]
    dz = reprojection_dz(fr, 1, 0)
    assert dz < 0.003
    assert reprojection_dz(fr, 1, 0, inverse=True) > 10 * dz


@pytest.mark.cuda
def test_depth_to_points_cuda_matches_cpu():
    fr = smrnb.load_sample(frames=[0])
    cpu = depth_to_points(fr.depth[0], fr.K, fr.poses[0], fr.color[0])
    gpu = depth_to_points(fr.depth[0].cuda(), fr.K.cuda(), fr.poses[0].cuda(), fr.color[0].cuda())
    assert gpu.points.is_cuda and len(gpu) == len(cpu)
    assert torch.allclose(gpu.points.cpu(), cpu.points, atol=1e-5)
    assert torch.allclose(gpu.colors.cpu(), cpu.colors)
    pcs = frames_to_points(smrnb.load_sample(max_frames=3).to("cuda"), stride=2)
    assert pcs.points.is_cuda and pcs.meta["space"] == "world"


def test_skewed_K_matches_inverse_K():
    H, W = 10, 12
    K = torch.tensor([[40.0, 3.0, 5.5], [0.0, 42.0, 4.5], [0.0, 0.0, 1.0]], dtype=torch.float64)
    d = torch.rand(H, W, generator=torch.Generator().manual_seed(4), dtype=torch.float64) + 1
    pc = depth_to_points(d, K)
    v, u = torch.meshgrid(torch.arange(H, dtype=torch.float64), torch.arange(W, dtype=torch.float64), indexing="ij")
    pix = torch.stack([u, v, torch.ones_like(u)], -1).reshape(-1, 3)
    expected = (pix @ torch.linalg.inv(K).T) * d.reshape(-1, 1)
    assert torch.allclose(pc.points, expected, atol=1e-12)
