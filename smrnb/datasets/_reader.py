# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Shared pieces of the dataset readers: frame selection, image decoding, the Frames build."""

from __future__ import annotations

import contextlib
import errno
import functools
import inspect
import math
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._files import check_input
from smrnb.geometry import Frames, check_poses

F = TypeVar("F", bound=Callable[..., Any])

#: PrimeSense / Kinect v1 default (Redwood, ICL-NUIM, ROS): fx, fy, cx, cy for 640x480
PRIMESENSE_K = (525.0, 525.0, 319.5, 239.5)


def as_dir(path: Any, reader: str) -> Path:
    """``path`` as a readable folder, or an error naming why not (missing, a file, a symlink loop, permission)."""
    if not isinstance(path, (str, os.PathLike)):
        raise SmrnbTypeError(f"{reader}: path must be a str or os.PathLike folder, got {type(path).__name__}")
    return check_input(path, f"{reader}: path", "folder")


def _fs_error(exc: OSError, reader: str) -> SmrnbValueError:
    """A file-system error met while reading, as one line naming the file and the cause."""
    cause = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
             errno.ELOOP: "a symbolic link that leads back to itself (a symlink loop)",
             errno.EISDIR: "a folder where a file is expected", errno.ENOTDIR: "a file where a folder is expected",
             errno.ENOENT: "does not exist", errno.EIO: "an input/output error (a failing disk or network mount)"}
    what = cause.get(exc.errno or -1, exc.strerror or str(exc))
    name = f" {str(exc.filename)!r}" if exc.filename else ""
    return SmrnbValueError(f"{reader}: cannot read{name}: {what}")


def reads_files(reader: str) -> Callable[[F], F]:
    """Decorate a public reader: a file-system error on any file it opens (permission, a symlink loop, a
    folder where a file was expected) reaches the user as one :class:`SmrnbValueError` naming the file and
    the cause, from a function and from a generator alike."""
    def wrap(fn: F) -> F:
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen(*args: Any, **kwargs: Any) -> Any:
                try:
                    yield from fn(*args, **kwargs)
                except OSError as exc:
                    raise _fs_error(exc, reader) from None
            return gen  # type: ignore[return-value]

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except OSError as exc:
                raise _fs_error(exc, reader) from None
        return call  # type: ignore[return-value]
    return wrap


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


_NON_FINITE_WORDS = frozenset({"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan", "-nan"})


def check_overflow(tokens: Sequence[str], values: Sequence[float], where: str) -> None:
    """A number written out in full that does not fit a 64-bit float (``1e400``) reads as inf: name it as
    such, where ``inf`` / ``nan`` written as words are left to the finiteness checks that follow."""
    for tok, v in zip(tokens, values):
        if not math.isfinite(v) and tok.strip().lower() not in _NON_FINITE_WORDS:
            raise SmrnbValueError(f"{where}: {tok[:40]} is too large for a 64-bit float (more than about 1.8e308); "
                                  "is the file in metres?")


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


#: the most pixels a frame may have: 8K x 8K, beyond every RGB-D sensor (4096 x 3072 at most); a larger
#: image is refused from its header, before anything is decoded (a decompression bomb is a few kB on disk)
MAX_FRAME_PIXELS = 8192 * 8192


@contextlib.contextmanager
def open_image(path: Path, what: str) -> Iterator[Any]:
    """``PIL.Image`` of ``path``, opened lazily (header only) and checked: readable, an image, at most
    :data:`MAX_FRAME_PIXELS` pixels (PIL's own bomb limit is not relied on nor changed)."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = Image.open(path)
    except Image.DecompressionBombError as exc:
        raise SmrnbValueError(f"{what} {str(path)!r} is too large to be a frame ({exc}); it is not decoded") from None
    except (OSError, SyntaxError, ValueError) as exc:  # PIL: unidentified, truncated header, bad chunk
        raise SmrnbValueError(f"cannot read {what} {str(path)!r}: {exc}") from None
    with im:
        w, h = im.size
        if w * h > MAX_FRAME_PIXELS or w < 1 or h < 1:
            raise SmrnbValueError(f"{what} {str(path)!r} is {w}x{h} pixels ({w * h / 1e6:.0f} M), outside the "
                                  f"1..{MAX_FRAME_PIXELS // 1_000_000} M pixels of an RGB-D frame; a damaged file or a "
                                  "decompression bomb is not decoded")
        yield im


def read_depth(path: Path, depth_scale: float, invalid_65535: bool, out: np.ndarray | None = None) -> np.ndarray:
    """(H, W) float32 metres from a 16-bit PNG; 0 stays 0 (no measurement), 65535 -> 0 when asked.
    ``out``: an (H, W) float32 array to write into (a slice of a batch), or None for a new one."""
    with open_image(path, "depth image") as im:
        if im.mode not in ("I;16", "I;16B", "I;16L", "I"):
            eight = " (an 8-bit image cannot hold depth in millimetres: at most 0.255 m)" \
                if im.mode in ("L", "P", "LA", "RGB", "RGBA", "1") else ""
            raise SmrnbValueError(f"depth image {str(path)!r} must be a 16-bit single-channel PNG, got PIL mode "
                                  f"{im.mode!r}{eight}; is this a color image in the depth folder?")
        try:
            a = np.asarray(im)
        except (OSError, SyntaxError, ValueError) as exc:  # truncated or corrupt data
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


#: EXIF orientation tag; values 2-8 ask a viewer to flip or rotate the stored rows
_EXIF_ORIENTATION = 0x0112


def read_color(path: Path) -> np.ndarray:
    """(H, W, 3) uint8 RGB; an EXIF orientation (a photo rotated by a phone or an editor) is applied, as
    every viewer shows the image; a 16-bit single-channel image (a depth image) is refused."""
    from PIL import ImageOps

    with open_image(path, "color image") as im:
        if im.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
            raise SmrnbValueError(f"color image {str(path)!r} is a single-channel {im.mode} image (16-bit or float): "
                                  "is this a depth image in the color folder?")
        try:
            if im.getexif().get(_EXIF_ORIENTATION, 1) not in (0, 1):
                im = ImageOps.exif_transpose(im)
            return np.asarray(im.convert("RGB"))
        except (OSError, SyntaxError, ValueError) as exc:  # truncated or corrupt data
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
    """(3, 3) float64 from a (3, 3) matrix or an (fx, fy, cx, cy) sequence of real numbers (not bools or text)."""
    raw = np.asarray(intrinsics.detach().cpu() if isinstance(intrinsics, torch.Tensor) else intrinsics, dtype=object)
    flat = raw.reshape(-1) if raw.ndim else raw.reshape(1)
    bad = next((v for v in flat if isinstance(v, (bool, np.bool_, str, bytes)) or v is None
                or not isinstance(v, (int, float, np.integer, np.floating))), None) if raw.size <= 64 else None
    if bad is not None or (raw.size <= 64 and any(isinstance(v, (bool, np.bool_)) for v in flat)):
        raise SmrnbTypeError(f"{reader}: intrinsics must be numbers (fx, fy, cx, cy or a 3x3 matrix), got "
                             f"{type(bad).__name__} {bad!r:.40}")
    try:
        a = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise SmrnbTypeError(f"{reader}: intrinsics must be a (3, 3) matrix or (fx, fy, cx, cy) of numbers") from None
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


#: the largest magnitude a pose value may have: Frames keep poses as float32
_F32_MAX = float(np.finfo(np.float32).max)


def check_reader_poses(poses: np.ndarray, where: PoseLines, reader: str) -> None:
    """The pose check of :class:`smrnb.Frames` (finite, rigid, last row 0 0 0 1), run by a reader
    on all the poses it selected before reading any image, naming the file line of a bad one; in float64
    first, so a value that overflows when stored as float32 is named as such, not as NaN/inf."""
    p = np.asarray(poses, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        big = np.isfinite(p) & (np.abs(p) > _F32_MAX)
    if big.any():
        i, r, c = (int(x) for x in np.argwhere(big)[0])
        raise SmrnbValueError(f"{reader}: pose value {p[i, r, c]:.6g} ({where(i, (r,)) or f'pose {i}'}) is beyond "
                              f"the float32 range (+-{_F32_MAX:.3g}) poses are kept in: is the file in metres?")
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
        check_overflow(s.split(), rows[-1], f"{what} {str(path)!r} line {k}")
        lines.append(k)
    ncol = {len(r) for r in rows}
    if len(ncol) > 1:
        raise SmrnbValueError(f"{what} {str(path)!r} must hold a {shape[0]}x{shape[1]} matrix, got rows of "
                              f"{sorted(ncol)} numbers")
    a = np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)
    if a.shape != shape:
        raise SmrnbValueError(f"{what} {str(path)!r} must hold a {shape[0]}x{shape[1]} matrix, got shape {a.shape}")
    return (a, lines) if with_lines else a
