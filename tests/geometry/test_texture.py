# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
import math

import pytest
import torch
import trimesh

import smrnb
from smrnb.geometry._render import rasterize
from smrnb.geometry._texture import bake_texture, render_textured, uv_rasterize

K = torch.tensor([[160.0, 0, 79.5], [0, 160.0, 59.5], [0, 0, 1]])
H, W = 120, 160


def _look_at(eye, target=(0.0, 0.0, 0.0)):
    """Camera-to-world, OpenCV axes (z forward, y down)."""
    eye = torch.tensor(eye, dtype=torch.float32)
    z = torch.tensor(target) - eye
    z = z / z.norm()
    up = torch.tensor([0.0, 0.0, 1.0])
    x = torch.linalg.cross(z, up)
    x = x / x.norm()
    y = torch.linalg.cross(z, x)
    P = torch.eye(4)
    P[:3, 0], P[:3, 1], P[:3, 2], P[:3, 3] = x, y, z, eye
    return P


def _color(p):
    """A smooth procedural colour field on the surface (ground truth)."""
    return torch.stack([0.5 + 0.5 * torch.sin(6 * p[:, 0]), 0.5 + 0.5 * torch.cos(5 * p[:, 1]),
                        0.5 + 0.4 * torch.sin(4 * p[:, 2] + 1)], 1)


def _photo(mesh, pose):
    depth, fidx, bary = rasterize(mesh, K, pose, H, W)
    hit = fidx >= 0
    p = (bary[hit][:, :, None] * mesh.vertices[mesh.faces[fidx[hit]]]).sum(1)
    img = torch.zeros(H, W, 3)
    img[hit] = _color(p)
    return (img * 255).round().to(torch.uint8), depth, hit


def _scene():
    s = trimesh.creation.icosphere(4, radius=0.3)
    mesh = smrnb.Mesh(torch.tensor(s.vertices, dtype=torch.float32), torch.tensor(s.faces), frame="opencv")
    poses = []
    for k in range(12):
        a = 2 * math.pi * k / 12
        poses.append(_look_at((1.0 * math.cos(a), 1.0 * math.sin(a), 0.3 * (-1) ** k)))
    poses = torch.stack(poses)
    photos = [_photo(mesh, p) for p in poses]
    frames = smrnb.Frames(torch.stack([d for _, d, _ in photos]), K, color=torch.stack([c for c, _, _ in photos]),
                          poses=poses)
    return mesh, frames


def _psnr(a, b, mask):
    mse = ((a - b) ** 2)[mask].mean()
    return float(10 * torch.log10(1.0 / mse))


def test_uv_rasterize_covers_charts_without_gaps():
    s = trimesh.creation.icosphere(2)
    uvs, fuv = smrnb.auto_uv(torch.tensor(s.vertices, dtype=torch.float32), torch.tensor(s.faces), resolution=128)
    fidx, bary = uv_rasterize(uvs, fuv, 128)
    hit = fidx >= 0
    assert torch.allclose(bary[hit].sum(-1), torch.ones(int(hit.sum())), atol=1e-5)
    # texel centres reproduce their own uv from the barycentrics
    rows, cols = torch.nonzero(hit, as_tuple=True)
    uv = (bary[hit][:, :, None] * uvs[fuv[fidx[hit]]]).sum(1)
    assert torch.allclose(uv[:, 0], (cols + 0.5) / 128, atol=1e-4)
    assert torch.allclose(uv[:, 1], 1 - (rows + 0.5) / 128, atol=1e-4)
    # covered area matches the charts' uv area
    q = uvs[fuv]
    area = 0.5 * ((q[:, 1, 0] - q[:, 0, 0]) * (q[:, 2, 1] - q[:, 0, 1]) - (q[:, 2, 0] - q[:, 0, 0]) * (q[:, 1, 1] - q[:, 0, 1])).abs().sum()
    assert float(hit.sum()) / 128**2 == pytest.approx(float(area), rel=0.05)


def test_bake_reproduces_held_out_view():
    mesh, frames = _scene()
    uvs, fuv = smrnb.auto_uv(mesh.vertices, mesh.faces, chart_num=30, resolution=256)
    mesh = mesh.replace(uvs=uvs, face_uvs_idx=fuv)
    train = frames.select(list(range(0, 12, 2)) + [3, 7])
    held = [1, 5, 9, 11]
    res = bake_texture(mesh, train, resolution=256)
    assert res.texture.shape == (256, 256, 3) and res.confidence.shape == (256, 256)
    assert res.views_used == len(train)
    assert res.texels_seen / res.texels_in_charts > 0.9
    assert float(res.confidence.max()) <= 1.0 and float(res.confidence.min()) >= 0.0
    for i in held:
        img, hit = render_textured(res.mesh, K, frames.poses[i], H, W)
        gt = frames.color[i].float() / 255
        # inner pixels only (silhouette pixels mix with background in neither image)
        inner = hit & (torch.nn.functional.max_pool2d((~hit).float()[None, None], 5, 1, 2)[0, 0] == 0)
        assert _psnr(img, gt, inner) > 28.0


def test_bake_visibility_uses_depth_test():
    # a small occluder in front of the sphere: the sphere texels behind it must not get its colour
    mesh, frames = _scene()
    uvs, fuv = smrnb.auto_uv(mesh.vertices, mesh.faces, chart_num=30, resolution=128)
    mesh = mesh.replace(uvs=uvs, face_uvs_idx=fuv)
    # paint a red blob into frame 0's photo where the surface is NOT visible: it must have no effect
    f0 = frames.select([0])
    col = f0.color.clone()
    depth = f0.depth.clone()
    col[0][depth[0] == 0] = torch.tensor([255, 0, 0], dtype=torch.uint8)
    f0 = smrnb.Frames(depth, K, color=col, poses=f0.poses)
    a = bake_texture(mesh, f0, resolution=128, dilate=0)
    red = (a.texture[..., 0] > 0.9) & (a.texture[..., 1] < 0.1) & (a.texture[..., 2] < 0.1)
    assert int(red.sum()) < 0.001 * 128 * 128


def test_bake_bad_input():
    mesh, frames = _scene()
    with pytest.raises(smrnb.SmrnbValueError, match=r"mesh must have uvs and face_uvs_idx \(run smrnb.auto_uv first\)"):
        bake_texture(mesh, frames)
    uvs, fuv = smrnb.auto_uv(mesh.vertices, mesh.faces, resolution=64)
    m = mesh.replace(uvs=uvs, face_uvs_idx=fuv)
    with pytest.raises(smrnb.SmrnbValueError, match="frames must carry camera-to-world poses to bake a texture, got poses=None"):
        bake_texture(m, smrnb.Frames(frames.depth, K, color=frames.color))
    with pytest.raises(smrnb.SmrnbValueError, match="frames must carry color images to bake a texture, got color=None"):
        bake_texture(m, smrnb.Frames(frames.depth, K, poses=frames.poses))
    with pytest.raises(smrnb.SmrnbValueError, match=r"resolution must be in \[16, 8192\], got 8"):
        bake_texture(m, frames, resolution=8)
    with pytest.raises(smrnb.SmrnbTypeError, match="frames must be a smrnb.Frames, got list"):
        bake_texture(m, [])
    empty = smrnb.Frames(frames.depth[:0], K, color=frames.color[:0], poses=frames.poses[:0])
    with pytest.raises(smrnb.SmrnbValueError, match="frames must hold at least one frame to bake a texture, got 0"):
        bake_texture(m, empty)  # as fuse_tsdf refuses it: never a black texture


@pytest.mark.cuda
def test_bake_cuda_matches_cpu():
    mesh, frames = _scene()
    uvs, fuv = smrnb.auto_uv(mesh.vertices, mesh.faces, chart_num=30, resolution=256)
    mesh = mesh.replace(uvs=uvs, face_uvs_idx=fuv)
    a = bake_texture(mesh, frames, resolution=256)
    b = bake_texture(mesh.to("cuda"), frames.to("cuda"), resolution=256)
    assert b.texture.device.type == "cuda"
    diff = (a.texture - b.texture.cpu()).abs()
    assert float((diff > 2 / 255).float().mean()) < 0.002


def test_a_bake_times_its_phases_only_when_asked():
    from smrnb.geometry._texture import PHASES

    mesh, frames = _scene()
    uvs, fuv = smrnb.auto_uv(mesh.vertices, mesh.faces, resolution=128)
    mesh = mesh.replace(uvs=uvs, face_uvs_idx=fuv)
    plain = bake_texture(mesh, frames, resolution=128)
    record: list = []
    token = PHASES.set(record)
    try:
        res = bake_texture(mesh, frames, resolution=128)
    finally:
        PHASES.reset(token)
    assert torch.equal(res.texture, plain.texture)  # timing changes nothing
    (ph,) = record
    assert ph["resolution"] == 128 and ph["texels"] == res.texels_in_charts
    assert len(ph["views"]) == len(frames)  # one entry per frame, in order
    # each view's candidates are the chart texels inside its image (in front of the camera, occluded or not):
    # the whole sphere is in every view's frustum here
    cands = [v[3] for v in ph["views"]]
    assert all(0 < c <= ph["texels"] for c in cands) and max(cands) == ph["texels"]
    parts = [ph["setup"], ph["finish"], *(t for v in ph["views"] for t in v[:3])]
    assert all(t >= 0 for t in parts) and sum(parts) <= res.seconds  # disjoint pieces of the call
    bake_texture(mesh, frames, resolution=64)
    assert len(record) == 1  # nothing recorded once the variable is reset


def test_the_dilation_ring_is_the_distance_transforms():
    """The texels within `dilate` of a chart, found by a disc dilation on the texture's device, are exactly
    those scipy's Euclidean distance transform puts within `dilate`."""
    from scipy.ndimage import distance_transform_edt

    from smrnb.geometry._texture import _near

    g = torch.Generator().manual_seed(0)
    for (h, w), density in (((120, 170), 0.01), ((1, 60), 0.1), ((60, 1), 0.1), ((9, 9), 0.02), ((80, 50), 0.3)):
        for radius in (1, 2, 3, 4, 7, 12, 64):
            mask = torch.rand(h, w, generator=g) < density
            mask[h // 2, w // 2] = True  # at least one chart texel (the bake dilates only around charts)
            want = torch.as_tensor(distance_transform_edt(~mask.numpy()) <= radius)
            assert torch.equal(_near(mask, radius), want), (h, w, density, radius)
