# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Occupancy grids: :class:`VoxelGrid` and :func:`pointcloud_to_voxelgrid`.

Rounding convention (one for the whole package)
-----------------------------------------------
Voxel ``(i, j, k)`` is the half-open cell ``[origin + (i, j, k) * voxel_size,
origin + (i + 1, j + 1, k + 1) * voxel_size)``; a point ``p`` falls in voxel
``floor((p - origin) / voxel_size)``, and the voxel's centre is ``origin + (idx + 0.5) * voxel_size``.
This is the plain scatter every TSDF and voxel-hashing code uses, it is exact for any grid shape
(anisotropic ones included), a point's voxel does not depend on the rest of the cloud, and two
clouds voxelized with the same origin and voxel size land on the same lattice.

kaolin's ``pointclouds_to_voxelgrids(pc, resolution, origin, scale)`` instead rounds
``round((p - origin) / scale * (R - 1))``: the grid is node-centred and, with its defaults
(``origin`` = the cloud's minimum, ``scale`` = its largest extent), the cloud's extent is mapped onto
``R - 1`` cells, so its voxel size is ``extent / (R - 1)`` and depends on the cloud; compared with a
plain scatter 1.4-1.8 % of voxels differ (measured on an H200, ``shared/reference/recon-facts.md``).
With ``backend="kaolin"`` this module passes ``origin + voxel_size / 2`` and
``scale = voxel_size * (R - 1)``, which makes kaolin's rounding ``round(u - 0.5)`` with
``u = (p - origin) / voxel_size``: the same cell as ``floor(u)`` except for points exactly on a cell
boundary (kaolin rounds half to even). It is 10x slower than the scatter on CUDA, so
``backend="auto"`` never uses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry import _graphs
from smrnb.geometry._memory import memory_budget, require
from smrnb.geometry._tensors import device_const
from smrnb.geometry._validate import as_tensor, check_choice, check_positive

__all__ = ["VoxelGrid", "pointcloud_to_voxelgrid", "pointcloud_to_voxelgrid_pt", "GridIndexError"]


class GridIndexError(SmrnbValueError, IndexError):
    """A batch index out of range (an ``IndexError`` too, as a tensor's would be)."""


_SMALL = 64 << 20  # estimates below this are not checked against the device (always fit)


def _memory_budget(device: torch.device) -> int:
    """The shared budget (:func:`smrnb.geometry._memory.memory_budget`)."""
    return memory_budget(device)


@dataclass(eq=False)
class VoxelGrid:
    """A dense occupancy grid with its placement in the world.

    Parameters
    ----------
    occupancy : (X, Y, Z) or (B, X, Y, Z) bool or float tensor. ``occupancy[..., i, j, k]`` is
        the voxel ``[origin + (i, j, k) * voxel_size, origin + (i+1, j+1, k+1) * voxel_size)``.
    origin : (3,) float: world position (metres) of the min corner of voxel (0, 0, 0), in the
        frame of the points the grid was built from. Stored as float64 on the occupancy's device.
    voxel_size : float > 0, metres (edge length of a cubic voxel).
    frame : ``"opengl"`` or ``"opencv"``: the label of the points' frame, carried to meshes.
        Coordinates are never converted here.
    dropped : int, points that fell outside the grid when it was built (0 if not built from points).
    meta : dict, free-form record (``backend``, ``num_points``, ``dropped_per_batch``...).

    Notes
    -----
    Stores what it is given; nothing is converted except numpy -> tensor and ``origin`` -> float64.
    """

    occupancy: torch.Tensor
    origin: torch.Tensor
    voxel_size: float
    frame: str = "opengl"
    dropped: int = 0
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        occ = as_tensor(self.occupancy, "occupancy")
        if occ.dim() not in (3, 4):
            raise SmrnbValueError(f"occupancy must have shape (X, Y, Z) or (B, X, Y, Z), got {tuple(occ.shape)}")
        if not (occ.dtype == torch.bool or occ.dtype.is_floating_point):
            raise SmrnbTypeError(f"occupancy must be a bool or float tensor, got dtype {occ.dtype}")
        self.occupancy = occ
        org = as_tensor(self.origin, "origin")
        if tuple(org.shape) != (3,):
            raise SmrnbValueError(f"origin must have shape (3,), got {tuple(org.shape)}")
        org = org.to(dtype=torch.float64, device=occ.device)
        if not bool(torch.isfinite(org).all()):
            raise SmrnbValueError(f"origin must be finite, got {org.tolist()}")
        self.origin = org
        self.voxel_size = check_positive(self.voxel_size, "voxel_size")
        if self.frame not in ("opengl", "opencv"):
            raise SmrnbValueError(f"frame must be 'opengl' or 'opencv', got {self.frame!r}")
        self.dropped = int(self.dropped)

    @property
    def batched(self) -> bool:
        return self.occupancy.dim() == 4

    @property
    def batch_size(self) -> int:
        return int(self.occupancy.shape[0]) if self.batched else 1

    @property
    def grid_shape(self) -> tuple[int, int, int]:
        """(X, Y, Z): voxels along each axis."""
        return tuple(int(s) for s in self.occupancy.shape[-3:])  # type: ignore[return-value]

    @property
    def device(self) -> torch.device:
        return self.occupancy.device

    @property
    def extent(self) -> torch.Tensor:
        """(3,) float64: the grid's size in metres, ``grid_shape * voxel_size``."""
        return torch.tensor(self.grid_shape, dtype=torch.float64, device=self.device) * self.voxel_size

    def num_occupied(self) -> int:
        """Voxels with occupancy > 0 (all batches together)."""
        return int((self.occupancy > 0).sum()) if self.occupancy.dtype != torch.bool else int(self.occupancy.sum())

    def voxel_centers(self, index: Any) -> torch.Tensor:
        """World positions (metres, float64) of voxel indices ``index`` (..., 3) integer."""
        idx = as_tensor(index, "index", device=self.device)
        return self.origin + (idx.to(torch.float64) + 0.5) * self.voxel_size

    # ---- the tutorial's tensor: a VoxelGrid stands in for its occupancy tensor ----------------
    # Operations that keep the three spatial axes (squeeze/unsqueeze of a batch axis, float(),
    # bool(), picking one grid of a batch) return a VoxelGrid with the same origin, voxel size and
    # frame; everything else (sum, slicing inside the grid, torch functions) returns plain tensors.

    @property
    def shape(self) -> torch.Size:
        """The occupancy's shape: (X, Y, Z) or (B, X, Y, Z)."""
        return self.occupancy.shape

    @property
    def ndim(self) -> int:
        return self.occupancy.dim()

    def dim(self) -> int:
        return self.occupancy.dim()

    def size(self, dim: int | None = None):
        return self.occupancy.size() if dim is None else self.occupancy.size(dim)

    @property
    def dtype(self) -> torch.dtype:
        return self.occupancy.dtype

    def __len__(self) -> int:
        return int(self.occupancy.shape[0])

    def numel(self) -> int:
        return self.occupancy.numel()

    def _with(self, occ: torch.Tensor, dropped: int | None = None, meta: dict[str, Any] | None = None) -> VoxelGrid:
        return VoxelGrid(occ, self.origin, self.voxel_size, self.frame, self.dropped if dropped is None else dropped,
                         dict(self.meta) if meta is None else meta)

    def _spatial(self, out: torch.Tensor) -> VoxelGrid | torch.Tensor:
        """``out`` as a grid when it still has this grid's three spatial axes last (and at most
        one leading batch axis), else the plain tensor."""
        if out.dim() in (3, 4) and tuple(out.shape[-3:]) == self.grid_shape:
            return self._with(out)
        return out

    def squeeze(self, dim: int | None = None) -> VoxelGrid | torch.Tensor:
        """``occupancy.squeeze(dim)``: squeezing the batch axis of a 1-grid batch gives the
        (X, Y, Z) grid (origin, voxel size and dropped count kept)."""
        out = self.occupancy.squeeze() if dim is None else self.occupancy.squeeze(dim)
        return self._spatial(out)

    def unsqueeze(self, dim: int) -> VoxelGrid | torch.Tensor:
        """``occupancy.unsqueeze(dim)``: ``unsqueeze(0)`` gives a batch of one grid."""
        out = self.occupancy.unsqueeze(dim)
        if out.dim() == 4 and tuple(out.shape[1:]) == self.grid_shape:
            return VoxelGrid(out, self.origin, self.voxel_size, self.frame, self.dropped,
                             {**self.meta, "dropped_per_batch": [self.dropped]})
        return out

    def sum(self, *args: Any, **kwargs: Any) -> torch.Tensor:
        """``occupancy.sum(...)`` (a tensor): ``grid.sum()`` counts the occupied voxels of a bool grid."""
        return self.occupancy.sum(*args, **kwargs)

    def float(self) -> VoxelGrid:
        """The same grid with float32 occupancy (0. / 1. for a bool grid)."""
        return self._with(self.occupancy.float())

    def bool(self) -> VoxelGrid:
        """The same grid with bool occupancy (``occupancy != 0``)."""
        return self._with(self.occupancy.bool())

    def cpu(self) -> VoxelGrid:
        return self.to("cpu")

    def cuda(self, device: Any = None) -> VoxelGrid:
        return self.to("cuda" if device is None else device)

    def numpy(self) -> np.ndarray:
        return self.occupancy.detach().cpu().numpy()

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        """DLPack export of the occupancy: ``torch.as_tensor(grid)`` shares its memory."""
        return self.occupancy.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self.occupancy.__dlpack_device__()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(grid)``: the occupancy as a numpy array (copied to the host if needed)."""
        arr = self.occupancy.detach().cpu().numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        """Any torch function given a VoxelGrid sees its occupancy tensor (``torch.as_tensor(grid)``,
        ``torch.nonzero(grid)``, ``torch.equal(a, b)``...); results are plain tensors."""
        def unwrap(x: Any) -> Any:
            if isinstance(x, VoxelGrid):
                return x.occupancy
            if isinstance(x, (list, tuple)):
                return type(x)(unwrap(y) for y in x)
            return x
        return func(*unwrap(tuple(args)), **{k: unwrap(v) for k, v in (kwargs or {}).items()})

    def __getitem__(self, index: Any) -> VoxelGrid | torch.Tensor:
        """``grid[b]`` (an int) on a batched grid: grid ``b`` as a VoxelGrid (shares memory,
        placement and its own dropped count). Any other index: ``occupancy[index]`` (a tensor)."""
        if self.batched and isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            b = int(index)
            if not -self.batch_size <= b < self.batch_size:
                raise GridIndexError(f"index must be in [{-self.batch_size}, {self.batch_size - 1}] for a batch of "
                                      f"{self.batch_size} grids, got {b}")
            per = self.meta.get("dropped_per_batch")
            dropped = int(per[b]) if per is not None and len(per) == self.batch_size else 0
            return self._with(self.occupancy[b], dropped)
        if isinstance(index, VoxelGrid):
            index = index.occupancy
        return self.occupancy[index]

    def to(self, device: Any) -> VoxelGrid:
        return VoxelGrid(self.occupancy.to(device), self.origin.to(device), self.voxel_size, self.frame,
                         self.dropped, dict(self.meta))

    def replace(self, **changes: Any) -> VoxelGrid:
        return replace(self, **changes)

    def __repr__(self) -> str:
        b = f"{self.batch_size} x " if self.batched else ""
        return (f"VoxelGrid({b}{'x'.join(map(str, self.grid_shape))}, voxel_size={self.voxel_size:g} m, "
                f"origin={[round(v, 6) for v in self.origin.tolist()]}, {self.frame} frame, "
                f"dropped={self.dropped}, device={self.device})")


def _grid_shape(value: Any) -> tuple[int, int, int]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),) * 3
    if not isinstance(value, (tuple, list)) or len(value) != 3 or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        raise SmrnbTypeError(f"grid_shape must be an int or 3 ints (X, Y, Z), got {value!r}")
    if any(int(v) < 1 for v in value):
        raise SmrnbValueError(f"grid_shape must be >= 1 along every axis, got {tuple(value)}")
    return tuple(int(v) for v in value)  # type: ignore[return-value]


def pointcloud_to_voxelgrid(points: Any, voxel_size: float = 0.02, grid_shape: Any = (256, 256, 256),
                            origin: Any = None, *, backend: str = "auto") -> VoxelGrid:
    """Occupancy grid of a point cloud (the seed tutorial's call, made real).

    Parameters
    ----------
    points : (N, 3) or (B, N, 3) float tensor/array, metres, any frame (kept as is), or a
        :class:`~smrnb.geometry._mesh.PointCloud` (its ``frame`` label is carried to the grid).
        Must be finite and non-empty.
    voxel_size : float > 0, metres.
    grid_shape : int or (X, Y, Z) ints; anisotropic shapes are fine.
    origin : (3,) metres, the min corner of voxel (0, 0, 0); None centres the grid on the centre of
        the cloud's bounding box (over all batches), snapped to the ``voxel_size`` lattice:
        ``origin = (floor(centre / voxel_size) - grid_shape // 2) * voxel_size``. Centring leaves
        empty margins around a cloud smaller than the grid, so marching cubes closes the surface,
        and drops points symmetrically when the cloud is larger.
    backend : ``"auto"``/``"torch"`` (plain scatter, CPU or CUDA) or ``"kaolin"`` (kaolin's
        ``pointclouds_to_voxelgrids``; cubic grids only; see the module docstring for its rounding).

    Returns
    -------
    VoxelGrid with bool occupancy (X, Y, Z), or (B, X, Y, Z) for batched points, on the points'
    device. Voxel of a point: ``floor((p - origin) / voxel_size)``. Points outside the grid are
    dropped and counted: ``grid.dropped`` (total) and ``grid.meta["dropped_per_batch"]``.

    Raises
    ------
    MemoryEstimateError when the grid would not fit (knob: ``grid_shape`` / ``voxel_size``).

    Notes
    -----
    On a GPU, clouds of up to 4M points are voxelized through a CUDA graph from the second call with
    the same grid, voxel size and capacity (cloud sizes within about 12 % share one): the call is a
    dozen small kernels, bound by their launches. ``SMRNB_CUDA_GRAPHS=0`` turns this off.
    """
    from smrnb.geometry._mesh import PointCloud

    frame = "opengl"
    if isinstance(points, PointCloud):
        frame = points.frame
        points = points.points
    pts = as_tensor(points, "points")
    if pts.dim() not in (2, 3) or pts.shape[-1] != 3:
        raise SmrnbValueError(f"points must have shape (N, 3) or (B, N, 3), got {tuple(pts.shape)}")
    if not pts.dtype.is_floating_point:
        raise SmrnbTypeError(f"points must be a floating-point tensor, got dtype {pts.dtype}")
    if pts.shape[-2] == 0 or pts.numel() == 0:
        raise SmrnbValueError(f"points must not be empty, got shape {tuple(pts.shape)}")
    vs = check_positive(voxel_size, "voxel_size")
    shape = _grid_shape(grid_shape)
    check_choice(backend, "backend", ("auto", "torch", "kaolin"))
    batched = pts.dim() == 3
    pb = pts if batched else pts[None]
    B, N = int(pb.shape[0]), int(pb.shape[1])
    dev = pts.device

    cells = B * shape[0] * shape[1] * shape[2]
    estimate = cells + B * N * 40  # bool grid + per-point float/int64 temporaries
    # asking the device costs a driver call: only for allocations that could matter
    budget = _memory_budget(dev) if estimate > _SMALL else estimate
    require(estimate, dev, f"pointcloud_to_voxelgrid: a {B} x {shape[0]} x {shape[1]} x {shape[2]} grid for "
            f"{B * N} points", "grid_shape/voxel_size",
            "reduce grid_shape (or raise voxel_size to cover the same extent with fewer voxels)", budget)

    if origin is None:
        # bounding-box centre on the host (one small sync instead of a chain of tiny kernels), in
        # float64 as documented; NaN/inf points make it non-finite and are reported below
        lo, hi = torch.aminmax(pb.reshape(-1, 3), dim=0)
        b = torch.stack([lo, hi]).tolist()
        vals = tuple((math.floor(((b[0][a] + b[1][a]) / 2) / vs) - shape[a] // 2) * vs
                     if math.isfinite(b[0][a] + b[1][a]) else math.nan for a in range(3))
        if not all(map(math.isfinite, vals)):
            _raise_nonfinite(pb)
    else:
        # checked on the host: no device round trip for an origin given as numbers or a CPU tensor
        if isinstance(origin, torch.Tensor):
            if tuple(origin.shape) != (3,):
                raise SmrnbValueError(f"origin must have shape (3,), got {tuple(origin.shape)}")
            vals = origin.tolist()  # float32 or float64 values, exactly, as Python floats
        else:
            arr = as_tensor(origin, "origin", dtype=torch.float64, device="cpu")
            if tuple(arr.shape) != (3,):
                raise SmrnbValueError(f"origin must have shape (3,), got {tuple(arr.shape)}")
            vals = arr.tolist()
        if not all(map(math.isfinite, vals)):
            raise SmrnbValueError(f"origin must be finite, got {vals}")
    org = device_const(dev, tuple(vals), torch.float64)
    org_pts = device_const(dev, tuple(vals), pts.dtype)  # the same numbers, cast once

    if backend == "kaolin":
        occ, dropped = _voxelize_kaolin(pb, vs, shape, org)
        kept = N - dropped
        used = "kaolin"
    else:
        if cells <= _GRAPH_MAX_CELLS and B * N <= _GRAPH_MAX_POINTS and _graphs.enabled(dev):
            occ, kept = _voxelize_graphed(pb, vs, shape, org_pts)
        else:
            occ, kept = _voxelize_torch(pb, vs, shape, org_pts)
        used = "torch CUDA" if dev.type == "cuda" else "torch CPU"
    per = [N - k for k in (kept if isinstance(kept, list) else kept.tolist())]
    if any(per):
        # NaN/inf coordinates never land in a voxel: check for them only when something was dropped
        _raise_nonfinite(pb)
    meta = {"backend": used, "num_points": B * N, "dropped_per_batch": per}
    # every field was checked above: build without VoxelGrid's own checks (a device sync for origin)
    grid = object.__new__(VoxelGrid)
    grid.occupancy, grid.origin, grid.voxel_size = occ if batched else occ[0], org, vs
    grid.frame, grid.dropped, grid.meta = frame, int(sum(per)), meta
    return grid


def pointcloud_to_voxelgrid_pt(points: Any, voxel_size: float = 0.02, grid_shape: Any = (256, 256, 256),
                               origin: Any = None) -> VoxelGrid:
    """The pure-PyTorch twin of :func:`pointcloud_to_voxelgrid` (the seed tutorial's fallback for
    when kaolin is missing or broken).

    Same arguments, same rounding convention (a point falls in voxel
    ``floor((p - origin) / voxel_size)``), same placement and the same :class:`VoxelGrid`, on the
    points' device; it never imports kaolin (``backend="torch"``). See
    :func:`pointcloud_to_voxelgrid` for the parameters and the memory check.
    """
    return pointcloud_to_voxelgrid(points, voxel_size, grid_shape, origin, backend="torch")


def _raise_nonfinite(pb: torch.Tensor) -> None:
    """Raise naming the NaN/inf points of ``pb``, if there are any."""
    finite = torch.isfinite(pb).all(-1)
    if not bool(finite.all()):
        bad = int((~finite).sum())
        raise SmrnbValueError(f"points must be finite, got {bad} point(s) with NaN/inf coordinates")


def _voxelize_torch(pb: torch.Tensor, vs: float, shape: tuple[int, int, int], org: torch.Tensor | None
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Plain scatter: (B, N, 3) -> (B, X, Y, Z) bool, (B,) int64 counts of points inside. No host
    sync, few kernels (on a GPU this call is bound by launches, not by memory). ``org`` None: the
    points are already ``points - origin``."""
    flat, kept = _voxel_indices(pb, vs, shape, org)
    return _scatter(flat, pb.shape[0], shape), kept


def _voxel_indices(pb: torch.Tensor, vs: float, shape: tuple[int, int, int], org: torch.Tensor | None
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, N) int64 flat voxel index of every point (``B * X * Y * Z`` for points outside the grid)
    and the (B,) counts of points inside."""
    B = pb.shape[0]
    X, Y, Z = shape
    dev = pb.device
    total = B * X * Y * Z
    if org is None:
        fidx = torch.div(pb, vs).floor_()
    else:
        fidx = torch.sub(pb, org if org.dtype == pb.dtype else org.to(pb.dtype)).div_(vs).floor_()
    if X == Y == Z:  # scalar bounds: a vectorised kernel (tensor bounds broadcast, ~2x slower on a GPU)
        clamped = torch.clamp(fidx, 0, X - 1)
    else:
        clamped = torch.clamp(fidx, min=device_const(dev, (0, 0, 0), pb.dtype),
                              max=device_const(dev, (X - 1, Y - 1, Z - 1), pb.dtype))
    eq = fidx == clamped  # NaN compares unequal -> outside
    inside = eq[..., 0] & eq[..., 1]  # (B, N); two elementwise passes, not a reduction (3x faster on a GPU)
    inside &= eq[..., 2]
    # the flat index as two elementwise multiply-adds (a sum over the 3-wide last axis would be a
    # reduction, several times slower on a GPU); in float32 when exact there (every integer up to
    # 2**24 is: 256^3 cells and the spare slot included), else in int64
    c = clamped if total <= (1 << 24) and pb.dtype == torch.float32 else clamped.long()
    flat = torch.add(c[..., 2], c[..., 1], alpha=Z).add_(c[..., 0], alpha=Y * Z)  # (B, N)
    if B > 1:
        flat += device_const(dev, tuple(b * X * Y * Z for b in range(B)), flat.dtype)[:, None]
    flat = torch.where(inside, flat, total)  # outside -> one spare slot
    if flat.dtype != torch.int64:
        flat = flat.to(torch.int64)
    return flat, torch.count_nonzero(inside, dim=1)


def _scatter(flat: torch.Tensor, B: int, shape: tuple[int, int, int]) -> torch.Tensor:
    """(B, X, Y, Z) bool grid with the voxels of ``flat`` (from :func:`_voxel_indices`) set."""
    total = B * shape[0] * shape[1] * shape[2]
    occ = torch.zeros(total + 1, dtype=torch.bool, device=flat.device)
    occ.index_fill_(0, flat.view(-1), True)
    return occ[:total].view(B, *shape)


# grids up to this many cells, from up to this many points, are voxelized through CUDA graphs (see
# _graphs): a million points into 256^3 is a dozen small kernels, bound by their launches; ten million
# points are bound by the kernels (H200: 1.38 ms eagerly, 1.54 ms through a graph and its copies)
_GRAPH_MAX_CELLS = 1 << 26
_GRAPH_MAX_POINTS = 1 << 22


def _voxelize_graphed(pb: torch.Tensor, vs: float, shape: tuple[int, int, int], org: torch.Tensor
                      ) -> tuple[torch.Tensor, list[int]]:
    """:func:`_voxelize_torch` with its index computation replayed from a CUDA graph: the grid and
    the points kept per batch. The graph's input buffer holds ``points - origin`` (one
    kernel writes it, so the origin is no graph constant) padded up to a capacity (eight steps per
    octave) with +inf, which falls outside every grid and is not counted, so clouds of similar
    sizes share a graph."""
    B, N = int(pb.shape[0]), int(pb.shape[1])
    dev = pb.device
    cap = _graphs.capacity(N, minimum=1024)

    def load(static: dict[str, torch.Tensor] | None) -> dict[str, torch.Tensor]:
        if static is None:
            static = {"pb": torch.full((B, cap, 3), math.inf, dtype=pb.dtype, device=dev),
                      "filled": [cap]}  # type: ignore[dict-item]
        views = static.setdefault("views", {})  # type: ignore[arg-type]
        q = views.get(N)
        if q is None:  # the view costs a dispatcher call: made once per cloud size (a few kept)
            if len(views) > 8:
                views.clear()
            q = views[N] = static["pb"][:, :N]
        torch.sub(pb, org, out=q)
        hw = static["filled"]  # the buffer is +inf from hw[0] on: refill only what the last call used
        if hw[0] > N:
            static["pb"][:, N:hw[0]].fill_(math.inf)
        hw[0] = N
        return static

    path = ("voxelize", dev.index, B, cap, shape, pb.dtype, vs)
    with _graphs.session(dev):
        # the graph stops at the voxel indices: the grid is filled from them outside it, into fresh
        # memory (cheaper than copying a grid out of the graph's buffer)
        (flat, kept), _ = _graphs.run(
            path, lambda pb, org=None, **_: _voxel_indices(pb, vs, shape, org), {"pb": pb, "org": org},
            device=dev, load=load)
        return _scatter(flat, B, shape), kept.tolist()


def _voxelize_kaolin(pb: torch.Tensor, vs: float, shape: tuple[int, int, int], org: torch.Tensor
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    from smrnb.geometry import _backend

    if len(set(shape)) != 1:
        raise SmrnbValueError(f"backend='kaolin' needs a cubic grid_shape (kaolin takes one resolution), got {shape}")
    if not _backend.use_kaolin("pointclouds_to_voxelgrids", pb.device, "kaolin"):
        st = _backend.kaolin_status()
        why = st.reason or _backend.distrusted().get("pointclouds_to_voxelgrids", "unknown")
        raise SmrnbValueError(f"backend='kaolin' is not usable here: {why}")
    R = shape[0]
    B = pb.shape[0]
    o = (org + 0.5 * vs).to(pb.dtype)
    scale = vs * (R - 1) if R > 1 else vs
    occ = _backend.kaolin_voxelize(pb, R, o[None].expand(B, 3).contiguous(),
                                   torch.full((B,), scale, dtype=pb.dtype, device=pb.device))
    # kaolin drops points silently: count them with its own rounding
    ki = torch.round((pb - o) / scale * (R - 1))
    dropped = (~((ki >= 0) & (ki <= R - 1)).all(-1)).sum(1)
    if _backend.suspicious_empty(int(occ.sum()), bool((dropped < pb.shape[1]).any())):
        why = "kaolin pointclouds_to_voxelgrids returned an empty grid for points inside it"
        _backend.distrust("pointclouds_to_voxelgrids", why)
        raise SmrnbValueError(f"backend='kaolin' failed: {why}; use backend='torch'")
    return occ > 0.5, dropped
