# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The registered steps driving the real geometry core on the bundled sample."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from smrnb.pipeline import Pipeline, StepValueError


def _chain_consistent(p: Pipeline) -> None:
    recs = p.records
    for a, b in zip(recs, recs[1:]):
        assert b.counts_before == a.counts_after, (a.step, b.step)


@pytest.mark.slow
def test_tsdf_pipeline_on_sample(tmp_path):
    p = Pipeline(["tsdf", "extract_mesh", ("simplify", {"target_number_of_vertices": 3000}),
                  ("export", {"path": "room.glb"})],
                 source={"path": "sample", "stride": 12, "max_frames": 4}, output_dir=tmp_path)
    p.set_params("tsdf", voxel_size=0.05)
    out = p.run()
    assert out == str(tmp_path / "room.glb")
    _chain_consistent(p)
    recs = {r.step: r for r in p.records}
    assert recs["tsdf"].counts_before == {"frames": 4} and recs["tsdf"].counts_after["blocks"] > 0
    mesh = p.result("extract_mesh")
    assert mesh.frame == "opencv" and mesh.vertex_colors is not None and mesh.num_faces > 1000
    assert 0 < recs["simplify"].counts_after["vertices"] <= 3000
    assert any("Hausdorff" in n for n in recs["simplify"].notes)
    assert recs["export"].backend.startswith("CPU file encoding") and "flipped OpenCV -> OpenGL" in recs["export"].notes[0]
    assert all(r.device == "cpu" for r in p.records)
    import trimesh

    tm = trimesh.load(out, force="mesh", process=False)
    assert len(tm.faces) == recs["simplify"].counts_after["faces"]
    # the export flipped y and z: the OpenGL file is the OpenCV mesh times diag(1, -1, -1)
    simp = p.result("simplify").vertices.double().numpy()
    half_step = (simp.max(0) - simp.min(0)).max() / 65535 / 2 + 1e-6  # 16-bit positions by default
    np.testing.assert_allclose(np.sort(np.asarray(tm.vertices)[:, 1]), np.sort(-simp[:, 1]), atol=half_step)

    # a parameter change re-runs only downstream: the fused volume is reused
    vol = p.result("tsdf")
    p.set_params("extract_mesh", weight_threshold=2.0)
    p.run()
    assert p.result("tsdf") is vol
    assert p.record("extract_mesh").counts_after["faces"] <= recs["extract_mesh"].counts_after["faces"]


def test_points_clean_voxels_marching_cubes_on_two_frames():
    p = Pipeline([("points", {"stride": 8, "depth_max": 4.0}), ("clean", {"voxel_size": 0.05}),
                  ("voxelize", {"voxel_size": 0.1, "max_grid_size": 64}), "marching_cubes"],
                 source={"path": "sample", "stride": 30, "max_frames": 2})
    mesh = p.run()
    _chain_consistent(p)
    recs = {r.step: r for r in p.records}
    n_pts = recs["points"].counts_after["points"]
    assert 0 < n_pts <= 2 * 60 * 80  # stride 8 on 640x480
    assert recs["clean"].counts_after["points"] < n_pts  # 5 cm downsampling merges points
    assert any(n.startswith("voxel_downsample") for n in recs["clean"].notes)
    grid = p.result("voxelize")
    occupied = grid.num_occupied() if callable(grid.num_occupied) else grid.num_occupied
    assert occupied == recs["voxelize"].counts_after["voxels"] == int(grid.occupancy.count_nonzero()) > 0
    assert grid.dropped == 0
    assert mesh.num_faces > 0 and recs["marching_cubes"].backend == "torch CPU"
    # every vertex lies within the grid's box
    lo = grid.origin.float()
    hi = lo + torch.tensor(grid.grid_shape, dtype=torch.float32) * grid.voxel_size
    assert bool(((mesh.vertices >= lo - 1e-4) & (mesh.vertices <= hi + 1e-4)).all())
    # run-to-here on a real chain, then a bad value that the real function rejects names the stage
    p.set_params("points", depth_min=3.9)
    with pytest.raises(StepValueError, match=r"step 'points' failed"):
        p.run(until="points")


def test_real_memory_estimate_surfaces_with_knob():
    from smrnb import MemoryEstimateError

    p = Pipeline([("tsdf", {"voxel_size": 0.04, "memory_budget": 1 << 20}), "extract_mesh"],
                 source={"path": "sample", "stride": 35, "max_frames": 2})
    with pytest.raises(MemoryEstimateError) as ei:
        p.run()
    e = ei.value
    assert e.step == "tsdf" and e.knob == "voxel_size" and e.budget_bytes == 1 << 20
    assert e.estimate_bytes > e.budget_bytes
    assert "step 'tsdf' refused to run" in str(e) and "--voxel-size" in str(e)
    assert p.result("tsdf") is None and p.last_failed.step == "tsdf" and not p.last_failed.ok


def test_select_frames_keeps_poses_and_names():
    p = Pipeline([("select_frames", {"start": 1, "every": 3, "max_frames": 2})],
                 source={"path": "sample", "stride": 10})
    src = p.source_data()
    out = p.run()
    assert len(src) == 8 and len(out) == 2
    assert out.names == [src.names[1], src.names[4]]
    torch.testing.assert_close(out.poses, src.poses[[1, 4]])
    assert p.record().counts_before == {"frames": 8} and p.record().counts_after == {"frames": 2}
    p.set_params("select_frames", start=8)
    with pytest.raises(StepValueError, match=r"step 'select_frames' failed: start must be < the number of frames \(8\), got 8"):
        p.run()
