# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Estimate a step's time and memory before it runs, so a widget can ask before a long or large run.

An estimate comes from the cost model a registered step carries (``Step.cost``), calibrated on the
step's own input; the models of smrnb's steps are here:

* ``voxelize``: the grid's voxels follow from the cloud's bounding box and ``voxel_size``
  (:func:`~smrnb.pipeline._steps.voxel_grid_shape`, the step's own sizing); memory is the step's own allocation estimate (1 byte per voxel + 40 per
  point, as :func:`smrnb.pointcloud_to_voxelgrid` checks it); time = a + b * voxels, with a and b
  measured by running the step on grids of 64 and 256 voxels along the longest side, same points.
* ``tsdf``: the allocated blocks grow as ``voxel_size ** -p``; p, the time per frame and per block a
  frame touches, and the memory per frame and per block (peak RSS) are measured by fusing 2 of the
  frames at 50 and 12.5 mm; the whole sequence's extent against the 2 frames' is counted on sparse
  back-projected points.
* ``texture``: time = e * texels + views x (c + p * chart texels) + s * chart texels in view, from a
  bake that times its own phases (:data:`smrnb.geometry.PHASES`: texture-space work, each view's
  depth image, projecting the chart texels, sampling the ones in view): first the middle frame at 256^2
  texels (quick, errs high; memory = :func:`smrnb.geometry.bake_memory_estimate`, what the bake
  asks of the budget); when that lands within :data:`QUICK_SHARE` of a limit, 3 of the frames at 512^2
  after a warm-up, memory = bytes per texel from that probe's peak RSS (at least the bake's own estimate).
  The share of chart texels each frame sees is counted on a 64^2 sampling.

Probes run the registered step function itself on the real input (a few per cent of a long run;
cached per input and fixed parameters, so changing the knob again costs nothing). The budget is
:func:`smrnb.geometry.memory_budget`, the one every step asks. :func:`needs_asking` says
whether the widget should ask first (longer than :data:`ASK_SECONDS`, or more than
:data:`ASK_BYTES` / half of the budget).
"""

from __future__ import annotations

import ctypes
import math
import os
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from smrnb import _cancel
from smrnb._errors import SmrnbError, SmrnbValueError, format_bytes
from smrnb.pipeline._records import device_of
from smrnb.pipeline._registry import Step, StepOutput
from smrnb.pipeline._steps import voxel_grid_shape

#: ask before a step estimated to take longer than this (seconds; ``SMRNB_ASK_SECONDS`` overrides) ...
ASK_SECONDS = 60.0
#: ... or to allocate more than this (bytes; ``SMRNB_ASK_BYTES``), or more than half of the memory budget
ASK_BYTES = 2 << 30


def _env_number(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        return float(text)
    except ValueError:
        raise SmrnbValueError(f"{name} must be a number, got {text!r}") from None


@dataclass
class Estimate:
    """What a step is expected to cost: ``seconds`` (wall, this machine now) and ``bytes`` (peak
    working memory of the step), with the work ``units`` they come from, the ``budget_bytes`` the
    step may allocate, how the model was calibrated (``basis``) and what the calibration cost."""

    step: str
    seconds: float
    bytes: int
    units: dict[str, float] = field(default_factory=dict)
    budget_bytes: int = 0
    basis: str = ""
    calibration_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds, 3), "bytes": int(self.bytes), "units": dict(self.units),
                "budget_bytes": int(self.budget_bytes), "basis": self.basis,
                "calibration_seconds": round(self.calibration_seconds, 3)}

    def text(self) -> str:
        """``about 118 s and 7.3 GiB (budget 12.0 GiB)``."""
        return (f"about {_seconds_text(self.seconds)} and {format_bytes(self.bytes)}"
                + (f" (budget {format_bytes(self.budget_bytes)})" if self.budget_bytes else ""))

    def __str__(self) -> str:
        return f"{self.step}: {self.text()}; {self.basis}"


def _seconds_text(s: float) -> str:
    if s < 10:
        return f"{s:.1f} s"
    if s < 120:
        return f"{s:.0f} s"
    return f"{s / 60:.0f} min"


class NeedsConfirmation(SmrnbError):
    """A step would take long or allocate much: the caller asks the person first (not an error)."""

    def __init__(self, stage: str, estimate: Estimate) -> None:
        super().__init__(f"step {stage!r} is estimated at {estimate.text()}: confirm to run it")
        self.stage = stage
        self.estimate = estimate


def _limits(est: Estimate, seconds: float | None = None, nbytes: int | None = None) -> tuple[float, int]:
    """(seconds, bytes) over which the person is asked first: :data:`ASK_SECONDS` and the smaller of
    :data:`ASK_BYTES` and half the budget, or what ``SMRNB_ASK_SECONDS`` / ``SMRNB_ASK_BYTES`` say."""
    lim_s = _env_number("SMRNB_ASK_SECONDS", ASK_SECONDS) if seconds is None else seconds
    lim_b = int(_env_number("SMRNB_ASK_BYTES", ASK_BYTES)) if nbytes is None else nbytes
    if est.budget_bytes:
        lim_b = min(lim_b, est.budget_bytes // 2)
    return lim_s, lim_b


def needs_asking(est: Estimate | None, *, seconds: float | None = None, nbytes: int | None = None) -> bool:
    """True when ``est`` is over :data:`ASK_SECONDS` or over :data:`ASK_BYTES` / half the budget
    (``SMRNB_ASK_SECONDS`` / ``SMRNB_ASK_BYTES`` override the two limits, e.g. for a class on a small machine)."""
    if est is None:
        return False
    lim_s, lim_b = _limits(est, seconds, nbytes)
    return est.seconds > lim_s or est.bytes > lim_b


#: a quick probe's estimate under this share of both limits is final; above it a fuller calibration redoes it
#: (the quick one may be off by a few times: that changes no answer this far from the limits)
QUICK_SHARE = 0.25


def _near_limits(est: Estimate) -> bool:
    lim_s, lim_b = _limits(est)
    return est.seconds > QUICK_SHARE * lim_s or est.bytes > QUICK_SHARE * lim_b


# ----------------------------------------------------------------------------------- calibration

_CACHE: OrderedDict[tuple[Any, ...], tuple[Any, Any]] = OrderedDict()
_CACHE_SIZE = 16


def _cached(key: tuple[Any, ...], data: Any, make: Callable[[], Any]) -> tuple[Any, bool]:
    """``make()`` once per ``key`` and input object (the input is held so its id is not reused)."""
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is data:
        _CACHE.move_to_end(key)
        return hit[1], True
    value = make()
    _CACHE[key] = (data, value)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return value, False


def _timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def _rss() -> int | None:
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * 4096
    except (OSError, ValueError, IndexError):
        return None


def _peak(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, Any, int | None]:
    """``(seconds, result, peak RSS above the level before the call)``; the RSS is sampled every 5 ms
    (None where ``/proc`` is missing). Freed heap is handed back first (``malloc_trim``), so that the
    call's allocations show as growth."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    base = _rss()
    if base is None:
        t, out = _timed(fn, *args, **kwargs)
        return t, out, None
    peak = [base]
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _rss() or 0)
            stop.wait(0.005)

    th = threading.Thread(target=poll, name="smrnb-estimate-rss", daemon=True)
    th.start()
    try:
        t, out = _timed(fn, *args, **kwargs)
    finally:
        stop.set()
        th.join()
    peak[0] = max(peak[0], _rss() or 0)
    return t, out, peak[0] - base


def _two_point(x1: float, m1: int | None, x2: float, m2: int | None, floor: float) -> tuple[float, float] | None:
    """``(fixed, per_unit)`` bytes through two measured peaks, per unit at least ``floor``; None without data."""
    if m1 is None or m2 is None or x2 <= x1:
        return None
    per = max((m2 - m1) / (x2 - x1), floor)
    return max(m2 - per * x2, 0.0), per


def _line(x1: float, t1: float, x2: float, t2: float) -> tuple[float, float]:
    """``(a, b)`` of ``t = a + b * x`` through two probes; a >= 0, b >= 0 (noise on a busy machine
    must not give a negative cost)."""
    if x2 == x1:
        return max(t1, t2), 0.0
    b = max((t2 - t1) / (x2 - x1), 0.0)
    a = max(min(t1, t2) - b * min(x1, x2), 0.0)
    if b == 0.0:  # both probes in the noise: charge their mean per unit from the larger one
        b = max(t1, t2) / max(x1, x2)
        a = 0.0
    return a, b


def _budget(device: str) -> int:
    from smrnb.geometry import memory_budget

    try:
        return int(memory_budget(device))
    except Exception:  # a bad SMRNB_MEMORY_BUDGET: the step itself will say so
        return 0


# ------------------------------------------------------------------------------------ models


def voxelize_cost(fn: Callable[..., Any], points: Any, params: Mapping[str, Any], extras: Mapping[str, Any]) -> Estimate:
    pts = getattr(points, "points", points)
    n = int(pts.shape[0])
    ext = (pts.amax(0) - pts.amin(0)).double().tolist() if n else [0.0, 0.0, 0.0]
    cap = int(params.get("max_grid_size", 256))

    def cells(vs: float) -> int:
        return math.prod(voxel_grid_shape(ext, vs, cap))

    vs = float(params.get("voxel_size", 0.02))
    v = cells(vs)
    longest = max(max(ext), 1e-9)

    def calibrate() -> tuple[float, float, float, list[int]]:
        c0 = time.perf_counter()
        probes = []
        for side in (64, 256):  # coarse grids: milliseconds each, enough voxels to see their cost
            pvs = longest / side
            t, _ = _timed(fn, points, voxel_size=pvs, max_grid_size=cap)
            t2, _ = _timed(fn, points, voxel_size=pvs, max_grid_size=cap)
            probes.append((cells(pvs), min(t, t2)))
        a, b = _line(probes[0][0], probes[0][1], probes[1][0], probes[1][1])
        return a, b, time.perf_counter() - c0, [p[0] for p in probes]

    (a, b, cal, sizes), hit = _cached(("voxelize", cap, n), points, calibrate)
    nbytes = v + 40 * n  # bool grid + per-point temporaries: pointcloud_to_voxelgrid's refusal estimate
    return Estimate("voxelize", a + b * v, nbytes, {"voxels": v, "points": n}, _budget(device_of(points)),
                    f"time = {a:.3g} s + {b:.3g} s/voxel, measured at {sizes[0]:,} and {sizes[1]:,} voxels on "
                    f"these {n:,} points; memory = 1 B/voxel + 40 B/point", 0.0 if hit else cal)


def tsdf_cost(fn: Callable[..., Any], frames: Any, params: Mapping[str, Any], extras: Mapping[str, Any]) -> Estimate:
    n = len(frames)
    vs = float(params.get("voxel_size", 0.01))
    B = int(params.get("block_size", 8))
    color = bool(params.get("color", True)) and getattr(frames, "color", None) is not None
    trunc = params.get("truncation")
    fixed = {k: v for k, v in params.items() if k not in ("voxel_size", "truncation", "memory_budget")}
    k = min(n, 2)
    sub = frames.select([round(i * (n - 1) / max(k - 1, 1)) for i in range(k)]) if n > k else frames
    # probes: coarse voxels; the truncation keeps its size in voxels (None = 4 voxels) so the band scales
    tv = 4.0 if trunc is None else float(trunc) / vs
    bytes_per_block = B ** 3 * (8 + (12 if color else 0)) + 3 * 8  # TSDFVolume.bytes_per_block
    # fixed probe sizes: one calibration serves every voxel_size asked for later
    vs0, vs1 = 0.05, 0.0125

    peaks: dict[float, int | None] = {}

    def run(fr: Any, pvs: float) -> tuple[float, int]:
        # twice, the better time: the first fusion after the peak measurement's malloc_trim touches fresh
        # memory, and a busy machine only adds time (one run of each probe gave 1.6-1.8x estimates, two 1.0-1.2x)
        t, vol, peaks[pvs] = _peak(fn, fr, voxel_size=pvs, truncation=tv * pvs, progress=False, **fixed)
        nb = int(vol.num_blocks)
        del vol
        t2, _ = _timed(fn, fr, voxel_size=pvs, truncation=tv * pvs, progress=False, **fixed)
        return min(t, t2), nb

    def calibrate() -> dict[str, float]:
        import torch

        from smrnb.geometry import frames_to_points

        c0 = time.perf_counter()
        t0, b0 = run(sub, vs0)
        t1, b1 = run(sub, vs1) if vs1 < vs0 else (t0, b0)
        p = math.log(max(b1, 1) / max(b0, 1)) / math.log(vs0 / vs1) if vs1 < vs0 else 2.0
        p = min(max(p, 1.5), 3.0)  # a surface (2) with a band (up to 3): keep a noisy fit physical
        # per frame: t / k = c + b * (blocks one frame touches ~ the subset's union / k)
        c, b = _line(b0 / k, t0 / k, b1 / k, t1 / k)
        # the whole sequence's union of blocks vs the subset's, counted on sparse points at the coarse size
        dmin, dmax = float(params.get("depth_min", 0.1)), float(params.get("depth_max", 3.0))

        def blocks_of(fr: Any) -> int:
            pts = frames_to_points(fr, stride=16, depth_min=dmin, depth_max=dmax).points
            if not len(pts):
                return 0
            q = torch.floor(pts / (B * vs0)).to(torch.int64)
            q = q - q.amin(0)
            e = q.amax(0) + 1  # one integer per block (unique over rows, dim=0, is ~10x slower)
            return int(torch.unique((q[:, 0] * e[1] + q[:, 1]) * e[2] + q[:, 2]).numel())

        ratio = blocks_of(frames) / max(blocks_of(sub), 1)
        # measured memory: the two probes' peaks = per-frame inputs + bytes per block (at least the volume's own)
        mem = _two_point(b0, peaks.get(vs0), b1, peaks.get(vs1), bytes_per_block)
        return {"p": p, "b": b, "c": c, "mem": mem, "blocks_all": b0 * max(ratio, 1.0), "per_frame0": b0 / k, "vs0": vs0,
                "ratio": ratio, "seconds": time.perf_counter() - c0}

    cal, hit = _cached(("tsdf", tuple(sorted(fixed.items())), tv, vs0, vs1), frames, calibrate)
    scale = (cal["vs0"] / vs) ** cal["p"]
    blocks = cal["blocks_all"] * scale
    seconds = n * (cal["c"] + cal["b"] * cal["per_frame0"] * scale)
    if cal["mem"] is not None:
        fixed_b, per_block = cal["mem"]
        nbytes = int(fixed_b * n / k + per_block * blocks)
        mem_text = (f"memory = {n} frames x {fixed_b / k / 2**20:.1f} MiB + {blocks:,.0f} blocks x "
                    f"{per_block:,.0f} B, measured (peak RSS) on the two probes")
    else:
        nbytes = int(blocks * bytes_per_block)
        mem_text = f"memory = blocks x {bytes_per_block:,} B (TSDFVolume.bytes_per_block)"
    return Estimate("tsdf", seconds, nbytes, {"blocks": round(blocks), "frames": n}, _budget(device_of(frames)),
                    f"blocks ~ voxel_size^-{cal['p']:.2f} from {cal['blocks_all']:,.0f} blocks at "
                    f"{cal['vs0'] * 1000:g} mm ({k} frames fused, x{cal['ratio']:.2f} for the whole sequence's "
                    f"extent); time = {n} frames x ({cal['c']:.3g} s + {cal['b']:.3g} s per block touched), "
                    f"measured on {k} of the {n} frames at two coarse voxel sizes; {mem_text}",
                    0.0 if hit else cal["seconds"])


def _texels_in_view(mesh: Any, frames: Any, near: float) -> list[float]:
    """Per frame, the share of the texture's texel points (sampled at 64^2) inside its view."""
    import torch

    from smrnb.geometry import uv_rasterize

    try:
        fidx, bary = uv_rasterize(mesh.uvs, mesh.face_uvs_idx, 64)
    except Exception:  # the bake itself reports a bad mesh
        return []
    inside = fidx >= 0
    if not bool(inside.any()):
        return []
    verts = mesh.vertices.to(torch.float32)
    if getattr(mesh, "frame", "opencv") == "opengl":
        verts = verts * torch.tensor([1.0, -1.0, -1.0], device=verts.device)
    tri = verts[mesh.faces.long()[fidx[inside]]]
    P = (bary[inside][:, :, None].to(torch.float32) * tri).sum(1)
    H, W = frames.height, frames.width
    out = []
    for i in range(len(frames)):
        K = frames.intrinsics(i).to(P.device, torch.float32)
        pose = frames.poses[i].to(P.device, torch.float32)
        cam = (P - pose[:3, 3]) @ pose[:3, :3]
        z = cam[:, 2]
        q = cam @ K.T
        u, v = q[:, 0] / z.clamp_min(near), q[:, 1] / z.clamp_min(near)
        ok = (z > near) & (u >= 0) & (u <= W - 1) & (v >= 0) & (v <= H - 1)
        out.append(float(ok.float().mean()))
    return out


def _texture_calibration(fn: Callable[..., Any], mesh: Any, frames: Any, fixed: Mapping[str, Any], r: int,
                         picks: list[int], warm: bool) -> Callable[[], tuple[dict[str, float], Any, float]]:
    """A calibration of the texture model: one bake of the views ``picks`` at ``r``^2 texels that times its own
    phases (:data:`smrnb.geometry.PHASES`). ``warm``: a 64^2 bake of one view first, so that first-call
    costs are nobody's, and the probe's peak RSS measured for the memory model; without it first-call costs land
    in the texture-space work (an estimate on the high side) and there is no memory measurement (a small
    probe's peak is mostly fixed costs)."""

    def calibrate() -> tuple[dict[str, float], Any, float]:
        from smrnb.geometry import PHASES

        c0 = time.perf_counter()
        if warm:
            fn(mesh, frames=frames.select([picks[len(picks) // 2]]), resolution=64, **fixed)
        else:
            import scipy.ndimage  # noqa: F401  (the bake's one lazy import: the step pays it anyway)
        record: list[dict[str, Any]] = []
        token = PHASES.set(record)
        try:
            if warm:
                _t, _out, m = _peak(fn, mesh, frames=frames.select(picks), resolution=r, **fixed)
            else:
                _t, _out = _timed(fn, mesh, frames=frames.select(picks), resolution=r, **fixed)
                m = None
        finally:
            PHASES.reset(token)
        ph = record[-1]
        texels = max(int(ph["texels"]), 1)
        views = ph["views"]
        seen = [v for v in views if v[3] > 0]
        model = {
            "texel": (ph["setup"] + ph["finish"]) / r ** 2,  # s per texel of the texture, once per bake
            "texels_per_texel": texels / r ** 2,  # chart texels per texel of the texture
            # s per view that sees the mesh (a probe view that sees nothing: charge it its own time)
            "render": sum(v[0] for v in seen) / len(seen) if seen else max(v[0] for v in views),
            "project": sum(v[1] for v in views) / max(len(views), 1) / texels,  # s per chart texel and view
            "sample": sum(v[2] for v in seen) / max(sum(v[3] for v in seen), 1),  # s per chart texel in view
            "r": r,
        }
        # the per-texel arrays dominate: bytes ~ texels, from the probe's peak (at least bake_texture's own
        # estimate, applied by the caller)
        mem = (0.0, m / r ** 2) if m is not None else None
        return model, mem, time.perf_counter() - c0

    return calibrate


def texture_cost(fn: Callable[..., Any], mesh: Any, params: Mapping[str, Any], extras: Mapping[str, Any]) -> Estimate:
    import torch

    from smrnb.geometry import bake_memory_estimate

    frames = extras.get("frames")
    n = len(frames)
    R = int(params.get("resolution", 1024))
    fixed = {k: v for k, v in params.items() if k != "resolution"}
    key = (tuple(sorted(fixed.items())), id(frames))

    def shares() -> tuple[list[float], float]:  # which views see how much of the mesh: chart texels (64^2) in view
        c0 = time.perf_counter()
        with torch.no_grad():
            return _texels_in_view(mesh, frames, float(fixed.get("near", 0.05))), time.perf_counter() - c0

    (seen, cal_total), hit = _cached(("texture-shares", *key), mesh, shares)
    seen = seen or [1.0] * n
    cal_total = 0.0 if hit else cal_total
    own = bake_memory_estimate(mesh, R)  # what bake_texture itself asks of the budget

    def estimate(model: dict[str, float], mem: Any, cal: float, how: str) -> Estimate:
        chart = model["texels_per_texel"] * R * R  # chart texels at R
        seconds = (model["texel"] * R * R + sum(1 for x in seen if x > 0) * model["render"]
                   + n * model["project"] * chart + model["sample"] * chart * sum(seen))
        r = int(model["r"])
        nbytes = max(int(mem[0] + mem[1] * R * R), own) if mem is not None else own
        mem_text = (f"memory = the larger of {mem[1]:.0f} B/texel, measured (peak RSS) on the {r}^2 probe, and "
                    f"bake_texture's own estimate" if mem is not None else
                    "memory = bake_texture's own estimate (what it asks of the budget)")
        return Estimate("texture", seconds, nbytes,
                        {"texels": R * R, "frames": n, "faces": int(mesh.faces.shape[0])}, _budget(device_of(mesh)),
                        f"time = {model['texel']:.3g} s/texel + {n} frames x ({model['render']:.3g} s depth image + "
                        f"{model['project']:.3g} s per chart texel) + {model['sample']:.3g} s per chart texel in "
                        f"view, {model['texels_per_texel']:.0%} of the texels in charts, {sum(seen) / n:.0%} of them "
                        f"in view per frame; {how}; {mem_text}", cal)

    # first a quick probe: the middle view at 256^2, no warm-up (its per-texel figures carry the bake's fixed
    # costs, so the time errs high; memory is the bake's own estimate). Far below the limits that is the answer;
    # near them three views at 512^2 after a warm-up, peak RSS measured, give the model again (see QUICK_SHARE)
    (model, mem, cal), hit = _cached(("texture-quick", *key), mesh,
                                     _texture_calibration(fn, mesh, frames, fixed, 256, [n // 2], warm=False))
    cal_total += 0.0 if hit else cal
    est = estimate(model, mem, cal_total, "bake_texture timed its phases on 1 frame at 256^2 texels on this mesh "
                                          "(a quick probe: high side)")
    if not _near_limits(est):
        return est
    picks = sorted({n // 4, n // 2, (3 * n) // 4})
    (model, mem, cal), hit = _cached(("texture", *key), mesh,
                                     _texture_calibration(fn, mesh, frames, fixed, 512, picks, warm=True))
    cal_total += 0.0 if hit else cal
    return estimate(model, mem, cal_total, f"bake_texture timed its phases on {len(picks)} of the frames at 512^2 "
                                           "texels on this mesh")


def estimate_step(step: Step, data: Any, params: Mapping[str, Any], extras: Mapping[str, Any] | None = None
                  ) -> Estimate | None:
    """The :class:`Estimate` of running ``step`` (a registered :class:`Step`) on ``data`` with
    ``params`` (validated, paths resolved), from the cost model the step carries; None when it has none."""
    model = step.cost_model()
    if model is None:
        return None
    _cancel.check(f"before estimating {step.name!r}")
    fn = step.resolve()

    def plain(*args: Any, **kw: Any) -> Any:
        out = fn(*args, **kw)
        return out.data if isinstance(out, StepOutput) else out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a probe's warnings are not the run's
        return model(plain, data, dict(params), dict(extras or {}))


__all__ = ["ASK_BYTES", "ASK_SECONDS", "Estimate", "NeedsConfirmation", "estimate_step", "needs_asking",
           "texture_cost", "tsdf_cost", "voxelize_cost"]
