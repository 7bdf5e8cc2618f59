# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Shared pieces of the dataset readers: frame selection, image decoding, the Frames build."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry import Frames, check_poses

#: PrimeSense / Kinect v1 default (Redwood, ICL-NUIM, ROS): fx, fy, cx, cy for 640x480
PRIMESENSE_K = (525.0, 525.0, 319.5, 239.5)


def as_dir(path: Any, reader: str) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise SmrnbTypeError(f"{reader}: path must be a str or os.PathLike folder, got {type(path).__name__}")
    p = Path(path).expanduser()
    if not p.exists():
        raise SmrnbValueError(f"{reader}: path {str(p)!r} does not exist")
    if not p.is_dir():
        raise SmrnbValueError(f"{reader}: path {str(p)!r} is not a folder")
    return p


def select(n: int, stride: int = 1, max_frames: int | None = None, frames: Sequence[int] | None = None,
           reader: str = "") -> list[int]:
    """Positions into a sequence of ``n`` frames: ``frames`` (or all), then every ``stride``-th, then the first
    ``max_frames``."""
    if isinstance(stride, bool) or not isinstance(stride, (int, np.integer)) or stride < 1:
        raise SmrnbValueError(f"{reader}: stride must be an int >= 1, got {stride!r}")
    if max_frames is not None and (isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer))
                                   or max_frames < 1):
        raise SmrnbValueError(f"{reader}: max_frames must be an int >= 1 or None, got {max_frames!r}")
    if frames is None:
        idx = list(range(n))
    else:
        if isinstance(frames, (str, bytes)) or not hasattr(frames, "__iter__"):
            raise SmrnbTypeError(f"{reader}: frames must be a sequence of ints, got {type(frames).__name__}")
        idx = []
        for f in frames:
            if isinstance(f, bool) or not isinstance(f, (int, np.integer)):
                raise SmrnbTypeError(f"{reader}: frames must contain ints, got {f!r}")
            if not 0 <= int(f) < n:
                raise SmrnbValueError(f"{reader}: frames must be in [0, {n - 1}] (the sequence has {n} frames), got {int(f)}")
            idx.append(int(f))
    idx = idx[::int(stride)]
    if max_frames is not None:
        idx = idx[: int(max_frames)]
    if not idx:
        raise SmrnbValueError(f"{reader}: the selection is empty (sequence of {n} frames)")
    return idx


def read_text_file(path: Path, what: str) -> str:
    """The text of a list / trajectory file as UTF-8, or an error naming the file, the line and the byte."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SmrnbValueError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SmrnbValueError(f"{what} {str(path)!r} is not UTF-8 text (byte {exc.start}, line {line}: "
                              f"{data[exc.start:exc.start + 1]!r}); is it the right file?") from None


def read_depth(path: Path, depth_scale: float, invalid_65535: bool, out: np.ndarray | None = None) -> np.ndarray:
    """(H, W) float32 metres from a 16-bit PNG; 0 stays 0 (no measurement), 65535 -> 0 when asked.
    ``out``: an (H, W) float32 array to write into (a slice of a batch), or None for a new one."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            if im.mode not in ("I;16", "I;16B", "I;16L", "I"):
                eight = " (an 8-bit image cannot hold depth in millimetres: at most 0.255 m)" \
                    if im.mode in ("L", "P", "LA", "RGB", "RGBA", "1") else ""
                raise SmrnbValueError(f"depth image {str(path)!r} must be a 16-bit single-channel PNG, got PIL mode "
                                      f"{im.mode!r}{eight}; is this a color image in the depth folder?")
            a = np.asarray(im)
    except OSError as exc:
        raise SmrnbValueError(f"cannot read depth image {str(path)!r}: {exc}") from None
    valid = a[(a > 0) & (a != 65535)] if invalid_65535 else a[a > 0]
    if depth_scale >= 100 and valid.size and int(valid.max()) <= 255:
        raise SmrnbValueError(f"depth image {str(path)!r} holds only values 1..{int(valid.max())} (8-bit data in a "
                              f"16-bit PNG): with depth_scale={depth_scale:g} every depth would be under "
                              f"{255 / depth_scale:.3g} m; convert the source to 16-bit millimetres, or set depth_scale")
    del valid
    if out is None or out.shape != a.shape:
        out = np.empty(a.shape, np.float32)
    np.divide(a, np.float32(depth_scale), out=out, dtype=np.float32)
    if invalid_65535:
        out[a == 65535] = 0
    return out


def read_color(path: Path) -> np.ndarray:
    from PIL import Image

    try:
        with Image.open(path) as im:
            return np.asarray(im.convert("RGB"))
    except OSError as exc:
        raise SmrnbValueError(f"cannot read color image {str(path)!r}: {exc}") from None


def load_images(depth_paths: list[Path], color_paths: list[Path] | None, depth_scale: float,
                invalid_65535: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Decode in a few threads (PIL releases the GIL) straight into the batch arrays (no per-image
    copies to stack: a streamed batch costs its own size); check all sizes agree."""
    workers = max(1, min(4, os.cpu_count() or 1))
    first = read_depth(depth_paths[0], depth_scale, invalid_65535)
    H, W = first.shape
    depth = np.empty((len(depth_paths), H, W), np.float32)
    depth[0] = first
    del first

    def one_depth(i: int) -> None:
        d = read_depth(depth_paths[i], depth_scale, invalid_65535, out=depth[i])
        if d.shape != (H, W):
            raise SmrnbValueError(f"depth image {str(depth_paths[i])!r} is {d.shape[1]}x{d.shape[0]}, expected {W}x{H} "
                                  f"like {str(depth_paths[0])!r}")

    color = None if color_paths is None else np.empty((len(color_paths), H, W, 3), np.uint8)

    def one_color(i: int) -> None:
        c = read_color(color_paths[i])
        if c.shape[:2] != (H, W):
            raise SmrnbValueError(f"color image {str(color_paths[i])!r} is {c.shape[1]}x{c.shape[0]}, expected {W}x{H} "
                                  "(the size of its depth image; color must be registered to depth)")
        color[i] = c

    with ThreadPoolExecutor(workers) as ex:
        list(ex.map(one_depth, range(1, len(depth_paths))))
        if color is not None:
            list(ex.map(one_color, range(len(color_paths))))
    return depth, color


def make_K(intrinsics: Any, reader: str) -> np.ndarray:
    """(3, 3) float64 from a (3, 3) matrix or an (fx, fy, cx, cy) sequence."""
    a = np.asarray(intrinsics.detach().cpu() if isinstance(intrinsics, torch.Tensor) else intrinsics, dtype=np.float64)
    if a.shape == (4,):
        fx, fy, cx, cy = a
        a = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], dtype=np.float64)
    if a.shape != (3, 3):
        raise SmrnbValueError(f"{reader}: intrinsics must be a (3, 3) matrix or (fx, fy, cx, cy), got shape {a.shape}")
    if not np.isfinite(a).all() or a[0, 0] <= 0 or a[1, 1] <= 0:
        raise SmrnbValueError(f"{reader}: intrinsics must be finite with fx, fy > 0, got {a.tolist()}")
    return a


class PoseLines:
    """Where each frame's pose came from, for the messages of the pose check (the ``where`` of
    :class:`smrnb.Frames` and :func:`smrnb.geometry.check_poses`): ``files[i]`` is frame
    ``i``'s file, ``lines[i]`` the line numbers of its 4 matrix rows (or one line for all rows, as
    a TUM ``timestamp tx ty tz qx qy qz qw`` line), ``labels[i]`` what the frame is called there
    (e.g. ``pose of depth/00014.png``). Called with the frame index and the matrix rows at fault,
    it gives ``"/path/trajectory.log line 57, pose of depth/00014.png"``."""

    wants_rows = True

    def __init__(self, files: Sequence[Any], lines: Sequence[Sequence[int]], labels: Sequence[str]):
        self.files, self.lines, self.labels = list(files), [list(x) for x in lines], list(labels)

    def select(self, idx: Sequence[int]) -> PoseLines:
        return PoseLines([self.files[i] for i in idx], [self.lines[i] for i in idx], [self.labels[i] for i in idx])

    def __call__(self, i: int | None, rows: Sequence[int] = (0, 1, 2, 3)) -> str | None:
        if i is None or not 0 <= i < len(self.files):
            return None
        ln = self.lines[i]
        at = sorted({ln[min(r, len(ln) - 1)] for r in rows}) or ln
        where = f"line {at[0]}" if len(at) == 1 else (
            f"lines {at[0]}-{at[-1]}" if at[-1] - at[0] == len(at) - 1 else "lines " + ", ".join(map(str, at)))
        label = f", {self.labels[i]}" if self.labels[i] else ""
        return f"{self.files[i]} {where}{label}"


def check_reader_poses(poses: np.ndarray, where: PoseLines, reader: str) -> None:
    """The pose check of :class:`smrnb.Frames` (finite, rigid, last row 0 0 0 1), run by a reader
    on all the poses it selected before reading any image, naming the file line of a bad one."""
    check_poses(torch.from_numpy(np.ascontiguousarray(poses, dtype=np.float64)), f"{reader}: poses", where=where)


def build_frames(depth: np.ndarray, color: np.ndarray | None, K: np.ndarray, poses: np.ndarray | None,
                 names: list[str], meta: dict[str, Any], where: PoseLines | None = None) -> Frames:
    H, W = depth.shape[1:]
    cx, cy = K[0, 2], K[1, 2]
    if not (0 <= cx <= W - 1 and 0 <= cy <= H - 1):
        raise SmrnbValueError(f"load_{meta.get('dataset', 'frames')}: intrinsics (cx, cy) = ({cx:g}, {cy:g}) do not fit "
                              f"the {W}x{H} images of {meta.get('path')!r}; pass intrinsics= for this resolution")
    meta = {"frame": "opencv", "depth_unit": "m", **meta}
    if where is not None:
        meta["where"] = where  # the Frames constructor names the file line of a bad pose, then drops it
    return Frames(torch.from_numpy(depth), torch.from_numpy(K.astype(np.float32)),
                  None if color is None else torch.from_numpy(color),
                  None if poses is None else torch.from_numpy(poses.astype(np.float32)), names, meta)


def read_matrix_txt(path: Path, shape: tuple[int, int], what: str, *, with_lines: bool = False) -> Any:
    """A whitespace-separated matrix text file (blank lines and ``#`` comments skipped); with
    ``with_lines``, also the line number of each row."""
    text = read_text_file(path, what)
    rows, lines = [], []
    for k, ln in enumerate(text.splitlines(), 1):
        s = ln.split("#", 1)[0].strip()
        if not s:
            continue
        try:
            rows.append([float(v) for v in s.split()])
        except ValueError:
            raise SmrnbValueError(f"{what} {str(path)!r} line {k}: expected numbers, got {ln.strip()[:120]!r}") from None
        lines.append(k)
    ncol = {len(r) for r in rows}
    if len(ncol) > 1:
        raise SmrnbValueError(f"{what} {str(path)!r} must hold a {shape[0]}x{shape[1]} matrix, got rows of "
                              f"{sorted(ncol)} numbers")
    a = np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)
    if a.shape != shape:
        raise SmrnbValueError(f"{what} {str(path)!r} must hold a {shape[0]}x{shape[1]} matrix, got shape {a.shape}")
    return (a, lines) if with_lines else a
