# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""StepWidget driven without a browser: controls from the specs, handlers, errors kept in the widget."""

from __future__ import annotations

from html import unescape

import ipywidgets as ipw
import pytest
import torch

from smrnb._errors import SmrnbTypeError, SmrnbValueError
from smrnb.geometry import Mesh, PointCloud
from smrnb.pipeline import ParamSpec, Pipeline, Step, StepRegistry, get_step
from smrnb.widgets import StepWidget


def grid_cloud(n: int = 10, spacing: float = 0.1) -> PointCloud:
    ax = torch.arange(n, dtype=torch.float32) * spacing
    g = torch.stack(torch.meshgrid(ax, ax, ax, indexing="ij"), -1).reshape(-1, 3)
    return PointCloud(g, frame="opengl")


def scale(points, *, factor: float = 1.0, explode: bool = False):
    if explode:
        raise RuntimeError("the scale step exploded on purpose")
    return PointCloud(points.points * factor, frame=points.frame)


SCALE = Step("scale", scale, "multiply coordinates", ("points",), "points",
             params=(ParamSpec("factor", 1.0, "float", (0.1, 10.0), 0.1, unit="x", help="multiplier"),
                     ParamSpec("explode", False, "bool", help="fail on purpose")))


def test_controls_are_generated_from_the_param_specs():
    w = StepWidget("clean", grid_cloud(3))
    c = w.controls
    assert list(c) == [p.name for p in get_step("clean").params]
    assert isinstance(c["drop_invalid"], ipw.Checkbox) and c["drop_invalid"].value is True
    assert isinstance(c["voxel_size"], ipw.Text) and c["voxel_size"].value == "none"  # optional -> text box
    s = c["std_ratio"].slider  # a bounded number: slider to drag + unbounded box to type into
    assert isinstance(s, ipw.FloatSlider) and s.readout is False
    assert (s.min, s.max, s.value, c["std_ratio"].value) == (0.1, 10.0, 2.0, 2.0)
    assert isinstance(c["std_ratio"].box, ipw.FloatText) and c["std_ratio"].box.value == 2.0
    assert "radius (m)" == c["radius"].slider.description
    tip = c["radius"].slider.tooltip
    assert "unit" not in tip and " m" in tip and "radius of that search" in tip
    v = StepWidget("voxelize", grid_cloud(3)).controls
    assert isinstance(v["voxel_size"].slider, ipw.FloatLogSlider) and v["voxel_size"].value == pytest.approx(0.02)
    assert isinstance(v["max_grid_size"].slider, ipw.IntSlider) and v["max_grid_size"].slider.max == 1024
    assert isinstance(v["max_grid_size"].box, ipw.IntText)
    assert "halving it gives 8x the voxels" in v["voxel_size"].slider.tooltip
    e = StepWidget("export", None).controls
    assert isinstance(e["path"], ipw.Text) and e["path"].value == "mesh.ply"


def test_run_shows_the_record_and_the_result_and_slider_changes_reach_the_pipeline():
    w = StepWidget("voxelize", grid_cloud(10), params={"voxel_size": 0.1})
    assert w.pipeline.is_stale("voxelize") and "stale" in w.status.value
    assert w.run() is True
    assert w.record.counts_before == {"points": 1000} and w.record.counts_after == {"voxels": 1000}
    assert "1,000 voxels" in w.record_html.value and "torch CPU" in w.record_html.value
    assert w.progress.value == w.progress.max == 1 and w.progress.bar_style == "success"
    # voxels are drawn as cubes (the exposed faces of a 10^3 block: 6 x 100 quads); the viewer's toggle gives dots
    assert w.viewer is not None and "mesh 2,400 vertices, 1,200 faces" in repr(w.viewer)
    w.viewer.voxel_mode.value = "points"
    assert "points 1,000 points" in repr(w.viewer)
    assert w.preview.children == (w.viewer.widget,)
    renderer = w.viewer.renderer
    w.controls["voxel_size"].value = 0.2  # a slider move goes through the handler into the pipeline
    assert w.params["voxel_size"] == pytest.approx(0.2) and w.pipeline.is_stale("voxelize")
    assert "press Run" in w.status.value
    w.run_button.click()
    assert w.record.counts_after["voxels"] < 1000 and w.viewer.renderer is renderer
    assert "up to date" in w.status.value


def test_auto_run_reruns_after_a_change():
    w = StepWidget(SCALE, grid_cloud(2), auto_run=True)
    w.run()
    first = w.result
    w.controls["factor"].value = 2.0
    assert w.result is not first
    torch.testing.assert_close(w.result.points, first.points * 2)


def test_a_failing_step_shows_its_error_inside_the_widget_and_keeps_the_last_good_result():
    w = StepWidget(SCALE, grid_cloud(2), params={"factor": 3.0})
    assert w.run()
    good, good_rec, shown = w.result, w.record, w.viewer.layers["main"][0].positions.copy()
    w.controls["explode"].value = True  # the handler sets the parameter; Run then fails
    assert w.run_button.click() is None and w.error is not None
    (out,) = w.output.outputs
    assert out["output_type"] == "error" and out["ename"] == "StepError"
    assert "the scale step exploded on purpose" in out["evalue"]
    assert any("RuntimeError: the scale step exploded on purpose" in line for line in out["traceback"])
    assert "exploded on purpose" in w.status.value and w.progress.bar_style == "danger"
    assert w.result is good and w.record is good_rec
    assert (w.viewer.layers["main"][0].positions == shown).all()
    assert "3" in w.record_html.value or "8 points" in w.record_html.value
    w.controls["explode"].value = False  # fixing the knob and re-running clears the error
    assert w.run() and w.error is None and w.output.outputs == ()


def test_bad_text_input_is_reported_in_the_widget_and_changes_nothing():
    w = StepWidget("clean", grid_cloud(2))
    before = w.params
    w.controls["voxel_size"].value = "abc"
    assert w.output.outputs == ()  # refused on purpose: one line in the status, no traceback
    assert "step 'clean' parameter 'voxel_size' must be a number, got 'abc'" in unescape(w.status.value)
    assert w.params == before
    w.controls["voxel_size"].value = "0.05"
    assert w.params["voxel_size"] == pytest.approx(0.05)
    w.controls["voxel_size"].value = "none"
    assert w.params["voxel_size"] is None


def test_set_params_updates_controls_and_validates():
    w = StepWidget(SCALE, grid_cloud(2))
    w.set_params(factor=4.0)
    assert w.controls["factor"].value == pytest.approx(4.0)
    with pytest.raises(SmrnbValueError, match="step 'scale' parameter 'factor' must be in \\[0.1, 10\\] x, got 50"):
        w.set_params(factor=50)
    assert w.params["factor"] == pytest.approx(4.0)


def test_stage_of_a_shared_pipeline_runs_to_here():
    reg = StepRegistry([SCALE, Step("scale2", scale, "again", ("points",), "points",
                                    params=SCALE.params)])
    p = Pipeline(["scale", ("scale2", {"factor": 2.0})], source=grid_cloud(2), registry=reg)
    changes = []
    w2 = StepWidget(reg.get("scale2"), pipeline=p, on_change=changes.append)
    assert w2.run_button.description == "Run to here"
    assert w2.run() and not p.is_stale("scale") and w2.progress.max == 2
    w2.set_params(factor=3.0)  # downstream only: the stage before stays cached
    assert changes == [["scale2"]] and not p.is_stale("scale") and p.is_stale("scale2")
    assert w2.run() and w2.progress.max == 1
    w1 = StepWidget(reg.get("scale"), pipeline=p)
    assert w1.set_params(factor=5.0) == ["scale", "scale2"]
    assert "stale" in w2._status_html()
    with pytest.raises(SmrnbValueError, match="stage 'nope' is not in the pipeline; its stages: scale, scale2"):
        StepWidget(SCALE, pipeline=p, stage="nope")
    with pytest.raises(SmrnbTypeError, match="step must be a step name or a Step, got int"):
        StepWidget(3)


def test_frames_output_shows_the_first_frame():
    from smrnb.geometry import Frames

    depth = torch.full((3, 8, 10), 2.0)
    color = torch.zeros(3, 8, 10, 3, dtype=torch.uint8)
    color[..., 0] = 200
    fr = Frames(depth, torch.tensor([[10.0, 0, 5], [0, 10.0, 4], [0, 0, 1]]), color=color,
                poses=torch.eye(4).repeat(3, 1, 1))
    w = StepWidget("select_frames", fr, params={"every": 2})
    assert w.run() and w.record.counts_after == {"frames": 2}
    img = w.preview.children[0].children[0]
    assert isinstance(img, ipw.Image) and img.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_out_of_range_typed_values_are_refused_with_the_range_never_clamped():
    w = StepWidget("voxelize", grid_cloud(3))
    c = w.controls["voxel_size"]
    c.box.value = -0.05  # typed into the number box: a slider would clamp it to its minimum
    assert w.params["voxel_size"] == pytest.approx(0.02)
    assert w.output.outputs == ()
    assert "parameter 'voxel_size' must be in" in unescape(w.status.value) and "got -0.05" in w.status.value
    assert "voxel_size keeps 0.02" in w.status.value and "Traceback" not in w.status.value
    assert c.value == pytest.approx(0.02) and c.box.value == pytest.approx(0.02)  # the box shows what is used
    assert c.slider.value == pytest.approx(0.02)
    g = w.controls["max_grid_size"]
    g.value = 0  # an int below the slider's minimum is refused too, not raised to the minimum
    assert w.params["max_grid_size"] == get_step("voxelize").param("max_grid_size").default
    assert "got 0" in w.status.value
    c.slider.value = 0.1  # dragging the slider works and reaches the box
    assert w.params["voxel_size"] == pytest.approx(0.1) and c.box.value == pytest.approx(0.1)


def test_a_corrected_value_clears_the_old_error():
    w = StepWidget("fill_holes", None)
    ctl = w.controls["max_hole_edges"]
    ctl.value = "0" if isinstance(ctl.value, str) else 0
    assert w.error is not None and "got 0" in w.status.value
    ctl.value = "40" if isinstance(ctl.value, str) else 40
    assert w.error is None and w.output.outputs == ()
    assert "got 0" not in w.status.value and "stale" in w.status.value
    assert w.params["max_hole_edges"] == 40


def test_rejected_text_does_not_stay_in_the_box():
    w = StepWidget("clean", grid_cloud(2))
    w.controls["voxel_size"].value = "0.05"
    w.controls["voxel_size"].value = "abc"
    assert w.controls["voxel_size"].value == "0.05"  # the box shows the value Run will use
    assert "voxel_size keeps 0.05" in w.status.value
    assert w.run() and "up to date" in w.status.value and w.params["voxel_size"] == pytest.approx(0.05)


def test_set_params_keeps_the_users_observers():
    w = StepWidget(SCALE, grid_cloud(2))
    seen = []
    w.controls["factor"].observe(lambda ch: seen.append(ch["new"]), names="value")
    w.set_params(factor=4.0)
    w.controls["factor"].value = 5.0
    assert seen == [4.0, 5.0] and w.params["factor"] == pytest.approx(5.0)


def test_without_a_live_front_end_a_step_shows_a_static_picture(monkeypatch):
    import ipywidgets

    monkeypatch.delenv("SMRNB_STATIC_PICTURES", raising=False)
    monkeypatch.setattr(ipywidgets.Widget, "_control_comm", None)
    w = StepWidget("voxelize", grid_cloud(6), params={"voxel_size": 0.1})
    data = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in data and "stale" in data["text/html"]
    assert "<img" not in data["text/html"]  # nothing run yet: no picture
    assert w.run()
    html_ = w._repr_mimebundle_()["text/html"]
    assert "voxel_size" in html_ and "up to date" in html_ and "data:image/png;base64," in html_
    monkeypatch.setattr(ipywidgets.Widget, "_control_comm", object())
    assert "application/vnd.jupyter.widget-view+json" in w._repr_mimebundle_()


def test_the_record_counts_the_time_spent_showing_the_result(monkeypatch):
    w = StepWidget("voxelize", grid_cloud(6), params={"voxel_size": 0.1})
    from smrnb.widgets import _viewer

    show = _viewer.Viewer.show

    def slow_show(self, *a, **k):
        import time

        time.sleep(0.3)  # a viewer conversion the person waits for
        return show(self, *a, **k)

    monkeypatch.setattr(_viewer.Viewer, "show", slow_show)
    assert w.run()
    rec = w.record
    assert rec.view_seconds >= 0.3 and rec.waited_seconds == pytest.approx(rec.seconds + rec.view_seconds)
    assert "to show" in w.record_html.value and "waited" in w.record_html.value
    assert "waited" in str(rec) and rec.to_dict()["view_seconds"] == rec.view_seconds


def test_a_quick_run_never_flashes_its_running_state_a_long_one_shows_it_while_running(monkeypatch):
    import threading

    from smrnb.widgets import _step

    gate = threading.Event()
    seen_running: list[tuple] = []

    def slow_scale(points, *, factor: float = 1.0, explode: bool = False):
        if factor == 3.0:  # the long run: wait until the test has seen the running state
            assert gate.wait(10)
        return PointCloud(points.points * factor, frame=points.frame)

    step = Step("scale", slow_scale, "multiply coordinates", ("points",), "points",
                params=(ParamSpec("factor", 1.0, "float", (0.1, 10.0), 0.1), ParamSpec("explode", False, "bool")))
    w = StepWidget(step, grid_cloud(3))
    changes: list[str] = []
    w.progress.layout.observe(lambda c: changes.append(f"bar {c['new']}"), "visibility")
    w.run_button.observe(lambda c: changes.append(f"button disabled={c['new']}"), "disabled")
    assert w.run() and changes == []  # done well under SHOW_RUNNING_AFTER: nothing flashed, nothing sent
    assert w.progress.value == w.progress.max == 1 and w.progress.bar_style == "success"
    monkeypatch.setattr(_step, "SHOW_RUNNING_AFTER", 0.05)
    w.set_params(factor=3.0)
    t = threading.Thread(target=w.run)
    t.start()
    for _ in range(200):  # the running state appears while the step still waits
        if "running scale" in w.status.value:
            seen_running.append((w.progress.layout.visibility, w.run_button.disabled, w.progress.bar_style))
            break
        threading.Event().wait(0.01)
    gate.set()
    t.join(10)
    assert seen_running == [("visible", True, "info")]
    assert changes == ["bar visible", "button disabled=True", "button disabled=False", "bar hidden"]
    assert "up to date" in w.status.value and w.progress.bar_style == "success"


def test_fill_holes_says_one_short_line_and_folds_every_hole_under_show_all():
    """Many holes: the record's note is one line of counts and ranges, and every hole's size is in the
    record's HTML folded under 'show all' (left out of the text form), not a wall of numbers."""
    import trimesh

    tm = trimesh.creation.icosphere(3)
    faces = torch.tensor(tm.faces, dtype=torch.int64)
    # faces sharing no vertex: each removed one opens its own 3-edge hole
    used, drop = set(), []
    for i, f in enumerate(tm.faces.tolist()):
        if used.isdisjoint(f):
            used.update(f)
            drop.append(i)
    keep = torch.ones(len(faces), dtype=torch.bool)
    keep[drop] = False
    w = StepWidget("fill_holes", Mesh(torch.tensor(tm.vertices, dtype=torch.float32), faces[keep]))
    assert w.run()
    rec = w.record
    assert len(drop) > 100 and rec.counts_after["faces"] == len(faces)  # every hole filled
    (note,) = rec.notes
    assert note.startswith(f"fill_holes: {len(drop)} holes found, {len(drop)} filled (3 edges)"), note
    assert "[" not in note and len(note) < 250, note
    every = "hole sizes in edges: found [" + ", ".join(["3"] * len(drop)) + "]"
    assert rec.details and rec.details[0].startswith(every)
    page = unescape(w.record_html.value)
    assert page.index("<summary>show all</summary>") < page.index(every)
    assert "hole sizes" not in str(rec)
