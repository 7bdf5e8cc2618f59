# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Estimate and ask: a cost model of the step before it runs, the widget's Run anyway / Cancel, the record."""

from __future__ import annotations

import math

import pytest
import torch

import smrnb.pipeline._estimate as est_mod
from smrnb.geometry import PointCloud
from smrnb.pipeline import Pipeline, get_step
from smrnb.pipeline._estimate import Estimate, estimate_step, needs_asking
from smrnb.widgets import ReconstructionApp, StepWidget


def sphere_cloud(n: int = 20000, r: float = 1.0) -> PointCloud:
    g = torch.Generator().manual_seed(0)
    p = torch.randn(n, 3, generator=g)
    return PointCloud(p / p.norm(dim=1, keepdim=True) * r, frame="opengl")


@pytest.fixture
def ask_always(monkeypatch):
    """Every estimated step counts as long: the widget asks."""
    monkeypatch.setattr(est_mod, "ASK_SECONDS", -1.0)


def test_voxelize_estimate_counts_the_grid_the_step_builds():
    cloud = sphere_cloud()
    e = estimate_step(get_step("voxelize"), cloud, {"voxel_size": 0.05, "max_grid_size": 256})
    out = get_step("voxelize").resolve()(cloud, voxel_size=0.05, max_grid_size=256)
    shape = [int(x) for x in out.notes[0].split()[1:6:2]]  # "grid A x B x C at ..."
    assert e.units == {"voxels": math.prod(shape), "points": 20000}
    assert e.bytes == math.prod(shape) + 40 * 20000  # pointcloud_to_voxelgrid's own refusal estimate
    assert e.seconds > 0 and e.calibration_seconds > 0 and "measured at" in e.basis
    again = estimate_step(get_step("voxelize"), cloud, {"voxel_size": 0.02, "max_grid_size": 256})
    assert again.calibration_seconds == 0.0  # calibrated once per input
    assert again.units["voxels"] > 8 * e.units["voxels"]  # 2.5x finer: ~15x the voxels
    assert again.seconds > e.seconds


def test_no_model_no_estimate_and_small_steps_do_not_ask():
    assert estimate_step(get_step("clean"), sphere_cloud(100), {}) is None
    assert not needs_asking(None)
    small = Estimate("x", 0.5, 1 << 20, budget_bytes=8 << 30)
    assert not needs_asking(small)
    assert needs_asking(Estimate("x", 90.0, 1 << 20, budget_bytes=8 << 30))
    assert needs_asking(Estimate("x", 1.0, 5 << 30, budget_bytes=8 << 30))  # over half the budget
    assert needs_asking(Estimate("x", 1.0, 3 << 30, budget_bytes=64 << 30))  # over ASK_BYTES


def test_tsdf_estimate_predicts_blocks_at_a_size_it_did_not_probe():
    import smrnb

    frames = smrnb.load_sample(stride=10, max_frames=5)
    step = get_step("tsdf")
    params = {**step.defaults(), "voxel_size": 0.02, "depth_max": 4.0}
    e = estimate_step(step, frames, params)
    vol = step.resolve()(frames, **params)
    assert 0.6 < e.units["blocks"] / vol.num_blocks < 1.6, (e.units, vol.num_blocks)
    assert e.bytes >= vol.num_blocks * vol.bytes_per_block * 0.6


def test_the_record_carries_the_estimate():
    p = Pipeline([("voxelize", {"voxel_size": 0.1})], source=sphere_cloud())
    seen = []
    p.run(on_estimate=lambda name, e: seen.append((name, e)))
    assert [n for n, _ in seen] == ["voxelize"]
    rec = p.record("voxelize")
    assert rec.estimate == seen[0][1].to_dict() and rec.to_dict()["estimate"]["units"]["points"] == 20000
    assert "estimate" in rec._repr_html_()
    q = Pipeline([("voxelize", {"voxel_size": 0.1})], source=sphere_cloud())
    q.run()
    assert q.record("voxelize").estimate is None  # headless runs are not estimated unless asked


def test_widget_asks_then_runs_anyway(ask_always):
    w = StepWidget("voxelize", sphere_cloud(), params={"voxel_size": 0.1})
    assert w.run() is False
    assert w.awaiting is not None and w.confirm_box.layout.display == "flex"
    assert "is estimated at" in w.confirm_html.value and "Run it anyway?" in w.confirm_html.value
    # the question gives the figures; the formula behind them is folded away
    question, how = w.confirm_html.value.split("<details", 1)
    assert "measured at" not in question and "<summary>how it was estimated</summary>" in how and "measured at" in how
    assert "waiting for your answer" in w.status.value
    assert w.pipeline.is_stale("voxelize") and w.result is None and w.error is None
    w.confirm_button.click()
    assert w.awaiting is None and w.confirm_box.layout.display == "none"
    assert not w.pipeline.is_stale("voxelize") and w.record.estimate is not None
    assert "up to date" in w.status.value
    # the answer holds for these parameters; a new value asks again
    w.set_params(voxel_size=0.2)
    w.set_params(voxel_size=0.1)
    assert w.run() is True
    w.set_params(voxel_size=0.15)
    assert w.run() is False and w.awaiting is not None


def test_widget_cancel_changes_nothing(ask_always):
    w = StepWidget("voxelize", sphere_cloud(), params={"voxel_size": 0.1})
    w.run()
    w.cancel_button.click()
    assert w.awaiting is None and w.confirm_box.layout.display == "none"
    assert w.pipeline.is_stale("voxelize") and w.result is None and w.error is None
    assert "cancelled" in w.status.value


def test_app_stops_at_the_question_and_run_anyway_resumes_the_chain(ask_always, tmp_path):
    app = ReconstructionApp(sphere_cloud(), [("voxelize", {"voxel_size": 0.1}), "marching_cubes"], output_dir=tmp_path)
    assert app.run() is False
    assert "voxelize waits for your answer" in app.run_status.value
    assert app.tabs.selected_index == 0 and app.step("voxelize").awaiting is not None
    assert not app.run_all_button.disabled  # not busy while it waits
    app.step("voxelize").confirm_button.click()  # resumes in the background
    app._thread.join(60)
    assert not app._thread.is_alive()
    assert not app.pipeline.is_stale("marching_cubes")
    assert app.pipeline.record("voxelize").estimate is not None
    # the resumed chain ran past voxelize: drawn when its tab opens; the chain's last step at once
    vox, mc = app.step("voxelize"), app.step("marching_cubes")
    assert app.tabs.selected_index == 1 and mc.viewer.layers["main"] and vox.viewer is None
    app.tabs.selected_index = 0
    assert vox.viewer.layers["main"] and vox.record.view_seconds is not None


def test_side_by_side_leaves_both_pictures_without_a_front_end():
    from smrnb.widgets import Viewer, side_by_side

    a, b = Viewer(sphere_cloud(500), width=160, height=120), Viewer(sphere_cloud(800, 2.0), width=160, height=120)
    row = side_by_side(a, b)
    bundle = row._repr_mimebundle_()
    assert "smrnb-row" in bundle["text/html"] and bundle["text/html"].count("data:image/png;base64,") == 2
    assert row.widget.children == (a.widget, b.widget)


def test_the_limits_can_be_set_from_the_environment(monkeypatch):
    e = Estimate("x", 5.0, 1 << 20, budget_bytes=8 << 30)
    assert not needs_asking(e)
    monkeypatch.setenv("SMRNB_ASK_SECONDS", "2")
    assert needs_asking(e)
    monkeypatch.setenv("SMRNB_ASK_SECONDS", "soon")
    with pytest.raises(ValueError, match="SMRNB_ASK_SECONDS must be a number, got 'soon'"):
        needs_asking(e)


@pytest.fixture(scope="module")
def uv_chain():
    """The default chain's UV mesh and frames on a short stretch of the sample (texture's inputs)."""
    import smrnb
    from smrnb.widgets._app import DEFAULT_STEPS

    frames = smrnb.load_sample(stride=10, max_frames=6)
    p = Pipeline([s for s in DEFAULT_STEPS if s[0] != "texture"], source=frames)
    return p.run(), frames


def test_far_from_the_limits_a_quick_probe_is_the_estimate_near_them_a_fuller_one(uv_chain, monkeypatch):
    from smrnb.geometry import bake_memory_estimate

    mesh, frames = uv_chain
    step = get_step("texture")
    params = {**step.defaults(), "resolution": 256}
    est_mod._CACHE.clear()
    quick = estimate_step(step, mesh, params, {"frames": frames})
    assert "1 frame at 256^2" in quick.basis and quick.calibration_seconds > 0
    assert not est_mod._near_limits(quick)
    assert quick.bytes == bake_memory_estimate(mesh, 256)  # no peak RSS of a small probe: the bake's own figure
    assert estimate_step(step, mesh, params, {"frames": frames}).calibration_seconds == 0.0  # cached
    # limits low enough that the quick figure lands near them: the three-frame 512^2 calibration runs too,
    # and its cost adds to the record's calibration time only the first time
    monkeypatch.setenv("SMRNB_ASK_SECONDS", str(quick.seconds / est_mod.QUICK_SHARE / 2))
    full = estimate_step(step, mesh, params, {"frames": frames})
    assert "3 of the frames at 512^2" in full.basis and "measured (peak RSS)" in full.basis
    assert full.calibration_seconds > 0 and full.bytes >= bake_memory_estimate(mesh, 256)
    assert estimate_step(step, mesh, params, {"frames": frames}).calibration_seconds == 0.0
    # the same units either way: only the calibration differs
    assert full.units == quick.units == {"texels": 256 ** 2, "frames": len(frames), "faces": int(mesh.faces.shape[0])}


def test_the_estimate_line_follows_each_parameter_change():
    """A step with a cost model says what a run would cost with the values just set; the record's line is
    the figures (the formula folded away under 'how')."""
    w = StepWidget("voxelize", sphere_cloud())
    assert w.estimate_html.value == ""  # nothing asked yet
    w.set_params(voxel_size=0.1)
    coarse = w.update_estimate()
    assert coarse is not None and "estimate with these parameters: about" in w.estimate_html.value
    w.set_params(voxel_size=0.01)  # 10x finer: ~1000x the voxels
    fine_text = w.estimate_html.value
    assert fine_text != "" and w.update_estimate().units["voxels"] > 100 * coarse.units["voxels"]
    assert "measured at" not in fine_text  # figures, not the formula
    assert w.run()
    rec = w.record._repr_html_()
    assert "before the run; it took" in rec and "<details><summary>how</summary>" in rec
    assert StepWidget("fill_holes", None).estimate_html.value == ""  # no cost model: no line
