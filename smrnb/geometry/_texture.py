# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Texture baking from RGB frames (plain PyTorch, CPU and CUDA).

:func:`bake_texture` follows the classic recipe:

1. **Rasterize the mesh in UV space** (the same z-buffer rasterizer as :func:`smrnb.render_depth`,
   with an orthographic UV camera) to get, for every texel, the triangle under it and the 3D
   point and normal there.
2. **Project every texel into every frame**; keep a view only where it *sees* the texel: inside
   the image, in front of the camera, and passing a depth test against the mesh rendered in that
   view (so walls behind a sofa do not get the sofa's colour) and, where the frame has a depth
   measurement, against the measured depth too (objects missing from the mesh occlude as well).
3. **Weight** each view by the viewing angle (``cos^angle_power``), the distance (``1/z^2``), a
   falloff near the image border and a strong penalty at depth discontinuities of the view (pixels
   on a silhouette mix foreground and background in the photograph), then take the weighted mean of the bilinearly sampled colours.
   ``confidence`` is the best cosine among the views that saw the texel (0 = never seen).
4. **Dilate across seams**: texels within ``dilate`` texels outside a chart, and unseen texels
   inside, take the colour of the nearest seen texel, so bilinear lookups at chart borders do not
   bleed background into the surface.

Frames: mesh vertices must be in the world frame of the frames' poses. A mesh in the OpenGL
frame (``mesh.frame == "opengl"``, y and z flipped w.r.t. the poses' OpenCV world) is flipped back
for the projection; the returned mesh keeps the caller's frame.
"""

from __future__ import annotations

import contextvars
import math
import time
from dataclasses import dataclass
from typing import Any

import torch

from smrnb import _cancel
from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._threads import cpu_step
from smrnb.geometry._guards import check_index_range, same_device
from smrnb.geometry._memory import require
from smrnb.geometry._mesh import Frames, Mesh
from smrnb.geometry._render import rasterize, render_depth
from smrnb.geometry._validate import check_int_range, check_positive


@dataclass
class BakeResult:
    """What :func:`bake_texture` returns.

    Attributes
    ----------
    mesh : Mesh
        The input mesh with ``texture`` set (same vertices, faces, uvs).
    texture : (R, R, 3) float32 in [0, 1]; row 0 is the top of the image (v = 1)
    confidence : (R, R) float32 in [0, 1]; best viewing cosine among the views that saw the texel
    texels_in_charts, texels_seen : int
    views_used : int (frames that saw at least one texel)
    seconds : float
    """

    mesh: Mesh
    texture: torch.Tensor
    confidence: torch.Tensor
    texels_in_charts: int
    texels_seen: int
    views_used: int
    seconds: float

    def summary(self) -> str:
        cov = self.texels_seen / max(self.texels_in_charts, 1)
        return (f"texture {self.texture.shape[0]}x{self.texture.shape[1]}: {cov:.1%} of chart texels seen by "
                f"{self.views_used} view(s) in {self.seconds:.2f} s")


#: peak working memory of :func:`bake_texture`: bytes per texel of the R x R grid, plus bytes per texel inside a
#: uv chart (the chart area comes from the uvs), times a margin, plus a fixed part (the frames' per-view images).
#: Measured as peak RSS on the bundled sample's mesh at 2048^2 with its charts covering 53 % and (uvs halved) 13 %
#: of the texture: 208 and 123 B/texel (tests/geometry/test_texture_memory.py checks held-out cases)
BAKE_BYTES_PER_TEXEL = 95
BAKE_BYTES_PER_CHART_TEXEL = 214
BAKE_MARGIN = 1.15
BAKE_FIXED_BYTES = 64 << 20


def uv_chart_area(uvs: torch.Tensor, face_uvs_idx: torch.Tensor) -> float:
    """Fraction of the unit uv square that the charts cover (their triangles' total area, at most 1)."""
    if face_uvs_idx.numel() == 0:
        return 0.0
    t = uvs.to(torch.float64)[face_uvs_idx.long()]
    e1, e2 = t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]
    area = float((e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]).abs().sum()) / 2
    return min(max(area, 0.0), 1.0)


def bake_memory_estimate(mesh: Mesh, resolution: int) -> int:
    """Bytes :func:`bake_texture` needs at ``resolution`` for ``mesh`` (with uvs): what it asks of the
    memory budget before allocating (see :data:`BAKE_BYTES_PER_TEXEL`)."""
    frac = uv_chart_area(mesh.uvs, mesh.face_uvs_idx) if mesh.uvs is not None and mesh.face_uvs_idx is not None \
        else 1.0
    R2 = int(resolution) ** 2
    return int(BAKE_MARGIN * (BAKE_BYTES_PER_TEXEL + BAKE_BYTES_PER_CHART_TEXEL * frac) * R2) + BAKE_FIXED_BYTES


def uv_rasterize(uvs: torch.Tensor, face_uvs_idx: torch.Tensor, resolution: int
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """Face index (R, R) (-1 outside charts) and barycentrics (R, R, 3) of every texel centre.

    Texel (row i, column j) has its centre at ``u = (j + 0.5) / R``, ``v = 1 - (i + 0.5) / R``.
    """
    R = resolution
    dev = uvs.device
    # an orthographic camera in disguise: every vertex at z = 1, so perspective == affine
    x = uvs[:, 0].double()
    y = 1.0 - uvs[:, 1].double()
    pts = torch.stack([x, y, torch.ones_like(x)], 1)
    K = torch.tensor([[R, 0.0, -0.5], [0.0, R, -0.5], [0.0, 0.0, 1.0]], dtype=torch.float64, device=dev)
    pose = torch.eye(4, dtype=torch.float64, device=dev)
    uv_mesh = Mesh(pts, face_uvs_idx.long())
    _, fidx, bary = rasterize(uv_mesh, K, pose, R, R, _image_camera=False)
    return fidx, bary


def _bilinear(img: torch.Tensor, u: torch.Tensor, v: torch.Tensor, valid: Any = None) -> torch.Tensor:
    """Sample (H, W, C) at float pixel coords (u = column, v = row; centres at integers).

    ``valid``, a callable ``(rows, cols) -> bool mask``, drops corner pixels that show another
    surface (the four weights are renormalised over the valid corners), so a texel on a silhouette
    does not pick up the background's colour.
    """
    H, W = img.shape[:2]
    flat = img.reshape(H * W, -1)
    u = u.clamp(0, W - 1)
    v = v.clamp(0, H - 1)
    u0 = u.floor().clamp(0, max(W - 2, 0))
    v0 = v.floor().clamp(0, max(H - 2, 0))
    du = (u - u0).clamp(0, 1)
    dv = (v - v0).clamp(0, 1)
    u0, v0 = u0.long(), v0.long()
    u1 = (u0 + 1).clamp(max=W - 1)
    v1 = (v0 + 1).clamp(max=H - 1)
    corners = ((v0, u0, (1 - du) * (1 - dv)), (v0, u1, du * (1 - dv)), (v1, u0, (1 - du) * dv), (v1, u1, du * dv))
    out = torch.zeros(u.shape[0], flat.shape[1], dtype=img.dtype, device=img.device)
    wsum = torch.zeros_like(u)
    for rr, cc, w in corners:
        if valid is not None:
            w = w * valid(rr, cc).to(w.dtype)
        out += w[:, None] * flat[rr * W + cc]
        wsum += w
    return out / wsum.clamp_min(1e-12)[:, None]


def _near(mask: torch.Tensor, radius: int) -> torch.Tensor:
    """Texels within Euclidean distance ``radius`` of a ``mask`` texel (a dilation by a disc, on the
    mask's device): the same set as ``distance_transform_edt(~mask) <= radius``. The disc is cut into
    its rows: row offset ``dy`` reaches ``floor(sqrt(radius**2 - dy**2))`` texels to each side, so the
    dilation is the union over ``dy`` of the mask widened by a 1-D max of that half-width and shifted
    by ``dy`` (2 radius + 1 cheap passes; a 2-D convolution with the disc took ~1 s at 1024 x 1024 on a CPU)."""
    H, W = mask.shape
    if radius <= 0 or H == 0 or W == 0:
        return mask.clone()
    m = mask.to(torch.float32)[None, None]
    out = torch.zeros(H, W, dtype=torch.bool, device=mask.device)
    widened: dict[int, torch.Tensor] = {}
    for dy in range(-min(radius, H - 1), min(radius, H - 1) + 1):
        half = math.isqrt(radius * radius - dy * dy)
        if half not in widened:
            widened[half] = torch.nn.functional.max_pool2d(m, (1, 2 * half + 1), 1, (0, half))[0, 0] > 0.5
        row = widened[half]
        # texel (i, j) is near when row (i + dy) of the widened mask is set at column j
        if dy >= 0:
            out[: H - dy] |= row[dy:]
        else:
            out[-dy:] |= row[: H + dy]
    return out


def _fill(tex: torch.Tensor, filled: torch.Tensor, inside: torch.Tensor, dilate: int) -> torch.Tensor:
    """Give every unfilled texel inside a chart, and every texel within ``dilate`` texels of a chart,
    the colour of its nearest filled texel. Which texels: on the texture's device (a disc dilation);
    their nearest filled texel: scipy's exact Euclidean distance transform on the CPU (one pass over the
    mask, the same choice on every device, so CPU and CUDA bakes agree)."""
    from scipy.ndimage import distance_transform_edt

    target = ~filled & inside
    if dilate > 0:
        target |= ~filled & _near(inside, dilate)
    dst = torch.nonzero(target.view(-1)).flatten()
    out = tex.clone()
    if dst.numel():
        f = filled.cpu().numpy()
        _, (iy, ix) = distance_transform_edt(~f, return_indices=True)
        d = dst.cpu().numpy()
        src = torch.as_tensor(iy.reshape(-1)[d] * f.shape[1] + ix.reshape(-1)[d]).to(tex.device, non_blocking=True)
        out.view(-1, tex.shape[2])[dst] = tex.view(-1, tex.shape[2])[src]
    return out


#: while set to a list, each :func:`bake_texture` appends where its time went (the estimator's probes read it,
#: :mod:`smrnb.pipeline._estimate`): ``texels`` (chart texels), ``setup`` and ``finish`` seconds (texture-space
#: raster, dilation: per texel), and per view ``(render, project, sample, candidates)`` seconds: the mesh's depth
#: image (per frame pixel, not per texel), projecting every texel point, and the work on the candidates in view
PHASES: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar("smrnb_bake_phases",
                                                                                      default=None)


class _Clock:
    """Phase clock for :data:`PHASES`; ``sync``: wait for the GPU at each reading, so a phase is its own
    kernels' time (only while a bake is being timed: a plain bake never waits)."""

    def __init__(self, sync: bool) -> None:
        self.sync = sync
        self.t = self.now()

    def now(self) -> float:
        if self.sync:
            torch.cuda.synchronize()
        return time.perf_counter()

    def lap(self) -> float:
        t, self.t = self.t, self.now()
        return self.t - t


@cpu_step("texture")
def _check_bake_inputs(mesh: Mesh, frames: Frames) -> None:
    """Refuse a mesh without uvs or faces, frames without color or poses, non-finite or mixed-device data."""
    if not isinstance(mesh, Mesh):
        raise SmrnbTypeError(f"mesh must be a smrnb.Mesh, got {type(mesh).__name__}")
    if not isinstance(frames, Frames):
        raise SmrnbTypeError(f"frames must be a smrnb.Frames, got {type(frames).__name__}")
    if mesh.uvs is None or mesh.face_uvs_idx is None:
        raise SmrnbValueError("mesh must have uvs and face_uvs_idx (run smrnb.auto_uv first), got uvs=None")
    if mesh.num_faces == 0:
        raise SmrnbValueError("mesh must have at least one face to bake, got 0 faces")
    if len(frames) == 0:  # as fuse_tsdf: no view to take a colour from is an error, not a black texture
        raise SmrnbValueError("frames must hold at least one frame to bake a texture, got 0")
    if frames.color is None:
        raise SmrnbValueError("frames must carry color images to bake a texture, got color=None")
    if frames.poses is None:
        raise SmrnbValueError("frames must carry camera-to-world poses to bake a texture, got poses=None")
    if not bool(torch.isfinite(mesh.vertices).all()):
        raise SmrnbValueError("mesh.vertices must be finite, got NaN/inf values")
    same_device(**{"mesh.vertices": mesh.vertices, "mesh.faces": mesh.faces, "mesh.uvs": mesh.uvs,
                   "mesh.face_uvs_idx": mesh.face_uvs_idx})
    check_index_range(mesh.faces, mesh.num_vertices, "mesh.faces", "mesh.vertices")
    check_index_range(mesh.face_uvs_idx, mesh.uvs.shape[0], "mesh.face_uvs_idx", "mesh.uvs")
    if not mesh.uvs.dtype.is_floating_point or not bool(torch.isfinite(mesh.uvs).all()):
        raise SmrnbValueError(f"mesh.uvs must be finite floats (texture coordinates in [0, 1]), got "
                              f"{int((~torch.isfinite(mesh.uvs.double())).sum())} NaN/inf value(s), dtype {mesh.uvs.dtype}")


def _texel_points(verts: torch.Tensor, faces: torch.Tensor, uvs: torch.Tensor, face_uvs_idx: torch.Tensor,
                  R: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(inside, P, n)``: the (R, R) mask of texels inside a chart, their (T, 3) world points and the
    unit normals of the faces they lie on."""
    fidx, bary = uv_rasterize(uvs, face_uvs_idx, R)
    inside = fidx >= 0
    tri = verts[faces[fidx[inside]]]  # (T, 3, 3)
    P = (bary[inside][:, :, None] * tri).sum(1)  # texel points, world
    n = torch.linalg.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    return inside, P, n / n.norm(dim=1, keepdim=True).clamp_min(1e-20)


def _scaled_K(K: torch.Tensor, sx: float, sy: float) -> torch.Tensor:
    """``K`` of the same camera with its image scaled by ``sx`` x ``sy`` (pixel centres kept)."""
    Kc = K.clone()
    Kc[0] *= sx
    Kc[1] *= sy
    Kc[0, 2] = (K[0, 2] + 0.5) * sx - 0.5
    Kc[1, 2] = (K[1, 2] + 0.5) * sy - 0.5
    return Kc


def _visibility_depth(geo: Mesh, K: torch.Tensor, pose: torch.Tensor, H: int, W: int, vis_tol: float
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """The mesh's flat (H * W) depth image in one view and which of its pixels sit on a silhouette."""
    rd = render_depth(geo, K, pose, H, W).reshape(-1)
    # silhouettes: a pixel whose 3x3 neighbourhood jumps in depth (or meets background) mixes two
    # surfaces in the photograph; such samples only count where nothing better saw the texel
    big = torch.where(rd > 0, rd, torch.full_like(rd, 1e6)).view(1, 1, H, W)
    dmax = torch.nn.functional.max_pool2d(big, 3, 1, 1).reshape(-1)
    dmin = -torch.nn.functional.max_pool2d(-big, 3, 1, 1).reshape(-1)
    return rd, (dmax - dmin) > (vis_tol + 0.01 * rd)


def _project(Ph: torch.Tensor, K: torch.Tensor, pose: torch.Tensor, near: float, H: int, W: int
             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(z, u, v, cand)``: depth and pixel coordinates of the (T, 4) homogeneous points ``Ph`` in the view
    ``K``, ``pose`` (camera-to-world, OpenCV axes), and the indices of those in front of ``near`` and
    inside the H x W image."""
    Rm, t = pose[:3, :3], pose[:3, 3]
    w2c = torch.cat([Rm.T, -(Rm.T @ t)[:, None]], 1)  # (3, 4) world -> camera (OpenCV)
    q = Ph @ (K @ w2c).T  # (T, 3) = (z u, z v, z)
    z = q[:, 2]
    zs = z.clamp_min(near)
    u = q[:, 0] / zs
    v = q[:, 1] / zs
    cand = torch.nonzero((z > near) & (u >= 0) & (u <= W - 1) & (v >= 0) & (v <= H - 1)).squeeze(1)
    return z, u, v, cand


def _border_weight(u: torch.Tensor, v: torch.Tensor, H: int, W: int, border: int) -> torch.Tensor:
    """1 inside the image, falling linearly to 0 over ``border`` pixels at its edges (1 everywhere for 0)."""
    if border > 0:
        edge = torch.minimum(torch.minimum(u, (W - 1) - u), torch.minimum(v, (H - 1) - v))
        return (edge / border).clamp(0, 1)
    return torch.ones_like(u)


def _texture_image(acc: torch.Tensor, wsum: torch.Tensor, best: torch.Tensor, inside: torch.Tensor, dilate: int
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(texture, confidence, seen)``: the weighted colours of the texels seen, unseen chart texels and
    ``dilate`` texels around the charts filled from the nearest seen one, clamped to [0, 1]."""
    R, dev = inside.shape[0], inside.device
    seen = wsum > 0
    tex = torch.zeros(R, R, 3, dtype=torch.float32, device=dev)
    conf = torch.zeros(R, R, dtype=torch.float32, device=dev)
    vals = torch.zeros(acc.shape[0], 3, dtype=torch.float32, device=dev)
    vals[seen] = acc[seen] / wsum[seen, None]
    tex[inside] = vals
    conf[inside] = best
    filled = torch.zeros(R, R, dtype=torch.bool, device=dev)
    filled[inside] = seen
    if bool(filled.any()):
        tex = _fill(tex, filled, inside, dilate)
    return tex.clamp(0, 1), conf, seen


def bake_texture(mesh: Mesh, frames: Frames, resolution: int = 1024, *, angle_power: float = 2.0,
                 visibility_tolerance: float = 0.02, depth_check: float | None = 0.05, border: int = 8,
                 dilate: int = 4, near: float = 0.05, visibility_scale: float = 0.5) -> BakeResult:
    """Bake a colour texture for ``mesh`` from the RGB frames that see it.

    Parameters
    ----------
    mesh : Mesh
        With ``uvs`` and ``face_uvs_idx`` (from :func:`smrnb.auto_uv`); vertices in the world frame
        of ``frames.poses`` (``frame="opencv"``) or that frame flipped to OpenGL (``"opengl"``).
    frames : Frames
        With ``color`` and ``poses`` (camera-to-world, OpenCV axes); depth used for the optional
        measured-depth check.
    resolution : int
        Texture side in texels.
    angle_power : float
        Weight exponent on the viewing cosine (higher = prefer head-on views more strongly).
    visibility_tolerance : float
        Metres; a texel is visible in a view when its depth is within this of the mesh's rendered
        depth there (plus 1 % of the depth).
    depth_check : float or None
        Metres; also reject views whose measured depth disagrees by more than this (None = off).
    border : int
        Pixels; weights fall off linearly to 0 over this many pixels at the image border.
    dilate : int
        Texels; texels this close to a chart take the colour of the nearest seen texel (so
        bilinear lookups at chart borders do not bleed background). Unseen texels inside charts
        always do.
    near : float
        Metres; points closer to a camera than this are not textured from it.
    visibility_scale : float
        The mesh depth used for the visibility test is rendered at this fraction of the frame size
        (0.5 = a quarter of the pixels; rasterizing is the expensive part of baking), but never
        below 320 pixels across.

    Returns
    -------
    BakeResult
        Texture and confidence on the mesh's device, and the textured mesh.
    """
    t0 = time.perf_counter()
    _check_bake_inputs(mesh, frames)
    R = check_int_range(resolution, "resolution", lo=16, hi=8192)
    check_positive(angle_power, "angle_power", allow_zero=True)
    vis_tol = check_positive(visibility_tolerance, "visibility_tolerance")
    if depth_check is not None:
        depth_check = check_positive(depth_check, "depth_check")
    border = check_int_range(border, "border", lo=0)
    dilate = check_int_range(dilate, "dilate", lo=0, hi=64)
    near = check_positive(near, "near")
    visibility_scale = check_positive(visibility_scale, "visibility_scale")
    if visibility_scale > 1:
        raise SmrnbValueError(f"visibility_scale must be in (0, 1], got {visibility_scale}")

    dev = mesh.device
    record = PHASES.get()
    clock = _Clock(sync=record is not None and dev.type == "cuda")
    views: list[tuple[float, float, float, int]] = []  # per view: render, project, sample seconds, candidates
    # the texture-space raster, the per-chart-texel points, accumulators and per-view temporaries (measured
    # peak, see BAKE_BYTES_PER_TEXEL), asked of the one memory budget before anything is allocated
    require(bake_memory_estimate(mesh, R), dev, f"bake_texture at resolution {R}", "resolution",
            f"lower resolution (texels per side; {R // 2} needs about a quarter)")
    verts = mesh.vertices.to(torch.float32)
    if mesh.frame == "opengl":  # back to the poses' world frame (y and z flipped)
        verts = verts * torch.tensor([1.0, -1.0, -1.0], device=dev)
    faces = mesh.faces.long()
    geo = Mesh(verts, faces)
    inside, P, n = _texel_points(verts, faces, mesh.uvs.to(dev), mesh.face_uvs_idx.to(dev), R)
    T = P.shape[0]
    acc = torch.zeros(T, 3, dtype=torch.float32, device=dev)
    wsum = torch.zeros(T, dtype=torch.float32, device=dev)
    best = torch.zeros(T, dtype=torch.float32, device=dev)
    views_used = 0
    H, W = frames.height, frames.width
    # visibility is decided on a depth image rendered at `visibility_scale` of the frame size:
    # rasterizing is the expensive part, and the depth test has centimetre tolerances anyway
    scale = max(visibility_scale, min(1.0, 320.0 / W))  # never below 320 pixels across
    Hs, Ws = max(1, int(round(H * scale))), max(1, int(round(W * scale)))
    sy, sx = Hs / H, Ws / W
    Ph = torch.cat([P, torch.ones_like(P[:, :1])], 1)  # (T, 4) homogeneous texel points
    nP = (n * P).sum(1)
    PP = (P * P).sum(1)
    setup = clock.lap()
    for i in range(len(frames)):
        _cancel.check(f"in bake_texture at frame {i}")  # the app's Stop: between two frames
        clock.lap()
        K = frames.intrinsics(i).to(dev, torch.float32)
        pose = frames.poses[i].to(dev, torch.float32)
        t = pose[:3, 3]
        z, u, v, cand = _project(Ph, K, pose, near, H, W)
        t_project = clock.lap()
        if cand.numel() == 0:
            views.append((0.0, t_project, 0.0, 0))
            continue
        z, u, v = z[cand], u[cand], v[cand]
        Kc = _scaled_K(K, sx, sy)
        clock.lap()
        rd, edge_px = _visibility_depth(geo, Kc, pose, Hs, Ws, vis_tol)
        t_render = clock.lap()  # the view's depth image: per frame pixel, whatever the texture size

        def small(rr, cc):  # flat index into the reduced depth image of full-size pixel (rr, cc)
            r = ((rr.to(torch.float32) + 0.5) * sy - 0.5).round().clamp(0, Hs - 1).long()
            c = ((cc.to(torch.float32) + 0.5) * sx - 0.5).round().clamp(0, Ws - 1).long()
            return r * Ws + c

        si = small(v, u)
        dr = rd[si]
        at_edge = edge_px[si]
        tol = vis_tol + 0.01 * z
        ok = (dr > 0) & ((z - dr).abs() <= tol)
        if depth_check is not None:
            md = frames.depth[i].to(dev).reshape(-1)[v.round().long().clamp(0, H - 1) * W
                                                     + u.round().long().clamp(0, W - 1)]
            ok &= (md <= 0) | ((z - md).abs() <= depth_check + 0.01 * z)
        # |cos| between the face normal and the direction to the camera centre t
        dist = (PP[cand] - 2 * (P[cand] @ t) + (t * t).sum()).clamp_min(1e-20).sqrt()
        cos = ((n[cand] @ t - nP[cand]) / dist).abs()
        ok &= cos > 1e-3
        wb = _border_weight(u, v, H, W, border)
        w = torch.where(ok, cos.pow(angle_power) * wb / z.pow(2), torch.zeros_like(z))
        w = torch.where(at_edge, w * 1e-3, w)
        keep = torch.nonzero(w > 0).squeeze(1)
        if keep.numel() == 0:
            views.append((t_render, t_project, clock.lap(), int(cand.numel())))
            continue
        views_used += 1
        t_cand = clock.lap()
        col = frames.color[i].to(dev).to(torch.float32) / 255.0
        t_render += clock.lap()  # the photograph's conversion is per frame pixel too
        clock.t -= t_cand  # the candidates' phase resumes
        zk, tk = z[keep], tol[keep]

        def same_surface(rr, cc, zk=zk, tk=tk, rd=rd):
            d = rd[small(rr, cc)]
            return (d > 0) & ((d - zk).abs() <= tk)

        c = _bilinear(col, u[keep], v[keep], same_surface)
        idx = cand[keep]
        wk = w[keep]
        acc.index_add_(0, idx, wk[:, None] * c)
        wsum.index_add_(0, idx, wk)
        best[idx] = torch.maximum(best[idx], cos[keep])
        views.append((t_render, t_project, clock.lap(), int(cand.numel())))

    clock.lap()
    tex, conf, seen = _texture_image(acc, wsum, best, inside, dilate)
    if record is not None:
        record.append({"resolution": R, "texels": T, "setup": setup, "finish": clock.lap(), "views": views})
    out = mesh.replace(texture=tex, meta={**mesh.meta, "bake": {"resolution": R, "views_used": views_used}})
    return BakeResult(out, tex, conf, int(inside.sum()), int(seen.sum()), views_used, time.perf_counter() - t0)


def render_textured(mesh: Mesh, K: Any, pose: Any, height: int, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Render a textured mesh into a pinhole view: (H, W, 3) colours in [0, 1] and an (H, W) coverage mask.

    Used to compare a baked texture with a held-out photograph. Vertices in the poses' world frame
    (OpenGL-frame meshes are flipped back as in :func:`bake_texture`); bilinear texture lookups.
    """
    if mesh.texture is None or mesh.uvs is None or mesh.face_uvs_idx is None:
        raise SmrnbValueError("mesh must carry texture, uvs and face_uvs_idx to render it textured")
    verts = mesh.vertices.to(torch.float32)
    if mesh.frame == "opengl":
        verts = verts * torch.tensor([1.0, -1.0, -1.0], device=verts.device)
    _, fidx, bary = rasterize(Mesh(verts, mesh.faces), K, pose, height, width)
    hit = fidx >= 0
    uvc = mesh.uvs[mesh.face_uvs_idx[fidx[hit]]].to(torch.float32)  # (N, 3, 2)
    uv = (bary[hit][:, :, None] * uvc).sum(1)
    Rt = mesh.texture.shape[0]
    Wt = mesh.texture.shape[1]
    img = torch.zeros(height, width, 3, dtype=torch.float32, device=verts.device)
    img[hit] = _bilinear(mesh.texture[..., :3].to(torch.float32), uv[:, 0] * Wt - 0.5, (1 - uv[:, 1]) * Rt - 0.5)
    return img, hit


__all__ = ["bake_texture", "BakeResult", "render_textured", "uv_rasterize"]
