# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Microsoft 7-Scenes layout: ``frame-XXXXXX.{color.png|color.jpg, depth.png, pose.txt}``."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from smrnb._errors import SmrnbValueError
from smrnb.datasets._reader import (
    PoseLines,
    as_dir,
    build_frames,
    check_reader_poses,
    load_images,
    make_K,
    read_matrix_txt,
    reads_files,
    select,
)
from smrnb.geometry import Frames

#: 7-Scenes depth camera (Kinect v1), as used by andyzeng/tsdf-fusion-python
SEVENSCENES_K = (585.0, 585.0, 320.0, 240.0)
_FRAME = re.compile(r"^frame-(\d+)\.depth\.png$")


@reads_files("load_7scenes")
def load_7scenes(path: str | os.PathLike, *, stride: int = 1, max_frames: int | None = None,
                 frames: Sequence[int] | None = None, intrinsics: Any = None, depth_scale: float = 1000.0,
                 color: bool = True) -> Frames:
    """Read one 7-Scenes sequence folder (e.g. ``chess/seq-01``).

    Layout::

        path/
          frame-000000.color.png (or .color.jpg)   RGB
          frame-000000.depth.png                   uint16 millimetres; 65535 (and 0) = no measurement
          frame-000000.pose.txt                    4x4 camera-to-world, metres, OpenCV camera axes
          camera-intrinsics.txt                    optional 3x3 K (andyzeng layout)

    Frames whose pose holds NaN/inf (tracking lost) are dropped before selection and listed in
    ``meta["dropped_bad_pose"]``. Note: the original 7-Scenes color and depth are not registered;
    the color is returned as stored, for display.

    Parameters
    ----------
    stride, max_frames, frames : selection (see :func:`load_redwood`).
    intrinsics : (3, 3) or (fx, fy, cx, cy); default ``camera-intrinsics.txt``, else 585/585/320/240.
    depth_scale : raw units per metre.
    color : read the color images.

    Returns
    -------
    Frames (depth float32 metres with 65535 mapped to 0, color uint8, K float32, poses float32
    camera-to-world); ``names`` are ``frame-XXXXXX``.
    """
    root = as_dir(path, "load_7scenes")
    ids = sorted((int(m.group(1)), m.group(1)) for p in root.iterdir() if (m := _FRAME.match(p.name)))
    if not ids:
        seqs = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name.startswith("seq"))
        hint = f"; pass one sequence folder, e.g. {str(root / seqs[0])!r}" if seqs else ""
        raise SmrnbValueError(f"load_7scenes: no frame-XXXXXX.depth.png files in {str(root)!r}{hint}")
    stems = [f"frame-{s}" for _, s in ids]
    pose_files = [root / f"{s}.pose.txt" for s in stems]
    missing = [p for p in pose_files if not p.is_file()]
    if missing:
        raise SmrnbValueError(f"load_7scenes: {len(missing)} pose file(s) missing in {str(root)!r}, e.g. "
                              f"{missing[0].name!r} (every frame needs frame-XXXXXX.pose.txt)")
    read = [read_matrix_txt(p, (4, 4), "pose", with_lines=True) for p in pose_files]
    poses_all = np.stack([a for a, _ in read])
    good = [i for i in range(len(stems)) if np.isfinite(poses_all[i]).all()]
    dropped = [stems[i] for i in range(len(stems)) if i not in set(good)]
    if not good:
        raise SmrnbValueError(f"load_7scenes: every pose in {str(root)!r} holds NaN/inf")

    if intrinsics is not None:
        K, K_source = make_K(intrinsics, "load_7scenes"), "intrinsics="
    elif (root / "camera-intrinsics.txt").is_file():
        K, K_source = read_matrix_txt(root / "camera-intrinsics.txt", (3, 3), "intrinsics"), "camera-intrinsics.txt"
    else:
        fx, fy, cx, cy = SEVENSCENES_K
        K = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float64)
        K_source = "default 7-Scenes 585/585/320/240"

    idx = select(len(good), stride, max_frames, frames, "load_7scenes")
    chosen = [good[i] for i in idx]
    cpaths = None
    if color:
        cpaths = []
        for i in chosen:
            c = next((root / f"{stems[i]}.color{e}" for e in (".png", ".jpg") if (root / f"{stems[i]}.color{e}").is_file()),
                     None)
            if c is None:
                raise SmrnbValueError(f"load_7scenes: color image {stems[i]}.color.png (or .jpg) missing in "
                                      f"{str(root)!r} (pass color=False to read depth only)")
            cpaths.append(c)
    where = PoseLines([pose_files[i] for i in chosen], [read[i][1] for i in chosen], [""] * len(chosen))
    check_reader_poses(poses_all[chosen], where, "load_7scenes")  # before reading any image
    depth, col = load_images([root / f"{stems[i]}.depth.png" for i in chosen], cpaths, depth_scale, invalid_65535=True)
    meta = {"dataset": "7scenes", "path": str(root), "indices": idx, "num_available": len(good),
            "depth_scale": depth_scale, "intrinsics_source": K_source, "dropped_bad_pose": dropped}
    return build_frames(depth, col, K, poses_all[chosen], [stems[i] for i in chosen], meta, where)
