# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Face and vertex normals (pure PyTorch, CPU and CUDA, keeps the input's device and dtype).

Normals follow the right-hand rule on the face winding: a face ``(a, b, c)`` counter-clockwise
seen from outside has its normal pointing outside, in the same frame as the vertices.
Degenerate faces (zero area) get a zero normal, never NaN; so do vertices used by no face or only
by degenerate faces.
"""

from __future__ import annotations

import torch

from smrnb._errors import SmrnbValueError
from smrnb.geometry._validate import (
    as_tensor,
    check_choice,
    check_finite,
    check_float,
    check_integer,
    check_shape,
)

__all__ = ["compute_face_normals", "compute_vertex_normals"]

_WEIGHTINGS = ("area", "angle")


def _check(vertices, faces) -> tuple[torch.Tensor, torch.Tensor]:
    vertices = as_tensor(vertices, "vertices")
    check_shape(vertices, "vertices", (None, 3))
    check_float(vertices, "vertices")
    check_finite(vertices, "vertices")
    faces = as_tensor(faces, "faces", device=vertices.device)
    check_shape(faces, "faces", (None, 3))
    check_integer(faces, "faces")
    if faces.numel():
        lo, hi = int(faces.min()), int(faces.max())
        if lo < 0 or hi >= vertices.shape[0]:
            raise SmrnbValueError(
                f"faces must index vertices in [0, {vertices.shape[0] - 1}], got indices in [{lo}, {hi}]")
    return vertices, faces.long()


def _unit(x: torch.Tensor) -> torch.Tensor:
    n = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    tiny = torch.finfo(x.dtype).tiny
    return torch.where(n > tiny, x / n.clamp_min(tiny), torch.zeros_like(x))


def _corners_and_cross(vertices: torch.Tensor, faces: torch.Tensor) -> tuple[list[torch.Tensor], torch.Tensor]:
    """Each face's three corners (three (F, 3) tensors) and ``cross(b - a, c - a)`` (length = twice the area)."""
    p = [vertices[faces[:, k]] for k in range(3)]
    return p, torch.linalg.cross(p[1] - p[0], p[2] - p[0], dim=-1)


def compute_face_normals(vertices, faces, *, unit: bool = True) -> torch.Tensor:
    """Per-face normals.

    Parameters
    ----------
    vertices : (V, 3) float tensor (any frame; normals come out in the same frame)
    faces : (F, 3) integer tensor, indices into ``vertices``
    unit : if False, return ``cross(b - a, c - a)``, whose length is twice the face area

    Returns
    -------
    (F, 3) tensor, dtype and device of ``vertices``; zero rows for degenerate faces
    """
    vertices, faces = _check(vertices, faces)
    if faces.shape[0] == 0:
        return vertices.new_zeros((0, 3))
    _, n = _corners_and_cross(vertices, faces)
    return _unit(n) if unit else n


def compute_vertex_normals(vertices, faces, weighting: str = "area") -> torch.Tensor:
    """Per-vertex unit normals averaged from the incident faces.

    Parameters
    ----------
    vertices : (V, 3) float tensor
    faces : (F, 3) integer tensor
    weighting : ``"area"`` (each face's normal weighted by its area, the usual default) or
        ``"angle"`` (weighted by the face's interior angle at the vertex; less sensitive to
        uneven tessellation, Thurmer & Wuthrich 1998)

    Returns
    -------
    (V, 3) unit normals, dtype and device of ``vertices``; zero rows for vertices used by no
    face (or only by degenerate faces)
    """
    check_choice(weighting, "weighting", _WEIGHTINGS)
    vertices, faces = _check(vertices, faces)
    if weighting == "area":
        return area_vertex_normals(vertices, faces).contiguous()
    out = torch.zeros_like(vertices)
    if faces.shape[0] == 0:
        return out
    p, fn = _corners_and_cross(vertices, faces)
    un = _unit(fn)
    for k in range(3):
        e1 = _unit(p[(k + 1) % 3] - p[k])
        e2 = _unit(p[(k + 2) % 3] - p[k])
        cos = (e1 * e2).sum(-1).clamp(-1.0, 1.0)
        ang = torch.acos(cos)
        out.index_add_(0, faces[:, k], un * ang[:, None])
    return _unit(out)


def area_vertex_normals(vertices: torch.Tensor, faces: torch.Tensor) -> torch.Tensor:
    """Area-weighted unit vertex normals of checked input: (V, 3) float ``vertices``, (F, 3) int64
    ``faces`` indexing them (no validation: :func:`compute_vertex_normals` is the checked entry, the
    viewer calls this on a :class:`~smrnb.geometry._mesh.Mesh`, which was checked when it was made).

    Each vertex gets the sum of ``cross(b - a, c - a)`` (twice the area times the unit normal) of its
    faces, normalised; zero where that sum vanishes. On the CPU computed coordinate-planar: x, y and z as
    three contiguous rows, so the cross product is six multiplications of contiguous rows and the sums are
    ``index_add_`` along them (about 3x faster than gathering (F, 3) rows and calling ``torch.linalg.cross``;
    same results to float rounding). On a GPU the (F, 3) form, which launches fewer kernels (0.15 ms
    against 0.24 ms for 164k vertices on an H200). Returns (V, 3), on the CPU a view of a (3, V) tensor
    (``.contiguous()`` it where rows must be contiguous).
    """
    if faces.shape[0] == 0:
        return torch.zeros_like(vertices)
    if vertices.device.type != "cpu":
        _, fn = _corners_and_cross(vertices, faces)
        out = torch.zeros_like(vertices)
        for k in range(3):
            out = out.index_add(0, faces[:, k], fn)
        return _unit(out)
    vt = torch.stack(vertices.unbind(1))  # (3, V); stack of columns: ~4x faster than t().contiguous()
    ft = torch.stack(faces.unbind(1))  # (3, F)
    a = vt.index_select(1, ft[0])
    (x1, y1, z1) = vt.index_select(1, ft[1]) - a
    (x2, y2, z2) = vt.index_select(1, ft[2]) - a
    fn = torch.stack((y1 * z2 - z1 * y2, z1 * x2 - x1 * z2, x1 * y2 - y1 * x2))  # (3, F), length = 2 * area
    out = torch.zeros_like(vt).index_add_(1, ft[0], fn).index_add_(1, ft[1], fn).index_add_(1, ft[2], fn)
    length = (out * out).sum(0).sqrt().clamp_min(torch.finfo(out.dtype).tiny)
    return (out / length).t()  # a zero sum stays zero: 0 / tiny
