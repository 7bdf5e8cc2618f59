# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""UV unwrapping through xatlas (MIT), robust on non-manifold fusion meshes. Runs on the CPU (there is
no GPU chart segmentation and packing to call), in a warm helper process (:mod:`smrnb._native`: a
crash or a hang there cannot take the caller down); results are moved back to the caller's device.

How the tutorial's knobs map onto xatlas (honestly: xatlas has no "number of charts" target):

* ``chart_num`` sets xatlas' ``max_chart_area`` to (surface area / ``chart_num``): no chart may
  grow beyond that area, so there are *at least* about ``chart_num`` charts on a smooth surface,
  and more wherever charts must split for other reasons. The real count is reported.
* ``max_normal_deviation`` (degrees) splits charts where the surface turns: xatlas grows a chart
  while the cost (``normal_deviation_weight`` x deviation + roundness + straightness) stays below
  ``max_cost``; a lower angle means more, flatter charts, so twisted parts do not stretch.
* ``padding`` is in UV units (fraction of the atlas side): converted to whole texels at
  ``resolution`` (at least one texel).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from smrnb import _native
from smrnb._errors import SmrnbValueError
from smrnb.geometry._guards import check_index_range, same_device
from smrnb.geometry._validate import (
    as_tensor,
    check_finite,
    check_float,
    check_int_range,
    check_integer,
    check_positive,
    check_shape,
)


@dataclass(frozen=True)
class UVReport:
    charts: int
    atlas_width: int
    atlas_height: int
    utilization: float  # fraction of the atlas covered by charts
    padding_texels: int
    stretch_mean: float  # area-weighted L2 stretch (Sander et al. 2001), 1 = isometric up to scale
    stretch_max: float
    vertices_in: int
    vertices_out: int  # after seam splits
    native_warnings: int = 0  # xatlas ASSERT/warning lines (kept off the terminal, counted here)


class UVResult(tuple):
    """``(uvs, face_uvs_idx)`` as in the tutorial (unpacks to two), with ``.report`` (:class:`UVReport`)."""

    report: UVReport

    def __new__(cls, uvs: torch.Tensor, face_uvs_idx: torch.Tensor, report: UVReport):
        obj = super().__new__(cls, (uvs, face_uvs_idx))
        obj.report = report
        return obj

    @property
    def uvs(self) -> torch.Tensor:
        return self[0]

    @property
    def face_uvs_idx(self) -> torch.Tensor:
        return self[1]


def _stretch(v: np.ndarray, f: np.ndarray, uv: np.ndarray, fuv: np.ndarray) -> tuple[float, float]:
    """Area-weighted mean and max L2 stretch, normalised so the global scale is 1."""
    p = v[f]
    q = uv[fuv]
    a3 = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    d1, d2 = q[:, 1] - q[:, 0], q[:, 2] - q[:, 0]
    a2 = 0.5 * (d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0])
    ok = (np.abs(a2) > 1e-20) & (a3 > 1e-20)
    if not ok.any():
        return float("nan"), float("nan")
    p, q, a2, a3 = p[ok], q[ok], a2[ok], a3[ok]
    s0, s1, s2 = q[:, 0, 0], q[:, 1, 0], q[:, 2, 0]
    t0, t1, t2 = q[:, 0, 1], q[:, 1, 1], q[:, 2, 1]
    Ss = (p[:, 0] * (t1 - t2)[:, None] + p[:, 1] * (t2 - t0)[:, None] + p[:, 2] * (t0 - t1)[:, None]) / (2 * a2[:, None])
    St = (p[:, 0] * (s2 - s1)[:, None] + p[:, 1] * (s0 - s2)[:, None] + p[:, 2] * (s1 - s0)[:, None]) / (2 * a2[:, None])
    L2 = np.sqrt(0.5 * ((Ss * Ss).sum(1) + (St * St).sum(1)))
    scale = math.sqrt(np.abs(a2).sum() / a3.sum())
    L2 = L2 * scale
    mean = float(math.sqrt((a3 * L2 ** 2).sum() / a3.sum()))
    return mean, float(L2.max())


def auto_uv(vertices: Any, faces: Any, chart_num: int = 100, padding: float = 0.001, resolution: int = 1024,
            max_normal_deviation: float = 60.0, *, timeout: float | None = 600.0) -> UVResult:
    """Unwrap a triangle mesh into a UV atlas (the tutorial's signature).

    Parameters
    ----------
    vertices : (V, 3) float tensor, any frame and unit
    faces : (F, 3) integer tensor
    chart_num : int
        Sets the maximum chart area to surface area / chart_num (see module docstring).
    padding : float
        Gap between charts in UV units (fraction of the atlas side).
    resolution : int
        Atlas side in texels used for packing (match the texture you will bake).
    max_normal_deviation : float
        Degrees; charts split where the normal turns more than about this.
    timeout : float or None
        Seconds xatlas may run (in smrnb's warm helper process, started without forking this one:
        a native crash, a hang or Ctrl-C stops the helper, not the caller); None waits forever.

    Returns
    -------
    UVResult
        ``uvs`` (T, 2) float32 in [0, 1] (v up, origin bottom-left) and ``face_uvs_idx`` (F, 3) int64
        into ``uvs``, face order unchanged; ``.report`` has chart count, stretch and utilisation.
    """
    v = as_tensor(vertices, "vertices")
    f = as_tensor(faces, "faces")
    check_shape(v, "vertices", (None, 3))
    check_float(v, "vertices")
    check_finite(v, "vertices")
    check_shape(f, "faces", (None, 3))
    check_integer(f, "faces")
    if f.shape[0] == 0:
        raise SmrnbValueError("faces must hold at least one triangle to unwrap, got 0 faces")
    same_device(vertices=v, faces=f)
    check_index_range(f, v.shape[0], "faces", "vertices")
    chart_num = check_int_range(chart_num, "chart_num", lo=1)
    padding = check_positive(padding, "padding", allow_zero=True)
    if padding >= 0.25:
        raise SmrnbValueError(f"padding must be < 0.25 (UV units), got {padding}")
    resolution = check_int_range(resolution, "resolution", lo=16, hi=16384)
    max_normal_deviation = check_positive(max_normal_deviation, "max_normal_deviation")
    if timeout is not None:
        timeout = check_positive(timeout, "timeout")

    device = v.device
    vn = v.detach().cpu().double().numpy()
    fn = f.detach().cpu().long().numpy()
    # xatlas works in float32 and segfaults or loops on huge coordinates: hand it the mesh centred
    # and scaled into the unit cube. UVs are scale-invariant; max_chart_area is taken from the
    # scaled mesh, and padding is in texels, so the atlas is the same as for the mesh at unit size.
    lo, hi = vn.min(axis=0), vn.max(axis=0)
    extent = float((hi - lo).max())
    if not math.isfinite(extent) or extent <= 0:
        raise SmrnbValueError(f"vertices must span a non-zero extent to unwrap, got a bounding box of size {extent:g}")
    vs = (vn - (lo + hi) / 2) / extent
    tri = vs[fn]
    areas = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    area = float(areas.sum())
    if not area > 1e-12:
        raise SmrnbValueError(f"faces must enclose a non-zero area to unwrap, got {fn.shape[0]} degenerate "
                              "(zero-area) faces")

    # xatlas' cost grows with the normal deviation (1 - cos); turn the angle into its max_cost
    opts = {"max_chart_area": area / chart_num, "normal_deviation_weight": 2.0,
            "max_cost": max(0.05, 2.0 * (1.0 - math.cos(math.radians(min(max_normal_deviation, 179.0))))),
            "padding": padding, "resolution": resolution}
    res = _native.call("smrnb._xatlas:unwrap", vs.astype(np.float32), fn.astype(np.uint32), opts,
                       timeout=timeout, what="auto_uv (xatlas)")
    W, H, pad_texels = res["W"], res["H"], res["pad_texels"]
    if res["atlas_count"] != 1:
        raise SmrnbValueError(f"xatlas split the atlas into {res['atlas_count']} pages; lower chart_num (got "
                              f"{chart_num}) or raise resolution (got {resolution})")
    vmap, idx, uvs = res["vmap"], res["idx"], res["uvs"]
    if W <= 0 or H <= 0 or len(uvs) == 0:
        raise SmrnbValueError("xatlas produced an empty atlas (degenerate mesh?): check faces and vertices")
    # xatlas returns uvs normalised by the atlas size; keep them in [0, 1]
    uvs = np.clip(np.asarray(uvs, dtype=np.float64), 0.0, 1.0)
    idx = np.asarray(idx, dtype=np.int64)
    mean, mx = _stretch(vs, fn, uvs, idx)  # scale-invariant: on the unit-size copy
    rep = UVReport(int(res["chart_count"]), int(W), int(H), float(res["utilization"]), pad_texels, mean, mx,
                   int(vn.shape[0]), int(len(vmap)), int(res.get("native_warnings", 0)))
    return UVResult(torch.as_tensor(uvs, dtype=torch.float32).to(device), torch.as_tensor(idx).to(device), rep)


__all__ = ["auto_uv", "UVResult", "UVReport"]
