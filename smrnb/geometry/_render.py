# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A small z-buffer triangle rasterizer in plain PyTorch (CPU and CUDA): mesh depth and visibility.

Conventions
-----------
* The mesh vertices are in the **world frame of the poses** (whatever frame the camera-to-world
  ``pose`` maps into; for frames loaded from Redwood/TUM/7-Scenes that is the world frame of the
  trajectory). ``mesh.frame`` is not consulted.
* ``pose`` is camera-to-world, 4x4, with OpenCV/OpenNI camera axes (x right, y down, z forward).
* ``K`` is the 3x3 pinhole matrix in pixels; pixel centres sit at integer coordinates, so pixel
  ``(row v, column u)`` looks along the ray through ``((u - cx) / fx, (v - cy) / fy, 1)``. That is
  the convention of the datasets' intrinsics (PrimeSense ``cx = 319.5`` for 640 columns puts the
  optical axis on the image's centre). ``pixel_center=0.5`` samples at ``(u + 0.5, v + 0.5)``
  instead, the convention of Open3D's ``RaycastingScene.create_rays_pinhole`` and of OpenGL: give
  both tools the same convention and they render the same depth (tests/geometry/test_render.py).
* Depth is the camera-frame **z** (not the ray length), in the mesh's units (metres), ``0`` where no
  triangle covers the pixel centre.

Algorithm: vertices are moved into the camera frame and projected; each triangle's pixel bounding
box is expanded into candidate pixels in chunks (bounded memory), the pixel centre is tested with
screen-space edge functions, depth is interpolated perspective-correctly (``1/z`` is affine in screen
space, so the depth equals the exact ray/plane intersection of the triangle), and the nearest
candidate per pixel wins through one ``scatter_reduce(amin)`` on a packed ``(depth bits, face)``
int64 key. Triangles with a vertex closer than ``near`` to the camera plane are dropped (there is
no near-plane clipping); back faces are kept (no culling), so both sides of a surface render.
"""

from __future__ import annotations

from typing import Any

import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._camera import check_K, check_pose
from smrnb.geometry._guards import check_index_range, same_device
from smrnb.geometry._mesh import Mesh
from smrnb.geometry._validate import check_int_range, check_positive

__all__ = ["rasterize", "render_depth"]

# candidate pixels (triangle, pixel) pairs processed at once; ~60 bytes each in temporaries
_CHUNK = 2_000_000


def _check_camera(K: Any, pose: Any, device: torch.device, height: int | None = None,
                  width: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    K = check_K(K, "K", height=height, width=width).to(dtype=torch.float64, device=device)
    pose = check_pose(pose, "pose").to(dtype=torch.float64, device=device)
    return K, pose


def _mesh_arrays(mesh: Any) -> tuple[torch.Tensor, torch.Tensor]:
    if not isinstance(mesh, Mesh):
        raise SmrnbTypeError(f"mesh must be a smrnb.Mesh, got {type(mesh).__name__}")
    return mesh.vertices, mesh.faces


def _check_pixel_center(pixel_center: Any) -> float:
    if isinstance(pixel_center, bool) or not isinstance(pixel_center, (int, float)):
        raise SmrnbTypeError(f"pixel_center must be a number (0.0 or 0.5), got {type(pixel_center).__name__}")
    pc = float(pixel_center)
    if not 0.0 <= pc < 1.0:
        raise SmrnbValueError(f"pixel_center must be in [0, 1) pixels (0.0: centres at integers, 0.5: at u + 0.5 as "
                              f"Open3D's create_rays_pinhole), got {pixel_center!r}")
    return pc


def _chunk_bounds(npix: torch.Tensor) -> list[int]:
    """Triangle index bounds of chunks of about :data:`_CHUNK` candidate pixels (``npix`` per triangle);
    one huge triangle forms its own chunk."""
    csum = torch.cumsum(npix, 0)
    bounds = [0]
    total = int(csum[-1])
    if total > _CHUNK:
        cuts = torch.arange(_CHUNK, total, _CHUNK, device=npix.device, dtype=csum.dtype)
        for i in torch.searchsorted(csum, cuts, right=False).tolist():
            if i + 1 > bounds[-1] and i + 1 < npix.numel():
                bounds.append(i + 1)
    bounds.append(npix.numel())
    return bounds


def _screen_bary(X: torch.Tensor, Y: torch.Tensor, u: torch.Tensor, v: torch.Tensor, inv_area: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Screen-space barycentrics of pixel centres ``(u, v)`` in triangles with corner columns ``X`` and
    rows ``Y`` (n, 3), from the edge functions (``inv_area``: 1 / the signed doubled area)."""
    w0 = ((X[:, 1] - u) * (Y[:, 2] - v) - (X[:, 2] - u) * (Y[:, 1] - v)) * inv_area
    w1 = ((X[:, 2] - u) * (Y[:, 0] - v) - (X[:, 0] - u) * (Y[:, 2] - v)) * inv_area
    return w0, w1, 1.0 - w0 - w1


def rasterize(mesh: Any, K: Any, pose: Any, height: int, width: int, *, near: float = 1e-3,
              pixel_center: float = 0.0, _image_camera: bool = True
              ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Rasterize ``mesh`` into a pinhole camera: per-pixel depth, face index and barycentrics.

    Parameters
    ----------
    mesh : smrnb.Mesh
        ``vertices (V, 3)`` float, metres, in the world frame of ``pose``; ``faces (F, 3)`` integer.
    K : (3, 3) float
        Intrinsics in pixels (fx, fy, cx, cy; pixel centres at integer coordinates).
    pose : (4, 4) float
        Camera-to-world, OpenCV camera axes (x right, y down, z forward).
    height, width : int
        Image size in pixels.
    near : float
        Triangles with a vertex at camera z < ``near`` (metres) are dropped (no clipping).
    pixel_center : float
        Where pixel ``(u, v)`` samples the image plane: at ``(u + pixel_center, v + pixel_center)``
        in the pixel coordinates of ``K``. ``0.0`` (default): centres at integers, the convention of
        the datasets' intrinsics; ``0.5``: Open3D's ``create_rays_pinhole`` / OpenGL convention.

    Returns
    -------
    depth : (H, W) float32
        Camera-frame z of the nearest surface through each pixel centre, 0 where none.
    face_idx : (H, W) int64
        Index into ``mesh.faces`` of the visible triangle, -1 where none.
    bary : (H, W, 3) float32
        Perspective-correct barycentric weights of the hit point with respect to the triangle's
        three vertices (world point = ``sum_i bary[..., i] * vertices[faces[face_idx, i]]``), 0
        where none.

    Everything is computed on ``mesh.vertices.device``.
    """
    verts, faces = _mesh_arrays(mesh)
    device = verts.device
    same_device(vertices=verts, faces=faces)
    check_index_range(faces, verts.shape[0], "faces", "vertices")
    H = check_int_range(height, "height", 1, 1 << 15)
    W = check_int_range(width, "width", 1, 1 << 15)
    near = check_positive(near, "near")
    pc = _check_pixel_center(pixel_center)
    # _image_camera=False: an internal camera that is no image camera (texture.py's UV-space
    # raster, principal point at -0.5): K is checked without the principal-point-in-image rule
    K, pose = _check_camera(K, pose, device, H if _image_camera else None, W if _image_camera else None)

    depth = torch.zeros(H, W, dtype=torch.float32, device=device)
    face_idx = torch.full((H, W), -1, dtype=torch.int64, device=device)
    bary = torch.zeros(H, W, 3, dtype=torch.float32, device=device)
    F = faces.shape[0]
    if F == 0 or verts.shape[0] == 0:
        return depth, face_idx, bary

    # world -> camera (float64 for the transform, float32 afterwards is plenty for pixels)
    R = pose[:3, :3]
    t = pose[:3, 3]
    vc = ((verts.to(torch.float64) - t) @ R).to(torch.float32)  # (V, 3) = R^T (x - t)
    # sampling pixel (u, v) at (u + pc, v + pc) is sampling at (u, v) with the principal point moved by -pc
    fx, fy, cx, cy = (float(K[0, 0]), float(K[1, 1]), float(K[0, 2]) - pc, float(K[1, 2]) - pc)
    skew = float(K[0, 1])
    z = vc[:, 2]
    zs = z.clamp_min(near)
    px = (fx * vc[:, 0] + skew * vc[:, 1]) / zs + cx  # pixel column (u)
    py = fy * vc[:, 1] / zs + cy  # pixel row (v)

    fl = faces.long()
    tri_z = z[fl]  # (F, 3)
    tri_x = px[fl]
    tri_y = py[fl]
    keep = (tri_z >= near).all(dim=1) & torch.isfinite(tri_x).all(dim=1) & torch.isfinite(tri_y).all(dim=1)
    # signed doubled area in screen space; degenerate triangles cover no pixel centre
    area = ((tri_x[:, 1] - tri_x[:, 0]) * (tri_y[:, 2] - tri_y[:, 0])
            - (tri_x[:, 2] - tri_x[:, 0]) * (tri_y[:, 1] - tri_y[:, 0]))
    keep &= area.abs() > 1e-12
    x0 = torch.ceil(tri_x.amin(dim=1)).clamp(0, W - 1)
    x1 = torch.floor(tri_x.amax(dim=1)).clamp(-1, W - 1)
    y0 = torch.ceil(tri_y.amin(dim=1)).clamp(0, H - 1)
    y1 = torch.floor(tri_y.amax(dim=1)).clamp(-1, H - 1)
    keep &= (x1 >= x0) & (y1 >= y0) & (tri_x.amax(dim=1) >= 0) & (tri_y.amax(dim=1) >= 0)
    keep &= (tri_x.amin(dim=1) <= W - 1) & (tri_y.amin(dim=1) <= H - 1)
    fid = torch.nonzero(keep).flatten()
    if fid.numel() == 0:
        return depth, face_idx, bary
    x0 = x0[fid].long()
    y0 = y0[fid].long()
    bw = x1[fid].long() - x0 + 1
    bh = y1[fid].long() - y0 + 1
    npix = bw * bh
    tx, ty, tiz = tri_x[fid], tri_y[fid], 1.0 / tri_z[fid]
    inv_area = 1.0 / area[fid]

    INF_KEY = torch.iinfo(torch.int64).max
    zkey = torch.full((H * W,), INF_KEY, dtype=torch.int64, device=device)
    bounds = _chunk_bounds(npix)
    for a, b in zip(bounds[:-1], bounds[1:]):
        n = npix[a:b]
        local = torch.repeat_interleave(torch.arange(a, b, device=device), n)
        start = torch.cumsum(n, 0) - n
        off = torch.arange(local.numel(), device=device) - torch.repeat_interleave(start, n)
        bwl = bw[local]
        u = x0[local] + off % bwl
        v = y0[local] + torch.div(off, bwl, rounding_mode="floor")
        uf = u.to(torch.float32)
        vf = v.to(torch.float32)
        w0, w1, w2 = _screen_bary(tx[local], ty[local], uf, vf, inv_area[local])
        eps = -1e-6
        inside = (w0 >= eps) & (w1 >= eps) & (w2 >= eps)
        iz = tiz[local]
        zinv = w0 * iz[:, 0] + w1 * iz[:, 1] + w2 * iz[:, 2]
        inside &= zinv > 0
        sel = torch.nonzero(inside).flatten()
        if sel.numel() == 0:
            continue
        zz = (1.0 / zinv[sel]).to(torch.float32)
        # positive float32 bit patterns order like the floats: pack (depth bits << 32) | face
        key = (zz.view(torch.int32).to(torch.int64) << 32) | fid[local[sel]]
        pix = v[sel] * W + u[sel]
        zkey.scatter_reduce_(0, pix, key, reduce="amin", include_self=True)

    hit = zkey != INF_KEY
    hp = torch.nonzero(hit).flatten()
    if hp.numel() == 0:
        return depth, face_idx, bary
    f = zkey[hp] & 0xFFFFFFFF
    face_idx.view(-1)[hp] = f
    # recompute barycentrics and depth for the winning face of each pixel
    u = (hp % W).to(torch.float32)
    v = torch.div(hp, W, rounding_mode="floor").to(torch.float32)
    w0, w1, w2 = _screen_bary(tri_x[f], tri_y[f], u, v, 1.0 / area[f])
    iz = 1.0 / tri_z[f]
    pw = torch.stack([w0 * iz[:, 0], w1 * iz[:, 1], w2 * iz[:, 2]], dim=1)
    zinv = pw.sum(dim=1)
    depth.view(-1)[hp] = (1.0 / zinv).to(torch.float32)
    bary.view(-1, 3)[hp] = (pw / zinv[:, None]).to(torch.float32)
    return depth, face_idx, bary


def render_depth(mesh: Any, K: Any, pose: Any, height: int, width: int, *, pixel_center: float = 0.0) -> torch.Tensor:
    """Depth image of ``mesh`` seen from a pinhole camera (z-buffer, plain PyTorch, CPU or CUDA).

    Parameters
    ----------
    mesh : smrnb.Mesh, vertices in metres in the world frame of ``pose``
    K : (3, 3) float intrinsics in pixels (pixel centres at integer coordinates)
    pose : (4, 4) float camera-to-world, OpenCV camera axes (x right, y down, z forward)
    height, width : int, image size in pixels
    pixel_center : float, ``0.0`` (default, centres at integer pixel coordinates, as the datasets'
        intrinsics) or ``0.5`` (at ``u + 0.5``, as Open3D's ``create_rays_pinhole``); see :func:`rasterize`

    Returns
    -------
    (H, W) float32 tensor on the mesh's device: camera-frame z in metres of the nearest surface
    through each pixel centre, ``0`` where no surface. See :func:`rasterize` for face indices and
    barycentrics.
    """
    return rasterize(mesh, K, pose, height, width, pixel_center=pixel_center)[0]
