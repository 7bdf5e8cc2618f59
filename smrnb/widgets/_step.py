# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``StepWidget``: one pipeline step with controls generated from its parameter specs.

The controls come from :meth:`smrnb.pipeline.ParamSpec.widget` (sliders, checkboxes, dropdowns,
text boxes for optional / unbounded values; tooltips carry help, unit and range). A Run button
(and an auto-run checkbox) runs the step through a :class:`~smrnb.pipeline.Pipeline`; a progress
bar counts the stages being run; the :class:`~smrnb.pipeline.StepResult` record (counts before
and after, time, backend, device, notes) is shown; the output is drawn in a :class:`Viewer`.

Errors never escape a callback: they are written into the widget's own ``Output`` (message and
traceback) and the last good result, record and picture stay on screen.

Before a stage that would take long or allocate much (see :func:`smrnb.pipeline.estimate_step`: a cost
model of the step calibrated on its input), the widget shows the estimate and asks: **Run anyway**
runs it (and remembers the answer for these parameters), **Cancel** leaves everything as it was. The
estimate goes into the stage's record.
"""

from __future__ import annotations

import html
import io
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from smrnb._cancel import Stopped
from smrnb._errors import SmrnbTypeError, SmrnbValueError, is_friendly
from smrnb.pipeline import REGISTRY, NeedsConfirmation, Pipeline, Step, StepRegistry, get_step, needs_asking
from smrnb.widgets._display import StaticOutput, png_html, quiet_widgets, static_pictures, widget_bundle
from smrnb.widgets._viewer import Viewer

_VIEWABLE = ("points", "voxels", "tsdf", "mesh", "textured_mesh")


def _frame_png(frames: Any, index: int = 0, max_side: int = 320) -> bytes:
    """PNG of frame ``index``: its colour image, or its depth as grey levels (near = bright)."""
    from PIL import Image

    if frames.color is not None:
        img = frames.color[index].detach().cpu().numpy().astype(np.uint8)
    else:
        d = frames.depth[index].detach().cpu().numpy()
        valid = d > 0
        hi = float(d[valid].max()) if valid.any() else 1.0
        img = np.where(valid, 255 - np.clip(d / hi * 200, 0, 200), 0).astype(np.uint8)
    im = Image.fromarray(img)
    im.thumbnail((max_side, max_side))
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


#: a run that ends sooner than this never shows its "running" state: a bar flashing for a 10 ms re-run is one more
#: frame for the page to draw (in a browser without a GPU, on the CPUs the step runs on), and nothing to read
SHOW_RUNNING_AFTER = 0.15


class _RunningUI:
    """The "running" state of one :meth:`StepWidget.run` (the bar, the running stage in the status, the Run
    button disabled), put on screen by a timer once the run has lasted :data:`SHOW_RUNNING_AFTER`; what
    happens before that (stages started and done) is kept and shown with it. :meth:`end` stops it: from then
    on the caller owns those widgets again."""

    def __init__(self, w: StepWidget, total: int) -> None:
        self.w = w
        self.total = total
        self.done = 0
        self.name = ""
        self.shown = self.over = False
        self.lock = threading.Lock()
        self.timer = threading.Timer(SHOW_RUNNING_AFTER, self.show)
        self.timer.daemon = True
        self.timer.start()

    def _status(self) -> None:
        if self.name:
            self.w.progress.description = self.name[:12]
            self.w.status.value = f"<span style='color:#0b61a4'>running {html.escape(self.name)}...</span>"

    def show(self) -> None:
        with self.lock:
            if self.over:
                return
            self.shown = True
            bar = self.w.progress
            bar.max, bar.value, bar.bar_style = max(self.total, 1), self.done, "info"
            self._status()
            bar.layout.visibility = "visible"
            self.w.run_button.disabled = True

    def started(self, name: str) -> None:
        with self.lock:
            self.name = name
            if self.shown and not self.over:
                self._status()

    def stage_done(self, _record: Any) -> None:
        with self.lock:
            self.done += 1
            if self.shown and not self.over:
                self.w.progress.value = self.done

    def end(self) -> None:
        self.timer.cancel()
        with self.lock:
            self.over = True


class StepWidget(StaticOutput):
    """Controls, Run button, progress, result record, error area and viewer for one step.

    Parameters
    ----------
    step : str or Step
        A registered step name (``"voxelize"``) or a :class:`~smrnb.pipeline.Step`.
    data : optional
        The step's input (a PointCloud, Mesh, Frames...), ``"sample"``, a dataset folder or a
        file; ignored when ``pipeline`` is given.
    pipeline, stage : optional
        Drive stage ``stage`` (default: the step's name) of an existing pipeline instead (how
        :class:`ReconstructionApp` chains widgets); Run then runs everything stale up to here.
    params : dict, optional
        Starting parameter values (validated; unknown names raise).
    auto_run : bool
        Re-run after every parameter change.
    viewer_size : (width, height)
        Canvas size of the result viewer, CSS pixels.
    on_change, on_run : callables, optional
        ``on_change(stale_stage_names)`` after a parameter change, ``on_run(widget)`` after a run
        (successful or not).
    on_confirm : callable, optional
        ``on_confirm(widget)`` after **Run anyway** (default: :meth:`run` again); the app resumes its
        chain through it.
    """

    @quiet_widgets
    def __init__(self, step: Any, data: Any = None, *, pipeline: Any = None, stage: str | None = None,
                 params: dict[str, Any] | None = None, auto_run: bool = False,
                 viewer_size: tuple[int, int] = (560, 360),
                 on_change: Callable[[list[str]], None] | None = None,
                 on_run: Callable[[StepWidget], None] | None = None,
                 on_confirm: Callable[[StepWidget], None] | None = None) -> None:
        import ipywidgets as ipw

        if isinstance(step, str):
            step = get_step(step)
        if not isinstance(step, Step):
            raise SmrnbTypeError(f"step must be a step name or a Step, got {type(step).__name__}")
        self.step = step
        if pipeline is None:
            pipeline = Pipeline([(step.name, params or {})], source=data, registry=_registry_with(step))
            stage = step.name
        else:
            if not isinstance(pipeline, Pipeline):
                raise SmrnbTypeError(f"pipeline must be a Pipeline, got {type(pipeline).__name__}")
            stage = stage or step.name
            if stage not in pipeline.names:
                raise SmrnbValueError(f"stage {stage!r} is not in the pipeline; its stages: "
                                      f"{', '.join(pipeline.names) or '(none)'}")
            if params:
                pipeline.set_params(stage, **params)
        self.pipeline = pipeline
        self.stage = stage
        self.on_change = on_change
        self.on_run = on_run
        self.on_confirm = on_confirm
        #: the estimate waiting for the person's answer (None when not asking)
        self.awaiting: Any = None
        self._confirmed: set[str] = set()
        self.viewer_size = viewer_size
        self._chained = len(pipeline.names) > 1

        #: the last good output and its record (kept when a later run fails)
        self.result: Any = None
        self.record: Any = None
        #: the last error (None after a successful run)
        self.error: BaseException | None = None
        self._error_note = ""
        self.viewer: Any = None
        #: True while this step runs as part of a chain that goes on past it (the app's Run all): its
        #: result is drawn when its tab is shown (:meth:`reveal`), not while the next step's tab is on
        #: screen -- nobody sees it there, and drawing costs the kernel and a software-WebGL browser
        self.defer_view = False
        self._unshown = False  # a result that was not drawn yet
        self._view_lock = threading.RLock()
        self._error_from_control = False
        self._quiet = False  # True while the widget itself writes a control's value
        self._stopped = ""  # why the last run stopped on request ("" when it did not)
        #: True while an app runs its chain: the Run button stays disabled
        self.locked = False

        self._build_widgets(ipw, auto_run)

    def _build_widgets(self, ipw: Any, auto_run: bool) -> None:
        """The controls (one per parameter), the Run button, auto-run box, progress bar and status, the
        question asked before a long stage, the error area, the record and the preview; :attr:`widget` holds
        them all."""
        self.controls: dict[str, Any] = {}
        step, stage = self.step, self.stage
        current = self.pipeline.params(stage)
        for spec in step.params:
            self.controls[spec.name] = self._make_control(ipw, spec, current.get(spec.name))
        self.run_button = ipw.Button(description="Run to here" if self._chained else "Run", icon="play",
                                     button_style="primary", tooltip=f"run {stage} (and anything stale before it)")
        self.run_button.on_click(lambda _b: self.run())
        self.auto_run = ipw.Checkbox(value=bool(auto_run), description="auto-run", indent=False,
                                     layout=ipw.Layout(width="90px"))
        self.progress = ipw.IntProgress(value=0, min=0, max=1, description="", bar_style="",
                                        layout=ipw.Layout(width="160px", visibility="hidden"))
        self.status = ipw.HTML(value=self._status_html())
        self.record_html = ipw.HTML(value="")
        self.output = ipw.Output(layout=ipw.Layout(border="0"))
        self.confirm_html = ipw.HTML(value="")
        self.confirm_button = ipw.Button(description="Run anyway", icon="check", button_style="danger",
                                         tooltip="run it with these parameters despite the estimate")
        self.confirm_button.on_click(lambda _b: self.confirm())
        self.cancel_button = ipw.Button(description="Cancel", icon="times",
                                        tooltip="do not run; turn the knob the estimate names, then Run")
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.confirm_box = ipw.VBox([self.confirm_html, ipw.HBox([self.confirm_button, self.cancel_button])],
                                    layout=ipw.Layout(display="none"))
        self.confirm_box.add_class("smrnb-step-confirm")
        self.preview = ipw.Box()
        title = ipw.HTML(value=f"<b>{html.escape(stage)}</b> <span style='color:#666'>"
                               f"{html.escape(step.summary)} ({html.escape(step.signature_text())})</span>")
        #: what the stage is estimated to cost with the parameters now set (steps with a cost model, once
        #: their input is computed); updated after every parameter change
        self.estimate_html = ipw.HTML(value="")
        self.estimate_html.add_class("smrnb-step-estimate")
        self.widget = ipw.VBox([title, ipw.VBox(list(self.controls.values())),
                                ipw.HBox([self.run_button, self.auto_run, self.progress, self.status]),
                                self.estimate_html, self.confirm_box, self.output, self.record_html, self.preview])
        self.widget.add_class("smrnb-step")

    # ------------------------------------------------------------------------------ controls
    def _make_control(self, ipw: Any, spec: Any, value: Any) -> Any:
        desc = spec.widget()
        kwargs = dict(desc["kwargs"])
        tip = kwargs.pop("description_tooltip", None)
        kwargs["tooltip"] = tip
        if spec.unit:
            kwargs["description"] = f"{spec.name} ({spec.unit})"
        cls = getattr(ipw, desc["widget"])
        if desc["widget"] == "Text":
            kwargs["continuous_update"] = False
            kwargs["value"] = self._text_of(spec, value)
        elif value is not None:
            kwargs["value"] = value
        kwargs["style"] = {"description_width": "180px"}
        if desc["widget"] in ("FloatSlider", "FloatLogSlider", "IntSlider"):
            w = _range_control(ipw, cls, desc["widget"] == "IntSlider", kwargs)
        else:
            kwargs["layout"] = ipw.Layout(width="520px")
            w = cls(**kwargs)
        w.observe(lambda change, name=spec.name: self._on_control(name, change), names="value")
        return w

    @staticmethod
    def _text_of(spec: Any, value: Any) -> str:
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return f"{value:g}"
        return str(value)

    def _on_control(self, name: str, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        spec = self.step.param(name)
        value = change["new"]
        try:
            if isinstance(value, str) and (spec.kind not in ("str", "path") or
                                           (spec.optional and value.strip().lower() in ("none", "null"))):
                value = spec.parse(value, self.stage)
            self.set_params(**{name: value})
        except Exception as exc:  # shown in the widget, never lost; the box shows the value in use again
            kept = self.pipeline.params(self.stage).get(name)
            self._show_control(name, kept)
            self._show_error(exc, note=f"{name} keeps {self._text_of(spec, kept)}", from_control=True)
            return
        if self.auto_run.value:
            self.run()

    def _show_control(self, name: str, value: Any) -> None:
        """Show ``value`` in the control of ``name`` without running the control's handler."""
        w = self.controls[name]
        shown = self._text_of(self.step.param(name), value) if isinstance(w.value, str) else value
        if w.value != shown:
            self._quiet = True
            try:
                w.value = shown
            finally:
                self._quiet = False

    def set_params(self, **params: Any) -> list[str]:
        """Set parameters (validated), update the controls, mark this stage and later ones stale.

        Returns the stale stage names. Bad values raise (nothing changes). A successful change
        clears an error left by a refused control value (a failed run's error stays until the
        next run).
        """
        stale = self.pipeline.set_params(self.stage, **params)
        current = self.pipeline.params(self.stage)
        for name in params:
            self._show_control(name, current[name])
        if self.error is not None and self._error_from_control:
            self.error = None
            self._error_from_control = False
            self.output.outputs = ()
        self.status.value = self._status_html()
        if self.on_change is not None:
            self.on_change(stale)
        self.update_estimate()
        self._update_static()
        return stale

    def update_estimate(self) -> Any:
        """Estimate the stage with the parameters now set (its cost model, calibrated on its input) and say it
        under the Run button: ``estimate with these parameters: about 3 min and 2.1 GiB``. Nothing is said for
        a step without a cost model or while its input is not computed yet. Returns the estimate (or None)."""
        p = self.pipeline
        i = p.names.index(self.stage)
        est = None
        if p.stage(i).step.cost is not None and (i == 0 or not p.is_stale(i - 1)):
            try:
                est = p.estimate(i)
            except Exception:  # an estimate is a help, never an error of its own
                est = None
        if est is None:
            self.estimate_html.value = ""
            return None
        ask = " (it will ask before running)" if needs_asking(est) else ""
        self.estimate_html.value = (f"<span style='color:#555;font-size:90%'>estimate with these parameters: "
                                    f"{html.escape(est.text())}{ask}</span>")
        return est

    @property
    def params(self) -> dict[str, Any]:
        """The stage's current parameter values."""
        return self.pipeline.params(self.stage)

    # ----------------------------------------------------------------------------------- run
    @quiet_widgets
    def run(self) -> bool:
        """Run this stage (and the stale ones before it). Returns True on success.

        On failure the error (message and traceback) goes into :attr:`output`, :attr:`error` is
        set, and :attr:`result`, :attr:`record` and the viewer keep the last good run.
        """
        p = self.pipeline
        end = p.names.index(self.stage)
        todo = [n for n in p.names[:end + 1] if p.is_stale(n)]
        ui = _RunningUI(self, len(todo))
        ok = False
        self._stopped = ""
        self._hide_question()
        try:
            try:
                out = p.run(until=self.stage, on_start=ui.started, on_done=ui.stage_done,
                            on_estimate=self._on_estimate)
            finally:
                ui.end()  # from here on only this thread touches the bar, the button and the status
            self.result, self.record, self.error = out, p.record(self.stage), None
            self._error_from_control = False
            self.output.outputs = ()  # the only way outputs get here (no `with self.output:`): nothing else to clear
            if self.defer_view:
                with self._view_lock:
                    self._unshown = True
                if self.record is not None:
                    self.record_html.value = self.record._repr_html_()
            else:
                self._draw()
            self.progress.bar_style = "success"
            ok = True
        except Stopped as exc:  # stopped on request: not an error; the last good result stays
            self.progress.bar_style = "warning"
            self._stopped = str(exc)
        except NeedsConfirmation as exc:  # long or large: ask first; nothing ran, nothing changed
            self.progress.bar_style = "warning"
            self._ask(exc)
        except Exception as exc:
            self.progress.bar_style = "danger"
            self._show_error(exc)
        finally:
            self.progress.max = max(len(todo), 1)
            self.progress.value = ui.done
            self.run_button.disabled = self.locked
            self.progress.layout.visibility = "hidden" if ok else "visible"
            self.status.value = self._status_html()
        if self.on_run is not None:
            self.on_run(self)
        self._update_static()
        return ok

    # ------------------------------------------------------------------------- ask first
    def _key(self, stage: str) -> str:
        return f"{stage}:{sorted(self.pipeline.params(stage).items())!r}"

    def _on_estimate(self, stage: str, est: Any) -> None:
        if needs_asking(est) and self._key(stage) not in self._confirmed:
            raise NeedsConfirmation(stage, est)

    def _ask(self, exc: NeedsConfirmation) -> None:
        est = exc.estimate
        self.awaiting = exc
        over = est.budget_bytes and est.bytes > est.budget_bytes
        self.confirm_html.value = (
            f"<span style='color:#a15c00'>&#9888; step <b>{html.escape(exc.stage)}</b> is estimated at "
            f"<b>{html.escape(est.text())}</b>"
            + (" &mdash; over the memory budget: it will refuse" if over else "")
            + ". Run it anyway?</span><details style='color:#666;font-size:90%'><summary>how it was estimated"
            f"</summary>{html.escape(est.basis)}</details>")
        self.confirm_box.layout.display = "flex"

    def _hide_question(self) -> None:
        self.awaiting = None
        self.confirm_box.layout.display = "none"

    def confirm(self) -> None:
        """**Run anyway**: run the stage that is waiting (its parameters are remembered as confirmed)."""
        exc = self.awaiting
        if exc is None:
            return
        self._confirmed.add(self._key(exc.stage))
        self._hide_question()
        if self.on_confirm is not None:
            self.on_confirm(self)
        else:
            self.run()

    def cancel(self) -> None:
        """**Cancel**: do not run; the stage stays stale, the last good result stays on screen."""
        exc = self.awaiting
        self._hide_question()
        if exc is not None:
            self._stopped = f"cancelled ({exc.stage} estimated at {exc.estimate.text()})"
        self.status.value = self._status_html()

    def _show_error(self, exc: BaseException, *, note: str = "", from_control: bool = False) -> None:
        """The error in the status line. One smrnb raised on purpose (a refused value, a step that says
        which knob to turn) is that one line and nothing else; an unexpected one also puts its traceback
        in the output area below, to report."""
        self.error = exc
        self._error_from_control = from_control
        self._error_note = note
        if is_friendly(exc):
            self.output.outputs = ()
        else:
            tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
            self.output.outputs = ({"output_type": "error", "ename": type(exc).__name__,
                                    "evalue": f"{exc} ({note})" if note else str(exc),
                                    "traceback": [line.rstrip("\n") for line in "".join(tb).splitlines()]},)
        self.status.value = self._status_html()

    def _status_html(self) -> str:
        if self.error is not None:
            exc = self.error
            text = f"{exc} ({self._error_note})" if self._error_note else str(exc)
            head = "" if is_friendly(exc) else f"{type(exc).__name__}: "
            return f"<span class='smrnb-step-error' style='color:#b00020'>{html.escape(head + text)}</span>"
        if self.awaiting is not None:
            return ("<span class='smrnb-step-asking' style='color:#a15c00'>waiting for your answer: "
                    f"{html.escape(self.awaiting.stage)} estimated at {html.escape(self.awaiting.estimate.text())}</span>")
        if self._stopped and self.pipeline.is_stale(self.stage):
            return f"<span class='smrnb-step-stopped' style='color:#a15c00'>{html.escape(self._stopped)}: press Run</span>"
        if self.pipeline.is_stale(self.stage):
            note = " (parameters changed: press Run)" if self.record is not None else ""
            return f"<span style='color:#a15c00'>stale{note}</span>"
        return "<span style='color:#0a7d32'>up to date</span>"

    def refresh(self) -> None:
        """Update the status line (stale / up to date) after the pipeline changed elsewhere."""
        self.status.value = self._status_html()

    @quiet_widgets
    def _draw(self) -> None:
        """Draw the last good result now; its record's ``view_seconds`` is the time this took."""
        with self._view_lock:
            self._unshown = False
            if self.result is None:
                return
            t0 = time.perf_counter()
            self._show_result(self.result)
            if self.record is not None:
                self.record.view_seconds = time.perf_counter() - t0
                self.record_html.value = self.record._repr_html_()

    def reveal(self) -> bool:
        """Draw a result that was left undrawn while the step was off screen (see
        :attr:`defer_view`); the app calls this when the step's tab is shown. True if it drew."""
        if not self._unshown:
            return False
        self._draw()
        return True

    def prepare_viewer(self) -> Any:
        """This step's :class:`~smrnb.widgets.Viewer`, built now if it is not yet (not shown until a result
        is drawn in it); None when the step's output is not 3D. Building one makes the page load the
        three.js front end, a few tenths of a second in a browser without a GPU."""
        if self.step.output not in _VIEWABLE:
            return None
        if self.viewer is None:
            self.viewer = Viewer(width=self.viewer_size[0], height=self.viewer_size[1])
        return self.viewer

    @quiet_widgets
    def _show_result(self, out: Any) -> None:
        import ipywidgets as ipw

        kind = self.step.output
        if kind in _VIEWABLE:
            viewer = self.prepare_viewer()
            if self.preview.children != (viewer.widget,):
                self.preview.children = (viewer.widget,)
            viewer.show(out)
        elif kind == "frames":
            img = ipw.Image(value=_frame_png(out), format="png")
            self.preview.children = (ipw.VBox([img, ipw.HTML(f"<span style='color:#555'>first of {len(out)} "
                                                             f"frames</span>")]),)
        elif kind == "file":
            self.preview.children = (ipw.HTML(f"wrote <code>{html.escape(str(out))}</code>"),)
        else:
            self.preview.children = (ipw.HTML(f"<code>{html.escape(repr(out))}</code>"),)

    # -------------------------------------------------------------------------------- output
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        mode = static_pictures()
        if mode == "live":
            return self.widget._repr_mimebundle_(**kwargs)
        data = {"text/plain": repr(self), "text/html": self.static_html()}
        if mode == "both":
            data.update(widget_bundle(self.widget, **kwargs))
        return data

    def static_html(self) -> str:
        """The step as a static page fragment: title, parameters, status, record and a picture of
        the result (what nbconvert, the docs and GitHub show where no widget front end runs)."""
        self.reveal()
        rows = "".join(f"<tr><td><code>{html.escape(k)}</code></td><td>{html.escape(repr(v))}</td></tr>"
                       for k, v in self.params.items())
        parts = [f"<div class='smrnb-step-static'><b>{html.escape(self.stage)}</b> "
                 f"<span style='color:#666'>{html.escape(self.step.summary)}</span>",
                 f"<table style='font-size:90%'>{rows}</table>", f"<div>{self._status_html()}</div>"]
        if self.record is not None:
            parts.append(self.record._repr_html_())
        if self.viewer is not None and self.result is not None:
            parts.append(self.viewer.static_html("static picture of the result; run the notebook for the 3D view"))
        elif self.step.output == "frames" and self.result is not None:
            parts.append(png_html(_frame_png(self.result), f"first of {len(self.result)} frames"))
        parts.append("</div>")
        return "".join(parts)

    def __repr__(self) -> str:
        state = "failed" if self.error is not None else ("stale" if self.pipeline.is_stale(self.stage) else "done")
        return f"StepWidget({self.stage!r}, {state}, params={self.params})"


_RANGE_CONTROLS: dict[int, Any] = {}


def _range_control(ipw: Any, slider_cls: Any, integer: bool, kwargs: dict[str, Any]) -> Any:
    """A bounded number parameter: a slider to drag plus a number box to type into.

    The box is unbounded on purpose: ipywidgets' sliders and bounded boxes clamp what is typed
    (-0.05 would silently become the minimum); here an out-of-range value reaches the step's
    validation and is refused with the range, and the box shows the value in use again.
    ``value`` is the control's value; setting it behaves as typing it.
    """
    cls = _RANGE_CONTROLS.get(id(ipw))
    if cls is None:
        import traitlets

        class RangeControl(ipw.HBox):
            value = traitlets.Any()

            def __init__(self, slider: Any, box: Any) -> None:
                super().__init__([slider, box])
                self.slider, self.box = slider, box
                self._syncing = False
                self.value = slider.value
                slider.observe(self._from_part, names="value")
                box.observe(self._from_part, names="value")
                self.observe(self._to_parts, names="value")

            def _from_part(self, change: dict[str, Any]) -> None:
                if not self._syncing:
                    self.value = change["new"]

            def _to_parts(self, change: dict[str, Any]) -> None:
                self._syncing = True
                try:
                    v = change["new"]
                    if self.box.value != v:
                        self.box.value = v
                    lo, hi = self.slider.min, self.slider.max
                    if isinstance(self.slider, ipw.FloatLogSlider):
                        lo, hi = self.slider.base ** lo, self.slider.base ** hi
                    if lo <= v <= hi and self.slider.value != v:
                        self.slider.value = v
                finally:
                    self._syncing = False

        cls = _RANGE_CONTROLS[id(ipw)] = RangeControl
    slider_kwargs = {**kwargs, "continuous_update": False, "readout": False,
                     "layout": ipw.Layout(width="420px")}
    box_cls = ipw.IntText if integer else ipw.FloatText
    box = box_cls(value=kwargs.get("value", 0), continuous_update=False, tooltip=kwargs.get("tooltip"),
                  layout=ipw.Layout(width="96px"))
    return cls(slider_cls(**slider_kwargs), box)


def _registry_with(step: Any) -> Any:
    """smrnb's registry, or a one-step registry when ``step`` is not registered there."""
    if step.name in REGISTRY and REGISTRY.get(step.name) is step:
        return REGISTRY
    return StepRegistry([step])


__all__ = ["StepWidget"]
