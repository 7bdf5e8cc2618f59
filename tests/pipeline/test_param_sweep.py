# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Every parameter of every registered step at the ends of its allowed range, on the bundled sample.

What a student meets when they drag a slider to its end: the step either gives a valid output or
refuses with a :class:`~smrnb.SmrnbError` that names the parameter (or, for a memory refusal, the knob
to turn) -- never a raw Python error (``math domain error``), a hang or a ten-minute wait for a
time-out. The cases are generated from the registry, so a new step or parameter is swept without
editing this file.

Two chains over two frames of the sample, each built once and re-run from the stage under test
(``set_params`` invalidates only downstream): frames -> points -> clean -> voxels -> marching cubes,
and tsdf -> mesh -> repair -> holes -> simplify -> uv -> texture -> export. Each case sets one
parameter to its minimum, its maximum, the other boolean value or ``None`` (where allowed); per step
two combinations set every parameter to its minimum and every one to its maximum. The ``slow`` sweep
runs the whole tsdf chain downstream of each voxel size corner at finer input (the math domain error
of fill_holes at 8 mm and 2 mm voxels came from there). The ``long`` sweep (``SMRNB_LONG_TESTS=1``, outside
CI: 17 GiB and minutes) runs to the end the corners the quick sweep only estimates.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from smrnb._errors import MemoryEstimateError, SmrnbError
from smrnb.pipeline import Pipeline, list_steps, needs_asking

SOURCE = {"path": "sample", "stride": 35, "max_frames": 2}
# small but real working sizes so the whole sweep stays short on two cores
CHAINS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "points": [("select_frames", {}), ("points", {"stride": 8, "depth_max": 4.0}), ("clean", {}),
               ("voxelize", {"voxel_size": 0.05}), ("marching_cubes", {})],
    "tsdf": [("tsdf", {"voxel_size": 0.05}), ("extract_mesh", {}), ("repair_non_manifold", {}), ("fill_holes", {}),
             ("simplify", {"target_number_of_vertices": 1500}), ("uv", {"resolution": 256, "chart_num": 20}),
             ("texture", {"resolution": 256}), ("export", {"path": "sweep.glb"})],
}
#: a case estimated to take longer than this is checked for its estimate, not run, in the quick sweep
QUICK_SECONDS = 20.0
CHAIN_OF = {step: chain for chain, stages in CHAINS.items() for step, _ in stages}


def _corners(spec) -> list[Any]:
    if spec.kind == "bool":
        vals = [True, False]
    elif spec.kind in ("int", "float") and spec.range is not None:
        vals = [v for v in spec.range if v is not None]
    else:
        vals = []
    if spec.optional:
        vals.append(None)
    return vals


def _cases() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for step in list_steps():
        specs = [s for s in step.params if _corners(s)]
        for spec in specs:
            for v in _corners(spec):
                if v != spec.default or v is None:
                    out.append((step.name, {spec.name: v}))
        ranged = [s for s in specs if s.kind in ("int", "float") and s.range is not None]
        if len(ranged) > 1:
            out.append((step.name, {s.name: s.range[0] for s in ranged if s.range[0] is not None}))
            out.append((step.name, {s.name: s.range[1] for s in ranged if s.range[1] is not None}))
    return out


CASES = _cases()


def test_every_step_is_in_a_chain():
    assert sorted(CHAIN_OF) == sorted(s.name for s in list_steps())


@pytest.fixture(scope="module")
def chains(tmp_path_factory) -> dict[str, Pipeline]:
    out = tmp_path_factory.mktemp("sweep")
    pipes = {}
    for name, stages in CHAINS.items():
        p = Pipeline(stages, source=dict(SOURCE), output_dir=out)
        p.run()
        pipes[name] = p
    return pipes


def _check_output(kind: str, data: Any, rec) -> None:
    """The output is what its kind promises: finite coordinates, faces indexing existing vertices, a file."""
    if kind == "frames":
        assert len(data) >= 1
    elif kind == "points":
        pts = getattr(data, "points", data)
        assert pts.ndim == 2 and pts.shape[1] == 3 and bool(torch.isfinite(pts).all())
        if pts.shape[0] == 0:
            assert rec.notes, "an empty cloud must come with a note saying why"
    elif kind in ("mesh", "textured_mesh"):
        v, f = data.vertices, data.faces
        assert bool(torch.isfinite(v).all())
        if f.shape[0]:
            assert int(f.min()) >= 0 and int(f.max()) < v.shape[0]
        if kind == "textured_mesh":
            assert data.texture is not None and bool(torch.isfinite(data.texture.float()).all())
    elif kind == "file":
        assert rec.counts_after.get("bytes", 0) > 0
    else:  # voxels, tsdf
        assert all(n >= 0 for n in rec.counts_after.values())


def _check_refusal(err: SmrnbError, step: str, params: dict[str, Any]) -> None:
    """A refusal is smrnb's own error, raised on purpose, naming one of the parameters that were set
    (or the knob a memory refusal says to turn)."""
    cause = err.__cause__ if err.__cause__ is not None else err
    assert isinstance(cause, SmrnbError), f"{step} {params}: raw {type(cause).__name__}: {cause}"
    text = str(err)
    names = set(params) | ({k.strip() for k in cause.knob.split("/")} if isinstance(cause, MemoryEstimateError) else set())
    assert any(n in text for n in names), f"{step} {params}: the refusal names none of {sorted(names)}: {text}"
    assert "Traceback" not in text


def _sweep_case(p: Pipeline, step: str, params: dict[str, Any], *, run_long: bool) -> None:
    before = p.params(step)
    p.set_params(step, **params)
    try:
        i = p.names.index(step)
        if i:
            p.run(until=i - 1)  # the input of the stage under test, for its estimate
        est = p.estimate(step)
        if est is not None and est.seconds > QUICK_SECONDS and not run_long:
            pytest.skip(f"estimated at {est.text()}{' (a widget asks first)' if needs_asking(est) else ''}: "
                        "run by the long sweep (test_long_corners_run_too, SMRNB_LONG_TESTS=1)")
        try:
            out = p.run(until=step)
        except SmrnbError as err:
            _check_refusal(err, step, params)
            return
        _check_output(p.stage(step).step.output, out, p.record(step))
    finally:
        p.set_params(step, **{k: before[k] for k in params})


IDS = [f"{s}-{'-'.join(f'{k}={v}' for k, v in p.items())}" for s, p in CASES]


@pytest.mark.parametrize("step,params", CASES, ids=IDS)
def test_step_at_the_ends_of_its_ranges(chains, step, params):
    """Run each case, except one whose cost estimate is over QUICK_SECONDS (skipped with the estimate
    as its reason); the long sweep (SMRNB_LONG_TESTS=1) runs those too."""
    _sweep_case(chains[CHAIN_OF[step]], step, params, run_long=False)


@pytest.mark.slow
@pytest.mark.long("the texture step at 8192 x 8192 texels: estimated at 17 GiB and 1-3 min each, 5 min on 2 cores")
@pytest.mark.timeout(1800)
def test_long_corners_run_too(chains):
    """The cases the quick sweep only estimates, run to the end (the quick sweep checks their estimates)."""
    for step, params in CASES:
        _sweep_case(chains[CHAIN_OF[step]], step, params, run_long=True)


@pytest.mark.slow
@pytest.mark.parametrize("voxel_size", [0.002, 0.005, 0.008, 0.2])
def test_tsdf_chain_downstream_of_each_voxel_size(tmp_path, voxel_size):
    """The default chain at its defaults after the tsdf's voxel size corner (and the sizes students pick).

    Below 5 mm the chain fuses three frames and only their surfaces nearer than 1.3 m (about a tenth of the
    sample's depths, the median is 1.75 m): at 2 mm the whole room is millions of faces whose simplification
    alone ran past 10 minutes on two cores, while what broke here before (fill_holes' math domain error) came
    from the voxel size, which the crop keeps (440k faces, about 100 s)."""
    fine = voxel_size < 0.005
    stages = [("tsdf", {"voxel_size": voxel_size, **({"depth_max": 1.3} if fine else {})}), "extract_mesh", "fill_holes",
              ("simplify", {"target_number_of_vertices": 8000}), ("uv", {"resolution": 512}),
              ("texture", {"resolution": 512}), ("export", {"path": "m.glb"})]
    p = Pipeline(stages, source={"path": "sample", "stride": 5, "max_frames": 3 if fine else 15},
                 output_dir=tmp_path)
    try:
        p.run()
    except SmrnbError as err:
        _check_refusal(err, err.step, {"voxel_size": voxel_size})
        return
    rec = p.record("fill_holes")
    assert rec.notes and len(rec.notes[0]) < 600 and not math.isnan(rec.seconds)
    assert (tmp_path / "m.glb").stat().st_size > 0
