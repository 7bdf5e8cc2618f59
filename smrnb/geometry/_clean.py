# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Point-cloud cleaning: depth range, statistical and radius outliers, voxel downsampling, and the
anomaly check (:func:`check_points`) that catches the seed tutorial's "many points at z = 0".

Every op takes a :class:`PointCloud` and returns a new one on the same device (inputs are never
modified); colors and normals follow their points.

Neighbour searches (the two outlier filters):

- CPU tensors: ``scipy.spatial.cKDTree`` (float64; the kept mask is a tensor on the caller's
  device, CPU).
- CUDA tensors: grid hashing in PyTorch that stays on the GPU: points sorted into cubic cells, each
  query visits its 3x3x3 block of cells, candidate pairs are processed in bounded chunks. Exact:
  radius counts use cells slightly larger than the radius; a k-nearest answer is accepted only when
  its k-th distance is below the cell edge, otherwise the query is redone with doubled cells and
  finally by brute force. ``backend="torch-brute"`` is the slow reference twin (chunks of queries
  against all points, ``O(N^2)``).

All three compute squared distances as ``dx*dx + dy*dy + dz*dz`` in float64 and share the statistics,
so they keep exactly the same points (tested: scipy vs grid vs brute force, run on CPU).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry._mesh import PointCloud
from smrnb.geometry._validate import check_choice, check_int_range, check_positive

__all__ = ["Anomaly", "CleanResult", "CleanStep", "PointCheck", "check_points", "clean_points", "crop_depth_range",
           "remove_radius_outliers", "remove_statistical_outliers", "voxel_downsample"]

_Z0_EPS = 1e-6


def _check_cloud(cloud: Any, name: str = "cloud", *, allow_empty: bool = False) -> PointCloud:
    if not isinstance(cloud, PointCloud):
        raise SmrnbTypeError(f"{name} must be a smrnb.PointCloud, got {type(cloud).__name__}")
    if not allow_empty and len(cloud) == 0:
        raise SmrnbValueError(f"{name} is empty (0 points)")
    return cloud


def _subset(cloud: PointCloud, keep: torch.Tensor, op: str) -> PointCloud:
    meta = dict(cloud.meta)
    meta.pop("frame_index", None)  # per-frame offsets no longer hold after removing points
    meta.pop("frame_counts", None)
    return PointCloud(cloud.points[keep], None if cloud.colors is None else cloud.colors[keep],
                      None if cloud.normals is None else cloud.normals[keep], cloud.frame, meta)


# ----------------------------------------------------------------------------------------------- checks

@dataclass
class Anomaly:
    """One finding of :func:`check_points`: ``code`` (stable id), a message, its likely cause and the fix."""

    code: str
    message: str
    cause: str
    fix: str
    count: int = 0
    fraction: float = 0.0

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}\n    cause: {self.cause}\n    fix: {self.fix}"


@dataclass
class PointCheck:
    """Result of :func:`check_points`: ``ok`` is True when no anomaly was found."""

    num_points: int
    space: str
    anomalies: list[Anomaly] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.anomalies

    def codes(self) -> list[str]:
        return [a.code for a in self.anomalies]

    def __str__(self) -> str:
        head = f"check_points: {self.num_points} points, {self.space} frame: "
        if self.ok:
            return head + "no anomaly found"
        return head + f"{len(self.anomalies)} anomal{'y' if len(self.anomalies) == 1 else 'ies'}\n" + "\n".join(
            str(a) for a in self.anomalies)


def _space(cloud: PointCloud, space: str | None) -> str:
    if space is None:
        return cloud.meta.get("space", "camera")
    return check_choice(space, "space", ("camera", "world"))


def _duplicate_groups(points: torch.Tensor, min_group: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Mask of points that belong to a group of at least ``min_group`` exactly identical points, and
    the (G, 3) locations of those groups (largest first)."""
    if points.shape[0] == 0:
        return torch.zeros(0, dtype=torch.bool, device=points.device), points.new_zeros((0, 3))
    uniq, inv, counts = torch.unique(points, dim=0, return_inverse=True, return_counts=True)
    big = counts >= min_group
    order = torch.argsort(counts[big], descending=True)
    return big[inv], uniq[big][order]


def _min_group(N: int) -> int:
    # real scans never repeat a float point 10 times; back-projected zeros repeat it per hole pixel
    return max(10, int(0.001 * N))


def check_points(cloud: PointCloud, *, space: str | None = None, max_fraction: float = 0.05) -> PointCheck:
    """Look for the anomalies that turn a scan into a black or empty mesh, and say why.

    Parameters
    ----------
    cloud : PointCloud (metres).
    space : "camera" or "world"; default ``cloud.meta["space"]`` (set by :func:`depth_to_points`),
        else "camera" (a cloud back-projected by hand is usually in the camera frame).
    max_fraction : share of points above which a collapse is reported (default 5 %).

    Checks (``Anomaly.code``):

    - ``empty``: no points.
    - ``nonfinite``: NaN/inf coordinates.
    - ``z0`` (camera frame): more than ``max_fraction`` of points with ``|z| < 1e-6``: depth-0 pixels
      ("no measurement") were back-projected instead of dropped, or the depth scale is wrong. They sit on
      the camera centre, and a surface built through them becomes a dark fan / black mesh.
    - ``collapsed``: more than ``max_fraction`` of points in groups of exactly identical points (groups
      of at least max(10, 0.1 % of N)): in the world frame the back-projected zeros of each frame land
      on that frame's camera centre.
    - ``scale_small`` / ``scale_large``: median camera depth below 5 cm or above 100 m (world: extent
      above 1 km): a wrong ``depth_scale`` (raw millimetres read as metres, or scaled twice).
    - ``black_colors``: more than half of the colors are exactly black (colors lost or mis-scaled).

    Returns
    -------
    PointCheck (``ok``, ``anomalies``; ``str()`` prints messages, causes and fixes).
    """
    _check_cloud(cloud, allow_empty=True)
    sp = _space(cloud, space)
    mf = float(max_fraction)
    if not 0 < mf < 1:
        raise SmrnbValueError(f"max_fraction must be in (0, 1), got {max_fraction!r}")
    N = len(cloud)
    rep = PointCheck(N, sp)
    if N == 0:
        rep.anomalies.append(Anomaly("empty", "the cloud has no points",
                                     "every depth pixel was invalid or removed by the cleaning parameters",
                                     "check the depth images, depth_scale and the depth range", 0, 0.0))
        return rep
    p = cloud.points.detach()
    finite = torch.isfinite(p).all(dim=1)
    n_bad = N - int(finite.sum())
    if n_bad:
        rep.anomalies.append(Anomaly(
            "nonfinite", f"{n_bad} of {N} points ({100 * n_bad / N:.1f} %) have NaN/inf coordinates",
            "NaN/inf depth pixels were back-projected, or a pose/intrinsics held NaN",
            "use smrnb.depth_to_points (it drops NaN/inf depth) or clean_points (drops these points)",
            n_bad, n_bad / N))
    pf = p[finite]
    z0_reported = False
    if sp == "camera" and pf.shape[0]:
        n0 = int((pf[:, 2].abs() < _Z0_EPS).sum())
        if n0 > mf * N:
            z0_reported = True
            rep.anomalies.append(Anomaly(
                "z0", f"{n0} of {N} points ({100 * n0 / N:.1f} %) lie at z = 0 in the camera frame",
                "depth pixels with value 0 (no measurement) were back-projected instead of dropped, or the depth "
                "scale is wrong; back-projected zeros sit on the camera centre and turn the surface into a dark fan "
                "or an all-black mesh",
                "back-project with smrnb.depth_to_points (drops 0, 65535, NaN, inf, negative depth) or run "
                "smrnb.clean_points, which drops them (if this cloud is in a world frame where z = 0 is a real "
                "plane, pass space='world')", n0, n0 / N))
    in_groups, locs = _duplicate_groups(pf, _min_group(N))
    if z0_reported and locs.shape[0]:  # the camera-frame zeros are already reported as z0
        at_z0 = pf[:, 2].abs() < _Z0_EPS
        in_groups = in_groups & ~at_z0
        locs = locs[locs[:, 2].abs() >= _Z0_EPS]
    n_dup = int(in_groups.sum())
    if n_dup > mf * N:
        xyz = ", ".join(f"{float(v):.4g}" for v in locs[0])
        where = f"the same point ({xyz})" if locs.shape[0] == 1 else \
            f"{locs.shape[0]} repeated points (the largest group at ({xyz}))"
        rep.anomalies.append(Anomaly(
            "collapsed", f"{n_dup} of {N} points ({100 * n_dup / N:.1f} %) are {where}",
            "invalid depth pixels (0) were back-projected: in the world frame each frame's zeros land on its "
            "camera centre", "back-project with smrnb.depth_to_points or run smrnb.clean_points, which drops them",
            n_dup, n_dup / N))
    if sp == "camera":
        z = pf[:, 2]
        z = z[z.abs() >= _Z0_EPS]
        if z.numel():
            med = float(z.abs().median())
            if med < 0.05:
                rep.anomalies.append(Anomaly(
                    "scale_small", f"median depth is {med * 1000:.3g} mm: the points crowd the camera plane",
                    "the depth scale is applied twice or is too large (e.g. metres divided by 1000 again)",
                    "check depth_scale: raw uint16 millimetres need depth_scale=1000, TUM needs 5000; "
                    "depth already in metres needs none", z.numel(), 1.0))
            elif med > 100:
                rep.anomalies.append(Anomaly(
                    "scale_large", f"median depth is {med:.4g} m: far beyond an RGB-D sensor's range",
                    "raw depth units were read as metres (depth_scale missing)",
                    "pass depth_scale=1000 for millimetre PNGs (5000 for TUM)", z.numel(), 1.0))
    elif pf.shape[0]:
        ext = float((pf.max(0).values - pf.min(0).values).norm())
        if ext > 1000:
            rep.anomalies.append(Anomaly(
                "scale_large", f"the cloud spans {ext:.4g} m", "raw depth units were read as metres "
                "(depth_scale missing) or a pose translation is in millimetres",
                "pass depth_scale=1000 for millimetre PNGs (5000 for TUM); check the pose units", pf.shape[0], 1.0))
    if cloud.colors is not None and cloud.colors.numel():
        nb = int((cloud.colors.detach() == 0).all(dim=1).sum())
        if nb > 0.5 * N:
            rep.anomalies.append(Anomaly(
                "black_colors", f"{nb} of {N} colors ({100 * nb / N:.1f} %) are pure black",
                "colors were lost (zeros), or uint8 colors were divided by 255 twice",
                "pass color as uint8 (H, W, 3) or float in [0, 1] to depth_to_points", nb, nb / N))
    return rep


# ------------------------------------------------------------------------------------------- basic ops

def crop_depth_range(cloud: PointCloud, depth_min: float = 0.0, depth_max: float = math.inf, *,
                     pose: Any = None) -> PointCloud:
    """Keep points with ``depth_min < depth <= depth_max`` (metres).

    Depth is the camera-frame z. For a world-frame cloud (``meta["space"] == "world"``) pass the
    camera-to-world ``pose`` (4, 4) of the camera to measure along: depth = z of ``inv(pose) @ p``.
    Returns a new PointCloud on the same device.
    """
    _check_cloud(cloud)
    dmin, dmax = float(depth_min), float(depth_max)
    if math.isnan(dmin) or math.isnan(dmax) or dmin >= dmax:
        raise SmrnbValueError(f"depth_min must be < depth_max, got depth_min={depth_min!r}, depth_max={depth_max!r}")
    p = cloud.points
    if pose is None:
        if cloud.meta.get("space") == "world":
            raise SmrnbValueError("cloud is in the world frame (meta['space'] == 'world'): pass pose= (the camera-to-"
                                  "world 4x4 to measure depth along) or crop the camera-frame cloud before the pose")
        z = p[:, 2]
    else:
        from smrnb.geometry._points import _check_pose

        P = _check_pose(pose).to(device=p.device, dtype=torch.float64)
        z = ((p.double() - P[:3, 3]) @ P[:3, :3])[:, 2]
    keep = (z > dmin) & (z <= dmax)
    return _subset(cloud, keep, "crop_depth_range")


def voxel_downsample(cloud: PointCloud, voxel_size: float) -> PointCloud:
    """One point per occupied voxel: the mean position (and mean color; normals averaged and
    renormalised) of the points in it.

    Voxels are the cubes ``floor(p / voxel_size)`` (grid anchored at the origin, metres). Output
    points are ordered by voxel index (lexicographic in x, y, z), on the input's device and dtype.
    Non-finite points are rejected (run :func:`clean_points` first).
    """
    _check_cloud(cloud)
    vs = check_positive(voxel_size, "voxel_size")
    p = cloud.points
    if not bool(torch.isfinite(p).all()):
        raise SmrnbValueError("cloud must have finite points for voxel_downsample, got NaN/inf (run clean_points)")
    # cell indices must be exact integers: beyond 2**52 a float64 cannot tell neighbouring cells apart,
    # and beyond 2**63 the int64 keys overflow and merge distant points
    reach = float(p.detach().abs().max()) / vs if p.numel() else 0.0
    if not reach < 2.0 ** 52:
        raise SmrnbValueError(f"voxel_size {vs:g} is too small for points reaching {float(p.abs().max()):g} m from the "
                              f"origin: cell indices would exceed 2**52 (exact float64 integers); use voxel_size >= "
                              f"{float(p.abs().max()) / 2.0 ** 50:.3g}")
    keys = torch.floor(p.double() / vs).long()
    _, inv, counts = torch.unique(keys, dim=0, return_inverse=True, return_counts=True)
    M = counts.shape[0]

    def mean(x: torch.Tensor) -> torch.Tensor:
        acc = torch.zeros((M, x.shape[1]), dtype=torch.float64, device=x.device).index_add_(0, inv, x.double())
        return (acc / counts[:, None].double()).to(x.dtype)

    normals = None
    if cloud.normals is not None:
        n = mean(cloud.normals)
        normals = n / n.norm(dim=1, keepdim=True).clamp_min(1e-12)
    meta = {k: v for k, v in cloud.meta.items() if k not in ("frame_index", "frame_counts")}
    meta["voxel_size"] = vs
    return PointCloud(mean(p), None if cloud.colors is None else mean(cloud.colors), normals, cloud.frame, meta)


# ------------------------------------------------------------------------------------ neighbour search

def _pick_backend(device: torch.device, backend: str) -> str:
    check_choice(backend, "backend", ("auto", "scipy", "torch", "torch-brute"))
    if backend == "auto":
        return "torch" if device.type != "cpu" else "scipy"
    return backend


def _sqdist_chunk(q: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """(C, N) squared distances, summed in x, y, z order (float64)."""
    d = q[:, None, 0] - p[None, :, 0]
    s = d * d
    d = q[:, None, 1] - p[None, :, 1]
    s = s + d * d
    d = q[:, None, 2] - p[None, :, 2]
    return s + d * d


def _pair_sqdist(q: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """(T,) squared distances of paired rows, same operation order as :func:`_sqdist_chunk`."""
    d = q[:, 0] - c[:, 0]
    s = d * d
    d = q[:, 1] - c[:, 1]
    s = s + d * d
    d = q[:, 2] - c[:, 2]
    return s + d * d


def _chunk_rows(N: int, budget_elems: int) -> int:
    return max(1, min(N, budget_elems // max(N, 1)))


# --- brute force (the reference twin): chunks of queries against all points, O(N^2) work

def _knn_sqdist_brute(p: torch.Tensor, k: int, queries: torch.Tensor | None = None,
                      budget_elems: int = 1 << 24) -> torch.Tensor:
    """(Q, k) squared distances from ``p[queries]`` (default all) to their k nearest other points, ascending."""
    q_idx = torch.arange(p.shape[0], device=p.device) if queries is None else queries
    out = torch.empty((q_idx.shape[0], k), dtype=torch.float64, device=p.device)
    C = _chunk_rows(p.shape[0], budget_elems)
    for s in range(0, q_idx.shape[0], C):
        d2 = _sqdist_chunk(p[q_idx[s:s + C]], p)
        out[s:s + C] = torch.topk(d2, k + 1, dim=1, largest=False, sorted=True).values[:, 1:]
    return out


def _radius_count_brute(p: torch.Tensor, r2: float, budget_elems: int = 1 << 24) -> torch.Tensor:
    N = p.shape[0]
    out = torch.empty(N, dtype=torch.long, device=p.device)
    C = _chunk_rows(N, budget_elems)
    for s in range(0, N, C):
        out[s:s + C] = (_sqdist_chunk(p[s:s + C], p) <= r2).sum(dim=1) - 1
    return out


# --- grid hashing: points sorted by cell, each query visits its 3x3x3 block of cells

class _Grid:
    """Points bucketed into cubic cells of edge ``h``; ``candidates`` lists, per query, every point in
    the query's 3x3x3 block (which contains every point within distance ``h`` of the query)."""

    def __init__(self, p: torch.Tensor, h: float):
        c = torch.floor(p / h).long()
        c = c - c.min(dim=0).values + 1  # >= 1, so the -1 neighbours stay >= 0
        dims = c.max(dim=0).values + 2
        if float(dims[0]) * float(dims[1]) * float(dims[2]) > 2.0 ** 62:
            raise OverflowError("grid too fine for int64 cell keys")
        d1, d2 = int(dims[1]), int(dims[2])
        self.lin = (c[:, 0] * d1 + c[:, 1]) * d2 + c[:, 2]
        self.order = torch.argsort(self.lin)
        self.cells, self.counts = torch.unique_consecutive(self.lin[self.order], return_counts=True)
        self.starts = torch.cumsum(self.counts, 0) - self.counts
        o = torch.tensor([-1, 0, 1], device=p.device)
        ox, oy, oz = torch.meshgrid(o, o, o, indexing="ij")
        self.offsets = ((ox * d1 + oy) * d2 + oz).flatten()  # (27,)

    def ranges(self, q_idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(Q, 27) start (into ``order``) and count of each neighbouring cell of the queries."""
        nk = self.lin[q_idx][:, None] + self.offsets[None, :]
        j = torch.searchsorted(self.cells, nk).clamp_max(self.cells.shape[0] - 1)
        hit = self.cells[j] == nk
        zero = torch.zeros((), dtype=torch.long, device=nk.device)
        return torch.where(hit, self.starts[j], zero), torch.where(hit, self.counts[j], zero)

    def candidates(self, q_idx: torch.Tensor, starts: torch.Tensor, counts: torch.Tensor
                   ) -> tuple[torch.Tensor, torch.Tensor]:
        """Flattened pairs: (query position in q_idx, candidate point index), grouped by query."""
        cnt = counts.flatten()
        rng = torch.repeat_interleave(torch.arange(cnt.shape[0], device=cnt.device), cnt)
        first = (torch.cumsum(cnt, 0) - cnt)[rng]
        pos = starts.flatten()[rng] + (torch.arange(rng.shape[0], device=cnt.device) - first)
        return rng // 27, self.order[pos]


def _query_chunks(n_pairs: torch.Tensor, budget: int) -> list[tuple[int, int]]:
    """Split queries into consecutive runs whose candidate-pair totals stay near ``budget``."""
    cum = torch.cumsum(n_pairs, 0)
    total = int(cum[-1]) if cum.numel() else 0
    cuts = []
    if total > budget:
        marks = torch.arange(budget, total, budget, device=cum.device)
        cuts = torch.searchsorted(cum, marks, right=True).tolist()
    bounds = sorted({0, *[c for c in cuts if 0 < c < n_pairs.shape[0]], int(n_pairs.shape[0])})
    return list(zip(bounds[:-1], bounds[1:]))


def _radius_count_grid(p: torch.Tensor, r: float, budget_pairs: int = 1 << 23, block: int = 1 << 16) -> torch.Tensor:
    """Number of other points within distance ``r`` (``<=`` on squared distances), per point."""
    N = p.shape[0]
    try:
        grid = _Grid(p, r * 1.001)  # cells a hair larger than r: floor() rounding never hides a neighbour
    except OverflowError:  # radius tiny against the extent: more cells than int64 keys
        return _radius_count_brute(p, r * r)
    r2 = r * r
    out = torch.empty(N, dtype=torch.long, device=p.device)
    for b in range(0, N, block):
        q_idx = grid.order[b:b + block]  # queries in cell order: chunks are spatially coherent
        st, ct = grid.ranges(q_idx)
        for s, e in _query_chunks(ct.sum(1), budget_pairs):
            qi, cand = grid.candidates(q_idx[s:e], st[s:e], ct[s:e])
            inside = _pair_sqdist(p[q_idx[s:e]][qi], p[cand]) <= r2
            out[q_idx[s:e]] = torch.bincount(qi[inside], minlength=e - s) - 1
    return out


def _knn_sqdist_grid(p: torch.Tensor, k: int, budget_pairs: int = 1 << 23, block: int = 1 << 16) -> torch.Tensor:
    """(N, k) squared distances to the k nearest other points, ascending, exact.

    Cell edge ``h`` starts at twice the 90th percentile of the k-th neighbour distance of a sample
    (brute force). A query's answer is accepted when its k-th distance is within ``0.999 h`` (then no
    point outside its 3x3x3 block can be closer); the others are redone with ``h`` doubled, and after
    a few rounds by brute force.
    """
    N = p.shape[0]
    out = torch.empty((N, k), dtype=torch.float64, device=p.device)
    g = torch.Generator(device="cpu").manual_seed(0)
    sample = torch.randperm(N, generator=g)[: min(N, 256)].to(p.device)
    h = 2.0 * float(torch.quantile(_knn_sqdist_brute(p, k, sample)[:, -1].sqrt(), 0.9))
    ext = float((p.max(dim=0).values - p.min(dim=0).values).norm())
    todo = torch.arange(N, device=p.device)
    for _ in range(4):
        if todo.numel() == 0 or not h > 0 or h > ext:
            break
        try:
            grid = _Grid(p, h)
        except OverflowError:
            break
        lim = (0.999 * h) ** 2
        failed = []
        q_all = todo[torch.argsort(grid.lin[todo])]
        for b in range(0, q_all.shape[0], block):
            q_idx = q_all[b:b + block]
            st, ct = grid.ranges(q_idx)
            n_q = ct.sum(1)
            for s, e in _query_chunks(n_q, budget_pairs):
                qi, cand = grid.candidates(q_idx[s:e], st[s:e], ct[s:e])
                d2 = _pair_sqdist(p[q_idx[s:e]][qi], p[cand])
                nq = n_q[s:e]
                width = int(nq.max()) if nq.numel() else 0
                M = torch.full((e - s, max(width, k + 1)), math.inf, dtype=torch.float64, device=p.device)
                col = torch.arange(qi.shape[0], device=p.device) - (torch.cumsum(nq, 0) - nq)[qi]
                M[qi, col] = d2
                top = torch.topk(M, k + 1, dim=1, largest=False, sorted=True).values
                ok = top[:, -1] <= lim  # also false when fewer than k + 1 candidates (inf)
                out[q_idx[s:e][ok]] = top[ok, 1:]
                failed.append(q_idx[s:e][~ok])
        todo = torch.cat(failed) if failed else todo[:0]
        h *= 2.0
    if todo.numel():
        out[todo] = _knn_sqdist_brute(p, k, todo)
    return out


def _finite_points(cloud: PointCloud, op: str) -> torch.Tensor:
    p = cloud.points.detach()
    if not bool(torch.isfinite(p).all()):
        raise SmrnbValueError(f"cloud must have finite points for {op}, got NaN/inf (run clean_points first)")
    return p.double()


def remove_statistical_outliers(cloud: PointCloud, nb_neighbors: int = 20, std_ratio: float = 2.0, *,
                                backend: str = "auto") -> PointCloud:
    """Drop points whose mean distance to their ``nb_neighbors`` nearest other points is more than
    ``std_ratio`` standard deviations above the cloud's mean of that quantity (PCL/Open3D filter;
    the point itself is not counted among its neighbours, as in PCL).

    Parameters
    ----------
    cloud : PointCloud, (N, 3), N > nb_neighbors, finite.
    nb_neighbors : int >= 1.
    std_ratio : float > 0.
    backend : "auto" (scipy cKDTree for CPU tensors, PyTorch grid hashing for CUDA tensors, which
        stays on the GPU), "scipy" (CUDA input is copied to the CPU and the mask moved back),
        "torch" (grid hashing on the input's device) or "torch-brute" (reference, ``O(N^2)``).

    Returns
    -------
    A new PointCloud with the kept points, in input order, on the input's device;
    ``meta["statistical_threshold"]`` is the distance threshold in metres.
    """
    _check_cloud(cloud)
    k = check_int_range(nb_neighbors, "nb_neighbors", 1)
    ratio = check_positive(std_ratio, "std_ratio")
    N = len(cloud)
    if N <= k:
        raise SmrnbValueError(f"cloud must have more than nb_neighbors={k} points, got {N}")
    p = _finite_points(cloud, "remove_statistical_outliers")
    be = _pick_backend(p.device, backend)
    if be == "scipy":
        from scipy.spatial import cKDTree

        pc = p.cpu()
        _, idx = cKDTree(pc.numpy()).query(pc.numpy(), k=k + 1)
        # distances recomputed with the torch formula, so both backends see bitwise-equal values
        nb = pc[torch.from_numpy(idx[:, 1:])]  # (N, k, 3)
        dx = pc[:, None, :] - nb
        d2 = dx[..., 0] * dx[..., 0] + dx[..., 1] * dx[..., 1] + dx[..., 2] * dx[..., 2]
        mean_d = d2.sort(dim=1).values.sqrt().mean(dim=1).to(p.device)
    else:
        knn = _knn_sqdist_brute if be == "torch-brute" else _knn_sqdist_grid
        mean_d = knn(p, k).sqrt().mean(dim=1)
    mu = mean_d.mean()
    sd = mean_d.std(correction=1) if N > 1 else torch.zeros((), dtype=torch.float64, device=p.device)
    thr = mu + ratio * sd
    keep = mean_d <= thr
    out = _subset(cloud, keep.to(cloud.points.device), "remove_statistical_outliers")
    out.meta["statistical_threshold"] = float(thr)
    out.meta["knn_backend"] = be
    return out


def remove_radius_outliers(cloud: PointCloud, nb_points: int = 16, radius: float = 0.05, *,
                           backend: str = "auto") -> PointCloud:
    """Keep points with at least ``nb_points`` other points within ``radius`` metres (distance <= radius).

    Same kept set as Open3D's ``remove_radius_outlier``, which counts the point itself and keeps
    points with more than ``nb_points`` in the ball. Backends as in :func:`remove_statistical_outliers`.

    Returns a new PointCloud with the kept points, in input order, on the input's device.
    """
    _check_cloud(cloud)
    m = check_int_range(nb_points, "nb_points", 1)
    r = check_positive(radius, "radius")
    p = _finite_points(cloud, "remove_radius_outliers")
    be = _pick_backend(p.device, backend)
    if be == "scipy":
        from scipy.spatial import cKDTree

        pn = p.cpu().numpy()
        cnt = torch.from_numpy(cKDTree(pn).query_ball_point(pn, r, return_length=True).astype("int64")) - 1
        cnt = cnt.to(p.device)
    else:
        cnt = _radius_count_brute(p, r * r) if be == "torch-brute" else _radius_count_grid(p, r)
    out = _subset(cloud, (cnt >= m).to(cloud.points.device), "remove_radius_outliers")
    out.meta["knn_backend"] = be
    return out


# ----------------------------------------------------------------------------------------- clean_points

@dataclass
class CleanStep:
    """One op run by :func:`clean_points`: name, parameters, points before/after, seconds, note
    (what was dropped, or the neighbour-search backend) and the device it ran on."""

    name: str
    params: dict[str, Any]
    before: int
    after: int
    seconds: float
    note: str = ""
    device: str = "cpu"

    @property
    def removed(self) -> int:
        return self.before - self.after


@dataclass
class CleanResult:
    """What :func:`clean_points` returns: the cleaned ``cloud``, the ``steps`` run, the ``check`` of the input."""

    cloud: PointCloud
    steps: list[CleanStep]
    check: PointCheck

    @property
    def before(self) -> int:
        return self.steps[0].before if self.steps else len(self.cloud)

    @property
    def after(self) -> int:
        return len(self.cloud)

    def __str__(self) -> str:
        lines = [f"clean_points: {self.before} -> {self.after} points ({self.before - self.after} removed)"]
        for s in self.steps:
            params = ", ".join(f"{k}={v}" for k, v in s.params.items())
            lines.append(f"  {s.name}({params}): {s.before} -> {s.after} (-{s.removed}) in {s.seconds * 1000:.1f} ms on {s.device}"
                         + (f"  [{s.note}]" if s.note else ""))
        if not self.check.ok:
            lines.append(str(self.check))
        return "\n".join(lines)


def clean_points(cloud: PointCloud, *, drop_invalid: bool = True, depth_min: float | None = None,
                 depth_max: float | None = None, voxel_size: float | None = None, nb_neighbors: int | None = None,
                 std_ratio: float = 2.0, nb_points: int | None = None, radius: float = 0.05,
                 space: str | None = None, backend: str = "auto") -> CleanResult:
    """Run the chosen cleaning ops in order and report counts before/after each.

    Order: ``drop_invalid`` (NaN/inf points; points at z = 0 in the camera frame, or the collapsed
    duplicates of a world-frame cloud, when :func:`check_points` reports them), then
    :func:`crop_depth_range` (when ``depth_min`` or ``depth_max`` is given; camera-frame clouds),
    :func:`voxel_downsample` (``voxel_size``), :func:`remove_statistical_outliers` (``nb_neighbors``,
    ``std_ratio``), :func:`remove_radius_outliers` (``nb_points``, ``radius``). An op runs only when its
    parameter is set.

    Returns
    -------
    CleanResult: ``cloud`` (new PointCloud, same device), ``steps`` (list of CleanStep), ``check``
    (the :class:`PointCheck` of the input; its anomalies are what ``drop_invalid`` acted on).
    """
    _check_cloud(cloud)
    sp = _space(cloud, space)
    chk = check_points(cloud, space=sp)
    steps: list[CleanStep] = []
    cur = cloud

    def run(name: str, params: dict[str, Any], fn, note: str = "") -> None:
        nonlocal cur
        t = time.perf_counter()
        before = len(cur)
        cur = fn(cur)
        steps.append(CleanStep(name, params, before, len(cur), time.perf_counter() - t, note, str(cur.device)))

    if drop_invalid:
        codes = chk.codes()

        def drop(c: PointCloud) -> PointCloud:
            p = c.points.detach()
            keep = torch.isfinite(p).all(dim=1)
            if "z0" in codes:
                keep &= ~(p[:, 2].abs() < _Z0_EPS)
            if "collapsed" in codes:
                in_groups = torch.zeros_like(keep)
                in_groups[keep] = _duplicate_groups(p[keep], _min_group(len(c)))[0]
                keep &= ~in_groups
            return _subset(c, keep, "drop_invalid")

        why = [c for c in codes if c in ("nonfinite", "z0", "collapsed")]
        run("drop_invalid", {}, drop, ("dropped: " + ", ".join(why)) if why else "")
        if len(cur) == 0:
            raise SmrnbValueError(f"cloud has no valid point left after dropping invalid points ({', '.join(why)})\n"
                                  f"{chk}")
    if depth_min is not None or depth_max is not None:
        lo = 0.0 if depth_min is None else depth_min
        hi = math.inf if depth_max is None else depth_max
        run("crop_depth_range", {"depth_min": lo, "depth_max": hi},
            lambda c: crop_depth_range(c.replace(meta={**c.meta, "space": sp}), lo, hi))
    if voxel_size is not None:
        run("voxel_downsample", {"voxel_size": voxel_size}, lambda c: voxel_downsample(c, voxel_size))
    if nb_neighbors is not None:
        run("remove_statistical_outliers", {"nb_neighbors": nb_neighbors, "std_ratio": std_ratio},
            lambda c: remove_statistical_outliers(c, nb_neighbors, std_ratio, backend=backend))
        steps[-1].note = f"backend {cur.meta.get('knn_backend')}"
    if nb_points is not None:
        run("remove_radius_outliers", {"nb_points": nb_points, "radius": radius},
            lambda c: remove_radius_outliers(c, nb_points, radius, backend=backend))
        steps[-1].note = f"backend {cur.meta.get('knn_backend')}"
    return CleanResult(cur, steps, chk)
