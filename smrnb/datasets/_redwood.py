# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Redwood / Open3D layout: ``image/`` or ``color/``, ``depth/``, ``*.log`` trajectories, intrinsics JSON."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._files import atomic_write, check_input
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
from smrnb.geometry import Frames, check_int_range, check_K

_IMG_EXT = (".jpg", ".jpeg", ".png")
_INTRINSIC_NAMES = ("camera_primesense.json", "camera_intrinsic.json", "intrinsic.json", "intrinsics.json")


@reads_files("read_log")
def read_log(path: Path) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Parse a Redwood ``.log`` trajectory: blocks of a metadata line (3 ints: frame id, frame id, count) and
    four rows of a 4x4 camera-to-world matrix. Returns (metadata per pose, (P, 4, 4) float64)."""
    metas, mats, _ = _read_log(path)
    return metas, mats


def _read_log(path: Path) -> tuple[list[tuple[int, ...]], np.ndarray, list[list[int]]]:
    """:func:`read_log` plus the file line numbers of each pose's 4 matrix rows."""
    try:
        lines = [ln.strip() for ln in read_text_file(Path(path), "trajectory").splitlines()]
    except OSError as exc:
        raise SmrnbValueError(f"cannot read trajectory {str(path)!r}: {exc}") from None
    lines = [(i + 1, ln) for i, ln in enumerate(lines) if ln]
    if len(lines) % 5:
        raise SmrnbValueError(f"trajectory {str(path)!r} must hold blocks of 5 non-empty lines (metadata + 4x4), got "
                              f"{len(lines)} lines")
    metas, mats, rowlines = [], [], []
    for b in range(0, len(lines), 5):
        lineno, head = lines[b]
        try:
            meta = tuple(int(v) for v in head.split())
        except ValueError:
            raise SmrnbValueError(f"trajectory {str(path)!r} line {lineno}: expected a metadata line of integers "
                                  f"'id id count', got {head!r}") from None
        rows = []
        for lineno, ln in lines[b + 1: b + 5]:
            try:
                row = [float(v) for v in ln.split()]
            except ValueError:
                row = []
            if len(row) != 4:
                raise SmrnbValueError(f"trajectory {str(path)!r} line {lineno}: expected 4 numbers of a 4x4 matrix "
                                      f"row, got {ln!r}")
            check_overflow(ln.split(), row, f"trajectory {str(path)!r} line {lineno}")
            rows.append(row)
        metas.append(meta)
        mats.append(rows)
        rowlines.append([k for k, _ in lines[b + 1: b + 5]])
    return metas, np.asarray(mats, dtype=np.float64).reshape(-1, 4, 4), rowlines


def write_log(path: Path, poses: np.ndarray, ids: Sequence[int] | None = None) -> None:
    """Write (P, 4, 4) camera-to-world poses as a Redwood ``.log`` (metadata ``id id id+1``)."""
    try:
        arr = np.asarray(poses, dtype=np.float64)
    except (TypeError, ValueError):
        raise SmrnbTypeError(f"poses must be a (P, 4, 4) array of numbers, got {type(poses).__name__}") from None
    if arr.ndim != 3 or arr.shape[1:] != (4, 4):
        raise SmrnbValueError(f"poses must have shape (P, 4, 4), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise SmrnbValueError(f"poses must be finite, got {int((~np.isfinite(arr)).sum())} NaN/inf value(s)")
    ids = list(range(len(arr))) if ids is None else list(ids)
    if len(ids) != len(arr):
        raise SmrnbValueError(f"ids must have one id per pose ({len(arr)}), got {len(ids)}")
    out = []
    for i, T in zip(ids, arr):
        out.append(f"{i} {i} {i + 1}")
        out.extend(" ".join(f"{v:.8f}" for v in row) for row in T)
    atomic_write(path, "\n".join(out) + "\n", "path")  # a full disk leaves an existing file whole


#: an intrinsics JSON is a few hundred bytes; a larger file is not one
MAX_INTRINSIC_JSON_BYTES = 1 << 20


def _json_number(v: Any, what: str) -> float:
    """A JSON number (not a bool, a string or null), as float."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SmrnbValueError(f"{what} must be a number, got {type(v).__name__} {v!r:.40}" +
                              (" (JSON true/false)" if isinstance(v, bool) else ""))
    return float(v)


@reads_files("read_intrinsic_json")
def read_intrinsic_json(path: Path) -> tuple[np.ndarray, tuple[int, int] | None]:
    """Open3D ``PinholeCameraIntrinsic`` JSON: ``intrinsic_matrix`` is 9 numbers, COLUMN-major."""
    p = check_input(path, "intrinsics file")  # missing, empty (0 bytes), a folder, permission
    where = f"intrinsics {str(p)!r}"
    if p.stat().st_size > MAX_INTRINSIC_JSON_BYTES:
        raise SmrnbValueError(f"{where} is {p.stat().st_size:,} bytes; an intrinsics JSON is a few hundred (need "
                              "'intrinsic_matrix' with 9 numbers, column-major)")
    text = read_text_file(p, "intrinsics")
    try:
        d = json.loads(text)
    except RecursionError:
        raise SmrnbValueError(f"{where} is nested too deeply to be an intrinsics JSON (need 'intrinsic_matrix' "
                              "with 9 numbers, column-major)") from None
    except ValueError as exc:
        raise SmrnbValueError(f"{where} is not valid JSON ({exc}); need 'intrinsic_matrix' with 9 numbers, "
                              "column-major") from None
    if not isinstance(d, dict) or "intrinsic_matrix" not in d:
        raise SmrnbValueError(f"{where} must be a JSON object with 'intrinsic_matrix' (9 numbers, column-major), got "
                              f"{'an object with keys ' + ', '.join(map(repr, list(d)[:8])) if isinstance(d, dict) else type(d).__name__}")
    raw = d["intrinsic_matrix"]
    if not isinstance(raw, list) or len(raw) != 9:
        got = f"a list of {len(raw)}" if isinstance(raw, list) else type(raw).__name__
        raise SmrnbValueError(f"{where}: 'intrinsic_matrix' must have 9 numbers, got {got}")
    m = np.array([_json_number(v, f"{where}: 'intrinsic_matrix'[{i}]") for i, v in enumerate(raw)], dtype=np.float64)
    K = m.reshape(3, 3).T  # column-major
    check_K(torch.from_numpy(K), "K", where=f"{p}, 'intrinsic_matrix'")  # NaN, fx <= 0, a bad last row
    size = None
    if "width" in d and "height" in d:
        w, h = d["width"], d["height"]
        for k, v in (("width", w), ("height", h)):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= 100_000:
                raise SmrnbValueError(f"{where}: {k!r} must be a whole number of pixels in [1, 100000], got {v!r:.40}")
        size = (w, h)
    return K, size


def _image_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in _IMG_EXT and p.is_file())


def _pick_trajectory(root: Path, trajectory: Any) -> Path | None:
    if trajectory is not None:
        if not isinstance(trajectory, (str, os.PathLike)):
            raise SmrnbTypeError(f"load_redwood: trajectory must be a path, got {type(trajectory).__name__}")
        t = Path(trajectory)
        t = t if t.is_absolute() or t.exists() else root / t
        if not t.is_file():
            raise SmrnbValueError(f"load_redwood: trajectory {str(t)!r} does not exist")
        return t
    logs = sorted(root.glob("*.log"))
    if not logs:
        return None
    if len(logs) == 1:
        return logs[0]
    for name in ("trajectory.log",):
        if (root / name).is_file():
            return root / name
    traj = [p for p in logs if p.name.startswith("trajectory")]
    if len(traj) == 1:
        return traj[0]
    raise SmrnbValueError(f"load_redwood: several .log trajectories in {str(root)!r} "
                          f"({', '.join(p.name for p in logs)}); choose one with trajectory=")


def _pairs(root: Path, depth_dir: Path, color_dir: Path | None) -> list[tuple[Path, Path | None]]:
    depths = _image_files(depth_dir)
    if not depths:
        raise SmrnbValueError(f"load_redwood: no depth images (.png) in {str(depth_dir)!r}")
    if color_dir is None:
        return [(d, None) for d in depths]
    match = root / "rgbd.match"
    if match.is_file():
        pairs = []
        for k, ln in enumerate(read_text_file(match, "match file").splitlines(), 1):
            parts = ln.split()
            if not parts:
                continue
            if len(parts) != 2:
                raise SmrnbValueError(f"load_redwood: {str(match)!r} line {k}: expected 'depth/X.png color/X.jpg', "
                                      f"got {ln!r}")
            d, c = root / parts[0], root / parts[1]
            for p, what in ((d, "depth"), (c, "color")):
                if not p.is_file():
                    raise SmrnbValueError(f"load_redwood: {str(match)!r} line {k} names {what} file {str(p)!r}, "
                                          "which does not exist")
            pairs.append((d, c))
        return pairs
    colors = {p.stem: p for p in _image_files(color_dir)}
    missing = [d.name for d in depths if d.stem not in colors]
    if missing:
        raise SmrnbValueError(f"load_redwood: no color image in {str(color_dir)!r} for {len(missing)} depth image(s), "
                              f"e.g. {missing[0]!r} (pairing is by file stem; or add an rgbd.match file, or color=False)")
    return [(d, colors[d.stem]) for d in depths]


@reads_files("load_redwood")
def load_redwood(path: str | os.PathLike, *, stride: int = 1, max_frames: int | None = None,
                 frames: Sequence[int] | None = None, trajectory: str | os.PathLike | None = None,
                 intrinsics: Any = None, depth_scale: float = 1000.0, color: bool = True) -> Frames:
    """Read a Redwood / Open3D reconstruction-system folder.

    Layout::

        path/
          image/ or color/   00000.jpg ...   RGB, registered to depth
          depth/             00000.png ...   uint16, millimetres (depth_scale=1000), 0 = no measurement
          *.log              camera-to-world 4x4 per frame ('id id count' then 4 rows); optional
          camera_primesense.json             Open3D intrinsics JSON, column-major; optional
          rgbd.match         'depth/X.png color/X.jpg' per line; optional (else pairing by file stem)

    Parameters
    ----------
    path : the folder.
    stride, max_frames, frames : selection: ``frames`` (positions in the sorted sequence, default all),
        then every ``stride``-th of those, then the first ``max_frames``.
    trajectory : which ``.log`` (default: the only one, else ``trajectory.log``); poses are paired by
        the metadata frame id when the ids name the depth files' numbers, else in order.
    intrinsics : (3, 3) or (fx, fy, cx, cy); default from the JSON, else PrimeSense 525/525/319.5/239.5.
    depth_scale : raw depth units per metre.
    color : read the color images.

    Returns
    -------
    Frames: depth (N, H, W) float32 metres (0 = none), color (N, H, W, 3) uint8, K (3, 3) float32,
    poses (N, 4, 4) float32 camera-to-world with OpenCV camera axes (None when there is no ``.log``),
    names = depth file stems; ``meta`` records the path, the positions selected and where K came from.
    """
    root = as_dir(path, "load_redwood")
    depth_dir = root / "depth"
    if not depth_dir.is_dir():
        raise SmrnbValueError(f"load_redwood: no depth/ folder in {str(root)!r} (expected the Redwood layout: "
                              "image/ or color/, depth/, a .log trajectory)")
    color_dir = None
    if color:
        color_dir = next((root / n for n in ("image", "color", "rgb") if (root / n).is_dir()), None)
        if color_dir is None:
            raise SmrnbValueError(f"load_redwood: no image/ or color/ folder in {str(root)!r} (pass color=False to "
                                  "read depth only)")
    pairs = _pairs(root, depth_dir, color_dir)
    n = len(pairs)

    traj = _pick_trajectory(root, trajectory)
    poses_all, pairing, where_all = _poses_for(traj, pairs, root, "load_redwood")

    K_source = "intrinsics="
    size = None
    if intrinsics is not None:
        if isinstance(intrinsics, (str, os.PathLike)):
            K, size = read_intrinsic_json(Path(intrinsics))
            K_source = str(intrinsics)
        else:
            K = make_K(intrinsics, "load_redwood")
    else:
        js = next((root / n for n in _INTRINSIC_NAMES if (root / n).is_file()), None)
        if js is not None:
            K, size = read_intrinsic_json(js)
            K_source = str(js)
        else:
            fx, fy, cx, cy = PRIMESENSE_K
            K = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float64)
            K_source = "default PrimeSense 525/525/319.5/239.5 (no intrinsics JSON found)"

    idx = select(n, stride, max_frames, frames, "load_redwood")
    sel = [pairs[i] for i in idx]
    where = None
    if poses_all is not None:
        where = where_all.select(idx)
        check_reader_poses(poses_all[idx], where, "load_redwood")  # before reading any image
    depth, col = load_images([p[0] for p in sel], None if color_dir is None else [p[1] for p in sel],
                             depth_scale, invalid_65535=False)
    if size is not None and size != (depth.shape[2], depth.shape[1]):
        raise SmrnbValueError(f"load_redwood: intrinsics {K_source!r} are for {size[0]}x{size[1]} images, the depth "
                              f"images are {depth.shape[2]}x{depth.shape[1]}")
    poses = None if poses_all is None else poses_all[idx]
    meta = {"dataset": "redwood", "path": str(root), "indices": idx, "num_available": n, "depth_scale": depth_scale,
            "intrinsics_source": K_source, "trajectory": None if traj is None else str(traj)}
    if traj is not None:
        meta["pose_pairing"] = pairing
    return build_frames(depth, col, K, poses, [p[0].stem for p in sel], meta, where)


def _poses_for(traj: Path | None, pairs: list[tuple[Path, Path | None]], root: Path, reader: str
               ) -> tuple[np.ndarray | None, str | None, PoseLines | None]:
    """Poses of every frame of ``pairs`` from the trajectory (by frame id when the ids name the depth
    files, else in order), how they were paired, and where each came from (file lines)."""
    if traj is None:
        return None, None, None
    metas, mats, rowlines = _read_log(traj)
    stems = [p[0].stem for p in pairs]
    n = len(pairs)
    ids = [m[0] for m in metas]
    pos: dict[int, int] = {}
    for k, i in enumerate(ids):
        if i in pos and len(set(ids)) > 1:  # one id everywhere is a placeholder: the poses are in frame order
            raise SmrnbValueError(f"{reader}: trajectory {str(traj)!r} gives frame id {i} twice (lines "
                                  f"{rowlines[pos[i]][0] - 1} and {rowlines[k][0] - 1}): a trajectory holds one pose "
                                  "per frame (a pairwise registration .log is not one); pass trajectory= with one")
        pos.setdefault(i, k)
    if all(s.isdigit() for s in stems) and len(set(ids)) == len(ids) and all(int(s) in pos for s in stems):
        order = [pos[int(s)] for s in stems]
        pairing = "by frame id"
    elif len(mats) == n:
        order = list(range(n))
        pairing = "in order"
    else:
        raise SmrnbValueError(f"{reader}: trajectory {str(traj)!r} has {len(mats)} poses for {n} frames and "
                              "its frame ids do not name the depth files; pass trajectory= with a matching .log")
    depth_dir = pairs[0][0].parent.name
    where = PoseLines([traj] * n, [rowlines[k] for k in order],
                      [f"frame id {ids[k]}, pose of {depth_dir}/{pairs[i][0].name}" for i, k in enumerate(order)])
    return mats[order], pairing, where


@reads_files("iter_redwood")
def iter_redwood(path: str | os.PathLike, *, batch_size: int = 8, stride: int = 1, max_frames: int | None = None,
                 frames: Sequence[int] | None = None, trajectory: str | os.PathLike | None = None,
                 intrinsics: Any = None, depth_scale: float = 1000.0, color: bool = True) -> Iterator[Frames]:
    """:func:`load_redwood` as a stream: yields :class:`smrnb.Frames` batches of at most ``batch_size``
    frames, in order, reading each batch's images only when it is asked for (peak memory: one batch).
    The selection arguments mean what they mean for :func:`load_redwood`; ``fuse_tsdf`` takes the
    iterator as it is. The folder, trajectory and intrinsics are checked before the first batch."""
    batch_size = check_int_range(batch_size, "batch_size", 1, 1 << 20)
    root = as_dir(path, "iter_redwood")
    depth_dir = root / "depth"
    if not depth_dir.is_dir():
        raise SmrnbValueError(f"iter_redwood: no depth/ folder in {str(root)!r} (expected the Redwood layout: "
                              "image/ or color/, depth/, a .log trajectory)")
    color_dir = next((root / n for n in ("image", "color", "rgb") if (root / n).is_dir()), None) if color else None
    pairs = _pairs(root, depth_dir, color_dir)  # the sequence load_redwood selects from
    idx = select(len(pairs), stride, max_frames, frames, "iter_redwood")
    kw = {"trajectory": trajectory, "intrinsics": intrinsics, "depth_scale": depth_scale, "color": color}
    load_redwood(root, frames=idx[:1], **kw)  # fail early: layout, trajectory, intrinsics
    # every selected pose is checked now, not when its batch comes (a stream that fails half-way
    # through has spent its work for nothing)
    poses_all, _, where_all = _poses_for(_pick_trajectory(root, trajectory), pairs, root, "iter_redwood")
    if poses_all is not None:
        check_reader_poses(poses_all[idx], where_all.select(idx), "iter_redwood")

    def gen() -> Iterator[Frames]:
        for s in range(0, len(idx), batch_size):
            yield load_redwood(root, frames=idx[s : s + batch_size], **kw)

    return gen()
