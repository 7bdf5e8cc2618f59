# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Sparse TSDF fusion of posed RGB-D frames (plain PyTorch, CPU and CUDA).

Layout
------
Space is cut into cubic **blocks** of ``block_size**3`` voxels (8**3 by default). A block is allocated
only when the truncation band of some frame's depth touches it, so memory follows the observed
surface, not the room. Voxel ``(i, j, k)`` of block ``(bx, by, bz)`` has its centre at world position
``((bx*B + i) * voxel_size, (by*B + j) * voxel_size, (bz*B + k) * voxel_size)`` (B = block_size), i.e.
voxel centres sit on the integer lattice scaled by ``voxel_size`` with the world origin on a voxel
centre.

* ``block_coords (M, 3) int64``: block coordinates of the M allocated blocks.
* ``tsdf (M, B**3) float32`` in ``[-1, 1]`` (signed distance / truncation, positive in front of the
  surface, i.e. in observed free space), ``weight (M, B**3) float32`` (number of observations, capped
  at ``max_weight`` when given), ``color (M, 3, B**3) float32`` in ``[0, 1]`` (optional, channel-planar so that every
  update pass is a plain 1-D gather). Voxels inside
  a block are ordered ``(i*B + j)*B + k``. The arrays have room for more blocks than ``num_blocks``
  (they grow by half when full); rows past ``num_blocks`` are spare capacity, uninitialised.
* Block lookup: a dense ``int32`` table over the bounding box of the touched blocks (``-1`` = not
  allocated), grown when a frame reaches outside it. It costs 4 bytes per *block* of the bounding
  box (1/512 of a dense float volume at B = 8).

Integration (per frame) is the standard projective TSDF: the blocks touched by the frame are found
the way Open3D's ``VoxelBlockGrid`` does it (every 4th pixel in both directions, 4 samples along the
ray between ``depth - truncation`` and ``depth + truncation``); every voxel of those blocks is
projected into the depth image (nearest pixel), ``sdf = depth(pixel) - z_cam(voxel)``; voxels with
``sdf < -truncation`` (hidden behind the surface) or no valid depth are skipped; the others take
``tsdf = min(1, sdf / truncation)`` into a running weighted average (observation weight 1). On the
CPU the touched blocks are updated 256 at a time so that each pass's temporaries stay in the cache.
:func:`fuse_tsdf` first plans every frame's touched blocks (cheap: strided pixels), so the exact
block count is known, checked against the memory budget and allocated once before integrating.

Poses are camera-to-world 4x4 matrices with OpenCV camera axes (x right, y down, z forward), as in
:class:`smrnb.Frames`; the fused mesh is in that same world frame (``Mesh.frame == "opencv"`` with
``meta["world"] == "poses"``: for Redwood/ICL data the world frame is the first camera's).
"""

from __future__ import annotations

import warnings
from typing import Any

import torch

from smrnb import _cancel
from smrnb._errors import SmrnbTypeError, SmrnbValueError, format_bytes
from smrnb._threads import cpu_step
from smrnb.geometry._camera import check_K, check_pose, check_poses
from smrnb.geometry._guards import resolve_device
from smrnb.geometry._memory import memory_budget, require
from smrnb.geometry._validate import as_tensor, check_int_range, check_positive, check_shape

__all__ = ["TSDFVolume", "fuse_tsdf", "estimate_memory_budget"]

# Block touching, as in Open3D's VoxelBlockGrid::GetUniqueBlockCoordinates: pixel stride and samples
_TOUCH_STRIDE = 4
_TOUCH_SAMPLES = 4
_NO_DEPTH = -1.0e6  # stands in for "no depth" in the padded depth image
# CPU: blocks updated per pass, so that the temporaries of one pass stay in the cache
_CHUNK_BLOCKS = 256


def estimate_memory_budget(device: torch.device | str) -> int:
    """Default memory budget in bytes: the shared one (:func:`smrnb.geometry._memory.memory_budget`:
    ``SMRNB_MEMORY_BUDGET`` or 80 % of free memory, honouring RLIMIT_AS and cgroup limits)."""
    return memory_budget(device)


def _check_K(K: Any, name: str, height: int, width: int) -> torch.Tensor:
    return check_K(K, name, height=height, width=width).to(dtype=torch.float64, device="cpu")


def _check_pose(pose: Any, name: str) -> torch.Tensor:
    return check_pose(pose, name).to(dtype=torch.float64, device="cpu")


class TSDFVolume:
    """A sparse, block-hashed truncated signed distance volume with weights and colors.

    Parameters
    ----------
    voxel_size : float
        Edge of a voxel in metres (> 0).
    truncation : float, optional
        Truncation distance in metres; defaults to ``4 * voxel_size`` (sharp surfaces on clean depth;
        use 6-8 voxels for noisy sensors). Must be >= ``voxel_size``.
    block_size : int
        Voxels per block edge (2..32); blocks are the unit of allocation.
    depth_min, depth_max : float
        Depth readings outside ``(depth_min, depth_max)`` metres are ignored.
    color : bool
        Keep a running average of colors (3 float32 per voxel).
    max_weight : float, optional
        Cap on the per-voxel weight (``None`` = no cap; a cap lets the volume follow changes).
    device : torch device, optional
        Where the voxel arrays live (default CPU).
    memory_budget : int, optional
        Bytes the volume may allocate (voxel arrays + lookup table); default
        :func:`estimate_memory_budget`. Going over raises :class:`smrnb.MemoryEstimateError`.
    """

    def __init__(self, voxel_size: float = 0.01, truncation: float | None = None, *, block_size: int = 8,
                 depth_min: float = 0.1, depth_max: float = 3.0, color: bool = True,
                 max_weight: float | None = None, device: Any = None, memory_budget: int | None = None):
        self.voxel_size = check_positive(voxel_size, "voxel_size")
        self.truncation = 4.0 * self.voxel_size if truncation is None else check_positive(truncation, "truncation")
        if self.truncation < self.voxel_size:
            raise SmrnbValueError(f"truncation must be >= voxel_size ({self.voxel_size:g} m), got {self.truncation:g} m")
        self.block_size = check_int_range(block_size, "block_size", 2, 32)
        self.depth_min = check_positive(depth_min, "depth_min", allow_zero=True)
        self.depth_max = check_positive(depth_max, "depth_max")
        if self.depth_max <= self.depth_min:
            raise SmrnbValueError(f"depth_max must be > depth_min ({self.depth_min:g} m), got {self.depth_max:g} m")
        if not isinstance(color, bool):
            raise SmrnbTypeError(f"color must be a bool, got {type(color).__name__}")
        self.has_color = color
        self.max_weight = None if max_weight is None else check_positive(max_weight, "max_weight")
        self.device = resolve_device(device) if device is not None else torch.device("cpu")
        self.memory_budget = (estimate_memory_budget(self.device) if memory_budget is None
                              else int(check_positive(memory_budget, "memory_budget")))
        B = self.block_size
        self.block_length = B * self.voxel_size
        self.num_blocks = 0
        self.frames_integrated = 0
        self.frames_empty = 0
        self._cap = 0
        self.block_coords = torch.zeros(0, 3, dtype=torch.int64, device=self.device)
        self.tsdf = torch.zeros(0, B ** 3, dtype=torch.float32, device=self.device)
        self.weight = torch.zeros(0, B ** 3, dtype=torch.float32, device=self.device)
        self.color = torch.zeros(0, 3, B ** 3, dtype=torch.float32, device=self.device) if color else None
        self._tbl = torch.zeros(0, dtype=torch.int32, device=self.device)
        self._tbl_lo = [0, 0, 0]
        self._tbl_shape = [0, 0, 0]
        self._no_depth = torch.full((), _NO_DEPTH, dtype=torch.float32, device=self.device)
        self._rays_key: Any = None
        self._rays = self._touch_steps = None
        r = torch.arange(B, device=self.device)
        ii, jj, kk = torch.meshgrid(r, r, r, indexing="ij")
        self._local = torch.stack([ii, jj, kk], dim=-1).reshape(-1, 3).to(torch.float32)  # (B^3, 3)

    # ------------------------------------------------------------------ bookkeeping
    @property
    def bytes_per_block(self) -> int:
        """Bytes one allocated block costs: tsdf + weight (+ color) float32 + its coordinates."""
        return self.block_size ** 3 * (8 + (12 if self.has_color else 0)) + 3 * 8

    def memory_bytes(self) -> int:
        """Bytes held now by the voxel arrays (allocated capacity) and the lookup table."""
        return self._cap * self.bytes_per_block + self._tbl.numel() * 4

    def __repr__(self) -> str:
        return (f"TSDFVolume({self.num_blocks} blocks of {self.block_size}^3, voxel {self.voxel_size * 1000:g} mm, "
                f"truncation {self.truncation * 1000:g} mm, {self.frames_integrated} frames, "
                f"{format_bytes(self.memory_bytes())}, device={self.device})")

    def _require_memory(self, estimate: int, what: str, budget: int | None = None, limit: str = "the memory budget") -> None:
        """Refuse when ``estimate`` is over ``budget`` (default: the volume's memory budget)."""
        require(estimate, self.device, "TSDF volume", "voxel_size",
                f"increase voxel_size (now {self.voxel_size:g} m) or lower depth_max (now {self.depth_max:g} m), "
                "or raise memory_budget", self.memory_budget if budget is None else budget, detail=what, limit=limit)

    def _ensure_table(self, lo: list[int], hi: list[int], margin: bool = True) -> None:
        """Grow the dense block-index table to cover block coordinates ``lo..hi`` (inclusive); with a
        margin, so that frames integrated one by one do not regrow it every time."""
        if self._tbl.numel():
            olo, osh = self._tbl_lo, self._tbl_shape
            if all(lo[a] >= olo[a] and hi[a] < olo[a] + osh[a] for a in range(3)):
                return
            lo = [min(lo[a], olo[a]) for a in range(3)]
            hi = [max(hi[a], olo[a] + osh[a] - 1) for a in range(3)]
        ext = [hi[a] - lo[a] + 1 for a in range(3)]
        pad = [max(2, ext[a] // 4) if margin else 0 for a in range(3)]
        lo = [lo[a] - pad[a] for a in range(3)]
        shape = [ext[a] + 2 * pad[a] for a in range(3)]
        n = shape[0] * shape[1] * shape[2]
        est = n * 4 + self._cap * self.bytes_per_block
        self._require_memory(est, f"block lookup table of {shape[0]}x{shape[1]}x{shape[2]} blocks")
        tbl = torch.full((n,), -1, dtype=torch.int32, device=self.device)
        self._tbl, self._tbl_lo, self._tbl_shape = tbl, lo, shape
        if self.num_blocks:
            self._tbl[self._flat(self.block_coords[: self.num_blocks])] = torch.arange(
                self.num_blocks, dtype=torch.int32, device=self.device)

    def _flat(self, bc: torch.Tensor) -> torch.Tensor:
        lo, sh = self._tbl_lo, self._tbl_shape
        return ((bc[:, 0] - lo[0]) * sh[1] + (bc[:, 1] - lo[1])) * sh[2] + (bc[:, 2] - lo[2])

    def _unflat(self, flat: torch.Tensor) -> torch.Tensor:
        lo, sh = self._tbl_lo, self._tbl_shape
        z = flat % sh[2]
        y = torch.div(flat, sh[2], rounding_mode="floor") % sh[1]
        x = torch.div(flat, sh[1] * sh[2], rounding_mode="floor")
        return torch.stack([x + lo[0], y + lo[1], z + lo[2]], dim=1)

    def _reserve(self, n_total: int) -> None:
        if n_total <= self._cap:
            return
        cap = max(n_total, int(self._cap * 1.5), 256)
        est = cap * self.bytes_per_block + self._tbl.numel() * 4
        if est > self.memory_budget:
            cap = n_total
            est = cap * self.bytes_per_block + self._tbl.numel() * 4
            self._require_memory(est, f"{n_total} blocks of {self.block_size}^3 voxels")
        B3 = self.block_size ** 3

        def grow(t: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
            # rows past num_blocks are written by _allocate before anything reads them: left
            # uninitialised, the spare capacity costs no resident memory until it is used
            new = torch.empty((cap, *shape), dtype=t.dtype, device=self.device)
            new[: self.num_blocks] = t[: self.num_blocks]
            return new

        self.block_coords = grow(self.block_coords, (3,))
        self.tsdf = grow(self.tsdf, (B3,))
        self.weight = grow(self.weight, (B3,))
        if self.color is not None:
            self.color = grow(self.color, (3, B3))
        self._cap = cap

    def _allocate(self, flat_new: torch.Tensor) -> None:
        """Allocate blocks for table keys ``flat_new`` (unique, not yet allocated)."""
        n = int(flat_new.numel())
        if n == 0:
            return
        self._reserve(self.num_blocks + n)
        s, e = self.num_blocks, self.num_blocks + n
        self.block_coords[s:e] = self._unflat(flat_new)
        self.tsdf[s:e] = 1.0
        self.weight[s:e] = 0.0
        if self.color is not None:
            self.color[s:e] = 0.0
        self._tbl[flat_new] = torch.arange(s, e, dtype=torch.int32, device=self.device)
        self.num_blocks = e

    # ------------------------------------------------------------------ per-frame work
    def _prepare(self, depth: Any, K: Any, pose: Any, color: Any, *, touch_only: bool = False,
                 checked: bool = False, touch: bool = True) -> dict[str, Any]:
        """Per-frame inputs on the volume's device. ``touch_only`` keeps only what block planning
        needs (every ``_TOUCH_STRIDE``-th pixel), ``touch=False`` leaves that out (blocks already
        planned); ``checked`` skips the K/pose checks (done by the caller)."""
        depth = as_tensor(depth, "depth")
        check_shape(depth, "depth", (None, None))
        if not depth.dtype.is_floating_point:
            raise SmrnbTypeError(f"depth must be a floating-point tensor in metres, got dtype {depth.dtype}")
        H, W = depth.shape
        if not checked:
            K = _check_K(K, "K", H, W)  # small matrices are checked on the CPU (no device syncs later)
            pose = _check_pose(pose, "pose")
        # one non-blocking copy to the device (from host memory: no stream sync)
        pose_d = pose.detach().to(self.device, torch.float64, non_blocking=True)
        cam = {"K": [float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2])],
               "R": pose_d[:3, :3], "t": pose_d[:3, 3], "H": H, "W": W}
        ds = self._strided_depth(depth) if touch or touch_only else None
        if touch_only:
            return {"ds": ds, **cam}
        depth = depth.to(device=self.device, dtype=torch.float32)
        if color is not None and self.has_color:
            color = as_tensor(color, "color")
            check_shape(color, "color", (H, W, 3))
            color = color.to(self.device)
        else:
            color = None
        dpad, cpad = self._pad_images(depth[None], None if color is None else color[None])
        return {"ds": ds, "dpad": dpad, "cpad": cpad, **cam}

    def _strided_depth(self, depth: torch.Tensor) -> torch.Tensor:
        """Every ``_TOUCH_STRIDE``-th pixel of ``depth (..., H, W)`` (what block planning samples), as
        float32 on the volume's device, 0 where there is no valid depth."""
        s = _TOUCH_STRIDE
        ds = depth[..., s // 2 :: s, s // 2 :: s].to(device=self.device, dtype=torch.float32)
        return torch.where((ds > self.depth_min) & (ds < self.depth_max), ds, torch.zeros((), device=self.device))

    def _pad_images(self, depth: torch.Tensor, color: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The G images the voxel projection reads, flattened: ``depth (G, H, W)`` float32 and ``color
        (G, H, W, 3)`` on the device -> depth ``(G*(H+2)*(W+2),)`` and colors ``(3, G*(H+2)*(W+2))`` in
        [0, 1] (or None). A 1-pixel border and invalid pixels hold a depth so negative that every voxel
        projecting there fails the "sdf >= -truncation" test (NaN and inf fail both comparisons, so they
        count as invalid too)."""
        G, H, W = depth.shape
        dpad = torch.full((G, H + 2, W + 2), _NO_DEPTH, dtype=torch.float32, device=self.device)
        torch.where((depth > self.depth_min) & (depth < self.depth_max), depth, self._no_depth, out=dpad[:, 1:-1, 1:-1])
        if color is None or self.color is None:
            return dpad.view(-1), None
        cpad = torch.zeros((3, G, H + 2, W + 2), dtype=torch.float32, device=self.device)
        inner = cpad[:, :, 1:-1, 1:-1]
        inner.copy_(color.permute(3, 0, 1, 2))
        if color.dtype == torch.uint8:
            inner.mul_(1.0 / 255.0)
        return dpad.view(-1), cpad.view(3, -1)

    def _sdf_at(self, X: torch.Tensor, Y: torch.Tensor, z: torch.Tensor, dflat: torch.Tensor, cam: dict[str, Any],
                offset: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Projective signed distance of voxels at camera coordinates ``(X, Y, z)`` (``(n, B^3)`` or
        broadcastable; ``z`` is consumed): nearest pixel of the padded images ``dflat`` (plus
        ``offset``, the image's start, per row), ``sdf = depth(pixel) - z``. Returns ``(sdf, pix)``."""
        fx, fy, cx, cy = cam["K"]
        H, W = cam["H"], cam["W"]
        iz = torch.reciprocal(z.clamp_min(1e-6))  # behind the camera -> far outside the image
        # nearest pixel, shifted by the 1-pixel border: floor(u + 0.5) + 1, clamped onto the border
        uf = torch.addcmul(torch.full((), cx + 1.5, device=z.device), X, iz, value=fx)
        ui = uf.clamp_(0, W + 1).to(torch.int64)
        vf = torch.addcmul(torch.full((), cy + 1.5, device=z.device), Y, iz, value=fy)
        pix = vf.clamp_(0, H + 1).to(torch.int64).mul_(W + 2).add_(ui)
        del uf, vf, ui, iz
        if offset is not None:
            pix.add_(offset)
        # torch.gather over a broadcast view of the images: several times faster than advanced
        # indexing (dflat[pix]) on the CPU, and one kernel on CUDA
        return torch.gather(dflat.expand(pix.shape[0], -1), 1, pix).sub_(z), pix

    def _touch_planes(self, fr: dict[str, Any], lo: tuple[int, int, int] = (0, 0, 0)
                      ) -> tuple[list[torch.Tensor], torch.Tensor]:
        """Block coordinates (minus ``lo``) of the truncation-band samples of every strided pixel:
        three float32 ``(h*w, S)`` planes holding integers, and ``valid (h*w,)`` (pixels with depth).
        No compaction, so no host sync."""
        q, valid = self._band_planes(fr["ds"][None], fr["R"][None], fr["t"][None], fr, lo)
        return [p[0] for p in q], valid[0]

    def _band_planes(self, ds: torch.Tensor, R: torch.Tensor, t: torch.Tensor, cam: dict[str, Any],
                     lo: tuple[int, int, int]) -> tuple[list[torch.Tensor], torch.Tensor]:
        """:meth:`_touch_planes` for G frames at once: strided depth ``ds (G, h, w)`` (0 = none),
        camera-to-world ``R (G, 3, 3)``, ``t (G, 3)`` on the device, intrinsics from ``cam``; planes
        ``(G, h*w, S)`` and ``valid (G, h*w)``."""
        G = ds.shape[0]
        z = ds.reshape(G, -1)
        valid = z > 0
        # camera rays (z = 1) of the strided pixels, mapped to the world and scaled to block units
        inv_bl = 1.0 / self.block_length
        rw = self._touch_rays(cam, ds.shape[1:]) @ (R.to(torch.float32).transpose(1, 2) * inv_bl)  # (G, n, 3)
        tb = (t * inv_bl).to(torch.float32) - torch.tensor(lo, dtype=torch.float32).to(self.device, non_blocking=True)
        tr = self.truncation
        z0 = (z - tr).clamp_min_(0.0)
        dz = (z + tr).clamp_max_(self.depth_max).sub_(z0)
        zs = torch.addcmul(z0[..., None], dz[..., None], self._touch_steps)  # (G, n, S) depths along each ray
        q = [torch.addcmul(tb[:, c, None, None], zs, rw[:, :, c : c + 1]).floor_() for c in range(3)]
        return q, valid

    def _touch_rays(self, fr: dict[str, Any], shape: tuple[int, int]) -> torch.Tensor:
        """(h*w, 3) float32 camera rays (x, y, 1) through the strided pixel centres, cached per intrinsics."""
        key = (tuple(fr["K"]), fr["H"], fr["W"])
        if self._rays_key != key:
            s = _TOUCH_STRIDE
            fx, fy, cx, cy = fr["K"]
            h, w = shape
            rx = (torch.arange(w, dtype=torch.float32, device=self.device) * s + s // 2 - cx) / fx
            ry = (torch.arange(h, dtype=torch.float32, device=self.device) * s + s // 2 - cy) / fy
            self._rays = torch.stack([rx[None, :].expand(h, w), ry[:, None].expand(h, w),
                                      torch.ones(h, w, device=self.device)], dim=-1).reshape(-1, 3)
            self._touch_steps = torch.linspace(0.0, 1.0, _TOUCH_SAMPLES, device=self.device)[None, :]
            self._rays_key = key
        return self._rays

    def _touch(self, fr: dict[str, Any]) -> torch.Tensor | None:
        """Distinct block coordinates touched by the frame's truncation band, ``(n, 3) int64`` sorted
        (x, y, z)-lexicographically; None when the frame has no valid depth."""
        q, valid = self._touch_planes(fr)
        keep = valid.nonzero().squeeze(1)
        if keep.numel() == 0:
            return None
        return _unique_rows([p.index_select(0, keep).to(torch.int64) for p in q])

    def _touch_keys(self, ds: torch.Tensor, R: torch.Tensor, t: torch.Tensor, cam: dict[str, Any]) -> torch.Tensor:
        """Keys of the blocks G frames touch, with repeats, ``(G*h*w*S,) int64``: frame g's keys are
        offset by ``g * (table size + 1)`` (rows of a ``(G, table size + 1)`` mark array) and samples of
        pixels without depth get the spare key ``table size``. The table must cover the frames."""
        lo, (_, s1, s2) = self._tbl_lo, self._tbl_shape
        (qx, qy, qz), valid = self._band_planes(ds, R, t, cam, tuple(lo))
        # exact in float32: the table has fewer than 2**24 entries (fuse_tsdf's planner makes sure)
        flat = torch.add(qz, torch.add(qy, qx, alpha=s1), alpha=s2).to(torch.int64)
        T = self._tbl.numel()
        # the clamp only guards the device against an out-of-range index (the table has a 1-block margin)
        flat = torch.where(valid[..., None], flat.clamp_(0, T), T)
        return flat.add_(torch.arange(0, ds.shape[0] * (T + 1), T + 1, device=self.device)[:, None, None]).reshape(-1)

    def _integrate_blocks(self, ids: torch.Tensor, fr: dict[str, Any]) -> None:
        """Projective TSDF update of the blocks ``ids`` (int64 rows of the voxel arrays).

        Written as few full passes over the ``(n, B^3)`` voxels as possible (this loop is the cost of
        fusion on the CPU): out-of-image projections land on the padded border, invalid depth holds
        ``_NO_DEPTH``, so one comparison selects the voxels to update and no ``where`` is needed.
        """
        if ids.numel() == 0:
            return
        chunk = _CHUNK_BLOCKS if ids.device.type == "cpu" else ids.numel()
        for s in range(0, ids.numel(), chunk):
            self._integrate_chunk(ids[s : s + chunk], fr)

    def _integrate_chunk(self, ids: torch.Tensor, fr: dict[str, Any]) -> None:
        cpad = fr["cpad"]
        R, t = fr["R"], fr["t"]
        vs = self.voxel_size
        # camera coords (R^T (x - t)) of each block's voxel (0, 0, 0) and of the in-block offsets
        # (row vectors: R^T v is v @ R)
        o = self.block_coords.index_select(0, ids).to(torch.float64).mul_(self.block_size * vs).sub_(t)
        A = (o @ R).to(torch.float32)  # (n, 3)
        Off = (self._local * vs) @ R.to(torch.float32)  # (B^3, 3)
        sdf, pix = self._sdf_at(A[:, 0:1] + Off[:, 0], A[:, 1:2] + Off[:, 1], A[:, 2:3] + Off[:, 2], fr["dpad"], fr)
        n, B3 = pix.shape
        tr = self.truncation
        upd = (sdf >= -tr).to(torch.float32)  # 1 where this frame observes the voxel
        obs = sdf.div_(tr).clamp_(-1.0, 1.0)
        # running weighted average as one lerp per array: x += (obs - x) * upd / (w + upd); the
        # factor is exactly 0 where the voxel is not observed, which leaves x bit-for-bit unchanged
        w = self.weight.index_select(0, ids).add_(upd)
        a = upd.div_(w.clamp_min(1.0))
        self.tsdf.index_copy_(0, ids, self.tsdf.index_select(0, ids).lerp_(obs, a))
        del obs
        if cpad is not None and self.color is not None:
            c_obs = torch.gather(cpad.unsqueeze(0).expand(n, -1, -1), 2, pix.unsqueeze(1).expand(n, 3, B3))
            self.color.index_copy_(0, ids, self.color.index_select(0, ids).lerp_(c_obs, a.unsqueeze(1)))
        if self.max_weight is not None:
            w.clamp_(max=self.max_weight)
        self.weight.index_copy_(0, ids, w)

    def _integrate_group(self, ids_list: list[torch.Tensor], depth: torch.Tensor, color: torch.Tensor | None,
                         poses: torch.Tensor, cam: dict[str, Any]) -> None:
        """Fuse G frames in one pass (GPU path of :func:`fuse_tsdf`, no weight cap): every (frame,
        block) pair is projected at once, observations are summed per block with ``index_add_`` and
        each voxel takes ``x += (sum_obs - x * n) / (w + n)`` once -- the same running average as
        frame-by-frame updates (sums in another order: equal up to float rounding), in ~50 kernel
        launches per group instead of ~45 per frame. ``depth (G, H, W)`` float metres and ``color
        (G, H, W, 3)`` on the device, ``poses (G, 4, 4)`` camera-to-world, ``ids_list`` the rows of
        each frame's blocks (distinct within a frame)."""
        dev, B3 = self.device, self.block_size ** 3
        G, H, W = depth.shape
        counts = [int(i.numel()) for i in ids_list]
        n = sum(counts)
        ids = torch.cat(ids_list)
        fi = torch.repeat_interleave(torch.arange(G, device=dev), torch.tensor(counts).to(dev, non_blocking=True),
                                     output_size=n)
        dflat, cflat = self._pad_images(depth, color)  # the G padded images, side by side
        # camera coordinates: block origins for every frame, then each pair's own frame
        pose_d = poses.to(dev, torch.float64, non_blocking=True)
        R, t = pose_d[:, :3, :3], pose_d[:, :3, 3]
        o = self.block_coords.index_select(0, ids).to(torch.float64).mul_(self.block_size * self.voxel_size)
        allA = torch.matmul(o, R) - torch.matmul(t[:, None, :], R)  # (G, n, 3): R_g^T (x - t_g)
        A = torch.gather(allA, 0, fi[None, :, None].expand(1, n, 3))[0].to(torch.float32)
        Off = torch.matmul(self._local * self.voxel_size, R.to(torch.float32))  # (G, B^3, 3)
        Ox, Oy, Oz = (Off[:, :, c].index_select(0, fi) for c in range(3))  # (n, B^3) each
        sdf, pix = self._sdf_at(Ox.add_(A[:, 0:1]), Oy.add_(A[:, 1:2]), Oz.add_(A[:, 2:3]), dflat, cam,
                                offset=fi[:, None] * ((H + 2) * (W + 2)))
        del Ox, Oy, Oz
        tr = self.truncation
        upd = (sdf >= -tr).to(torch.float32)
        obs = sdf.div_(tr).clamp_(-1.0, 1.0).mul_(upd)
        M = self.num_blocks
        cnt = torch.zeros(M, B3, device=dev).index_add_(0, ids, upd)
        acc = torch.zeros(M, B3, device=dev).index_add_(0, ids, obs)
        del obs
        w = self.weight[:M]
        a = torch.reciprocal((w + cnt).clamp_min_(1.0))
        tv = self.tsdf[:M]
        tv.add_(acc.sub_(tv * cnt).mul_(a))  # untouched voxels: + 0, unchanged
        if cflat is not None:
            c_obs = torch.gather(cflat.unsqueeze(0).expand(n, -1, -1), 2, pix.unsqueeze(1).expand(n, 3, B3))
            cacc = torch.zeros(M, 3, B3, device=dev).index_add_(0, ids, c_obs.mul_(upd[:, None]))
            del c_obs
            cv = self.color[:M]
            cv.add_(cacc.sub_(cv * cnt[:, None]).mul_(a[:, None]))
        w.add_(cnt)

    @cpu_step("tsdf")
    def integrate(self, depth: Any, K: Any, pose: Any, color: Any = None) -> int:
        """Fuse one RGB-D frame.

        Parameters
        ----------
        depth : (H, W) float, metres; 0 (or outside ``(depth_min, depth_max)``, or NaN) = no reading
        K : (3, 3) float, intrinsics in pixels for this depth image
        pose : (4, 4) float, camera-to-world, OpenCV camera axes (x right, y down, z forward)
        color : (H, W, 3) uint8 (or float in [0, 1]), registered to depth; optional

        Returns
        -------
        int : the number of blocks this frame updated (0 when it had no valid depth; such frames
        are counted in ``frames_empty``).
        """
        fr = self._prepare(depth, K, pose, color)
        cand = self._touch(fr)
        self.frames_integrated += 1
        if cand is None:
            self.frames_empty += 1
            return 0
        b = torch.cat([cand.amin(0), cand.amax(0)]).tolist()
        self._ensure_table(b[:3], b[3:])
        keys = self._flat(cand)  # distinct and sorted, like cand
        ids = self._tbl[keys]
        new = ids < 0
        if bool(new.any()):
            self._allocate(keys[new])
            ids = self._tbl[keys]
        self._integrate_blocks(ids.long(), fr)
        return int(keys.numel())

    def integrate_frames(self, frames: Any, *, progress: Any = None) -> int:
        """Fuse a batch of frames (a :class:`smrnb.Frames`); returns the number of frames.

        The blocks every frame touches are planned first (strided pixels), counted against the
        memory budget and allocated at once (:class:`smrnb.MemoryEstimateError` before allocating when
        over); then the frames are integrated in order (on CUDA, groups of frames in one pass each,
        the same running average up to float rounding). Calling it on consecutive batches of a
        sequence gives the volume of one call on the whole sequence, with only one batch in memory.
        Frames without valid depth are counted in ``frames_empty``. ``progress``: an object with
        ``update(n)`` (e.g. a ``tqdm`` bar) told of each frame done.
        """
        from smrnb.geometry._mesh import Frames

        if not isinstance(frames, Frames):
            raise SmrnbTypeError(f"frames must be a smrnb.Frames, got {type(frames).__name__}")
        if frames.poses is None:
            raise SmrnbValueError("frames.poses is None: fusion needs camera-to-world poses (N, 4, 4); "
                                  "load a trajectory or estimate poses first")
        N = len(frames)
        if N == 0:
            return 0
        bar = progress
        dev = self.device
        use_color = self.has_color and frames.color is not None
        H, W = frames.height, frames.width
        Kc = frames.K.detach().to("cpu", torch.float64)  # one transfer for all frames
        if Kc.dim() == 3:
            Ks = [_check_K(Kc[i], f"frames.K[{i}]", H, W) for i in range(N)]
        else:
            Ks = [_check_K(Kc, "frames.K", H, W)] * N
        poses = frames.poses.detach().to("cpu", torch.float64)
        check_poses(poses, "frames.poses")  # all frames in one batched check; the message names the frame

        def frame(i: int, touch_only: bool = False) -> dict[str, Any]:
            c = frames.color[i] if use_color and not touch_only else None
            return self._prepare(frames.depth[i], Ks[i], poses[i], c, touch_only=touch_only, checked=True, touch=touch_only)

        # pass 1: the distinct blocks each frame touches (cheap: strided pixels) -> exact block count ->
        # refuse before allocating. The block table covers the union of the frames' view frusta (up to
        # depth_max + truncation), known on the host from poses and intrinsics alone; frames are marked
        # in groups, one host sync per group.
        lo, hi = _frusta_bounds(Ks, poses, H, W, self.depth_max + self.truncation, self.block_length)
        tsize = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1)
        if tsize >= _MAX_TABLE:  # a long trajectory: bound the blocks the frames really touch instead
            bounds = []
            big = torch.full((), 3.0e38, device=dev)
            for i in range(N):
                q, valid = self._touch_planes(frame(i, touch_only=True))
                bounds.append(torch.stack([torch.where(valid[:, None], p, big).amin() for p in q]
                                          + [torch.where(valid[:, None], p, -big).amax() for p in q]))
            b = torch.stack(bounds)
            b = torch.cat([b[:, :3].amin(0), b[:, 3:].amax(0)]).tolist()
            if b[0] > b[3]:
                b = [0.0] * 6  # no valid depth anywhere (handled below)
            lo, hi = [int(x) - 1 for x in b[:3]], [int(x) + 1 for x in b[3:]]  # 1 block for float rounding
            tsize = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1)
            self._require_memory(tsize * 4, f"block lookup table of {tsize} blocks", (_MAX_TABLE - 1) * 4,
                         f"the block table's cap of {_MAX_TABLE} entries")
        self._ensure_table(lo, hi, margin=self._tbl.numel() > 0)
        T = self._tbl.numel()
        if T >= _MAX_TABLE:  # a long stream grew the table past exact float32 keys: frame by frame
            for i in range(N):
                self.integrate(frames.depth[i], Ks[i], poses[i], frames.color[i] if use_color else None)
                if bar is not None:
                    bar.update(1)
            return N
        same_K = Kc.dim() == 2 or bool((Kc == Kc[:1]).all())
        cam0 = {"K": [float(Ks[0][0, 0]), float(Ks[0][1, 1]), float(Ks[0][0, 2]), float(Ks[0][1, 2])], "H": H, "W": W}
        # on the CPU one pass per frame costs nothing more and keeps the planner's temporaries (~3 MB a
        # frame at 640x480) small; a GPU wants few launches
        group = max(1, min(32 if dev.type != "cpu" else 1, _MARK_BYTES // (T + 1)))
        union = torch.zeros(T + 1, dtype=torch.bool, device=dev)
        keys: list[torch.Tensor | None] = []
        for g0 in range(0, N, group):
            g1 = min(N, g0 + group)
            mark = torch.zeros(g1 - g0, T + 1, dtype=torch.bool, device=dev)
            if same_K:  # all frames of the group in one pass
                ds = self._strided_depth(frames.depth[g0:g1])
                pose_d = poses[g0:g1].to(dev, non_blocking=True)
                mark.view(-1).index_fill_(0, self._touch_keys(ds, pose_d[:, :3, :3], pose_d[:, :3, 3], cam0), True)
            else:
                for i in range(g0, g1):
                    fr = frame(i, touch_only=True)
                    mark[i - g0].index_fill_(0, self._touch_keys(fr["ds"][None], fr["R"][None], fr["t"][None], fr), True)
            mark[:, T] = False  # the spare key of pixels without depth
            union |= mark.any(0)
            fk = mark.nonzero()  # (frame, key) pairs, by frame then key: the one sync of the group
            counts = torch.bincount(fk[:, 0], minlength=g1 - g0).tolist()
            keys.extend(k if k.numel() else None for k in torch.split(fk[:, 1], counts))
        if all(k is None for k in keys):
            self.frames_integrated += N
            self.frames_empty += N
            if bar is not None:
                bar.update(N)
            return N
        new = torch.nonzero(union[:T] & (self._tbl < 0)).flatten()
        est = (self.num_blocks + new.numel()) * self.bytes_per_block + self._tbl.numel() * 4
        self._require_memory(int(est), f"{self.num_blocks + new.numel()} blocks of {self.block_size}^3 voxels")
        self._allocate(new)
        del union

        empty = sum(k is None for k in keys)
        if dev.type in _GROUPED_UPDATE_DEVICES and self.max_weight is None and same_K:
            # groups of frames in one pass each, sized so that a group's (pair, voxel) temporaries stay
            # within _GROUP_BYTES (~80 bytes per pair-voxel with color)
            per_pair = self.block_size ** 3 * 80
            groups: list[tuple[int, int, list[int]]] = []
            i = 0
            while i < N:
                j, pairs = i, 0
                while j < N and (j == i or (pairs + (0 if keys[j] is None else keys[j].numel())) * per_pair
                                 <= _GROUP_BYTES) and j - i < 64:
                    pairs += 0 if keys[j] is None else keys[j].numel()
                    j += 1
                groups.append((i, j, [k for k in range(i, j) if keys[k] is not None]))
                i = j
            images = _group_images(frames, [live for _, _, live in groups if live], use_color, dev)
            for i, j, live in groups:
                _cancel.check(f"in fuse_tsdf at frame {self.frames_integrated}")
                if live:
                    d, col = next(images)
                    self._integrate_group([self._tbl.index_select(0, keys[k]).long() for k in live], d, col,
                                          poses[live], cam0)
                self.frames_integrated += j - i
                if bar is not None:
                    bar.update(j - i)
            images.close()
        else:
            for i in range(N):
                _cancel.check(f"in fuse_tsdf at frame {self.frames_integrated}")  # the app's Stop
                self.frames_integrated += 1
                if keys[i] is not None:
                    self._integrate_blocks(self._tbl.index_select(0, keys[i]).long(), frame(i))
                if bar is not None:
                    bar.update(1)
        self.frames_empty += empty
        return N

    # ------------------------------------------------------------------ extraction
    @cpu_step("extract_mesh")
    def extract_mesh(self, weight_threshold: float = 1.0, *, max_bytes: int | None = None):
        """Marching cubes on the allocated blocks at ``tsdf = 0``, with per-vertex colors.

        Parameters
        ----------
        weight_threshold : float
            Voxels with ``weight < weight_threshold`` count as unobserved; a cube is meshed only when
            all 8 of its corners are observed (no surfaces at the edge of the unknown).
        max_bytes : int, optional
            Working-memory cap for one batch of packed blocks (default ``min(memory_budget, 16 MiB)``):
            the blocks are meshed in batches that fit, and the vertices on block faces are welded.

        Returns
        -------
        smrnb.Mesh with ``vertices (V, 3) float32`` (metres, world frame of the poses),
        ``faces (F, 3) int64`` counter-clockwise seen from the observed (free-space) side,
        ``vertex_colors (V, 3) float32`` in [0, 1] when the volume keeps colors, ``frame="opencv"``.
        An empty volume gives a mesh with 0 vertices and 0 faces.

        Notes
        -----
        Sparse, like the volume: each block with an observed voxel is packed with the first voxel
        plane of its +x, +y, +z neighbours into a ``(B+1)^3`` brick (a missing neighbour reads as
        unobserved), the bricks are stacked along x with one unobserved separator plane each, and
        one marching-cubes call meshes a batch of bricks. Each cube lies in exactly one brick (the
        block of its lowest corner), so the mesh is the one marching cubes gives on the dense volume
        (tested); only the vertices on block faces are made twice, and welded by their lattice edge.
        Blocks whose observed tsdf range (with their neighbours') has no zero crossing are skipped.
        """
        from smrnb.geometry._mesh import Mesh

        weight_threshold = check_positive(weight_threshold, "weight_threshold")
        dev = self.device
        meta = {"world": "poses", "voxel_size": self.voxel_size, "truncation": self.truncation}

        def empty() -> Mesh:
            return Mesh(torch.zeros(0, 3, dtype=torch.float32, device=dev), torch.zeros(0, 3, dtype=torch.int64, device=dev),
                        vertex_colors=torch.zeros(0, 3, device=dev) if self.has_color else None, frame="opencv",
                        meta=meta)

        M = self.num_blocks
        if M == 0:
            return empty()
        B = self.block_size
        live = torch.nonzero(self.weight[:M].amax(dim=1) >= weight_threshold).flatten()
        if live.numel() == 0:
            return empty()
        # the range of observed tsdf values per block: a brick can hold surface only when its own and
        # its neighbours' observed values reach both sides of 0 (a conservative test: whole blocks)
        obs = self.weight[:M] >= weight_threshold
        big = torch.full((), 2.0, device=dev)
        tmin = torch.where(obs, self.tsdf[:M], big).amin(1)
        tmax = torch.where(obs, self.tsdf[:M], -big).amax(1)
        del obs
        # neighbour rows (+x, +y, +z and their combinations; -1 = not allocated) of every live block
        bc = self.block_coords.index_select(0, live)
        lo, sh = self._tbl_lo, self._tbl_shape
        nbr = {}
        bmin, bmax = tmin.index_select(0, live), tmax.index_select(0, live)
        for d in ((0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)):
            q = bc + torch.tensor(d, device=dev)
            inside = ((q[:, 0] - lo[0] < sh[0]) & (q[:, 1] - lo[1] < sh[1]) & (q[:, 2] - lo[2] < sh[2]))
            ids = self._tbl.index_select(0, torch.where(inside, self._flat(q), 0)).long()
            nbr[d] = torch.where(inside, ids, -1)
            j = nbr[d].clamp_min(0)
            has = nbr[d] >= 0
            bmin = torch.minimum(bmin, torch.where(has, tmin.index_select(0, j), big))
            bmax = torch.maximum(bmax, torch.where(has, tmax.index_select(0, j), -big))
        keep = torch.nonzero((bmin <= 0) & (bmax > 0)).flatten()  # "inside" is tsdf > 0 for marching cubes
        if keep.numel() == 0:
            return empty()
        live, bc = live.index_select(0, keep), bc.index_select(0, keep)
        nbr = {d: v.index_select(0, keep) for d, v in nbr.items()}
        # working set per brick node: tsdf and weight copies (8 bytes), the observed mask (1) and marching
        # cubes' dense passes (~6); its sparse part scales with the surface, not the bricks
        per_brick = (B + 2) ** 3 * 16
        cap = min(self.memory_budget, _EXTRACT_BYTES) if max_bytes is None else int(check_positive(max_bytes, "max_bytes"))
        chunk = max(1, cap // per_brick)
        verts_all, faces_all, cols_all, keys_all = [], [], [], []
        nv = 0
        for s in range(0, live.numel(), chunk):
            own = live[s : s + chunk]
            v, f, c, k = self._mesh_bricks(own, {d: n[s : s + chunk] for d, n in nbr.items()}, bc[s : s + chunk],
                                           weight_threshold)
            if v.shape[0]:
                verts_all.append(v)
                faces_all.append(f + nv)
                keys_all.append(k)
                if c is not None:
                    cols_all.append(c)
                nv += v.shape[0]
        if not verts_all:
            return empty()
        vox = torch.cat(verts_all)  # float64 voxel-lattice coordinates
        faces = torch.cat(faces_all)
        colors = torch.cat(cols_all) if cols_all else None
        # weld the vertices on block faces: an edge in a block's boundary plane is met by the cubes of
        # the bricks on both of its sides, which both made its vertex. The lattice edge (lower node,
        # axis) names a vertex exactly; -1 marks the vertices no other brick can make.
        key = torch.cat(keys_all)
        bi = torch.nonzero(key >= 0).flatten()
        if bi.numel():
            V = vox.shape[0]
            _, inv = torch.unique(key.index_select(0, bi), return_inverse=True)
            first = torch.full((int(inv.max()) + 1,), V, dtype=torch.int64, device=dev)
            first.scatter_reduce_(0, inv, bi, reduce="amin")
            rep = first.index_select(0, inv)  # the vertex each face-vertex is welded onto
            keep = torch.ones(V, dtype=torch.bool, device=dev)
            keep.index_fill_(0, bi.masked_select(rep != bi), False)
            new_index = torch.cumsum(keep, 0).sub_(1)
            new_index.index_copy_(0, bi, new_index.index_select(0, rep))
            faces = new_index.index_select(0, faces.reshape(-1)).view(-1, 3)
            kept = torch.nonzero(keep).flatten()
            vox = vox.index_select(0, kept)
            colors = None if colors is None else colors.index_select(0, kept)
        verts = (vox * self.voxel_size).to(torch.float32)
        return Mesh(verts, faces, vertex_colors=colors, frame="opencv", meta=meta)

    def _mesh_bricks(self, own: torch.Tensor, nbr: dict[tuple[int, int, int], torch.Tensor], bc: torch.Tensor,
                     weight_threshold: float
                     ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, torch.Tensor]:
        """Marching cubes over the ``(B+1)^3`` bricks of blocks ``own`` (rows) whose neighbour rows are
        ``nbr[(dx, dy, dz)]`` (-1 = none) and coordinates ``bc``: vertices as float64 voxel-lattice
        coordinates, faces (local to this batch), colors or None, and each vertex's weld key (the
        global lattice edge it lies on, -1 when no other brick can make it)."""
        from smrnb.geometry._marching_cubes import _check_memory, _marching_cubes_exact

        B = self.block_size
        B3 = B ** 3
        n = own.numel()
        dev = self.device
        # bricks of (B+2)^3 nodes, the last plane along each axis an unobserved separator, stacked along
        # x: the (n, P, P, P) arrays are the (n*P, P, P) volume marching cubes runs on, no copy
        P = B + 2
        tv = torch.ones((n, P, P, P), dtype=torch.float32, device=dev)
        wv = torch.zeros((n, P, P, P), dtype=torch.float32, device=dev)
        M = self.num_blocks
        grids = [(tv, self.tsdf[:M].view(M, B, B, B)), (wv, self.weight[:M].view(M, B, B, B))]
        full, first = slice(0, B), slice(0, 1)
        # source rows of each brick's node groups: own block (k = 0) and the +x/+y/+z neighbours
        # (k = 4 dx + 2 dy + dz), for the colors below
        src = torch.full((8, n), -1, dtype=torch.int64, device=dev)
        src[0] = own
        for d in ((0, 0, 0), *nbr):
            src_sl = tuple(first if di else full for di in d)
            dst_sl = tuple(slice(B, B + 1) if di else full for di in d)
            if d == (0, 0, 0):
                rows, sel = own, torch.arange(n, device=dev)
            else:
                src[4 * d[0] + 2 * d[1] + d[2]] = nbr[d]
                sel = torch.nonzero(nbr[d] >= 0).flatten()
                if sel.numel() == 0:
                    continue
                rows = nbr[d].index_select(0, sel)
            for dst, sv in grids:
                dst[(slice(None), *dst_sl)].index_copy_(0, sel, sv[(slice(None), *src_sl)].index_select(0, rows))
        obs = wv >= weight_threshold
        del wv
        # the values at unobserved nodes are left as they are: marching cubes with a mask reads them
        # for no vertex and no triangle (only cubes with 8 observed corners make triangles, and their
        # edges' owners are numbered consistently whatever their other corners hold)
        vol = tv.view(n * P, P, P)
        _check_memory(vol)
        # "value > level" is the inside for marching cubes; here the positive side is free space, so
        # the faces are flipped to wind counter-clockwise seen from it (normals toward observed space)
        r = _marching_cubes_exact(vol, 0.0, obs.view(n * P, P, P), raw=True)
        del obs
        faces = r["faces"].flip(1)
        P2, P3 = P * P, P * P * P

        def split(node: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            """Brick index and node coordinates within the brick."""
            brick = torch.div(node, P3, rounding_mode="floor")
            rem = node - brick * P3
            return brick, torch.stack([torch.div(rem, P2, rounding_mode="floor"),
                                       torch.div(rem, P, rounding_mode="floor") % P, rem % P], 1)

        # edge vertices: the lower node plus the edge fraction, recomputed from the two node values
        # (|a| / (|a| + |b|) at level 0, as marching cubes does)
        node, axis = r["edge_node"], r["edge_axis"]
        eb, el = split(node)
        unit = torch.nn.functional.one_hot(axis, 3)
        step = (unit * torch.tensor([P2, P, 1], device=dev)).sum(1)
        flat = tv.view(-1)
        d0 = flat.index_select(0, node).abs_()
        d1 = flat.index_select(0, node + step).abs_()
        t = d0.div_((d0 + d1).clamp_min_(1e-30))
        gl = bc.index_select(0, eb) * B + el  # global lattice node (int64)
        vox = gl.to(torch.float64).addcmul_(unit.to(torch.float64), t.to(torch.float64)[:, None])
        # the weld key of the edges in a block boundary plane (a coordinate across the edge at 0 or B)
        across = ((el == 0) | (el == B)) & (unit == 0)
        key = torch.full((node.numel(),), -1, dtype=torch.int64, device=dev)
        shared = torch.nonzero(across.any(1)).flatten()
        if shared.numel():  # keys relative to the block table's corner: the same in every batch of bricks
            g = gl.index_select(0, shared) - torch.tensor(self._tbl_lo, device=dev) * B
            ext = [s * B + 1 for s in self._tbl_shape]
            key[shared] = ((g[:, 0] * ext[1] + g[:, 1]) * ext[2] + g[:, 2]) * 3 + axis.index_select(0, shared)
        # interior vertices (ambiguous cubes): the cube's corner 0 plus the offset marching cubes gives
        cb, cl = split(r["cen_node"])
        cvox = (bc.index_select(0, cb) * B + cl).to(torch.float64) + r["cen_off"].to(torch.float64)
        vox = torch.cat([vox, cvox])
        key = torch.cat([key, torch.full((cb.numel(),), -1, dtype=torch.int64, device=dev)])
        cols = None
        if self.color is not None:
            cflat = self.color[:M].reshape(-1)  # (M, 3, B^3) channel-planar

            def color_at(brick: torch.Tensor, loc: torch.Tensor) -> torch.Tensor:
                """(N, 3) colors of brick nodes (observed, so their source block exists)."""
                d = (loc == B).long()
                row = src.view(-1).index_select(0, (d[:, 0] * 4 + d[:, 1] * 2 + d[:, 2]) * n + brick).clamp_min_(0)
                lv = loc - d * B
                base = row * (3 * B3) + (lv[:, 0] * B + lv[:, 1]) * B + lv[:, 2]
                return torch.stack([cflat.index_select(0, base + c * B3) for c in range(3)], 1)

            c0 = color_at(eb, el)
            cols = c0.lerp_(color_at(eb, el + unit), t[:, None])
            if cb.numel():  # trilinear over the cube's 8 corners, all observed
                f = r["cen_off"]
                acc = torch.zeros(cb.numel(), 3, device=dev)
                for corner in range(8):
                    o = torch.tensor([(corner >> 2) & 1, (corner >> 1) & 1, corner & 1], device=dev)
                    w = torch.where(o.bool(), f, 1 - f).prod(1, keepdim=True)
                    acc += w * color_at(cb, cl + o)
                cols = torch.cat([cols, acc])
            cols.clamp_(0, 1)
        return vox, faces, cols, key


# extraction's working memory cap per batch of bricks (default; memory_budget lowers it)
_EXTRACT_BYTES = 16 << 20


# fuse_tsdf's planner: the dense block table stays below 2**24 entries (64 MiB; keys exact in
# float32), and the per-group mark array below this many bytes
_MAX_TABLE = 1 << 24
_MARK_BYTES = 64 << 20
# devices where fuse_tsdf updates groups of frames in one pass (launch-bound GPUs); on the CPU the
# frame-by-frame update is faster (its passes stay in the cache) and is the reference
_GROUPED_UPDATE_DEVICES: tuple[str, ...] = ("cuda",)
_GROUP_BYTES = 1 << 30


# how a group's images reach a CUDA device from host memory: "async" (a copy on a side stream, issued as soon
# as the previous group's update is queued, so that it runs while the GPU integrates that group: straight
# from page-locked frames, see Frames.pin_memory, else through the driver's staging buffers) or "sync" (a
# plain copy on the compute stream; no overlap). Measured: benchmarks/RESULTS_gpu_server.md, section 3.
_UPLOAD = "async"


def _host_images(frames: Any, live: list[int], use_color: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The depth (and color) images of frames ``live`` where the frames are: views when consecutive."""
    if live == list(range(live[0], live[-1] + 1)):
        a, b = live[0], live[-1] + 1
        return frames.depth[a:b], frames.color[a:b] if use_color else None
    sel = torch.tensor(live, device=frames.depth.device)
    return (frames.depth.index_select(0, sel),
            frames.color.index_select(0, sel.to(frames.color.device)) if use_color else None)


def _group_images(frames: Any, groups: list[list[int]], use_color: bool, dev: torch.device):
    """Yields, for each group of frame indices, its ``depth (G, H, W)`` float32 and ``color (G, H, W, 3)``
    (or None) on ``dev``. From host memory to a CUDA device (:data:`_UPLOAD` "async"), each group's copy is
    issued on a side stream as soon as the previous group's update is queued, and the compute stream
    waits for it by an event: the copy runs while the GPU integrates the previous group. The same values
    either way (copies, in order)."""
    host_to_cuda = dev.type == "cuda" and frames.depth.device.type == "cpu" and _UPLOAD == "async"
    if not host_to_cuda:
        for live in groups:
            d, c = _host_images(frames, live, use_color)
            yield d.to(device=dev, dtype=torch.float32), None if c is None else c.to(dev)
        return
    side = torch.cuda.Stream(device=dev)
    compute = torch.cuda.current_stream(dev)

    def issue(live: list[int]) -> tuple[torch.Tensor, torch.Tensor | None, torch.cuda.Event]:
        d, c = _host_images(frames, live, use_color)
        with torch.cuda.stream(side):
            out = [t.to(dev, non_blocking=True) for t in ([d.to(torch.float32)] + ([] if c is None else [c]))]
            ready = torch.cuda.Event()
            ready.record(side)
        return out[0], out[1] if len(out) > 1 else None, ready

    pending = issue(groups[0]) if groups else None
    for k in range(len(groups)):
        d, c, ready = pending
        compute.wait_event(ready)
        for t in (d, c):
            if t is not None:
                t.record_stream(compute)  # made on the side stream, read on the compute stream
        yield d, c
        pending = issue(groups[k + 1]) if k + 1 < len(groups) else None


def _frusta_bounds(Ks: list[torch.Tensor], poses: torch.Tensor, H: int, W: int, far: float, block_length: float
                   ) -> tuple[list[int], list[int]]:
    """Block coordinates bounding every frame's view frustum up to depth ``far`` (host arithmetic):
    the camera centre and the four image-corner rays at ``far`` span the frustum's bounding box."""
    import numpy as np

    P = poses.numpy()  # (N, 4, 4) camera-to-world, float64 on the CPU
    Kn = np.stack([k.numpy() for k in Ks])  # (N, 3, 3)
    u = np.array([0.0, W - 1.0, 0.0, W - 1.0])
    v = np.array([0.0, 0.0, H - 1.0, H - 1.0])
    x = (u[None, :] - Kn[:, 0, 2:3]) / Kn[:, 0, 0:1] * far  # (N, 4) corner points in the camera
    y = (v[None, :] - Kn[:, 1, 2:3]) / Kn[:, 1, 1:2] * far
    cam = np.stack([x, y, np.full_like(x, far)], axis=-1)  # (N, 4, 3)
    world = np.einsum("nij,nkj->nki", P[:, :3, :3], cam) + P[:, None, :3, 3]
    pts = np.concatenate([world.reshape(-1, 3), P[:, :3, 3]])
    lo = np.floor(pts.min(0) / block_length).astype(np.int64) - 1
    hi = np.floor(pts.max(0) / block_length).astype(np.int64) + 1
    return lo.tolist(), hi.tolist()


def _unique_rows(q: list[torch.Tensor]) -> torch.Tensor:
    """Distinct block coordinates from per-axis integer tensors ``q = [qx, qy, qz]`` (same shape),
    as ``(n, 3) int64`` rows sorted (x, y, z)-lexicographically: a mark over the bounding box when it
    is small, a sort otherwise."""
    bounds = torch.stack([torch.stack([a.min(), a.max()]) for a in q]).tolist()
    lo = [b[0] for b in bounds]
    ext = [b[1] - b[0] + 1 for b in bounds]
    flat = ((q[0] - lo[0]) * ext[1] + (q[1] - lo[1])).mul_(ext[2]).add_(q[2] - lo[2]).flatten()
    n = ext[0] * ext[1] * ext[2]
    if n <= max(1 << 20, 16 * flat.numel()):
        mark = torch.zeros(n, dtype=torch.bool, device=flat.device)
        mark[flat] = True
        flat = torch.nonzero(mark).flatten()
    else:
        flat = torch.unique(flat)
    z = flat % ext[2]
    y = torch.div(flat, ext[2], rounding_mode="floor") % ext[1]
    x = torch.div(flat, ext[1] * ext[2], rounding_mode="floor")
    return torch.stack([x + lo[0], y + lo[1], z + lo[2]], dim=1)


@cpu_step("tsdf")
def fuse_tsdf(frames: Any, voxel_size: float = 0.01, truncation: float | None = None, depth_max: float = 3.0,
              depth_min: float = 0.1, block_size: int = 8, color: bool = True, progress: bool = True,
              device: Any = None, *, max_weight: float | None = None, memory_budget: int | None = None
              ) -> TSDFVolume:
    """Fuse posed RGB-D frames into a sparse :class:`TSDFVolume`.

    Parameters
    ----------
    frames : smrnb.Frames, or an iterable of them
        ``depth (N, H, W)`` float metres (0 = none), ``K (3, 3)`` or ``(N, 3, 3)``, ``poses (N, 4, 4)``
        camera-to-world with OpenCV camera axes (required), ``color (N, H, W, 3)`` uint8 (optional).
        An iterable (e.g. :func:`smrnb.iter_redwood`, a generator) is fused batch by batch with
        :meth:`TSDFVolume.integrate_frames`, so only one batch is in memory at a time: the peak
        memory follows the volume, not the sequence. The result is the volume of the whole sequence
        in one batch. Frames in host memory fused on a GPU are copied group by group on a side stream
        while the previous group is fused; from page-locked memory (:meth:`smrnb.Frames.pin_memory`)
        the copies skip the driver's staging buffers, which pays for frames fused more than once.
    voxel_size : float
        Voxel edge in metres.
    truncation : float, optional
        Truncation distance in metres, default ``4 * voxel_size`` (use 6-8 voxels for noisy sensors).
    depth_max, depth_min : float
        Depth readings outside ``(depth_min, depth_max)`` metres are ignored.
    block_size : int
        Voxels per block edge (the allocation unit, default 8 -> 512 voxels per block).
    color : bool
        Fuse colors too (ignored when ``frames.color`` is None).
    progress : bool
        Show a ``tqdm.auto`` progress bar over frames.
    device : torch device, optional
        Where to fuse; default the device of the (first batch's) ``frames.depth``.
    max_weight : float, optional
        Cap on the per-voxel weight.
    memory_budget : int, optional
        Bytes the volume may take; default :func:`estimate_memory_budget`. The touched blocks of all
        frames (of each batch, when streaming) are counted first, and the call raises
        :class:`smrnb.MemoryEstimateError` (knob: ``voxel_size``) before allocating when the estimate is
        over budget.

    Returns
    -------
    TSDFVolume; ``volume.extract_mesh()`` gives the mesh. Frames without any valid depth are
    skipped and counted in ``volume.frames_empty``; a ``UserWarning`` says how many. When no frame
    has valid depth nothing is allocated and the extracted mesh is empty.
    """
    from smrnb.geometry._mesh import Frames

    if isinstance(frames, Frames):
        batches: Any = iter((frames,))
    elif isinstance(frames, (str, bytes, torch.Tensor)) or not hasattr(frames, "__iter__"):
        raise SmrnbTypeError(f"frames must be a smrnb.Frames, got {type(frames).__name__} (or pass an iterable of "
                             "Frames batches, e.g. iter_redwood)")
    else:
        batches = iter(frames)
    first = next(batches, None)
    if first is None:
        raise SmrnbValueError("frames must hold at least one frame, got an empty iterable")
    if not isinstance(first, Frames):
        raise SmrnbTypeError(f"frames must yield smrnb.Frames batches, got {type(first).__name__}")
    if first.poses is None:
        raise SmrnbValueError("frames.poses is None: fuse_tsdf needs camera-to-world poses (N, 4, 4); "
                              "load a trajectory or estimate poses first")
    if len(first) == 0 and isinstance(frames, Frames):
        raise SmrnbValueError("frames must hold at least one frame, got 0")
    dev = resolve_device(device) if device is not None else first.depth.device
    vol = TSDFVolume(voxel_size, truncation, block_size=block_size, depth_min=depth_min, depth_max=depth_max,
                     color=bool(color) and first.color is not None, max_weight=max_weight, device=dev,
                     memory_budget=memory_budget)
    from tqdm.auto import tqdm

    total = len(frames) if isinstance(frames, Frames) else None
    with tqdm(total=total, desc="fuse_tsdf", unit="frame", disable=not progress) as bar:
        batch, b = first, 0
        while batch is not None:
            if not isinstance(batch, Frames):
                raise SmrnbTypeError(f"frames must yield smrnb.Frames batches, got {type(batch).__name__} "
                                     f"as batch {b}")
            vol.integrate_frames(batch, progress=bar)
            batch = None  # let the batch go before the next one is read: one batch in memory, not two
            batch, b = next(batches, None), b + 1
    N, empty = vol.frames_integrated, vol.frames_empty
    if N == 0:
        raise SmrnbValueError("frames must hold at least one frame, got 0")
    if empty == N:
        warnings.warn(f"fuse_tsdf: none of the {N} frames has depth in ({depth_min:g}, {depth_max:g}) m; "
                      "nothing was allocated and the volume is empty", UserWarning, stacklevel=2)
    elif empty:
        warnings.warn(f"fuse_tsdf: {empty} of {N} frames had no depth in ({depth_min:g}, {depth_max:g}) m and "
                      "were skipped", UserWarning, stacklevel=2)
    return vol
