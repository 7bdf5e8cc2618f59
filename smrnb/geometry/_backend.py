# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The only module that touches kaolin. Decides, per call, between kaolin, torch CUDA and torch CPU.

kaolin is imported lazily, once, catching ``ImportError`` and ``OSError`` (an ABI mismatch shows
up as ``ImportError: undefined symbol``, a missing library as ``OSError``); the reason is kept
for the doctor (:func:`kaolin_status`). Set ``SMRNB_DISABLE_KAOLIN=1`` to never use it.

kaolin is never trusted blindly: a kaolin built without kernels for the running GPU prints
"no kernel image is available" and returns *empty* tensors without raising. Callers check the
result with :func:`suspicious_empty` and fall back to plain PyTorch, recording why.
"""

from __future__ import annotations

import os
import threading
import warnings
from dataclasses import dataclass
from typing import Any

import torch

_lock = threading.Lock()
_state: dict[str, Any] = {"tried": False, "module": None, "reason": None}
# ops for which kaolin returned a suspicious (empty) result on this process: never used again
_distrusted: dict[str, str] = {}


@dataclass(frozen=True)
class KaolinStatus:
    available: bool
    version: str | None
    reason: str | None  # why it is not used (None when available)


def _load_kaolin() -> Any:
    with _lock:
        if _state["tried"]:
            return _state["module"]
        _state["tried"] = True
        if os.environ.get("SMRNB_DISABLE_KAOLIN", "").strip() not in ("", "0"):
            _state["reason"] = "disabled by SMRNB_DISABLE_KAOLIN"
            return None
        try:
            import kaolin  # the only kaolin import in smrnb
            import kaolin.ops.conversions
        except (ImportError, OSError) as exc:
            _state["reason"] = f"{type(exc).__name__}: {exc}"
            return None
        except Exception as exc:  # a broken install can raise anything at import time
            _state["reason"] = f"{type(exc).__name__} while importing kaolin: {exc}"
            return None
        _state["module"] = kaolin
        return kaolin


def kaolin_status() -> KaolinStatus:
    """Whether kaolin can be used in this process, its version, and why not if not."""
    k = _load_kaolin()
    if k is None:
        return KaolinStatus(False, None, _state["reason"])
    return KaolinStatus(True, getattr(k, "__version__", None), None)


def get_kaolin() -> Any | None:
    """The kaolin module, or None (never raises)."""
    return _load_kaolin()


def distrust(op: str, why: str) -> None:
    """Stop using kaolin for ``op`` in this process (e.g. it returned empty on non-empty input)."""
    _distrusted[op] = why


def distrusted() -> dict[str, str]:
    return dict(_distrusted)


def use_kaolin(op: str, device: torch.device, backend: str = "auto") -> bool:
    """True when ``op`` should run through kaolin: asked for (or auto), on CUDA, loadable, trusted."""
    if backend == "torch":
        return False
    if op in _distrusted:
        return False
    if backend == "auto" and device.type != "cuda":
        return False
    return get_kaolin() is not None


def backend_name(device: torch.device, used_kaolin: bool) -> str:
    """The name shown in result records: ``kaolin``, ``torch CUDA`` or ``torch CPU``."""
    if used_kaolin:
        return "kaolin"
    return "torch CUDA" if device.type == "cuda" else "torch CPU"


def suspicious_empty(result_numel: int, input_nonempty: bool) -> bool:
    """An empty kaolin result for non-empty input: the "no kernel image" failure mode."""
    return input_nonempty and result_numel == 0


def kaolin_voxelize(points: torch.Tensor, resolution: int, origin: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """kaolin ``pointclouds_to_voxelgrids``: (B, N, 3) points -> (B, R, R, R) float occupancy.

    ``origin`` (B, 3) and ``scale`` (B,) are passed through; kaolin rounds
    ``round((p - origin) / scale * (R - 1))`` and drops points outside ``[0, R - 1]`` silently.
    Raises whatever kaolin raises; callers check availability with :func:`use_kaolin` first.
    """
    k = get_kaolin()
    if k is None:
        raise RuntimeError(f"kaolin is not usable: {_state['reason']}")
    with warnings.catch_warnings():
        # kaolin builds the grid through the deprecated torch.sparse.FloatTensor constructor
        warnings.simplefilter("ignore", UserWarning)
        return k.ops.conversions.pointclouds_to_voxelgrids(points, int(resolution), origin=origin, scale=scale)


def kaolin_marching_cubes(grid: torch.Tensor, iso_value: float) -> tuple[torch.Tensor, torch.Tensor] | None:
    """kaolin ``voxelgrids_to_trianglemeshes`` (CUDA only) on one (X, Y, Z) grid.

    Returns ``(vertices (V, 3) float32 in grid index units, faces (F, 3) int64)`` with kaolin's
    one-voxel zero padding undone (vertices shifted by -1) and faces oriented so the enclosed
    signed volume is positive (normals out of ``{value > iso_value}``), or None if kaolin raised
    (the reason is recorded with :func:`distrust`).
    """
    op = "voxelgrids_to_trianglemeshes"
    k = get_kaolin()
    if k is None:
        return None
    try:
        verts_l, faces_l = k.ops.conversions.voxelgrids_to_trianglemeshes(grid[None].float(), iso_value=float(iso_value))
    except Exception as exc:  # a broken build raises anything (missing kernel, ABI, OOM)
        distrust(op, f"{type(exc).__name__}: {exc}")
        return None
    verts = verts_l[0].to(torch.float32) - 1.0
    faces = faces_l[0].to(torch.int64)
    if faces.shape[0]:
        tri = verts[faces]
        signed = (tri[:, 0] * torch.cross(tri[:, 1], tri[:, 2], dim=1)).sum()
        faces = torch.where(signed < 0, faces.flip(1), faces)
    return verts, faces
