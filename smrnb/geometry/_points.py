# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""RGB-D to points and the camera-axis conventions.

Two axis conventions meet in RGB-D reconstruction::

      OpenCV / OpenNI (frames as loaded)          OpenGL / kaolin / three.js (viewers, export)

               z (forward, into the scene)                  y (up)
              /                                             |
             /                                              |
            o------ x (right)                               o------ x (right)
            |                                              /
            |                                             /
            y (down)                                     z (backward, towards the viewer)

      the camera looks along +z                   the camera looks along -z

Going from one to the other flips y and z: ``OPENNI_TO_OPENGL = diag(1, -1, -1, 1)``. The flip is its
own inverse. OpenCV and OpenNI use the same axes (the names are synonyms here).

Pixel convention: pixel ``(u, v)`` = (column, row) has its centre at integer coordinates, so a pixel
at column ``u`` with depth ``z`` back-projects to ``x = (u - cx) * z / fx`` (Redwood's
``cx = 319.5`` is the exact centre of a 640-wide image).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._camera import check_K, check_pose
from smrnb.geometry._memory import require
from smrnb.geometry._mesh import Frames, Mesh, PointCloud
from smrnb.geometry._validate import as_tensor, check_choice, check_finite, check_int_range, check_shape

__all__ = ["OPENNI_TO_OPENGL", "convert_coordinates", "depth_to_points", "frames_to_points"]

#: (4, 4) float32: flips y and z. ``p_gl = OPENNI_TO_OPENGL[:3, :3] @ p_cv`` for points;
#: ``T_gl = T_cv @ OPENNI_TO_OPENGL`` changes only the camera axes of a camera-to-world pose.
#: It is its own inverse. Treat it as read-only (use ``.clone()`` before modifying).
OPENNI_TO_OPENGL = torch.diag(torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=torch.float32))

_FRAMES = ("opencv", "openni", "opengl")
_RAW_INVALID = 65535  # 7-Scenes (and many uint16 sensors) mark "no measurement" with 0xFFFF


def _canonical(frame: str) -> str:
    return "opencv" if frame == "openni" else frame


def convert_coordinates(x: Any, src: str, dst: str, *, axes: str = "both") -> Any:
    """Convert points, poses or containers between OpenCV/OpenNI and OpenGL axes.

    Parameters
    ----------
    x : one of
        - points ``(N, 3)`` or ``(B, N, 3)`` float (tensor or numpy array): every coordinate is
          re-expressed in the other axes, ``p' = diag(1, -1, -1) p``;
        - poses ``(4, 4)`` or ``(B, 4, 4)`` float, camera-to-world;
        - a :class:`PointCloud` or :class:`Mesh`: its points (and normals) converted, ``frame`` set
          to ``dst`` (``"opencv"`` for OpenNI).
    src, dst : "opencv", "openni" (same axes as OpenCV) or "opengl"
    axes : for poses only.
        ``"both"`` (default): world and camera axes are both converted, ``T' = F T F`` with
        ``F = OPENNI_TO_OPENGL``. This keeps poses consistent with points converted by this function:
        a world point converted here projects through the converted pose with an OpenGL camera to
        the same pixel as before.
        ``"camera"``: only the camera's own axes change, ``T' = T F``; the world stays as it is (e.g.
        to render an unconverted OpenCV-world mesh with an OpenGL/kaolin camera).

    Returns
    -------
    The same kind as ``x``: a ``torch.Tensor`` for tensor or array input (same dtype and device;
    a new tensor, the input is not modified), or a new container.
    """
    check_choice(src, "src", _FRAMES)
    check_choice(dst, "dst", _FRAMES)
    check_choice(axes, "axes", ("both", "camera"))
    s, d = _canonical(src), _canonical(dst)
    if isinstance(x, (PointCloud, Mesh)):
        if _canonical(x.frame) != s:
            raise SmrnbValueError(f"src must match the container's frame {x.frame!r}, got src={src!r}")
        if isinstance(x, PointCloud):
            normals = None if x.normals is None else convert_coordinates(x.normals, src, dst)
            return x.replace(points=convert_coordinates(x.points, src, dst), normals=normals, frame=d,
                             meta=dict(x.meta))
        normals = None if x.vertex_normals is None else convert_coordinates(x.vertex_normals, src, dst)
        # diag(1, -1, -1) is a rotation by pi about x (det +1), so the face winding stays valid
        return x.replace(vertices=convert_coordinates(x.vertices, src, dst), vertex_normals=normals, frame=d,
                         meta=dict(x.meta))
    t = as_tensor(x, "x")
    if not t.dtype.is_floating_point:
        raise SmrnbTypeError(f"x must be a floating-point tensor, got dtype {t.dtype}")
    if t.shape[-2:] == (4, 4) and t.dim() in (2, 3):
        if s == d:
            return t.clone()
        F = OPENNI_TO_OPENGL.to(dtype=t.dtype, device=t.device)
        return F @ t @ F if axes == "both" else t @ F
    check_shape(t, "x", (None, 3), (None, None, 3), (4, 4), (None, 4, 4))
    if s == d:
        return t.clone()
    sign = torch.tensor([1.0, -1.0, -1.0], dtype=t.dtype, device=t.device)
    return t * sign


def _check_K(K: Any, H: int, W: int, name: str = "K") -> torch.Tensor:
    return check_K(K, name, height=H, width=W)


def _check_pose(pose: Any, name: str = "pose") -> torch.Tensor:
    return check_pose(pose, name)


def depth_to_points(depth: Any, K: Any, pose: Any = None, color: Any = None, depth_scale: float | None = None,
                    depth_min: float = 0.0, depth_max: float = math.inf, stride: int = 1) -> PointCloud:
    """Back-project a depth image into a point cloud, one point per valid pixel.

    Parameters
    ----------
    depth : (H, W) tensor or array. Float: metres (divided by ``depth_scale`` when given). Integer
        (raw sensor units, e.g. uint16 PNG): ``depth_scale`` is required (1000 for Redwood and
        7-Scenes millimetres, 5000 for TUM).
    K : (3, 3) pixel intrinsics ``[[fx, s, cx], [0, fy, cy], [0, 0, 1]]`` of this image size; pixel
        centres at integer coordinates.
    pose : (4, 4) camera-to-world (OpenCV camera axes), optional. Given: points are in the world
        frame; omitted: in the camera frame.
    color : (H, W, 3) uint8 (mapped to [0, 1]) or float in [0, 1], optional, registered to ``depth``.
    depth_scale : raw units per metre, optional (see ``depth``).
    depth_min, depth_max : metres; kept points have ``depth_min < z <= depth_max`` (camera z).
    stride : keep every ``stride``-th row and column (pixel coordinates and K are unchanged).

    Notes
    -----
    Invalid pixels are excluded, never back-projected: depth 0, raw 65535 (integer input or
    ``depth_scale`` given), NaN, +-inf, negative values, and those outside the depth range.
    ``meta`` of the result counts them (``meta["excluded"]``).

    Returns
    -------
    PointCloud with ``points (M, 3)`` in metres (float32 unless ``depth`` is float64), on ``depth``'s
    device, OpenCV axes (``frame="opencv"``; world frame if ``pose`` is given, see
    ``meta["space"]``), ``colors (M, 3)`` float in [0, 1] when ``color`` is given. Points are in
    row-major pixel order.

    Raises
    ------
    SmrnbValueError when no pixel is valid (e.g. an all-zero depth image), naming the counts.
    """
    pc, msg = _depth_to_points(depth, K, pose, color, depth_scale, depth_min, depth_max, stride)
    if pc is None:
        raise SmrnbValueError(msg)
    return pc


def _depth_to_points(depth: Any, K: Any, pose: Any, color: Any, depth_scale: float | None, depth_min: float,
                     depth_max: float, stride: int) -> tuple[PointCloud | None, str]:
    """:func:`depth_to_points` that returns ``(None, why)`` instead of raising when no pixel is valid."""
    d = as_tensor(depth, "depth")
    if d.dim() != 2:
        extra = " (for several frames use frames_to_points)" if d.dim() == 3 else ""
        raise SmrnbValueError(f"depth must have shape (H, W), got {tuple(d.shape)}{extra}")
    if d.dtype == torch.bool or d.dtype.is_complex:
        raise SmrnbTypeError(f"depth must be a float (metres) or integer (raw units) tensor, got dtype {d.dtype}")
    H, W = d.shape
    if H == 0 or W == 0:
        raise SmrnbValueError(f"depth must have at least one pixel, got shape {(H, W)}")
    raw_integer = not d.dtype.is_floating_point
    if depth_scale is not None:
        if isinstance(depth_scale, bool) or not isinstance(depth_scale, (int, float, np.integer, np.floating)):
            raise SmrnbTypeError(f"depth_scale must be a number (raw units per metre), got {type(depth_scale).__name__}")
        depth_scale = float(depth_scale)
        if not math.isfinite(depth_scale) or depth_scale <= 0:
            raise SmrnbValueError(f"depth_scale must be > 0 and finite (raw units per metre), got {depth_scale!r}")
    elif raw_integer:
        raise SmrnbValueError(
            f"depth_scale is required for integer depth (dtype {d.dtype}, raw sensor units): pass "
            "depth_scale=1000 for millimetres (Redwood, 7-Scenes) or 5000 (TUM RGB-D)")
    dmin, dmax = float(depth_min), float(depth_max)
    if math.isnan(dmin) or math.isnan(dmax) or dmin < 0 or dmax <= dmin:
        raise SmrnbValueError(f"depth_min, depth_max must satisfy 0 <= depth_min < depth_max, got "
                              f"depth_min={depth_min!r}, depth_max={depth_max!r}")
    stride = check_int_range(stride, "stride", 1)
    Kt = _check_K(K, H, W)
    P = None if pose is None else _check_pose(pose)
    col = None
    if color is not None:
        col = as_tensor(color, "color")
        check_shape(col, "color", (H, W, 3))
        if col.dtype == torch.uint8:
            pass
        elif col.dtype.is_floating_point:
            check_finite(col, "color")
            if col.numel() and (float(col.min()) < 0 or float(col.max()) > 1):
                raise SmrnbValueError(f"color must be uint8 or float in [0, 1], got float values in "
                                      f"[{float(col.min()):g}, {float(col.max()):g}]")
        else:
            raise SmrnbTypeError(f"color must be uint8 or float in [0, 1], got dtype {col.dtype}")

    dev = d.device
    out_dtype = torch.float64 if d.dtype == torch.float64 else torch.float32
    ds = d[::stride, ::stride]
    raw = ds
    sentinel = (raw == _RAW_INVALID) if (raw_integer or depth_scale is not None) else torch.zeros_like(raw, dtype=torch.bool)
    z = raw.to(out_dtype)
    if depth_scale is not None:
        z = z / depth_scale
    finite = torch.isfinite(z)
    zero = z == 0
    negative = z < 0
    in_range = (z > dmin) & (z <= dmax)
    valid = finite & ~zero & ~negative & ~sentinel & in_range
    n_pix = int(z.numel())
    excluded = {
        "zero": int(zero.sum()),
        "nonfinite": int((~finite).sum()),
        "negative": int(negative.sum()),
        "raw_65535": int(sentinel.sum()),
    }
    n_valid = int(valid.sum())
    excluded["out_of_range"] = n_pix - n_valid - int((zero | ~finite | negative | sentinel).sum())
    if n_valid == 0:
        return None, (
            f"depth has no valid pixels: all {n_pix} sampled pixels are excluded (zero: {excluded['zero']}, "
            f"NaN/inf: {excluded['nonfinite']}, negative: {excluded['negative']}, raw 65535: {excluded['raw_65535']}, "
            f"outside ({dmin:g}, {dmax:g}] m: {excluded['out_of_range']}); check the depth image, depth_scale "
            f"and depth_min/depth_max")

    Kd = Kt.detach().cpu().double()
    fx, fy, cx, cy, skew = (float(Kd[0, 0]), float(Kd[1, 1]), float(Kd[0, 2]), float(Kd[1, 2]), float(Kd[0, 1]))
    # normalised ray per sampled pixel (K^-1 [u, v, 1] for the upper-triangular K), then scaled by z
    yn = (torch.arange(0, H, stride, device=dev, dtype=out_dtype) - cy) / fy  # (Hs,)
    xn0 = (torch.arange(0, W, stride, device=dev, dtype=out_dtype) - cx) / fx  # (Ws,)
    rows, cols = torch.nonzero(valid, as_tuple=True)
    zv = z[rows, cols]
    y = yn[rows]
    x = xn0[cols] - (skew / fx) * y if skew else xn0[cols]
    pts = torch.stack([x * zv, y * zv, zv], dim=-1)
    space = "camera"
    if P is not None:
        Pd = P.detach().to(device=dev, dtype=out_dtype)
        pts = pts @ Pd[:3, :3].T + Pd[:3, 3]
        space = "world"
    colors = None
    if col is not None:
        cs = col[::stride, ::stride].to(dev)[valid]
        colors = cs.to(out_dtype) / 255.0 if cs.dtype == torch.uint8 else cs.to(out_dtype)
    meta = {"space": space, "num_pixels": n_pix, "num_valid": n_valid, "excluded": excluded, "stride": stride,
            "depth_scale": depth_scale}
    return PointCloud(pts, colors, None, "opencv", meta), ""


def _depth_span(depth: torch.Tensor) -> str:
    """What depths the frames do hold, for an error that says which way to move the depth range."""
    d = depth[torch.isfinite(depth) & (depth > 0)]
    if d.numel() == 0:
        return "every pixel is 0, NaN or inf"
    return f"the measured depths span {float(d.min()):.3g}-{float(d.max()):.3g} m"


def frames_to_points(frames: Frames, *, indices: Sequence[int] | None = None, depth_scale: float | None = None,
                     depth_min: float = 0.0, depth_max: float = math.inf, stride: int = 1,
                     max_bytes: int = 4 * 1024**3) -> PointCloud:
    """Back-project all (or the chosen) frames into one world-frame point cloud.

    Parameters
    ----------
    frames : :class:`Frames` with ``poses`` (camera-to-world, OpenCV axes); a single frame without
        poses gives a camera-frame cloud.
    indices : frames to use (default: all).
    depth_scale, depth_min, depth_max, stride : as in :func:`depth_to_points` (``Frames.depth`` is
        already in metres, so ``depth_scale`` is normally left as None).
    max_bytes : refuse (``MemoryEstimateError``, knob ``stride``) when the worst case (every pixel
        valid) would need more than this for points and colors.

    Returns
    -------
    PointCloud, points ``(M, 3)`` in metres in the world frame of the poses (OpenCV axes), colors in
    [0, 1] when ``frames.color`` exists, on ``frames.depth``'s device. Frames with no valid pixel are
    skipped and listed in ``meta["empty_frames"]``; ``meta["frame_counts"]`` gives points per frame
    and ``meta["frame_index"]`` the first point of each used frame.
    """
    if not isinstance(frames, Frames):
        raise SmrnbTypeError(f"frames must be a smrnb.Frames, got {type(frames).__name__}")
    n = len(frames)
    idx = list(range(n)) if indices is None else [int(i) for i in indices]
    if not idx:
        raise SmrnbValueError("indices must select at least one frame, got an empty selection")
    for i in idx:
        if not -n <= i < n:
            raise SmrnbValueError(f"indices must be in [0, {n - 1}] (frames has {n}), got {i}")
    if frames.poses is None and len(idx) > 1:
        raise SmrnbValueError(f"frames.poses is None: {len(idx)} frames cannot be put in one world frame without "
                              "camera-to-world poses (load them with poses, or pass one index)")
    stride = check_int_range(stride, "stride", 1)
    per_point = 3 * frames.depth.element_size() * (2 if frames.color is not None else 1)
    worst = len(idx) * math.ceil(frames.height / stride) * math.ceil(frames.width / stride) * per_point
    require(worst, frames.depth.device, "frames_to_points", "stride",
            f"raise stride (e.g. stride={stride * 2}), select fewer frames with indices, or raise max_bytes",
            max_bytes, detail=f"worst case, {len(idx)} frames of {frames.width}x{frames.height} at stride={stride}",
            limit="max_bytes")
    pts, cols, counts, empty, starts = [], [], [], [], []
    total = 0
    for i in idx:
        try:
            pc, _ = _depth_to_points(frames.depth[i], frames.intrinsics(i),
                                     None if frames.poses is None else frames.poses[i],
                                     None if frames.color is None else frames.color[i],
                                     depth_scale, depth_min, depth_max, stride)
        except SmrnbValueError as exc:
            raise SmrnbValueError(f"frame {i}: {exc}") from None
        if pc is None:
            empty.append(i)
            continue
        starts.append(total)
        total += len(pc)
        counts.append(len(pc))
        pts.append(pc.points)
        if pc.colors is not None:
            cols.append(pc.colors)
    if not pts:
        raise SmrnbValueError(f"frames has no valid depth pixel in any of the {len(idx)} selected frames between "
                              f"depth_min={depth_min:g} m and depth_max={depth_max:g} m "
                              f"({_depth_span(frames.depth[idx])})")
    used = [i for i in idx if i not in set(empty)]
    meta = {"space": "world" if frames.poses is not None else "camera", "frames": used, "frame_counts": counts,
            "frame_index": starts, "empty_frames": empty, "stride": stride}
    return PointCloud(torch.cat(pts), torch.cat(cols) if cols else None, None, "opencv", meta)
