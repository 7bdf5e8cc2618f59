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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smrnb import _cancel
from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb._files import atomic_write, check_writable
from smrnb._threads import cpu_threads
from smrnb.pipeline._config import default_config, dump_config, load_config, validate_config
from smrnb.pipeline._estimate import Estimate, estimate_step
from smrnb.pipeline._records import StepResult, backend_for, count, counts_text, device_of, format_results
from smrnb.pipeline._registry import KINDS, ParamSpec, Step, StepOutput, StepRegistry, kinds_text
from smrnb.pipeline._source import check_source_mapping, load_source, source_kind, split_holdout
from smrnb.pipeline._step_errors import StepError, wrap_error
from smrnb.pipeline._steps import REGISTRY


def _synchronize(*devices_or_data: Any) -> None:
    """Wait for the GPU work queued on the CUDA devices among ``devices_or_data`` (device strings or
    step outputs), so that a step's wall time is its own and not the next step's."""
    import torch

    seen = set()
    for d in devices_or_data:
        dev = d if isinstance(d, str) else device_of(d)
        if dev.startswith("cuda") and dev not in seen and torch.cuda.is_initialized():
            seen.add(dev)
            torch.cuda.synchronize(dev)


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
        self.registry = REGISTRY if registry is None else registry
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
        return (f"{'source':<14} {name}: {counts_text(count(kind, data))}"
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
        held-out frame and compared with the measured depth (:func:`smrnb.geometry.depth_error`;
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
        from smrnb.geometry import depth_error

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
            on_estimate: Callable[[str, Estimate | None], None] | None = None) -> Any:
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

    def estimate(self, stage: str | int, prev: Any = None, src: tuple[str, Any] | None = None) -> Estimate | None:
        """The cost :class:`~smrnb.pipeline._estimate.Estimate` of ``stage`` on its current input, or
        None (no model for this step, or its input is not computed yet). Never raises for a model's
        failure: the run itself reports what is wrong with the input."""
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
        dev = device_of(prev)
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
            err = wrap_error(st.name, exc)
            self.last_failed = StepResult(st.name, prev_kind, step.output, before, {}, time.perf_counter() - t0,
                                          backend_for(dev), dev, [], [str(w.message) for w in caught],
                                          dict(st.params), str(err))
            self.last_error = err
            raise err from exc
        seconds = time.perf_counter() - t0
        cpu_seconds = time.process_time() - c0
        notes: list[str] = []
        details: list[str] = []
        backend = None
        if isinstance(out, StepOutput):
            notes, details, backend, out = list(out.notes), list(out.details), out.backend, out.data
        meta = getattr(out, "meta", None)
        if isinstance(meta, Mapping):
            backend = backend or meta.get("backend")
            extra_notes = meta.get("notes")
            if isinstance(extra_notes, str):
                notes.append(extra_notes)
            elif isinstance(extra_notes, (list, tuple)):
                notes.extend(str(n) for n in extra_notes)
        out_dev = device_of(out) if step.output != "file" else dev
        rec = StepResult(st.name, prev_kind, step.output, before, count(step.output, out), seconds,
                         backend or backend_for(out_dev), out_dev, notes,
                         [f"{w.category.__name__}: {w.message}" for w in caught], dict(st.params),
                         cpu_seconds=cpu_seconds, details=details)
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
        cfg = load_config(config, registry=registry) if isinstance(config, (str, os.PathLike)) \
            else validate_config(config, registry=registry)
        return cls(cfg["steps"], source=cfg.get("source") if source is _UNSET else source,
                   device=cfg.get("device") if device is _UNSET else device, output_dir=output_dir,
                   registry=registry)

    @classmethod
    def default(cls, source: Any = _UNSET, *, device: Any = _UNSET, output_dir: str | os.PathLike | None = None
                ) -> Pipeline:
        """The ``smrnb demo`` pipeline (``smrnb/pipeline/default.yaml``), optionally on another source."""
        return cls.from_config(default_config(), source=source, device=device, output_dir=output_dir)

    def save_config(self, path: str | os.PathLike) -> Path:
        """Write :meth:`to_config` as a YAML config file (``smrnb run`` reads it); atomically: a full disk
        or an error leaves an existing file whole."""
        p = check_writable(path, "path")
        atomic_write(p, dump_config(self.to_config(), registry=self.registry), "path")
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
                rows.append(f"<tr><td>{e(s.name)}</td><td>{e(counts_text(rec.counts_before))}</td>"
                            f"<td>{e(counts_text(rec.counts_after))}</td><td>{rec.seconds:.2f} s</td>"
                            f"<td>{e(rec.backend)} ({e(rec.device)})</td></tr>")
        if self.last_failed is not None:
            rows.append(f"<tr><td>{e(self.last_failed.step)}</td><td colspan='4' style='color:#b00020'>"
                        f"{e(self.last_failed.error or '')}</td></tr>")
        head = "<tr><th>step</th><th>before</th><th>after</th><th>time</th><th>backend</th></tr>"
        return f"<table class='smrnb-pipeline'>{head}{''.join(rows)}</table>"


__all__ = ["Pipeline", "Stage"]
