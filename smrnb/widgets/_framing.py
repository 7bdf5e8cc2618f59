# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Framing a scene: a camera pose that shows all of it, and where the axes go (and how long they are).

Poses are three.js cameras: ``position`` (3,), ``quaternion`` (x, y, z, w) of a camera looking down its
-z axis, OpenGL world frame, metres.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from smrnb.widgets._layers import Layer, finite_bounds

#: where the fitted camera looks from (right, up and in front of the data's centre; OpenGL frame)
DEFAULT_DIRECTION = (0.45, 0.35, 1.0)


def fit_camera_pose(positions: list[np.ndarray], fov: float = 45.0, aspect: float = 1.6,
                    direction: tuple[float, float, float] = DEFAULT_DIRECTION, fill: float = 0.9,
                    sample: int = 20_000, also: np.ndarray | None = None) -> dict[str, Any]:
    """Camera that frames every position: ``{position, target, quaternion, near, far, radius}``.

    The camera looks at the centre of the bounding box from ``direction`` and stands just far enough
    back that every position (up to ``sample`` of them, a seeded random subset) projects inside ``fill``
    of the half-width and half-height of the view (``fov`` is vertical, degrees; ``aspect`` =
    width/height): a wide room fills the canvas instead of the circle around its bounding sphere.
    ``also`` (M, 3): points to keep in view as well (the axes) without moving the centre looked at.
    """
    pts = [p for p in positions if len(p)]
    if pts:
        allp = np.concatenate(pts).astype(np.float64)
        allp = allp[np.isfinite(allp).all(1)]
    else:
        allp = np.zeros((0, 3))
    if len(allp) == 0:
        allp = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]])
    lo, hi = finite_bounds(allp)  # type: ignore[misc]  # allp has finite rows
    center = (lo + hi) / 2
    radius = max(float(np.linalg.norm(allp - center, axis=1).max()), 1e-3)
    if len(allp) > sample:
        allp = allp[np.random.default_rng(0).choice(len(allp), sample, replace=False)]
    if also is not None and len(also):
        allp = np.concatenate([allp, np.asarray(also, np.float64).reshape(-1, 3)])
    d = np.asarray(direction, np.float64)
    d /= np.linalg.norm(d)
    right = np.cross((0.0, 1.0, 0.0), d)
    if np.linalg.norm(right) < 1e-9:
        right = np.cross((0.0, 0.0, 1.0), d)
    right /= np.linalg.norm(right)
    up = np.cross(d, right)
    q = allp - center
    toward, a, b = q @ d, np.abs(q @ right), np.abs(q @ up)
    tan_v = math.tan(math.radians(fov) / 2) * fill
    tan_h = math.tan(math.radians(fov) / 2) * aspect * fill
    # a point at depth dist - toward projects inside the view when |a| / depth <= tan_h (and b likewise)
    dist = float(np.max(np.maximum(toward + a / tan_h, toward + b / tan_v)))
    dist = max(dist, float(toward.max()) + radius * 0.05, radius * 0.1)  # the camera stays outside the data
    pos = center + d * dist
    return {"position": tuple(float(x) for x in pos), "target": tuple(float(x) for x in center),
            "quaternion": _look_at_quaternion(pos, center), "near": dist / 100.0,
            "far": dist * 10.0 + radius * 2, "radius": radius}


def _look_at_quaternion(eye: np.ndarray, target: np.ndarray, up: tuple[float, float, float] = (0, 1, 0)
                        ) -> tuple[float, float, float, float]:
    """Quaternion (x, y, z, w) of a camera at ``eye`` looking at ``target`` (camera looks down -z)."""
    z = eye - target
    z = z / np.linalg.norm(z)
    x = np.cross(np.asarray(up, np.float64), z)
    if np.linalg.norm(x) < 1e-9:
        x = np.cross((0.0, 0.0, 1.0), z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.stack([x, y, z], 1)  # columns: camera axes in world
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, qx, qy, qz = 0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        w, qx, qy, qz = (m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        w, qx, qy, qz = (m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        w, qx, qy, qz = (m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s
    return (float(qx), float(qy), float(qz), float(w))


def nice_length(x: float) -> float:
    """The largest 1, 2 or 5 x 10^k not above ``x`` (a scale-bar length), ``x`` > 0."""
    k = math.floor(math.log10(x))
    for m in (5.0, 2.0, 1.0):
        if m * 10.0 ** k <= x:
            return m * 10.0 ** k
    return 10.0 ** k  # pragma: no cover - m = 1 always fits


def axes_of(layers: list[Layer], direction: tuple[float, float, float] = DEFAULT_DIRECTION) -> dict[str, Any]:
    """Where the axes go: at the bottom-left corner of the scene's face towards a camera looking from
    ``direction`` (the default camera's: in front of the data, not behind it), snapped outwards to a
    fifth of an axis, each axis a round length (about a quarter of the scene's largest side) in the
    layers' ``units``."""
    bounds = [b for b in (layer.bounds() for layer in layers) if b is not None]
    los, his = [b[0] for b in bounds], [b[1] for b in bounds]
    units = layers_units(layers)
    if not los:
        return {"origin": [0.0, 0.0, 0.0], "length": 1.0, "units": units}
    lo = np.min(los, axis=0)
    hi = np.max(his, axis=0)
    side = float((hi - lo).max()) or 1.0
    length = nice_length(side / 4.0)
    # the corner snapped outwards to a fifth of an axis: the axes stay put while a re-run moves the data's
    # corner by less (no jitter, and no update to send to the browser)
    step = length / 5.0
    # the front face (towards the camera) at its bottom-left: x and y run along the data's edges, z comes
    # out of it towards the person
    near = [False, False, direction[2] > 0]
    origin = [float(math.ceil(h / step) * step) if n else float(math.floor(low / step) * step)
              for low, h, n in zip(lo, hi, near)]
    return {"origin": origin, "length": length, "units": units}


def axes_points(axes: dict[str, Any]) -> np.ndarray:
    """(4, 3) the axes' origin and the three ends (for framing them with the data)."""
    o = np.asarray(axes["origin"], np.float64)
    return np.stack([o] + [o + np.eye(3)[k] * axes["length"] for k in range(3)])


def layers_units(layers: list[Layer]) -> str:
    """``"m"``, or ``"voxels"`` when every layer is in voxel index units (a grid given as a plain tensor)."""
    units = {layer.units for layer in layers}
    return "voxels" if units == {"voxels"} else "m"


def format_length(x: float, units: str = "m") -> str:
    """A length as text: metres in mm, cm or m (``0.005`` -> ``5 mm``); voxel units as ``5 voxels``."""
    if units == "voxels":
        return f"{x:g} voxel" + ("" if x == 1 else "s")
    return f"{x * 1000:g} mm" if x < 0.01 else f"{x * 100:g} cm" if x < 1 else f"{x:g} m"


__all__ = ["DEFAULT_DIRECTION", "axes_of", "axes_points", "fit_camera_pose", "format_length", "layers_units",
           "nice_length"]
