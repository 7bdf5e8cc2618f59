# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The xatlas calls of :func:`smrnb.auto_uv`, run in smrnb's native helper process (:mod:`smrnb._native`).

A module of its own so that the helper imports numpy and xatlas only (not torch nor the geometry core).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xatlas


def unwrap(vs: np.ndarray, fs: np.ndarray, opts: dict[str, Any]) -> dict[str, Any]:
    """xatlas on a mesh already centred and scaled into the unit cube (``vs`` float32, ``fs`` uint32): the
    atlas size, padding in texels, counts and, for a one-page atlas, ``vmap``, ``idx`` and ``uvs``."""
    co = xatlas.ChartOptions()
    co.max_chart_area = opts["max_chart_area"]
    co.normal_deviation_weight = opts["normal_deviation_weight"]
    co.max_cost = opts["max_cost"]
    padding, resolution = opts["padding"], opts["resolution"]
    pad_texels = max(1, int(math.ceil(padding * resolution)))
    for _ in range(3):  # the atlas side only approximates `resolution`: re-pack until the padding holds
        atlas = xatlas.Atlas()
        atlas.add_mesh(vs, fs)
        po = xatlas.PackOptions()
        po.padding = pad_texels
        po.resolution = resolution
        po.bilinear = True
        atlas.generate(chart_options=co, pack_options=po)
        W, H = atlas.width, atlas.height
        if W <= 0 or H <= 0 or pad_texels / max(W, H) >= padding:
            break
        pad_texels = int(math.ceil(padding * max(W, H))) + 1
    out: dict[str, Any] = {"W": int(W), "H": int(H), "pad_texels": int(pad_texels),
                           "atlas_count": int(atlas.atlas_count), "chart_count": int(atlas.chart_count),
                           "utilization": float(atlas.utilization), "vmap": np.zeros(0), "idx": np.zeros((0, 3)),
                           "uvs": np.zeros((0, 2))}
    if out["atlas_count"] == 1:
        out["vmap"], out["idx"], out["uvs"] = (np.asarray(a) for a in atlas[0])
    return out

__all__ = ["unwrap"]
