# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``Pipeline``: ordered steps over one source, cached results, downstream-only invalidation.

Each stage holds a registered :class:`~smrnb.pipeline._registry.Step` and its parameter values.
``run(until=...)`` runs the stale stages up to ``until`` ("run to here") and keeps every result;
``set_params`` marks that stage and everything after it stale, nothing before. A failing stage
raises a :class:`StepError` naming it; the results before it stay cached.
"""

from __future__ import annotations

import html
import os
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrnb import _cancel
from smrnb._errors import (
    MemoryEstimateError,
    SmrnbError,
    SmrnbTypeError,
    SmrnbValueError,
    format_bytes,
)
from smrnb._threads import cpu_threads
from smrnb.pipeline._registry import KINDS, ParamSpec, Step, StepOutput, StepRegistry, kinds_text

# ------------------------------------------------------------------------------------------ errors


class StepError(SmrnbError):
    """A pipeline stage failed. ``step`` names the stage, ``__cause__`` is the original error."""

    def __init__(self, message: str, *, step: str) -> None:
        super().__init__(message)
        self.step = step


class StepValueError(StepError, SmrnbValueError):
    """A stage rejected its input or parameters (the original was a ``ValueError``)."""


class StepTypeError(StepError, SmrnbTypeError):
    """A stage got data of the wrong type (the original was a ``TypeError``)."""


class StepMemoryError(StepError, MemoryEstimateError):
    """A memory-hungry stage refused to run; ``knob`` is the parameter to turn."""

    def __init__(self, message: str, *, step: str, estimate_bytes: int, budget_bytes: int, knob: str) -> None:
        MemoryEstimateError.__init__(self, message, estimate_bytes=estimate_bytes, budget_bytes=budget_bytes,
                                     knob=knob)
        self.step = step


def _wrap_error(stage: str, exc: BaseException) -> StepError:
    msg = f"step {stage!r} failed: {exc}"
    if isinstance(exc, MemoryEstimateError):
        knob = exc.knob
        knobs = [k.strip() for k in knob.split("/") if k.strip()]
        msg = (f"step {stage!r} refused to run: {exc} (estimate {format_bytes(exc.estimate_bytes)}, "
               f"budget {format_bytes(exc.budget_bytes)}; turn {' or '.join(map(repr, knobs))}, e.g. "
               f"pipeline.set_params({stage!r}, {knobs[0] if knobs else knob}=...) or "
               f"{' / '.join('--' + k.replace('_', '-') for k in knobs)})")
        return StepMemoryError(msg, step=stage, estimate_bytes=exc.estimate_bytes,
                               budget_bytes=exc.budget_bytes, knob=knob)
    if isinstance(exc, ValueError):
        return StepValueError(msg, step=stage)
    if isinstance(exc, TypeError):
        return StepTypeError(msg, step=stage)
    return StepError(f"step {stage!r} failed: {type(exc).__name__}: {exc}", step=stage)


# ------------------------------------------------------------------------------- step outputs


def count(kind: str, data: Any) -> dict[str, int]:
    """Sizes of ``data`` of ``kind`` for result records: points, voxels, vertices/faces, frames."""
    if data is None:
        return {}
    if kind == "frames":
        return {"frames": len(data)}
    if kind == "points":
        pts = getattr(data, "points", data)
        return {"points": int(pts.shape[0]) if hasattr(pts, "shape") else len(pts)}
    if kind in ("mesh", "textured_mesh"):
        out = {"vertices": int(data.vertices.shape[0]), "faces": int(data.faces.shape[0])}
        tex = getattr(data, "texture", None)
        if tex is not None:
            out["texels"] = int(tex.shape[0] * tex.shape[1])
        return out
    if kind in ("voxels", "tsdf"):
        return _count_volume(data)
    if kind == "file":
        p = Path(data)
        return {"bytes": p.stat().st_size} if p.is_file() else {}
    return {}


def _count_volume(data: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for attr, key in (("num_occupied", "voxels"), ("num_voxels", "voxels"), ("num_blocks", "blocks")):
        v = getattr(data, attr, None)
        if callable(v):
            v = v()
        if v is not None and key not in out:
            out[key] = int(v)
    if "voxels" not in out:
        grid = None
        for attr in ("occupancy", "grid", "data"):
            g = getattr(data, attr, None)
            if g is not None and hasattr(g, "count_nonzero"):
                grid = g
                break
        if grid is None and hasattr(data, "count_nonzero"):
            grid = data
        if grid is not None:
            out["voxels"] = int(grid.count_nonzero())
    return out


def _device_of(data: Any) -> str:
    for obj in (data, getattr(data, "depth", None), getattr(data, "points", None),
                getattr(data, "vertices", None)):
        dev = getattr(obj, "device", None)
        if dev is not None and not callable(dev):
            return str(dev)
    return "cpu"


def _synchronize(*devices_or_data: Any) -> None:
    """Wait for the GPU work queued on the CUDA devices among ``devices_or_data`` (device strings or
    step outputs), so that a step's wall time is its own and not the next step's."""
    import torch

    seen = set()
    for d in devices_or_data:
        dev = d if isinstance(d, str) else _device_of(d)
        if dev.startswith("cuda") and dev not in seen and torch.cuda.is_initialized():
            seen.add(dev)
            torch.cuda.synchronize(dev)


def _backend_for(device: str) -> str:
    return "torch CUDA" if device.startswith("cuda") else "torch CPU"


def _fmt_counts(c: Mapping[str, int]) -> str:
    return ", ".join(f"{v:,} {k}" for k, v in c.items()) or "-"


@dataclass
class StepResult:
    """What one stage did: counts before/after, time, backend and device, notes and warnings.

    ``counts_before`` / ``counts_after`` map a unit (``points``, ``voxels``, ``vertices``,
    ``faces``, ``frames``, ``bytes``) to a count. ``backend`` is ``kaolin``, ``torch CPU`` or
    ``torch CUDA`` (or what the step reported); ``seconds`` is wall time of the function call and
    ``cpu_seconds`` the process CPU time it used (all threads; on a busy shared machine the wall
    time grows but this does not). ``view_seconds`` is the time a widget then spent showing the
    result (converting it for the viewer and sending it), so ``waited_seconds`` is what the person
    at the widget waited for this stage. ``error`` is set (and ``ok`` false) when the stage failed.
    """

    step: str
    kind_in: str
    kind_out: str
    counts_before: dict[str, int]
    counts_after: dict[str, int]
    seconds: float
    backend: str
    device: str
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    cpu_seconds: float | None = None
    view_seconds: float | None = None
    #: what the stage was estimated to cost before it ran (``Estimate.to_dict()``), when it was estimated
    estimate: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def waited_seconds(self) -> float:
        """The step's own time plus the time spent showing its result (when it was shown)."""
        return self.seconds + (self.view_seconds or 0.0)

    def _time_text(self, digits: int) -> str:
        t = f"{self.seconds:.{digits}f} s"
        if self.view_seconds is not None:
            t += f" + {self.view_seconds:.{digits}f} s to show = {self.waited_seconds:.{digits}f} s waited"
        return t

    def __str__(self) -> str:
        head = (f"{self.step:<14} {_fmt_counts(self.counts_before)} -> "
                + (_fmt_counts(self.counts_after) if self.ok else "FAILED")
                + f"  {self._time_text(2)}" + (f" (cpu {self.cpu_seconds:.2f} s)" if self.cpu_seconds is not None else "")
                + f"  [{self.backend}, {self.device}]")
        lines = [head]
        lines += [f"    note: {n}" for n in self.notes]
        lines += [f"    warning: {w}" for w in self.warnings]
        if self.error:
            lines.append(f"    error: {self.error}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        e = html.escape
        status = ("<span style='color:#b00020'>failed</span>" if not self.ok
                  else "<span style='color:#0a7d32'>ok</span>")
        rows = [("step", e(self.step) + f" ({e(self.kind_in)} &rarr; {e(self.kind_out)}) " + status),
                ("before", e(_fmt_counts(self.counts_before))),
                ("after", e(_fmt_counts(self.counts_after)) if self.ok else "-"),
                ("time", self._time_text(3)),
                ("backend", e(f"{self.backend} on {self.device}"))]
        rows += [("note", e(n)) for n in self.notes]
        rows += [("warning", f"<span style='color:#a15c00'>{e(w)}</span>") for w in self.warnings]
        if self.estimate:
            est = self.estimate
            rows.append(("estimate", e(f"{est['seconds']:.3g} s, {format_bytes(est['bytes'])} before the run "
                                       f"({est['basis']})")))
        if self.error:
            rows.append(("error", f"<pre style='color:#b00020;white-space:pre-wrap;margin:0'>{e(self.error)}</pre>"))
        body = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{k}</th><td>{v}</td></tr>"
                       for k, v in rows)
        return f"<table class='smrnb-step-result'>{body}</table>"

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("step", "kind_in", "kind_out", "counts_before", "counts_after",
                                              "seconds", "cpu_seconds", "view_seconds", "backend", "device",
                                              "notes", "warnings", "error", "estimate")}


def format_results(results: Iterable[StepResult], source: str | None = None) -> str:
    """The summary table printed by the CLI: the source line, one line per stage plus notes, the steps' total time."""
    results = list(results)
    lines = ([source] if source else []) + [str(r) for r in results]
    cpu = [r.cpu_seconds for r in results if r.cpu_seconds is not None]
    lines.append(f"{'steps total':<14} {sum(r.seconds for r in results):.2f} s"
                 + (f" (cpu {sum(cpu):.2f} s)" if cpu else ""))
    return "\n".join(lines)


# ----------------------------------------------------------------------------------- sources


def source_kind(data: Any) -> str:
    """The kind of an in-memory source object."""
    name = type(data).__name__
    if name == "Frames":
        return "frames"
    if name == "PointCloud":
        return "points"
    if name == "Mesh":
        return "textured_mesh" if getattr(data, "texture", None) is not None else "mesh"
    if name == "VoxelGrid":
        return "voxels"
    if name == "TSDFVolume":
        return "tsdf"
    if isinstance(data, (str, os.PathLike)):
        return "file"
    raise SmrnbTypeError(f"source must be Frames, PointCloud, Mesh, a dataset folder, a .ply/.obj/.glb file "
                         f"or 'sample', got {type(data).__name__}")


#: options a mapping source may carry besides ``path`` (passed to the dataset reader)
SOURCE_OPTIONS: tuple[str, ...] = ("stride", "max_frames", "holdout")
#: options read by the dataset readers (``holdout`` is applied after reading, by the pipeline)
READER_OPTIONS: tuple[str, ...] = ("stride", "max_frames")


def load_frames(path: str | os.PathLike, **options: Any) -> Any:
    """Frames from ``'sample'`` (the bundled sample) or a dataset folder (Redwood, TUM or 7-Scenes layout).

    ``options`` (``stride``, ``max_frames``) go to the reader: every ``stride``-th frame, at most
    ``max_frames`` of them, read from disk (cheaper than reading all and selecting later).
    """
    import smrnb.datasets as ds

    if os.fspath(path) == "sample":
        return ds.load_sample(**options)
    p = Path(path)
    if not p.is_dir():
        raise SmrnbValueError(f"source must be 'sample' or an existing dataset folder, got {os.fspath(path)!r}")
    names = {c.name for c in p.iterdir()}
    if any(n.endswith(".log") for n in names) and ("depth" in names):
        return ds.load_redwood(p, **options)
    if "depth.txt" in names or "rgb.txt" in names or "associations.txt" in names:
        return ds.load_tum(p, **options)
    if any(n.startswith("frame-") and n.endswith(".depth.png") for n in names) or \
            any(c.is_dir() and c.name.startswith("seq-") for c in p.iterdir()):
        return ds.load_7scenes(p, **options)
    raise SmrnbValueError(f"source folder {os.fspath(p)!r} is not a Redwood (depth/ + *.log), TUM "
                          f"(rgb.txt, depth.txt) or 7-Scenes (frame-XXXXXX.depth.png) dataset")


def load_geometry(path: str | os.PathLike) -> Any:
    """A Mesh (file with faces) or a PointCloud (PLY/XYZ without faces) read through trimesh."""
    import numpy as np
    import torch
    import trimesh

    from smrnb.geometry.mesh import PointCloud

    p = Path(path)
    if not p.is_file():
        raise SmrnbValueError(f"input file {os.fspath(p)!r} does not exist")
    try:
        obj = trimesh.load(p, process=False, force=None)
    except Exception as exc:
        raise SmrnbValueError(f"input file {os.fspath(p)!r} could not be read by trimesh: {exc}") from None
    if isinstance(obj, (trimesh.Scene, trimesh.Trimesh)):
        # smrnb's reader keeps uvs and the base-color texture (GLB/OBJ) and never merges vertices
        from smrnb.geometry.io import load_mesh

        return load_mesh(p)
    if isinstance(obj, trimesh.PointCloud):
        cols = None
        c = getattr(obj, "colors", None)
        if c is not None and len(c) == len(obj.vertices):
            cols = torch.as_tensor(np.asarray(c)[:, :3].astype(np.float32) / 255.0)
        return PointCloud(torch.as_tensor(np.asarray(obj.vertices, dtype=np.float32)), colors=cols)
    raise SmrnbValueError(f"input file {os.fspath(p)!r} holds a {type(obj).__name__}, not a mesh or point cloud")


def check_source_mapping(source: Mapping[str, Any], where: str = "source") -> dict[str, Any]:
    """Validate ``{"path": ..., "stride": int >= 1, "max_frames": int >= 1 or None, "holdout": int >= 2}``."""
    bad = [k for k in source if k not in ("path", *SOURCE_OPTIONS)]
    if bad:
        raise SmrnbValueError(f"{where} has unknown key(s) {', '.join(map(repr, bad))}; "
                              f"allowed: path, {', '.join(SOURCE_OPTIONS)}")
    if not isinstance(source.get("path"), (str, os.PathLike)):
        raise SmrnbValueError(f"{where} needs 'path' ('sample' or a dataset folder), got {source.get('path')!r}")
    out: dict[str, Any] = {"path": os.fspath(source["path"])}
    for k in SOURCE_OPTIONS:
        v = source.get(k)
        if v is None:
            continue
        low = 2 if k == "holdout" else 1
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            what = " (every k-th frame is held out for evaluation)" if k == "holdout" else ""
            raise SmrnbValueError(f"{where} {k!r} must be an int >= {low}{what}, got {v!r}")
        out[k] = v
    return out


def split_holdout(frames: Any, every: int) -> tuple[Any, Any]:
    """``(kept, held)``: frame ``i`` is held out when ``i % every == 0`` (the benchmarks' protocol).

    The held-out frames never reach the steps; :meth:`Pipeline.heldout_error` re-renders the final
    mesh into them and compares with their measured depth.
    """
    import torch

    n = len(frames)
    held = torch.arange(n) % every == 0
    if int((~held).sum()) == 0:
        raise SmrnbValueError(f"source 'holdout' {every} leaves no frame to reconstruct from ({n} frame(s) loaded)")
    return frames.select(~held), frames.select(held)


def load_source(source: Any) -> tuple[str, Any]:
    """``(kind, data)`` for a source object, ``'sample'``, a dataset folder, a geometry file, or a
    mapping ``{"path": 'sample' or folder, "stride": k, "max_frames": n}``."""
    if isinstance(source, Mapping):
        src = check_source_mapping(source)
        if "holdout" in src:
            raise SmrnbValueError("source 'holdout' is applied by a Pipeline (which keeps the held-out frames "
                                  "for heldout_error()); load_source reads frames only")
        return "frames", load_frames(src.pop("path"), **src)
    if isinstance(source, (str, os.PathLike)):
        s = os.fspath(source)
        if s == "sample" or Path(s).is_dir():
            return "frames", load_frames(s)
        data = load_geometry(s)
        return source_kind(data), data
    return source_kind(source), source


# ----------------------------------------------------------------------------------- pipeline


@dataclass
class Stage:
    """One position in a pipeline: a stage name (unique), its step and its parameter values."""

    name: str
    step: Step
    params: dict[str, Any]


_UNSET = object()


class Pipeline:
    """Ordered steps over one source with cached results.

    Parameters
    ----------
    steps : list
        Each entry is a step name (``"tsdf"``), a :class:`Step`, a ``(name, params)`` pair or a
        mapping ``{"step": name, "params": {...}, "name": stage_name}``. Stage names default to the
        step name and must be unique (give ``name`` to use a step twice).
    source : optional
        ``Frames`` / ``PointCloud`` / ``Mesh``, ``"sample"`` (the bundled RGB-D sample), a dataset
        folder or a mesh / point-cloud file, or ``{"path": "sample" or folder, "stride": k,
        "max_frames": n}`` to read only some frames. Loaded on the first :meth:`run`.
    device : str, optional
        ``"cpu"`` or ``"cuda"``: the source is moved there; steps keep their input's device.
    output_dir : path, optional
        Relative ``path`` parameters (export targets) resolve against it (default: the current
        directory); it is created when a stage writes there.
    registry : StepRegistry, optional
        Where step names are looked up (default: smrnb's registry).
    side_inputs : mapping kind -> data, optional
        Data for a step's ``extra_inputs`` that neither the source nor an earlier stage provides
        (e.g. ``{"frames": frames}`` for a texture step in a pipeline that starts from a mesh).
    """

    def __init__(self, steps: Iterable[Any] = (), source: Any = None, *, device: str | None = None,
                 output_dir: str | os.PathLike | None = None, registry: StepRegistry | None = None,
                 side_inputs: Mapping[str, Any] | None = None) -> None:
        if registry is None:
            from smrnb.pipeline._steps import REGISTRY

            registry = REGISTRY
        self.registry = registry
        self.device = device
        if device is not None:
            from smrnb.geometry import parse_device

            parse_device(device, "device")  # the name now; CUDA's presence when it runs
        self.output_dir = None if output_dir is None else Path(output_dir)
        self.stages: list[Stage] = []
        for entry in steps:
            self._add(entry)
        self.side_inputs = dict(side_inputs or {})
        bad = [k for k in self.side_inputs if k not in KINDS]
        if bad:
            raise SmrnbValueError(f"side_inputs keys must be kinds ({', '.join(KINDS)}), got {', '.join(map(repr, bad))}")
        self._source = self._check_source(source)
        self._source_loaded: tuple[str, Any] | None = None
        # per stage: (data, StepResult) for the last good run, None when stale
        self._cache: list[tuple[Any, StepResult] | None] = [None] * len(self.stages)
        self.last_error: StepError | None = None
        self.last_failed: StepResult | None = None
        #: seconds the last source load took (reading frames from disk), None before the first run
        self.source_seconds: float | None = None
        self.source_cpu_seconds: float | None = None
        #: frames held out of the steps by the source's ``holdout`` option (None without it)
        self.heldout_frames: Any = None

    def _check_source(self, source: Any) -> Any:
        if isinstance(source, Mapping):
            source = check_source_mapping(source)
            self._check_chain("frames")
        elif source is not None and not isinstance(source, (str, os.PathLike)):
            self._check_chain(source_kind(source))
        return source

    # ------------------------------------------------------------------------- construction
    def _add(self, entry: Any) -> None:
        name = None
        params: Mapping[str, Any] = {}
        if isinstance(entry, (str, Step)):
            step = self.registry.get(entry) if isinstance(entry, str) else entry
        elif isinstance(entry, tuple) and len(entry) == 2:
            step, params = self.registry.get(entry[0]), entry[1] or {}
        elif isinstance(entry, Mapping):
            extra = sorted(set(entry) - {"step", "params", "name"})
            if extra:
                raise SmrnbValueError(f"steps entry {dict(entry)!r} has unknown key(s) {', '.join(extra)}; "
                                      f"allowed: step, params, name")
            if "step" not in entry:
                raise SmrnbValueError(f"steps entry {dict(entry)!r} needs a 'step' key")
            step = self.registry.get(entry["step"])
            params = entry.get("params") or {}
            name = entry.get("name")
        else:
            raise SmrnbTypeError(f"steps entries must be a step name, Step, (name, params) or a mapping, "
                                 f"got {type(entry).__name__}")
        if not isinstance(params, Mapping):
            raise SmrnbTypeError(f"params of step {step.name!r} must be a mapping, got {type(params).__name__}")
        name = name or step.name
        if any(s.name == name for s in self.stages):
            raise SmrnbValueError(f"stage name {name!r} is used twice; give the second one a 'name'")
        prev = self.stages[-1].step.output if self.stages else None
        if prev is not None and step.inputs and prev not in step.inputs:
            raise SmrnbValueError(f"step {name!r} takes {kinds_text(step.inputs)} but the step before it "
                                  f"({self.stages[-1].name!r}) gives {prev}")
        self.stages.append(Stage(name, step, step.validate_params(dict(params))))

    def _check_chain(self, kind: str) -> None:
        if self.stages and self.stages[0].step.inputs and kind not in self.stages[0].step.inputs:
            raise SmrnbValueError(f"step {self.stages[0].name!r} takes {kinds_text(self.stages[0].step.inputs)} "
                                  f"but the source gives {kind}")

    def _index(self, stage: str | int) -> int:
        if isinstance(stage, int) and not isinstance(stage, bool):
            if -len(self.stages) <= stage < len(self.stages):
                return stage % len(self.stages)
            raise SmrnbValueError(f"stage index must be in [0, {len(self.stages) - 1}], got {stage}")
        for i, s in enumerate(self.stages):
            if s.name == stage:
                return i
        raise SmrnbValueError(f"unknown stage {stage!r}; this pipeline's stages: "
                              f"{', '.join(s.name for s in self.stages) or '(none)'}")

    def stage(self, stage: str | int) -> Stage:
        """The :class:`Stage` (name, step, current params) at ``stage`` (name or index)."""
        return self.stages[self._index(stage)]

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.stages]

    # ------------------------------------------------------------------------------- params
    def params(self, stage: str | int) -> dict[str, Any]:
        """A copy of the stage's current parameter values."""
        return dict(self.stages[self._index(stage)].params)

    def param_spec(self, stage: str | int, name: str) -> ParamSpec:
        return self.stages[self._index(stage)].step.param(name)

    def set_params(self, stage: str | int, **params: Any) -> list[str]:
        """Change parameters of one stage; it and every later stage become stale (earlier ones stay).

        Values are validated first (nothing changes on error). Setting a value equal to the current
        one invalidates nothing. Returns the names of the stages that became stale.
        """
        i = self._index(stage)
        st = self.stages[i]
        checked = st.step.validate_params(params, partial=True)
        changed = {k: v for k, v in checked.items() if st.params.get(k) != v or type(st.params.get(k)) is not type(v)}
        if not changed:
            return []
        st.params.update(changed)
        return self.invalidate(i)

    def invalidate(self, stage: str | int | None = None) -> list[str]:
        """Mark ``stage`` (default: the first) and everything downstream stale; returns their names."""
        i = 0 if stage is None else self._index(stage)
        stale = [s.name for j, s in enumerate(self.stages) if j >= i and self._cache[j] is not None]
        for j in range(i, len(self.stages)):
            self._cache[j] = None
        return stale

    def set_source(self, source: Any) -> None:
        """Replace the source; every stage becomes stale."""
        self._source = self._check_source(source)
        self._source_loaded = None
        self.heldout_frames = None
        self.invalidate()

    @property
    def source(self) -> Any:
        return self._source

    def is_stale(self, stage: str | int) -> bool:
        return self._cache[self._index(stage)] is None

    # --------------------------------------------------------------------------------- results
    def result(self, stage: str | int = -1) -> Any:
        """The cached output of ``stage`` (None when it is stale or never ran)."""
        c = self._cache[self._index(stage)] if self.stages else None
        return None if c is None else c[0]

    def record(self, stage: str | int = -1) -> StepResult | None:
        c = self._cache[self._index(stage)] if self.stages else None
        return None if c is None else c[1]

    @property
    def records(self) -> list[StepResult]:
        """The result records of every stage with a cached result, in order."""
        return [c[1] for c in self._cache if c is not None]

    def summary(self) -> str:
        """The CLI's table: the source load, one line per cached stage, the total."""
        return format_results(self.records, source=self.source_summary())

    def source_summary(self) -> str | None:
        if self._source_loaded is None:
            return None
        kind, data = self._source_loaded
        s = self._source
        name = (s.get("path") if isinstance(s, Mapping) else os.fspath(s)) if isinstance(s, (Mapping, str, os.PathLike)) \
            else type(s).__name__
        return (f"{'source':<14} {name}: {_fmt_counts(count(kind, data))}"
                + (f"  {self.source_seconds:.2f} s (cpu {self.source_cpu_seconds:.2f} s)"
                   if self.source_seconds is not None else ""))

    # ------------------------------------------------------------------------------------- run
    def _load_source(self) -> tuple[str, Any]:
        if self._source_loaded is None:
            if self._source is None:
                raise SmrnbValueError("source is not set: pass source= ('sample', a dataset folder, a mesh "
                                      "file or Frames/PointCloud/Mesh)")
            if self.device is not None and str(self.device).startswith("cuda"):
                import torch

                if not torch.cuda.is_available():
                    raise SmrnbValueError(f"device {self.device!r} was asked for but torch {torch.__version__} "
                                          "sees no CUDA GPU; use device='cpu' (smr-doctor explains why)")
            t0 = time.perf_counter()
            c0 = time.process_time()
            src = self._source
            every = src.get("holdout") if isinstance(src, Mapping) else None
            if every:
                src = {k: v for k, v in src.items() if k != "holdout"}
            kind, data = load_source(src)
            if every:
                data, self.heldout_frames = split_holdout(data, every)
            if self.device is not None and hasattr(data, "to"):
                data = data.to(self.device)
            self.source_seconds = time.perf_counter() - t0
            self.source_cpu_seconds = time.process_time() - c0
            self._check_chain(kind)
            self._source_loaded = (kind, data)
        return self._source_loaded

    def heldout_error(self, *, max_error: float | None = 0.1) -> dict[str, Any] | None:
        """Depth error of the last mesh this pipeline made, on the frames its source held out.

        The mesh (the latest stage result that is a mesh, in the frames' world coordinates, so
        before ``export``'s y-up conversion, which writes files only) is rendered into every
        held-out frame and compared with the measured depth (:func:`smrnb.geometry.metrics.depth_error`;
        pixels off by more than ``max_error`` metres count as outliers, not errors). None when the
        source holds no frames out or no stage has made a mesh yet.
        """
        if self.heldout_frames is None or len(self.heldout_frames) == 0:
            return None
        mesh = None
        for j in range(len(self.stages) - 1, -1, -1):
            if self.stages[j].step.output == "mesh" and self._cache[j] is not None:
                mesh = self._cache[j][0]
                break
        if mesh is None:
            return None
        from smrnb.geometry.metrics import depth_error

        frames = self.heldout_frames.to(mesh.vertices.device)
        r = depth_error(mesh, frames, max_error=max_error)
        r["n_frames"] = len(frames)
        return r

    def source_data(self) -> Any:
        """The loaded source (loads it now if needed)."""
        return self._load_source()[1]

    def _latest(self, i: int, kind: str, src: tuple[str, Any]) -> Any:
        for j in range(i - 1, -1, -1):
            if self.stages[j].step.output == kind:
                return self._cache[j][0]
        if src[0] == kind:
            return src[1]
        if kind in self.side_inputs:
            data = self.side_inputs[kind]
            return data.to(self.device) if self.device is not None and hasattr(data, "to") else data
        raise SmrnbValueError(f"step {self.stages[i].name!r} needs {kind} but neither the source nor an "
                              f"earlier step provides it")

    def _resolve_paths(self, st: Stage) -> dict[str, Any]:
        params = dict(st.params)
        for p in st.step.params:
            if p.kind == "path" and params.get(p.name) is not None:
                path = Path(params[p.name]).expanduser()
                if not path.is_absolute() and self.output_dir is not None:
                    path = self.output_dir / path
                if st.step.output == "file":
                    path.parent.mkdir(parents=True, exist_ok=True)
                params[p.name] = str(path)
        return params

    def run(self, until: str | int | None = None, *, force: bool = False,
            on_start: Callable[[str], None] | None = None,
            on_done: Callable[[StepResult], None] | None = None,
            on_estimate: Callable[[str, Any], None] | None = None) -> Any:
        """Run the stale stages up to and including ``until`` (default: the last); return its output.

        Cached stages are not re-run unless ``force``. ``on_start(stage_name)`` and
        ``on_done(record)`` are called around each stage that runs (widgets hang progress on them).
        On failure a :class:`StepError` naming the stage is raised; stages before it keep their
        results, ``last_error`` / ``last_failed`` hold the error and its record.

        With ``on_estimate``, each stage that has a cost model (:mod:`smrnb.pipeline._estimate`) is
        estimated first and ``on_estimate(stage_name, estimate)`` is called before it runs (it may
        raise :class:`~smrnb.pipeline._estimate.NeedsConfirmation` to ask first); the estimate goes
        into the stage's record.
        """
        if not self.stages:
            raise SmrnbValueError("this pipeline has no steps")
        end = len(self.stages) - 1 if until is None else self._index(until)
        if force:
            self.invalidate(0)
        for i in range(end + 1):  # slow resources of the steps to come start now, in the background
            if self._cache[i] is None:
                self.stages[i].step.prepare()
        src = self._load_source()
        prev_kind, prev = src
        for i in range(end + 1):
            st = self.stages[i]
            if self._cache[i] is not None:
                prev_kind, prev = st.step.output, self._cache[i][0]
                continue
            _cancel.check(f"before stage {st.name!r}")
            est = None
            if on_estimate is not None:
                est = self.estimate(i, prev, src)
                on_estimate(st.name, est)
            if on_start is not None:
                on_start(st.name)
            rec = self._run_stage(i, st, prev_kind, prev, src)
            if est is not None:
                rec.estimate = est.to_dict()
            if on_done is not None:
                on_done(rec)
            prev_kind, prev = st.step.output, self._cache[i][0]
        return self._cache[end][0]

    def estimate(self, stage: str | int, prev: Any = None, src: tuple[str, Any] | None = None) -> Any:
        """The cost :class:`~smrnb.pipeline._estimate.Estimate` of ``stage`` on its current input, or
        None (no model for this step, or its input is not computed yet). Never raises for a model's
        failure: the run itself reports what is wrong with the input."""
        from smrnb.pipeline._estimate import estimate_step

        i = self._index(stage)
        st = self.stages[i]
        if src is None:
            src = self._load_source()
        if prev is None:
            if i == 0:
                prev = src[1]
            elif self._cache[i - 1] is None:
                return None
            else:
                prev = self._cache[i - 1][0]
        try:
            extras = {k: self._latest(i, k, src) for k in st.step.extra_inputs}
            with cpu_threads(st.name):
                return estimate_step(st.step, prev, self._resolve_paths(st), extras)
        except _cancel.Stopped:
            raise
        except Exception:  # a bad input or parameter: the stage's own run says what is wrong
            return None

    def _run_stage(self, i: int, st: Stage, prev_kind: str, prev: Any, src: tuple[str, Any]) -> StepResult:
        step = st.step
        before = count(prev_kind, prev) if step.inputs else {}
        dev = _device_of(prev)
        c0 = time.process_time()
        t0 = time.perf_counter()
        caught: list[warnings.WarningMessage] = []
        try:
            extras = {k: self._latest(i, k, src) for k in step.extra_inputs}
            params = self._resolve_paths(st)
            fn = step.resolve()
            with warnings.catch_warnings(record=True) as caught, cpu_threads(st.name):
                warnings.simplefilter("always")
                out = fn(prev, **extras, **params)
                _synchronize(dev, out)  # the step's time includes its queued GPU work
        except _cancel.Stopped:
            raise  # stopped on request: no record of a failure, the stage stays stale
        except Exception as exc:
            err = _wrap_error(st.name, exc)
            self.last_failed = StepResult(st.name, prev_kind, step.output, before, {}, time.perf_counter() - t0,
                                          _backend_for(dev), dev, [], [str(w.message) for w in caught],
                                          dict(st.params), str(err))
            self.last_error = err
            raise err from exc
        seconds = time.perf_counter() - t0
        cpu_seconds = time.process_time() - c0
        notes: list[str] = []
        backend = None
        if isinstance(out, StepOutput):
            notes, backend, out = list(out.notes), out.backend, out.data
        meta = getattr(out, "meta", None)
        if isinstance(meta, Mapping):
            backend = backend or meta.get("backend")
            extra_notes = meta.get("notes")
            if isinstance(extra_notes, str):
                notes.append(extra_notes)
            elif isinstance(extra_notes, (list, tuple)):
                notes.extend(str(n) for n in extra_notes)
        out_dev = _device_of(out) if step.output != "file" else dev
        rec = StepResult(st.name, prev_kind, step.output, before, count(step.output, out), seconds,
                         backend or _backend_for(out_dev), out_dev, notes,
                         [f"{w.category.__name__}: {w.message}" for w in caught], dict(st.params),
                         cpu_seconds=cpu_seconds)
        self._cache[i] = (out, rec)
        self.last_error = None
        self.last_failed = None
        return rec

    # ---------------------------------------------------------------------------------- config
    def to_config(self) -> dict[str, Any]:
        """The config mapping (what ``smrnb run`` reads); non-default parameters only.

        ``Pipeline.from_config(p.to_config())`` rebuilds the same stages, parameters, source and
        device. An in-memory source object is not serialisable and is written as ``None``.
        """
        steps = []
        for st in self.stages:
            d = st.step.defaults()
            entry: dict[str, Any] = {"step": st.step.name}
            if st.name != st.step.name:
                entry["name"] = st.name
            changed = {k: v for k, v in st.params.items() if d.get(k) != v}
            if changed:
                entry["params"] = changed
            steps.append(entry)
        src = self._source
        cfg: dict[str, Any] = {"source": os.fspath(src) if isinstance(src, (str, os.PathLike))
                               else dict(src) if isinstance(src, Mapping) else None}
        if self.device is not None:
            cfg["device"] = self.device
        cfg["steps"] = steps
        return cfg

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | str | os.PathLike, *, registry: StepRegistry | None = None,
                    source: Any = _UNSET, device: Any = _UNSET, output_dir: str | os.PathLike | None = None,
                    ) -> Pipeline:
        """A pipeline from a config mapping or YAML file (see :mod:`smrnb.pipeline._config`)."""
        from smrnb.pipeline._config import load_config, validate_config

        cfg = load_config(config, registry=registry) if isinstance(config, (str, os.PathLike)) \
            else validate_config(config, registry=registry)
        return cls(cfg["steps"], source=cfg.get("source") if source is _UNSET else source,
                   device=cfg.get("device") if device is _UNSET else device, output_dir=output_dir,
                   registry=registry)

    @classmethod
    def default(cls, source: Any = _UNSET, *, device: Any = _UNSET, output_dir: str | os.PathLike | None = None
                ) -> Pipeline:
        """The ``smrnb demo`` pipeline (``smrnb/pipeline/default.yaml``), optionally on another source."""
        return cls.from_config(Path(__file__).with_name("default.yaml"), source=source, device=device,
                               output_dir=output_dir)

    def save_config(self, path: str | os.PathLike) -> Path:
        from smrnb.pipeline._config import dump_config

        p = Path(path)
        p.write_text(dump_config(self.to_config(), registry=self.registry))
        return p

    # ----------------------------------------------------------------------------------- display
    def __repr__(self) -> str:
        state = ", ".join(f"{s.name}{'' if self._cache[i] is not None else '*'}" for i, s in enumerate(self.stages))
        return f"Pipeline([{state}], source={self._source!r})  (* = stale)"

    def __str__(self) -> str:
        lines = [f"Pipeline over {self._source!r}" + (f" on {self.device}" if self.device else "")]
        for i, s in enumerate(self.stages):
            rec = self._cache[i][1] if self._cache[i] is not None else None
            lines.append(str(rec) if rec else f"{s.name:<14} (stale) {s.step.signature_text()}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        e = html.escape
        rows = []
        for i, s in enumerate(self.stages):
            rec = self._cache[i][1] if self._cache[i] is not None else None
            if rec is None:
                rows.append(f"<tr><td>{e(s.name)}</td><td colspan='4'><i>stale</i> "
                            f"({e(s.step.signature_text())})</td></tr>")
            else:
                rows.append(f"<tr><td>{e(s.name)}</td><td>{e(_fmt_counts(rec.counts_before))}</td>"
                            f"<td>{e(_fmt_counts(rec.counts_after))}</td><td>{rec.seconds:.2f} s</td>"
                            f"<td>{e(rec.backend)} ({e(rec.device)})</td></tr>")
        if self.last_failed is not None:
            rows.append(f"<tr><td>{e(self.last_failed.step)}</td><td colspan='4' style='color:#b00020'>"
                        f"{e(self.last_failed.error or '')}</td></tr>")
        head = "<tr><th>step</th><th>before</th><th>after</th><th>time</th><th>backend</th></tr>"
        return f"<table class='smrnb-pipeline'>{head}{''.join(rows)}</table>"


__all__ = ["KINDS", "Pipeline", "Stage", "StepError", "StepMemoryError", "StepOutput", "StepResult",
           "StepTypeError", "StepValueError", "count", "format_results", "load_frames", "load_geometry",
           "load_source", "source_kind"]
