# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""TUM RGB-D layout: ``rgb.txt``, ``depth.txt``, ``groundtruth.txt`` (timestamps), depth PNG x5000."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from smrnb._errors import SmrnbValueError
from smrnb.datasets._reader import (
    PRIMESENSE_K,
    PoseLines,
    as_dir,
    build_frames,
    check_overflow,
    check_reader_poses,
    load_images,
    make_K,
    read_text_file,
    reads_files,
    select,
)
from smrnb.geometry import Frames

#: calibrated intrinsics per TUM sensor (fx, fy, cx, cy), from the TUM RGB-D "file formats" page;
#: ``default`` is the ROS default the depth images were registered with.
TUM_INTRINSICS = {
    "freiburg1": (517.3, 516.5, 318.6, 255.3),
    "freiburg2": (520.9, 521.0, 325.1, 249.7),
    "freiburg3": (535.4, 539.2, 320.1, 247.6),
    "default": PRIMESENSE_K,
}


def read_list(path: Path, ncols: int, what: str, *, with_lines: bool = False) -> Any:
    """A TUM list file: '#' comments, then 'timestamp value...' lines. Returns (timestamps, other columns)
    and, with ``with_lines``, the file line number of each entry."""
    if not path.is_file():
        raise SmrnbValueError(f"load_tum: {what} {str(path)!r} is missing (the TUM layout has rgb.txt, depth.txt and "
                              "groundtruth.txt next to rgb/ and depth/)")
    ts, rest, lines = [], [], []
    for k, ln in enumerate(read_text_file(path, f"load_tum: {what}").splitlines(), 1):
        s = ln.strip()
        if not s or s.startswith("#"):
            continue
        parts = s.replace(",", " ").split()
        if len(parts) != ncols:
            raise SmrnbValueError(f"load_tum: {str(path)!r} line {k}: expected {ncols} columns, got {len(parts)}: {s!r}")
        try:
            ts.append(float(parts[0]))
        except ValueError:
            raise SmrnbValueError(f"load_tum: {str(path)!r} line {k}: timestamp {parts[0]!r} is not a number") from None
        rest.append(parts[1:])
        lines.append(k)
    out = np.asarray(ts, dtype=np.float64), rest
    return (*out, lines) if with_lines else out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def associate(a: np.ndarray, b: np.ndarray, max_dt: float) -> list[tuple[int, int]]:
    """TUM ``associate.py``: all pairs closer than ``max_dt`` seconds, taken greedily by increasing time
    difference, each timestamp used once. Returns (index in a, index in b) sorted by ``a``."""
    order = np.argsort(b)
    bs = b[order]
    cand = []
    for i, t in enumerate(a):
        lo, hi = np.searchsorted(bs, t - max_dt, "left"), np.searchsorted(bs, t + max_dt, "right")
        for j in range(lo, hi):
            dt = abs(t - bs[j])
            if dt < max_dt:
                cand.append((dt, i, int(order[j])))
    cand.sort()
    used_a, used_b, out = set(), set(), []
    for _, i, j in cand:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            out.append((i, j))
    return sorted(out)


def quat_to_pose(t: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(P, 4, 4) from translations (P, 3) and quaternions (P, 4) in TUM order qx qy qz qw (normalised here,
    in float64 after scaling by the largest component, so a norm that would overflow or underflow does not
    turn the rotation into the identity; the caller refuses zero and non-finite quaternions)."""
    q = np.asarray(q, dtype=np.float64)
    q = q / np.abs(q).max(axis=1, keepdims=True)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    R = np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], 1)
    T = np.tile(np.eye(4), (len(t), 1, 1))
    T[:, :3, :3] = R
    T[:, :3, 3] = t
    return T


@reads_files("load_tum")
def load_tum(path: str | os.PathLike, *, stride: int = 1, max_frames: int | None = None,
             frames: Sequence[int] | None = None, intrinsics: Any = None, max_dt: float = 0.02,
             depth_scale: float = 5000.0, color: bool = True, poses: bool = True) -> Frames:
    """Read a TUM RGB-D sequence folder.

    Layout::

        path/
          rgb.txt, depth.txt     'timestamp rgb/<t>.png' per line ('#' comments)
          groundtruth.txt        'timestamp tx ty tz qx qy qz qw': camera-to-world, metres, OpenCV camera axes
          rgb/, depth/           color PNG and uint16 depth PNG (depth / 5000 = metres, 0 = none)

    Each depth image is paired with the color image nearest in time (TUM ``associate.py``: pairs closer
    than ``max_dt`` seconds, greedily by time difference, one-to-one; unpaired depth images are dropped)
    and with the nearest ground-truth pose within ``max_dt`` (frames without one are dropped, counted in
    ``meta["dropped_no_pose"]``). Frames are in depth-timestamp order, ``names`` are depth timestamps.

    Parameters
    ----------
    stride, max_frames, frames : selection after association (see :func:`load_redwood`).
    intrinsics : (3, 3) or (fx, fy, cx, cy); default by the folder name (``freiburg1/2/3`` calibrated
        values), else the ROS default 525/525/319.5/239.5.
    max_dt : association tolerance in seconds.
    depth_scale : raw units per metre (TUM: 5000).
    color, poses : read color images; read ``groundtruth.txt`` (False: ``poses`` is None).

    Returns
    -------
    Frames (depth float32 metres, color uint8, K float32, poses float32 camera-to-world).
    """
    root = as_dir(path, "load_tum")
    if not (isinstance(max_dt, (int, float)) and max_dt > 0):
        raise SmrnbValueError(f"load_tum: max_dt must be > 0 seconds, got {max_dt!r}")
    d_ts, d_files = read_list(root / "depth.txt", 2, "depth list")
    if len(d_ts) == 0:
        raise SmrnbValueError(f"load_tum: depth list {str(root / 'depth.txt')!r} lists no images")
    order = np.argsort(d_ts, kind="stable")
    d_ts, d_files = d_ts[order], [d_files[i][0] for i in order]
    keep = list(range(len(d_ts)))
    c_for: dict[int, str] = {}
    if color:
        c_ts, c_files = read_list(root / "rgb.txt", 2, "color list")
        pairs = associate(d_ts, c_ts, max_dt)
        c_for = {i: c_files[j][0] for i, j in pairs}
        keep = [i for i in keep if i in c_for]
        if not keep:
            raise SmrnbValueError(f"load_tum: no depth image in {str(root)!r} has a color image within max_dt={max_dt} s")
    dropped_no_color = len(d_ts) - len(keep)
    pose_of: dict[int, np.ndarray] = {}
    dropped_no_pose = 0
    if poses:
        g_ts, g_vals, g_lines = read_list(root / "groundtruth.txt", 8, "ground truth", with_lines=True)
        try:
            vals = np.asarray([[float(v) for v in r] for r in g_vals], dtype=np.float64).reshape(-1, 7)
        except ValueError:
            bad = next(k for k, r in enumerate(g_vals) if not all(_is_number(v) for v in r))
            raise SmrnbValueError(f"load_tum: ground truth {str(root / 'groundtruth.txt')!r} line {g_lines[bad]} "
                                  f"must hold 7 numbers tx ty tz qx qy qz qw, got {' '.join(g_vals[bad])[:120]!r}"
                                  ) from None
        for r, row, ln in zip(g_vals, vals, g_lines):
            if not np.isfinite(row).all():
                check_overflow(r, row, f"load_tum: ground truth {str(root / 'groundtruth.txt')!r} line {ln}")
        with np.errstate(invalid="ignore", divide="ignore"):  # a zero quaternion gives NaN: refused below
            T = quat_to_pose(vals[:, :3], vals[:, 3:])
        gt_line: dict[int, int] = {}
        for i, j in associate(d_ts[keep], g_ts, max_dt):
            pose_of[keep[i]] = T[j]
            gt_line[keep[i]] = j
        dropped_no_pose = len([i for i in keep if i not in pose_of])
        keep = [i for i in keep if i in pose_of]
        if not keep:
            raise SmrnbValueError(f"load_tum: no frame in {str(root)!r} has a ground-truth pose within max_dt={max_dt} s "
                                  "(pass poses=False to read frames without poses)")

    if intrinsics is not None:
        K = make_K(intrinsics, "load_tum")
        K_source = "intrinsics="
    else:
        key = next((k for k in ("freiburg1", "freiburg2", "freiburg3") if k in str(root.resolve())), "default")
        fx, fy, cx, cy = TUM_INTRINSICS[key]
        K = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float64)
        K_source = f"TUM {key} intrinsics {TUM_INTRINSICS[key]}"

    idx = select(len(keep), stride, max_frames, frames, "load_tum")
    chosen = [keep[i] for i in idx]
    dpaths = [root / d_files[i] for i in chosen]
    cpaths = [root / c_for[i] for i in chosen] if color else None
    for p in dpaths + (cpaths or []):
        if not p.is_file():
            raise SmrnbValueError(f"load_tum: image {str(p)!r} listed in {str(root)!r} does not exist")
    P = where = None
    if poses:
        P = np.stack([pose_of[i] for i in chosen])
        gt = root / "groundtruth.txt"
        labels = []
        for i in chosen:
            j = gt_line[i]
            q = " ".join(g_vals[j][3:])
            zero = ", a zero quaternion" if not np.any(vals[j, 3:]) else ""
            labels.append(f"ground truth at {g_ts[j]:.6f} for depth at {d_ts[i]:.6f}: qx qy qz qw = {q[:80]}{zero}")
        where = PoseLines([gt] * len(chosen), [[g_lines[gt_line[i]]] * 4 for i in chosen], labels)
        check_reader_poses(P, where, "load_tum")  # before reading any image
    depth, col = load_images(dpaths, cpaths, depth_scale, invalid_65535=False)
    meta = {"dataset": "tum", "path": str(root), "indices": idx, "num_available": len(keep),
            "depth_scale": depth_scale, "intrinsics_source": K_source, "max_dt": max_dt,
            "dropped_no_color": dropped_no_color, "dropped_no_pose": dropped_no_pose,
            "timestamps": [float(d_ts[i]) for i in chosen]}
    return build_frames(depth, col, K, P, [f"{d_ts[i]:.6f}" for i in chosen], meta, where)
