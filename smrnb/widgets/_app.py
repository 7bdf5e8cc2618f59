# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``ReconstructionApp``: every step of a pipeline as a :class:`StepWidget`, in order, in tabs.

One :class:`~smrnb.pipeline.Pipeline` is shared by all step widgets: changing a parameter marks
that stage and the later ones stale (earlier results stay cached), and a step's "Run to here"
runs only what is stale up to it. The top bar picks the source (the bundled sample or a dataset
folder), saves / loads the parameters as the YAML config ``smrnb run`` reads, and exports the
latest mesh as GLB, OBJ or PLY (y-up OpenGL files, see :func:`smrnb.export_mesh`).
"""

from __future__ import annotations

import html
import os
import threading
import traceback
from pathlib import Path
from typing import Any

from smrnb import _cancel
from smrnb._errors import SmrnbValueError, is_friendly
from smrnb.pipeline import Pipeline, default_config, load_config
from smrnb.widgets._display import StaticOutput, quiet_widgets, static_pictures, widget_bundle
from smrnb.widgets._step import StepWidget


def demo_chain() -> tuple[dict[str, Any], tuple[Any, ...]]:
    """Source and steps of ``smrnb demo`` (the bundled, validated config: :func:`smrnb.pipeline.default_config`,
    read on first use), without its export step (the app has an Export button): one home for the default
    reconstruction, TSDF -> mesh -> repair -> simplify -> UV -> texture on every 5th frame of the sample."""
    cfg = default_config()
    steps = tuple((e["step"], dict(e.get("params") or {})) for e in cfg["steps"] if e["step"] != "export")
    return dict(cfg["source"]), steps


def __getattr__(name: str) -> Any:
    """``DEFAULT_SOURCE`` and ``DEFAULT_STEPS``: :func:`demo_chain`'s two parts, read when first asked for."""
    if name in ("DEFAULT_SOURCE", "DEFAULT_STEPS"):
        source, steps = demo_chain()
        return source if name == "DEFAULT_SOURCE" else steps
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the lesson variant of notebook 03: occupancy voxelization of back-projected points, marching cubes on the
#: occupancy grid (a blocky surface: the point of the lesson), hole filling
OCCUPANCY_STEPS: tuple[Any, ...] = (
    ("points", {"stride": 8, "depth_max": 3.0}),
    ("clean", {}),
    ("voxelize", {"voxel_size": 0.05}),
    ("marching_cubes", {}),
    ("fill_holes", {}),
)
EXPORT_FORMATS = ("glb", "obj", "ply")


class ReconstructionApp(StaticOutput):
    """The reconstruction lab bench: source, steps in tabs, config save/load and export.

    Parameters
    ----------
    source : optional
        ``"sample"``, a dataset folder (Redwood, TUM, 7-Scenes), a mesh / point-cloud file, an
        in-memory Frames / PointCloud / Mesh, or ``{"path": ..., "stride": k, "max_frames": n}``.
        Default: :data:`DEFAULT_SOURCE`.
    steps : list, optional
        Pipeline entries (names, ``(name, params)`` pairs or mappings); default :data:`DEFAULT_STEPS`.
    config : path, optional
        A config file (``smrnb run`` format) giving source and steps instead.
    output_dir : path, optional
        Where relative export / config paths go (default: the current directory).
    auto_run : bool
        Step widgets re-run after each parameter change.
    """

    @quiet_widgets
    def __init__(self, source: Any = None, steps: Any = None, *, config: str | os.PathLike | None = None,
                 output_dir: str | os.PathLike | None = None, auto_run: bool = False) -> None:
        import ipywidgets as ipw
        import pythreejs  # noqa: F401  (imported with the app, ~0.7 s once, not inside the first step's view time)

        if config is not None and (steps is not None or source is not None):
            raise SmrnbValueError("give either config or source/steps, got both")
        self.output_dir = Path(output_dir) if output_dir is not None else Path.cwd()
        self.auto_run = auto_run
        if config is not None:
            pipe = Pipeline.from_config(config, output_dir=self.output_dir)
        else:
            demo_source, demo_steps = demo_chain()
            pipe = Pipeline(list(demo_steps if steps is None else steps),
                            source=demo_source if source is None else source, output_dir=self.output_dir)
        if not pipe.names:
            raise SmrnbValueError("steps must name at least one step, got none")
        self.pipeline = pipe
        bar = self._build_bar(ipw)
        self._stop_event: threading.Event | None = None
        self._until: str | int | None = None
        self._thread: threading.Thread | None = None
        self.message = ipw.HTML(value="")
        self.output = ipw.Output()
        self.tabs = ipw.Tab()
        self._selecting = False
        self.steps: list[Any] = []
        self._build_steps()
        # a step's result left undrawn while a chain ran past it is drawn when its tab is shown
        self.tabs.observe(self._on_tab, names="selected_index")
        self.widget = ipw.VBox([bar, self.message, self.output, self.tabs])
        self.widget.add_class("smrnb-app")

    def _build_bar(self, ipw: Any) -> Any:
        """The bar above the tabs: source, Run all and Stop, the chain's progress, config save / load, export."""
        src = self.pipeline.source
        src_text = src.get("path") if isinstance(src, dict) else os.fspath(src) if isinstance(src, (str, os.PathLike)) \
            else type(src).__name__
        self.source_text = ipw.Text(value=str(src_text), description="source",
                                    tooltip="'sample' or a dataset folder (Redwood, TUM, 7-Scenes)",
                                    layout=ipw.Layout(width="420px"))
        self.source_button = ipw.Button(description="Use source", icon="folder-open")
        self.source_button.on_click(lambda _b: self.set_source(self.source_text.value))
        self.config_path = ipw.Text(value="smrnb_params.yaml", description="config", layout=ipw.Layout(width="420px"),
                                    tooltip="YAML file of parameters: the file `smrnb run` reads")
        self.save_button = ipw.Button(description="Save params", icon="save")
        self.save_button.on_click(lambda _b: self.save_params(self.config_path.value))
        self.load_button = ipw.Button(description="Load params", icon="upload")
        self.load_button.on_click(lambda _b: self.load_params(self.config_path.value))
        self.export_format = ipw.Dropdown(options=list(EXPORT_FORMATS), value="glb", description="export",
                                          layout=ipw.Layout(width="180px"))
        self.export_path = ipw.Text(value="smrnb_mesh", description="file", layout=ipw.Layout(width="320px"),
                                    tooltip="output file; the suffix comes from the format")
        self.export_button = ipw.Button(description="Export mesh", icon="download")
        self.export_button.on_click(lambda _b: self.export(self.export_path.value, self.export_format.value))
        self.run_all_button = ipw.Button(description="Run all", icon="forward", button_style="primary",
                                         tooltip="run every stale step, in the background (Stop ends it between frames)")
        self.run_all_button.on_click(lambda _b: self.run_in_background())
        self.stop_button = ipw.Button(description="Stop", icon="stop", button_style="warning", disabled=True,
                                      tooltip="stop the running step between two frames; its last good result stays")
        self.stop_button.on_click(lambda _b: self.stop())
        #: the chain's progress, above the tabs (every tab sees it)
        self.run_progress = ipw.IntProgress(value=0, min=0, max=1, layout=ipw.Layout(width="200px", visibility="hidden"))
        self.run_status = ipw.HTML(value="")
        return ipw.VBox([ipw.HBox([self.source_text, self.source_button, self.run_all_button, self.stop_button]),
                         ipw.HBox([self.run_progress, self.run_status]),
                         ipw.HBox([self.config_path, self.save_button, self.load_button]),
                         ipw.HBox([self.export_format, self.export_path, self.export_button])])

    # ------------------------------------------------------------------------------ steps
    @quiet_widgets
    def _build_steps(self) -> None:
        self.steps = [StepWidget(st.step, pipeline=self.pipeline, stage=st.name, auto_run=self.auto_run,
                                 on_change=self._on_change, on_run=self._on_run, on_confirm=self._on_confirm)
                      for st in self.pipeline.stages]
        self.tabs.children = tuple(w.widget for w in self.steps)
        for i, st in enumerate(self.pipeline.stages):
            self.tabs.set_title(i, f"{i + 1} {st.name}")
        # the viewer Run all ends on is built with the app (shown once it has something to draw): the page loads
        # the three.js front end while the person reads the app, not after the last step (0.1-0.2 s of script
        # evaluation there, measured in a trace of benchmarks/bench_app.py)
        for w in reversed(self.steps):
            if w.prepare_viewer() is not None:
                break

    def step(self, stage: str | int) -> Any:
        """The :class:`StepWidget` of ``stage`` (name or index)."""
        return self.steps[self.pipeline._index(stage)]

    def _select(self, index: int) -> None:
        """Show tab ``index`` for a step about to run (nothing to draw there: it is drawn after)."""
        self._selecting = True
        try:
            self.tabs.selected_index = index
        finally:
            self._selecting = False

    def _on_tab(self, change: Any) -> None:
        i = change["new"]
        if not self._selecting and isinstance(i, int) and 0 <= i < len(self.steps):
            self._report(self.steps[i].reveal)

    def _on_change(self, _stale: list[str]) -> None:
        for w in self.steps:
            w.refresh()
        self._update_static()

    def _on_run(self, widget: Any) -> None:
        for w in self.steps:
            if w is not widget:
                w.refresh()
        if widget.error is None:
            self.tabs.selected_index = self.steps.index(widget)

    def _on_confirm(self, _widget: Any) -> None:
        """**Run anyway** in a step: go on with the chain where it stopped to ask, in the background."""
        self.run_in_background(self._until)

    @quiet_widgets
    def run(self, until: str | int | None = None) -> bool:
        """Run the pipeline up to ``until`` (default: the last stage) through the step widgets;
        stops at the first failure (shown in that step). True on success.

        While it runs, the running step's tab is the one shown, the header above the tabs says which
        step of how many is running, and the Run buttons are disabled. A step the chain runs past is
        drawn when its tab is opened (its record and status are up to date at once); the step the
        run ends on is drawn before this returns.
        """
        self._until = until
        end = len(self.steps) - 1 if until is None else self.pipeline._index(until)
        todo = [w for w in self.steps[:end + 1] if self.pipeline.is_stale(w.stage) or w.record is None]
        self._set_busy(True, len(todo))
        ok = True
        try:
            for k, w in enumerate(todo, 1):
                if not self.pipeline.is_stale(w.stage) and w.record is not None:
                    continue
                self._select(self.steps.index(w))
                self.run_status.value = (f"<span style='color:#0b61a4'>running step {k} of {len(todo)}: "
                                         f"<b>{html.escape(w.stage)}</b>...</span>")
                # the chain goes on past this step: its tab is replaced by the next one at once, so its
                # result is drawn when the person opens the tab (or the run ends on it), not now
                w.defer_view = k < len(todo)
                try:
                    ran = w.run()
                finally:
                    w.defer_view = False
                if not ran:
                    self.tabs.selected_index = self.steps.index(w)
                    self.run_status.value = _not_ran_html(w)
                    ok = False
                    break
                self.run_progress.value = k
            if ok:
                self.run_status.value = (f"<span style='color:#0a7d32'>{len(todo)} step(s) ran</span>" if todo
                                         else "<span style='color:#0a7d32'>up to date</span>")
        finally:
            self._set_busy(False)
            shown = self.tabs.selected_index
            if isinstance(shown, int) and 0 <= shown < len(self.steps):
                self.steps[shown].reveal()  # the tab on screen at the end is drawn
            self._update_static()
        return ok

    def run_in_background(self, until: str | int | None = None) -> threading.Thread | None:
        """:meth:`run` in a thread (what **Run all** does), so the kernel keeps answering the page and
        **Stop** (:meth:`stop`) can end the running step between two frames. Returns the thread, or
        None when a run is already going on."""
        if self._thread is not None and self._thread.is_alive():
            return None
        self._stop_event = threading.Event()
        event = self._stop_event

        def work() -> None:
            try:
                with _cancel.stoppable(event):
                    self._report(self.run, until)  # anything unexpected lands in the app's Output
            finally:
                self._stop_event = None
                self.stop_button.disabled = True

        self._thread = threading.Thread(target=work, name="smrnb-app-run", daemon=True)
        self._set_busy(True)  # before the thread starts: a second click finds the buttons disabled
        self._thread.start()
        return self._thread

    def stop(self) -> None:
        """Ask a background run to stop between two frames (or two steps); nothing half-done is kept."""
        event = self._stop_event
        if event is not None and not event.is_set():
            event.set()
            self.run_status.value = "<span style='color:#a15c00'>stopping after this frame...</span>"

    def _set_busy(self, busy: bool, total: int | None = None) -> None:
        self.run_all_button.disabled = busy
        self.source_button.disabled = self.load_button.disabled = busy
        self.stop_button.disabled = not busy or self._stop_event is None
        for w in self.steps:
            w.locked = busy
            w.run_button.disabled = busy
        if total is not None:
            self.run_progress.max, self.run_progress.value = max(total, 1), 0
        self.run_progress.layout.visibility = "visible" if busy else "hidden"

    # ------------------------------------------------------------------------------ top bar
    def _report(self, fn: Any, *args: Any) -> Any:
        """Call ``fn``; an exception is shown in the message line (never lost), an unexpected one also
        with its traceback in the app's Output (one smrnb raised on purpose says all in its line)."""
        try:
            result = fn(*args)
        except Exception as exc:
            friendly = is_friendly(exc)
            if friendly:
                self.output.outputs = ()
            else:
                tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
                self.output.outputs = ({"output_type": "error", "ename": type(exc).__name__, "evalue": str(exc),
                                        "traceback": "".join(tb).splitlines()},)
            head = "" if friendly else f"{type(exc).__name__}: "
            self.message.value = (f"<span class='smrnb-step-error' style='color:#b00020'>"
                                  f"{html.escape(head + str(exc))}</span>")
            return None
        self.output.outputs = ()
        return result

    def set_source(self, source: Any) -> None:
        """Use another source (``'sample'`` or a dataset folder); every stage becomes stale."""
        def apply() -> None:
            if isinstance(source, str):
                s = source.strip()
                if s != "sample" and not Path(s).expanduser().exists():
                    raise SmrnbValueError(f"source must be 'sample' or an existing folder or file, got {s!r}")
                value: Any = demo_chain()[0] if s == "sample" else str(Path(s).expanduser())
            else:
                value = source
            self.pipeline.set_source(value)
            self._on_change(self.pipeline.names)
            self.message.value = f"source: <code>{html.escape(str(value))}</code> (all steps stale)"
        self._report(apply)

    def _path(self, path: str | os.PathLike) -> Path:
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.output_dir / p

    def save_params(self, path: str | os.PathLike) -> Path | None:
        """Write the current source and parameters as a ``smrnb run`` config file; returns its path."""
        def save() -> Path:
            p = self.pipeline.save_config(self._path(path))  # atomic; folders made as needed
            self.message.value = f"saved parameters to <code>{html.escape(str(p))}</code>"
            return p
        return self._report(save)

    @quiet_widgets
    def load_params(self, path: str | os.PathLike) -> bool:
        """Read a config file. Same steps in the same order: parameters are set stage by stage (only
        what changed goes stale); other steps: the pipeline and the tabs are rebuilt. True on success."""
        def load() -> bool:
            p = self._path(path)
            cfg = load_config(p)
            entries = cfg["steps"]
            same = [e["step"] for e in entries] == [s.step.name for s in self.pipeline.stages] and \
                [e.get("name", e["step"]) for e in entries] == self.pipeline.names
            if same:
                for e, w in zip(entries, self.steps):
                    values = {**w.step.defaults(), **e.get("params", {})}
                    w.set_params(**values)
                if "source" in cfg and cfg["source"] != self.pipeline.source:
                    self.pipeline.set_source(cfg["source"])
                    self._on_change(self.pipeline.names)
            else:
                self.pipeline = Pipeline.from_config(p, output_dir=self.output_dir,
                                                     source=cfg.get("source", self.pipeline.source))
                self._build_steps()
            src = self.pipeline.source
            self.source_text.value = str(src.get("path") if isinstance(src, dict) else src)
            self.message.value = f"loaded parameters from <code>{html.escape(str(p))}</code>"
            return True
        return bool(self._report(load))

    def latest_mesh(self) -> Any:
        """The output of the last stage that makes a mesh, running the pipeline up to it if stale."""
        stages = [i for i, s in enumerate(self.pipeline.stages) if s.step.output in ("mesh", "textured_mesh")]
        if not stages:
            raise SmrnbValueError(f"no step of this pipeline makes a mesh: {', '.join(self.pipeline.names)}")
        i = stages[-1]
        if self.pipeline.is_stale(i) and not self.run(until=i):
            raise SmrnbValueError(f"step {self.pipeline.names[i]!r} failed; see its tab")
        return self.pipeline.result(i)

    def export(self, path: str | os.PathLike, format: str = "glb") -> Path | None:
        """Export the latest mesh to ``path`` (suffix set from ``format``: glb, obj or ply)."""
        def do() -> Path:
            from smrnb.geometry import export_mesh

            if format not in EXPORT_FORMATS:
                raise SmrnbValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}, got {format!r}")
            p = self._path(path).with_suffix("." + format)
            rep = export_mesh(self.latest_mesh(), p)
            self.message.value = (f"exported {rep.vertices:,} vertices, {rep.faces:,} faces to "
                                  f"<code>{html.escape(str(rep.path))}</code>")
            return Path(rep.path)
        return self._report(do)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        mode = static_pictures()
        if mode == "live":
            return self.widget._repr_mimebundle_(**kwargs)
        body = "".join(f"<details{' open' if w.record is not None else ''}><summary>{i + 1} "
                       f"{html.escape(w.stage)}</summary>{w.static_html()}</details>"
                       for i, w in enumerate(self.steps))
        data = {"text/plain": repr(self),
                "text/html": f"<div class='smrnb-app-static'><div>{self.message.value}</div>{body}</div>"}
        if mode == "both":
            data.update(widget_bundle(self.widget, **kwargs))
        return data

    def __repr__(self) -> str:
        return f"ReconstructionApp({self.pipeline!r})"


def _not_ran_html(w: StepWidget) -> str:
    """The chain's status line when step widget ``w`` did not run: waiting for an answer, stopped, or failed."""
    stage = html.escape(w.stage)
    if w.awaiting is not None:
        return (f"<span style='color:#a15c00'>{stage} waits for your answer: estimated at "
                f"{html.escape(w.awaiting.estimate.text())} (Run anyway / Cancel in its tab)</span>")
    if w._stopped:
        return f"<span style='color:#a15c00'>{stage}: {html.escape(w._stopped)}</span>"
    return f"<span style='color:#b00020'>{stage} failed (see its tab)</span>"


__all__ = ["EXPORT_FORMATS", "OCCUPANCY_STEPS", "ReconstructionApp", "demo_chain"]  # and DEFAULT_SOURCE, DEFAULT_STEPS (lazy)
