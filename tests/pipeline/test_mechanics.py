# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The generic pipeline mechanics on a test-local registry: caching, downstream-only invalidation,
run-to-here, failures keeping earlier results, validation messages, result records."""

from __future__ import annotations

import warnings

import pytest
import torch

from smrnb import MemoryEstimateError, PointCloud, SmrnbTypeError, SmrnbValueError
from smrnb.geometry import Mesh
from smrnb.pipeline import (
    ParamSpec,
    Pipeline,
    Step,
    StepError,
    StepMemoryError,
    StepOutput,
    StepRegistry,
    StepResult,
    StepValueError,
)

CALLS: list[str] = []


def scale(pc, *, factor=2.0):
    CALLS.append("scale")
    return PointCloud(pc.points * factor)


def crop(pc, *, keep=10, fail=False):
    CALLS.append("crop")
    if fail:
        raise SmrnbValueError("keep is fine but fail=True was asked for")
    return PointCloud(pc.points[:keep])


def hungry(pc, *, budget_mb=1):
    CALLS.append("hungry")
    need = pc.points.numel() * 4 * 1000
    if need > budget_mb * 2**20:
        raise MemoryEstimateError("hungry needs too much", estimate_bytes=need, budget_bytes=budget_mb * 2**20,
                                  knob="budget_mb")
    return pc


def hull(pc, *, mode="tet"):
    CALLS.append("hull")
    p = pc.points[:4]
    warnings.warn("hull is a toy tetrahedron of the first 4 points", UserWarning, stacklevel=2)
    return StepOutput(Mesh(p, torch.tensor([[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]])),
                      notes=[f"mode {mode}"], backend="test backend")


def texture_like(mesh, *, points, gain=1.0):
    CALLS.append("texture_like")
    return mesh.replace(meta={"n_side": len(points)})


def _registry() -> StepRegistry:
    return StepRegistry([
        Step("scale", scale, "multiply coordinates", ("points",), "points",
             (ParamSpec("factor", 2.0, "float", (0.1, 10.0), 0.1, unit="x", help="scale factor"),)),
        Step("crop", crop, "keep the first points", ("points",), "points",
             (ParamSpec("keep", 10, "int", (1, 1000), help="points kept"),
              ParamSpec("fail", False, "bool", help="fail on purpose"))),
        Step("hungry", hungry, "refuses big inputs", ("points",), "points",
             (ParamSpec("budget_mb", 1, "int", (1, 1000), unit="MiB"),), memory_hungry=True),
        Step("hull", hull, "a toy mesh", ("points",), "mesh",
             (ParamSpec("mode", "tet", "choice", choices=("tet", "box")),)),
        Step("texture_like", texture_like, "uses an extra input", ("mesh",), "mesh",
             (ParamSpec("gain", 1.0, "float", (0.0, 5.0)),), extra_inputs=("points",)),
    ])


@pytest.fixture()
def source():
    torch.manual_seed(0)
    return PointCloud(torch.rand(100, 3))


@pytest.fixture()
def pipe(source):
    CALLS.clear()
    return Pipeline(["scale", ("crop", {"keep": 20}), "hull"], source=source, registry=_registry())


def test_run_caches_and_reports(pipe, source):
    mesh = pipe.run()
    assert CALLS == ["scale", "crop", "hull"]
    assert isinstance(mesh, Mesh) and mesh.num_vertices == 4
    torch.testing.assert_close(mesh.vertices, source.points[:4] * 2.0)
    pipe.run()
    assert CALLS == ["scale", "crop", "hull"]  # nothing stale, nothing re-run
    recs = pipe.records
    assert [r.step for r in recs] == ["scale", "crop", "hull"]
    assert recs[0].counts_before == {"points": 100} and recs[0].counts_after == {"points": 100}
    assert recs[1].counts_after == {"points": 20}
    assert recs[2].counts_after == {"vertices": 4, "faces": 4}
    assert recs[2].backend == "test backend" and recs[0].backend == "torch CPU"
    assert recs[0].device == "cpu"
    assert recs[2].notes == ["mode tet"]
    assert recs[2].warnings == ["UserWarning: hull is a toy tetrahedron of the first 4 points"]
    assert all(r.seconds >= 0 and r.ok for r in recs)


def test_set_params_invalidates_downstream_only(pipe):
    pipe.run()
    CALLS.clear()
    stale = pipe.set_params("crop", keep=5)
    assert stale == ["crop", "hull"]
    assert not pipe.is_stale("scale") and pipe.is_stale("crop") and pipe.is_stale("hull")
    pipe.run()
    assert CALLS == ["crop", "hull"]
    assert pipe.record("crop").counts_after == {"points": 5}
    # the same value again changes nothing
    CALLS.clear()
    assert pipe.set_params("crop", keep=5) == []
    pipe.run()
    assert CALLS == []


def test_run_to_here_runs_only_up_to_until(pipe):
    out = pipe.run(until="crop")
    assert CALLS == ["scale", "crop"]
    assert len(out) == 20
    assert pipe.is_stale("hull") and pipe.result("hull") is None
    pipe.run(until=2)
    assert CALLS == ["scale", "crop", "hull"]


def test_failure_names_step_and_keeps_earlier_results(pipe):
    pipe.run()
    good_mesh = pipe.result("hull")
    pipe.set_params("crop", fail=True)
    with pytest.raises(StepValueError, match=r"step 'crop' failed: keep is fine but fail=True") as ei:
        pipe.run()
    assert ei.value.step == "crop"
    assert isinstance(ei.value, SmrnbValueError) and isinstance(ei.value, StepError)
    assert not pipe.is_stale("scale")  # earlier result kept
    assert pipe.result("crop") is None and pipe.result("hull") is None
    assert pipe.last_failed is not None and not pipe.last_failed.ok and "fail=True" in pipe.last_failed.error
    assert "crop" in str(pipe.last_failed) and "FAILED" in str(pipe.last_failed)
    assert good_mesh.num_faces == 4  # the caller's last good object is untouched
    CALLS.clear()
    pipe.set_params("crop", fail=False)
    pipe.run()
    assert CALLS == ["crop", "hull"] and pipe.last_error is None


def test_memory_estimate_error_surfaces_with_knob(source):
    p = Pipeline(["scale", "hungry"], source=source, registry=_registry())
    with pytest.raises(StepMemoryError) as ei:
        p.run()
    e = ei.value
    assert isinstance(e, MemoryEstimateError) and e.knob == "budget_mb" and e.step == "hungry"
    assert "step 'hungry' refused to run" in str(e) and "turn 'budget_mb'" in str(e) and "--budget-mb" in str(e)
    assert e.estimate_bytes == 100 * 3 * 4 * 1000
    p.set_params("hungry", budget_mb=2)
    p.run()
    assert p.record("hungry").ok


def test_non_smrnb_exception_is_wrapped(source):
    def boom(pc):
        raise ZeroDivisionError("division by zero in boom")

    reg = StepRegistry([Step("boom", boom, "fails", ("points",), "points")])
    p = Pipeline(["boom"], source=source, registry=reg)
    with pytest.raises(StepError, match=r"step 'boom' failed: ZeroDivisionError: division by zero") as ei:
        p.run()
    assert isinstance(ei.value.__cause__, ZeroDivisionError)


def test_extra_inputs_come_from_upstream(source):
    p = Pipeline([("crop", {"keep": 30}), "hull", "texture_like"], source=source, registry=_registry())
    out = p.run()
    assert out.meta["n_side"] == 30  # the latest upstream points: crop's output, not the source


def test_side_inputs_feed_extra_inputs(source):
    mesh = Mesh(source.points[:4], torch.tensor([[0, 1, 2]]))
    p = Pipeline(["texture_like"], source=mesh, registry=_registry(), side_inputs={"points": source})
    assert p.run().meta["n_side"] == 100
    p2 = Pipeline(["texture_like"], source=mesh, registry=_registry())
    with pytest.raises(StepValueError, match="needs points but neither the source nor an earlier step"):
        p2.run()


def test_validation_messages_name_step_and_parameter(source):
    reg = _registry()
    with pytest.raises(SmrnbValueError, match=r"step 'crop' parameter 'keep' must be in \[1, 1000\], got 0"):
        Pipeline([("crop", {"keep": 0})], source=source, registry=reg)
    p = Pipeline(["scale", "crop"], source=source, registry=reg)
    with pytest.raises(SmrnbTypeError, match=r"step 'crop' parameter 'keep' must be an integer, got 2.5"):
        p.set_params("crop", keep=2.5)
    with pytest.raises(SmrnbTypeError, match=r"step 'crop' parameter 'fail' must be true or false, got str 'yes'"):
        p.set_params("crop", fail="yes")
    with pytest.raises(SmrnbValueError, match=r"step 'scale' parameter 'factor' must be in \[0.1, 10\] x, got 11"):
        p.set_params("scale", factor=11)
    with pytest.raises(SmrnbValueError, match=r"step 'scale' has no parameter\(s\) 'factr'; its parameters are: factor"):
        p.set_params("scale", factr=1.0)
    with pytest.raises(SmrnbValueError, match=r"step 'hull' parameter 'mode' must be one of 'tet', 'box', got 'ball'"):
        Pipeline([("hull", {"mode": "ball"})], registry=reg)
    with pytest.raises(SmrnbValueError, match=r"unknown stage 'hul'; this pipeline's stages: scale, crop"):
        p.set_params("hul", mode="box")
    with pytest.raises(SmrnbValueError, match=r"unknown step 'scal'; registered steps: scale, crop"):
        Pipeline(["scal"], registry=reg)
    with pytest.raises(SmrnbValueError, match=r"step 'scale' takes points but the step before it \('hull'\) gives mesh"):
        Pipeline(["hull", "scale"], registry=reg)
    with pytest.raises(SmrnbValueError, match=r"stage name 'scale' is used twice"):
        Pipeline(["scale", "scale"], registry=reg)
    with pytest.raises(SmrnbValueError, match=r"step 'scale' takes points but the source gives mesh"):
        Pipeline(["scale"], source=Mesh(torch.zeros(3, 3), torch.tensor([[0, 1, 2]])), registry=reg)
    # the failed set_params changed nothing
    assert p.params("crop") == {"keep": 10, "fail": False}


def test_same_step_twice_with_names(source):
    reg = _registry()
    p = Pipeline(["scale", {"step": "scale", "name": "scale2", "params": {"factor": 3.0}}], source=source,
                 registry=reg)
    out = p.run()
    torch.testing.assert_close(out.points, source.points * 6.0)
    CALLS.clear()
    p.set_params("scale2", factor=0.5)
    p.run()
    assert CALLS == ["scale"]  # only the second stage re-ran


def test_set_source_invalidates_everything(pipe, source):
    pipe.run()
    CALLS.clear()
    pipe.set_source(PointCloud(source.points[:50]))
    pipe.run()
    assert CALLS == ["scale", "crop", "hull"]
    assert pipe.record("scale").counts_before == {"points": 50}


def test_no_source_is_a_clear_error():
    p = Pipeline(["scale"], registry=_registry())
    with pytest.raises(SmrnbValueError, match="source is not set"):
        p.run()


def test_step_result_displays(pipe):
    pipe.run()
    rec = pipe.record("hull")
    assert isinstance(rec, StepResult)
    text = str(rec)
    assert "hull" in text and "20 points -> 4 vertices, 4 faces" in text and "[test backend, cpu]" in text
    assert "note: mode tet" in text
    h = rec._repr_html_()
    assert "<table" in h and "4 vertices, 4 faces" in h and "test backend" in h
    ph = pipe._repr_html_()
    assert ph.count("<tr>") == 4 and "crop" in ph
    pipe.set_params("hull", mode="box")
    assert "<i>stale</i>" in pipe._repr_html_()
    assert [" ".join(line.split()[:2]) for line in str(pipe).splitlines()[1:]][2] == "hull (stale)"


def test_paramspec_rejects_bad_specs():
    with pytest.raises(SmrnbValueError, match="kind must be one of"):
        ParamSpec("x", 1, "number")
    with pytest.raises(SmrnbValueError, match=r"parameter 'x' must be in \[0, 1\], got 2"):
        ParamSpec("x", 2.0, "float", (0.0, 1.0))
    with pytest.raises(SmrnbValueError, match="kind 'choice' needs choices"):
        ParamSpec("x", "a", "choice")
    with pytest.raises(SmrnbValueError, match="log_scale needs a positive range minimum"):
        ParamSpec("x", 1.0, "float", (0.0, 2.0), log_scale=True)


def test_paramspec_parse_from_text():
    f = ParamSpec("voxel_size", 0.02, "float", (0.001, 1.0), unit="m")
    assert f.parse("0.05") == 0.05 and f.flag == "--voxel-size"
    with pytest.raises(SmrnbValueError, match=r"step 'tsdf' parameter 'voxel_size' must be a number, got 'abc'"):
        f.parse("abc", "tsdf")
    b = ParamSpec("smooth", False, "bool")
    assert b.parse("true") is True and b.parse("No") is False
    o = ParamSpec("depth_max", None, "float", (0.1, 10.0))
    assert o.parse("none") is None and o.parse("3") == 3.0
    i = ParamSpec("n", 3, "int", (1, 9))
    assert i.validate(4.0) == 4 and isinstance(i.validate(4.0), int)


def test_widget_description_follows_spec():
    w = ParamSpec("voxel_size", 0.02, "float", (0.001, 0.5), unit="m", help="edge", log_scale=True).widget()
    assert w["widget"] == "FloatLogSlider"
    assert w["kwargs"]["min"] == pytest.approx(-3) and w["kwargs"]["max"] == pytest.approx(-0.30103, abs=1e-5)
    assert "edge" in w["kwargs"]["tooltip"] and " m" in w["kwargs"]["tooltip"]
    assert ParamSpec("n", 3, "int", (1, 9)).widget()["widget"] == "IntSlider"
    assert ParamSpec("m", "a", "choice", choices=("a", "b")).widget()["kwargs"]["options"] == ["a", "b"]
    assert ParamSpec("b", True, "bool").widget() ["widget"] == "Checkbox"
    assert ParamSpec("d", None, "float", (0.1, 9.0)).widget()["widget"] == "Text"


def test_cuda_device_without_gpu_is_a_clear_error(source):
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible")
    p = Pipeline(["scale"], source=source, device="cuda", registry=_registry())
    with pytest.raises(SmrnbValueError, match=r"device 'cuda' was asked for but torch .* sees no CUDA GPU"):
        p.run()
    with pytest.raises(SmrnbValueError, match=r"device must be 'cpu' or 'cuda' \(or 'cuda:N'\), got 'gpu'"):
        Pipeline(["scale"], device="gpu", registry=_registry())


def test_cpu_seconds_recorded(pipe):
    pipe.run()
    assert all(r.cpu_seconds is not None and r.cpu_seconds >= 0 for r in pipe.records)
    assert "(cpu " in pipe.summary() and pipe.summary().splitlines()[0].startswith("source")


def test_calling_a_step_validates_and_unwraps(source):
    reg = _registry()
    with pytest.warns(UserWarning, match="toy tetrahedron"):
        mesh = reg.get("hull")(source)  # StepOutput unwrapped, default mode filled in
    assert isinstance(mesh, Mesh) and mesh.num_faces == 4
    with pytest.raises(SmrnbValueError, match=r"step 'hull' parameter 'mode' must be one of"):
        reg.get("hull")(source, mode="sphere")
    with pytest.raises(SmrnbValueError, match=r"step 'texture_like' needs input\(s\) points passed by keyword"):
        reg.get("texture_like")(mesh)
    assert reg.get("texture_like")(mesh, points=source).meta["n_side"] == 100
