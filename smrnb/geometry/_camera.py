# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The one home of camera and pose validation: every step that takes intrinsics or poses
(``depth_to_points``, ``frames_to_points``, ``render_depth``, ``fuse_tsdf``/``TSDFVolume``, the
:class:`~smrnb.geometry._mesh.Frames` constructor and so the dataset readers) judges them here, so
they agree on what is accepted.

Rules
-----
* ``K``: (3, 3), finite, ``[[fx, s, cx], [0, fy, cy], [0, 0, 1]]`` in pixels with ``fx, fy > 0``;
  when the image size is known, the principal point lies in the pixel range
  ``[0, W - 1] x [0, H - 1]`` (pixel centres at integers). An off-centre principal point (a
  cropped image, ``cx = 10``) is fine; one outside the image means intrinsics of another resolution.
* ``pose``: (4, 4) floating point, finite, camera-to-world and rigid: last row ``[0, 0, 0, 1]``,
  rotation part orthonormal (``|R^T R - I| <= 1e-3``, float32 text files round to ~1e-7) with
  determinant +1. A scaled pose (``2 * R``) or a reflection is refused: it would place every point
  at the wrong distance without a word.
"""

from __future__ import annotations

from typing import Any

import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._validate import as_tensor, check_shape

#: tolerance on ``|R^T R - I|`` (max abs entry) for a rigid pose
RIGID_TOL = 1e-3


def _where(index: int | None, where: str | None) -> str:
    parts = []
    if index is not None:
        parts.append(f"frame {index}")
    if where:
        parts.append(where)
    return f" ({', '.join(parts)})" if parts else ""


def check_K(K: Any, name: str = "K", *, height: int | None = None, width: int | None = None,
            index: int | None = None, where: str | None = None) -> torch.Tensor:
    """Validate one (3, 3) intrinsics matrix; returns it as a tensor (integer input as float64,
    otherwise dtype and device kept). ``index``/``where`` (a file and line) go into the message."""
    at = _where(index, where)
    Kt = as_tensor(K, name)
    check_shape(Kt, name, (3, 3))
    if not Kt.dtype.is_floating_point:
        if Kt.dtype.is_complex or Kt.dtype == torch.bool:
            raise SmrnbTypeError(f"{name} must be a real (3, 3) matrix, got dtype {Kt.dtype}{at}")
        Kt = Kt.double()
    Kd = Kt.detach().cpu().double()
    if not bool(torch.isfinite(Kd).all()):
        bad = int((~torch.isfinite(Kd)).sum())
        raise SmrnbValueError(f"{name} must be finite, got {bad} NaN/inf value(s) in {Kd.tolist()}{at}")
    fx, fy, cx, cy = float(Kd[0, 0]), float(Kd[1, 1]), float(Kd[0, 2]), float(Kd[1, 2])
    if fx <= 0 or fy <= 0:
        raise SmrnbValueError(f"{name} must have positive focal lengths fx, fy, got fx={fx:g}, fy={fy:g}{at}")
    if not torch.allclose(Kd[2], torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64)) or float(Kd[1, 0]) != 0.0:
        raise SmrnbValueError(f"{name} must be [[fx, s, cx], [0, fy, cy], [0, 0, 1]] (pixel units), got "
                              f"{Kd.tolist()}{at}")
    if height is not None and width is not None:
        H, W = int(height), int(width)
        if not (0 <= cx <= W - 1) or not (0 <= cy <= H - 1):
            raise SmrnbValueError(
                f"{name} does not match the image size {W}x{H} (width x height): principal point "
                f"(cx, cy) = ({cx:g}, {cy:g}) lies outside the pixel range [0, {W - 1}] x [0, {H - 1}]; "
                f"was {name} made for another resolution (e.g. {round(2 * cx + 1)}x{round(2 * cy + 1)})?{at}")
    return Kt


def check_pose(pose: Any, name: str = "pose", *, index: int | None = None, where: str | None = None) -> torch.Tensor:
    """Validate one rigid camera-to-world (4, 4) pose; returns it as a tensor (dtype and device kept)."""
    at = _where(index, where)
    P = as_tensor(pose, name)
    check_shape(P, name, (4, 4))
    if not P.dtype.is_floating_point:
        raise SmrnbTypeError(f"{name} must be a floating-point (4, 4) camera-to-world matrix, got dtype {P.dtype}{at}")
    _check_rigid(P.detach().cpu().double()[None], name, [index] if index is not None else None, where)
    return P


def check_poses(poses: torch.Tensor, name: str = "poses", *, where: Any = None) -> None:
    """Validate (N, 4, 4) poses at once; the message names the first bad frame (and ``where(i)``,
    a callable giving its file and line, when given; a callable with ``wants_rows = True`` is
    called as ``where(i, rows)`` with the matrix rows at fault, so that a reader can name the very
    line of its file)."""
    P = poses.detach().cpu().double()
    _check_rigid(P, name, list(range(P.shape[0])), where)


def where_text(where: Any, index: int | None, rows: tuple[int, ...] = (0, 1, 2, 3)) -> str | None:
    """The text of a ``where`` (a string, None, or a callable of the frame index, see
    :func:`check_poses`) for frame ``index`` and the matrix rows at fault."""
    if not callable(where):
        return where
    return where(index, rows) if getattr(where, "wants_rows", False) else where(index)


def _check_rigid(P: torch.Tensor, name: str, indices: list[int] | None, where: Any) -> None:
    def fail(i: int, what: str, rows: tuple[int, ...] = (0, 1, 2, 3)) -> None:
        idx = indices[i] if indices is not None else None
        w = where_text(where, idx, rows)
        raise SmrnbValueError(f"{name} must be rigid camera-to-world transforms: {what}{_where(idx, w)}")

    if P.shape[0] == 0:
        return
    finite = torch.isfinite(P).flatten(1).all(1)
    if not bool(finite.all()):
        i = int((~finite).nonzero()[0])
        bad = int((~torch.isfinite(P[i])).sum())
        rows = tuple(int(r) for r in (~torch.isfinite(P[i])).any(1).nonzero().flatten())
        fail(i, f"{name} must be finite, got {bad} NaN/inf value(s) in {P[i].tolist()}", rows)
    last = (P[:, 3] - torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=torch.float64)).abs().amax(1)
    if bool((last > 1e-6).any()):
        i = int((last > 1e-6).nonzero()[0])
        fail(i, f"last row must be [0, 0, 0, 1], got {P[i, 3].tolist()}", (3,))
    R = P[:, :3, :3]
    err = (R.transpose(1, 2) @ R - torch.eye(3, dtype=torch.float64)).abs().flatten(1).amax(1)
    if bool((err > RIGID_TOL).any()):
        i = int((err > RIGID_TOL).nonzero()[0])
        fail(i, f"rotation part not orthonormal, |R^T R - I| = {float(err[i]):.3g} (a scaled or sheared pose?)",
             (0, 1, 2))
    det = torch.linalg.det(R)
    if bool((det < 0).any()):
        i = int((det < 0).nonzero()[0])
        fail(i, f"rotation part is a reflection (det = {float(det[i]):.3g})", (0, 1, 2))


__all__ = ["check_K", "check_pose", "check_poses", "where_text", "RIGID_TOL"]
