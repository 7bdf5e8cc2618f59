# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""ReconstructionApp driven without a browser: run to here, downstream-only reruns, config, export."""

from __future__ import annotations

import math
from html import unescape
from pathlib import Path

import pytest
import torch
import yaml

import smrnb.datasets
from smrnb.geometry import PointCloud
from smrnb.pipeline import load_config
from smrnb.widgets import ReconstructionApp
from smrnb.widgets._app import DEFAULT_SOURCE, DEFAULT_STEPS, OCCUPANCY_STEPS

SAMPLE_DIR = Path(smrnb.datasets.__file__).parent / "sample"

STEPS = [("voxelize", {"voxel_size": 0.1}), "marching_cubes", ("fill_holes", {"max_hole_edges": 10})]


def sphere_cloud(n: int = 4000, r: float = 1.0) -> PointCloud:
    g = torch.Generator().manual_seed(0)
    p = torch.randn(n, 3, generator=g)
    return PointCloud(p / p.norm(dim=1, keepdim=True) * r, frame="opengl")


@pytest.fixture
def app(tmp_path):
    return ReconstructionApp(sphere_cloud(), STEPS, output_dir=tmp_path)


def test_tabs_hold_every_step_in_order(app):
    assert [app.tabs.get_title(i) for i in range(3)] == ["1 voxelize", "2 marching_cubes", "3 fill_holes"]
    assert [w.stage for w in app.steps] == ["voxelize", "marching_cubes", "fill_holes"]
    assert all(w.pipeline is app.pipeline for w in app.steps)
    assert app.tabs.children == tuple(w.widget for w in app.steps)


def test_run_to_here_then_a_change_reruns_only_downstream(app):
    mc = app.step("marching_cubes")
    mc.run_button.click()  # "run to here": voxelize and marching_cubes, not fill_holes
    assert [app.pipeline.is_stale(n) for n in app.pipeline.names] == [False, False, True]
    vox_rec = app.pipeline.record("voxelize")
    assert app.run()
    assert app.pipeline.record("voxelize") is vox_rec  # cached, not re-run
    mc_rec = app.pipeline.record("marching_cubes")
    app.step("fill_holes").controls["refine"].value = False
    assert [app.pipeline.is_stale(n) for n in app.pipeline.names] == [False, False, True]
    assert "stale" in app.step("fill_holes").status.value and "up to date" in app.step("voxelize").status.value
    app.step("fill_holes").run_button.click()
    assert app.pipeline.record("marching_cubes") is mc_rec and app.pipeline.record("voxelize") is vox_rec
    app.step("voxelize").controls["voxel_size"].value = 0.2
    assert all(app.pipeline.is_stale(n) for n in app.pipeline.names)
    assert all("stale" in w.status.value for w in app.steps)


def test_failure_in_one_step_is_shown_there_and_stops_the_chain(app):
    assert app.run()
    good_mesh = app.step("fill_holes").result
    good_picture = app.step("fill_holes").viewer.layers["main"][0].positions
    app.pipeline.set_source(PointCloud(torch.zeros(0, 3)))  # voxelize refuses an empty cloud
    assert app.run() is False
    vox = app.step("voxelize")
    # an error smrnb raised on purpose: its one line in the status, no traceback anywhere
    assert vox.output.outputs == () and "points must not be empty, got 0 points" in vox.status.value
    assert "Traceback" not in vox.status.value and "Error:" not in vox.status.value
    assert app.tabs.selected_index == 0
    fh = app.step("fill_holes")  # later steps were not run and still show their last good result
    assert fh.error is None and fh.result is good_mesh
    assert fh.viewer.layers["main"][0].positions is good_picture


def test_save_and_load_params_round_trip_the_smrnb_run_config(app, tmp_path):
    app.step("voxelize").controls["voxel_size"].value = 0.15
    app.step("fill_holes").controls["fair"].value = False
    app.config_path.value = "params.yaml"
    app.save_button.click()
    cfg = load_config(tmp_path / "params.yaml")
    assert cfg["steps"][0]["params"]["voxel_size"] == pytest.approx(0.15)
    assert cfg["steps"][2]["params"] == {"max_hole_edges": 10, "fair": False}
    assert "saved parameters" in app.message.value
    app.run(until="marching_cubes")
    vox_rec = app.pipeline.record("voxelize")
    app.step("fill_holes").set_params(fair=True)
    app.step("marching_cubes").set_params(smooth=True)
    app.load_button.click()  # same steps: only what differs is set, the voxel grid stays cached
    assert app.step("fill_holes").params["fair"] is False and app.step("fill_holes").controls["fair"].value is False
    assert app.step("marching_cubes").params["smooth"] is False
    assert app.pipeline.record("voxelize") is vox_rec


def test_save_params_on_a_full_disk_keeps_the_old_file_and_says_so(tmp_path):
    from tests._fsize import run_with_file_size_limit

    old = tmp_path / "params.yaml"
    old.write_text("# the user's own params\n")
    code = ("import sys\nfrom smrnb.widgets import ReconstructionApp\napp = ReconstructionApp(output_dir=sys.argv[1])\n"
            "print('RESULT', app.save_params('params.yaml'))\nprint('MESSAGE', app.message.value)\n")
    r = run_with_file_size_limit(code, str(tmp_path), limit=60)
    assert r.returncode == 0 and "RESULT None" in r.stdout and "unchanged" in r.stdout, (r.stdout, r.stderr[-1500:])
    assert old.read_text() == "# the user's own params\n" and [p.name for p in tmp_path.iterdir()] == ["params.yaml"]


def test_load_params_with_other_steps_rebuilds_the_tabs(app, tmp_path):
    (tmp_path / "other.yaml").write_text(yaml.safe_dump({"steps": [{"step": "voxelize",
                                                                    "params": {"voxel_size": 0.3}},
                                                                   {"step": "marching_cubes"}]}))
    assert app.load_params("other.yaml")
    assert app.pipeline.names == ["voxelize", "marching_cubes"] and len(app.tabs.children) == 2
    assert app.step("voxelize").controls["voxel_size"].value == pytest.approx(0.3)
    assert app.run()


def test_load_params_error_is_shown_in_the_app(app):
    assert app.load_params("missing.yaml") is False
    assert "does not exist" in app.message.value and "missing.yaml" in app.message.value
    assert app.output.outputs == ()  # one line, no traceback


@pytest.mark.parametrize("fmt", ["glb", "obj", "ply"])
def test_export_writes_the_latest_mesh(app, tmp_path, fmt):
    import trimesh

    app.export_format.value = fmt
    app.export_path.value = "out/mesh"
    app.export_button.click()
    path = tmp_path / "out" / f"mesh.{fmt}"
    assert path.is_file(), app.message.value
    tm = trimesh.load(path, force="mesh", process=False)
    mesh = app.pipeline.result("fill_holes")
    assert len(tm.faces) == mesh.num_faces
    # a sphere of radius 1 (voxelized at 0.1 m): the export keeps its size
    r = float(torch.as_tensor(tm.vertices).norm(dim=1).mean())
    assert math.isclose(r, 1.0, rel_tol=0.1)
    assert "exported" in app.message.value


def test_source_box_switches_source_and_rejects_missing_folders(app, tmp_path):
    app.run()
    app.source_text.value = "/no/such/folder"
    app.source_button.click()
    assert "source must be 'sample' or an existing folder or file, got '/no/such/folder'" in unescape(app.message.value)
    assert app.output.outputs == () and "SmrnbValueError" not in app.message.value
    assert not app.pipeline.is_stale("voxelize")  # nothing changed
    other = ReconstructionApp(output_dir=tmp_path)
    other.source_text.value = str(SAMPLE_DIR)
    other.source_button.click()
    assert other.pipeline.source == str(SAMPLE_DIR) and other.output.outputs == ()
    other.source_text.value = "sample"
    other.source_button.click()
    assert other.pipeline.source == DEFAULT_SOURCE == {"path": "sample", "stride": 5}


def test_default_app_is_the_sample_pipeline(tmp_path):
    a = ReconstructionApp(output_dir=tmp_path)
    assert a.pipeline.names == [s[0] if isinstance(s, tuple) else s for s in DEFAULT_STEPS]
    assert a.source_text.value == "sample"
    with pytest.raises(Exception, match="give either config or source/steps, got both"):
        ReconstructionApp("sample", config=tmp_path / "x.yaml")


def test_default_app_is_the_demo_chain(tmp_path):
    from smrnb.pipeline import default_config_path, load_config

    a = ReconstructionApp(output_dir=tmp_path)
    demo = load_config(default_config_path())
    assert a.pipeline.names == [e["step"] for e in demo["steps"] if e["step"] != "export"]
    assert a.pipeline.names[:2] == ["tsdf", "extract_mesh"] and a.pipeline.names[-1] == "texture"
    assert a.step("tsdf").params["voxel_size"] == demo["steps"][0]["params"]["voxel_size"]
    lesson = ReconstructionApp(steps=OCCUPANCY_STEPS, output_dir=tmp_path)  # the occupancy lesson variant
    assert lesson.pipeline.names == ["points", "clean", "voxelize", "marching_cubes", "fill_holes"]


@pytest.mark.slow
def test_default_app_runs_on_the_bundled_sample(tmp_path):
    a = ReconstructionApp(output_dir=tmp_path)
    # the viewer Run all ends on exists from the start (the page loads three.js then), shown only with a result
    last = a.steps[-1]
    assert last.viewer is not None and not last.viewer.layers and last.preview.children == ()
    assert all(w.viewer is None for w in a.steps[:-1])
    assert a.run()
    assert last.preview.children == (last.viewer.widget,)
    mesh = a.pipeline.result(-1)
    assert mesh.num_faces > 1000 and mesh.texture is not None
    # the steps the chain ran past are drawn when their tab opens; the one it ended on at once
    assert a.tabs.selected_index == len(a.steps) - 1 and a.steps[-1].viewer.layers
    assert all(w.viewer is None and w.record.view_seconds is None for w in a.steps[:-1])
    for i, w in enumerate(a.steps[:-1]):
        a.tabs.selected_index = i
        assert w.viewer is not None and w.viewer.layers["main"], w.stage  # the TSDF tab too: voxels by weight
        assert w.record.view_seconds is not None and "to show" in w.record_html.value
    a.tabs.selected_index = 0  # drawn once: nothing left to draw
    assert not a.steps[0].reveal()
    fh = a.pipeline.record("fill_holes")  # the default repair step has something to do on the default data
    assert fh.counts_after["faces"] > fh.counts_before["faces"] and any("filled" in n for n in fh.notes)
    assert a.export("sample_mesh", "glb").is_file()


def test_without_a_live_front_end_the_app_is_a_static_page(app, monkeypatch):
    import ipywidgets

    monkeypatch.delenv("SMRNB_STATIC_PICTURES", raising=False)
    monkeypatch.setattr(ipywidgets.Widget, "_control_comm", None)
    assert app.run(until="marching_cubes")
    data = app._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in data
    page = data["text/html"]
    assert all(f"{i} {n}</summary>" in page for i, n in enumerate(app.pipeline.names, 1))
    assert page.count("data:image/png;base64,") == 2  # the two steps that ran: voxels and their mesh
    monkeypatch.setattr(ipywidgets.Widget, "_control_comm", object())
    assert "application/vnd.jupyter.widget-view+json" in app._repr_mimebundle_()


def test_run_all_shows_the_running_step_and_locks_the_buttons(app, monkeypatch):
    from smrnb.widgets._step import StepWidget

    seen = []
    original = StepWidget.run

    def spy(w):
        seen.append((w.stage, app.tabs.selected_index, app.run_all_button.disabled,
                     all(s.run_button.disabled for s in app.steps), app.run_status.value))
        return original(w)

    monkeypatch.setattr(StepWidget, "run", spy)
    assert app.run()
    assert [s[:4] for s in seen] == [("voxelize", 0, True, True), ("marching_cubes", 1, True, True),
                                     ("fill_holes", 2, True, True)]
    assert "running step 2 of 3: <b>marching_cubes</b>" in seen[1][4]
    assert not app.run_all_button.disabled and not any(s.run_button.disabled for s in app.steps)
    assert app.stop_button.disabled and "3 step(s) ran" in app.run_status.value


def test_stop_ends_the_running_step_between_frames_and_keeps_the_last_good_result(tmp_path, request):
    import threading

    from smrnb import _cancel
    from smrnb.geometry import fuse_tsdf

    a = ReconstructionApp(steps=["tsdf", "extract_mesh"], output_dir=tmp_path)
    assert a.run()
    good = a.pipeline.result("tsdf")
    real = fuse_tsdf
    second_frame, done = threading.Event(), []

    def slow_fuse(frames, **kw):
        for i in range(len(frames)):
            _cancel.check(f"at frame {i}")
            done.append(i)
            if i == 1:
                second_frame.set()
            threading.Event().wait(0.2)
        return real(frames, **kw)

    resolved = a.step("tsdf").step._resolved  # the registered step's resolved function, put back afterwards
    request.addfinalizer(lambda kept=list(resolved): resolved.__setitem__(slice(None), kept))
    resolved[:] = [slow_fuse]
    a.step("tsdf").set_params(voxel_size=0.05)
    t = a.run_in_background()
    assert t is not None and a.run_all_button.disabled
    assert a.run_in_background() is None  # one run at a time
    assert second_frame.wait(30)
    assert not a.stop_button.disabled
    a.stop()
    t.join(30)
    assert not t.is_alive() and 2 <= len(done) < 15
    w = a.step("tsdf")
    assert a.pipeline.is_stale("tsdf") and w.error is None and w.result is good  # nothing half-done is kept
    assert "stopped on request at frame" in w.status.value and "stopped on request" in a.run_status.value
    assert not a.run_all_button.disabled and a.stop_button.disabled and not w.run_button.disabled


def test_the_default_chain_is_the_validated_demo_config_read_on_first_use():
    import subprocess
    import sys

    code = ("import smrnb.widgets, smrnb.pipeline._config as c; print(c._default_config.cache_info().currsize); "
            "from smrnb.widgets._app import DEFAULT_STEPS; print(c._default_config.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[2]).stdout.split()
    assert out == ["0", "1"]  # importing the widgets reads no config; the first use reads (and validates) it
    from smrnb.pipeline import default_config

    assert [s for s, _ in DEFAULT_STEPS] == [e["step"] for e in default_config()["steps"] if e["step"] != "export"]
