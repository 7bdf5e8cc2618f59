# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The source's ``holdout`` option: frames left out of the steps and used to measure the final mesh."""

from __future__ import annotations

import pytest
import torch

import smrnb
from smrnb import SmrnbValueError
from smrnb.pipeline._source import load_source, split_holdout

STEPS = [("tsdf", {"voxel_size": 0.03, "depth_max": 3.0}), "extract_mesh"]


def test_held_out_frames_never_reach_the_steps_and_measure_the_mesh():
    pipe = smrnb.Pipeline(STEPS, source={"path": "sample", "stride": 5, "holdout": 5})
    mesh = pipe.run()
    kept, held = pipe.source_data(), pipe.heldout_frames
    everything = smrnb.load_sample(stride=5)
    assert len(kept) + len(held) == len(everything) and len(held) == (len(everything) + 4) // 5
    # frame i is held out when i % 5 == 0, and the kept ones are the rest, in order
    assert torch.equal(held.poses, everything.poses[0::5])
    assert torch.equal(kept.poses[:4], everything.poses[1:5])
    assert pipe.record("tsdf").counts_before["frames"] == len(kept)
    r = pipe.heldout_error()
    assert r["n_frames"] == len(held) and len(r["per_frame"]) == len(held)
    # frames the volume never saw agree with the reconstruction to well under the 3 cm voxel
    assert r["median_abs_error"] < 0.01 and r["coverage"] > 0.9
    # and a mesh that is wrong by 6 cm is measured as wrong
    shifted = smrnb.Mesh(mesh.vertices + torch.tensor([0.06, 0.0, 0.0]), mesh.faces)
    bad = smrnb.geometry._metrics.depth_error(shifted, held, max_error=0.1)
    assert bad["median_abs_error"] > 3 * r["median_abs_error"]


def test_no_holdout_no_error_and_none_before_a_mesh():
    pipe = smrnb.Pipeline(STEPS, source={"path": "sample", "stride": 10})
    pipe.run()
    assert pipe.heldout_frames is None and pipe.heldout_error() is None
    pipe = smrnb.Pipeline([STEPS[0]], source={"path": "sample", "stride": 10, "holdout": 3})
    pipe.run()
    assert len(pipe.heldout_frames) > 0 and pipe.heldout_error() is None  # a volume is not a mesh


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, "5", True])
def test_bad_holdout_is_refused_naming_the_option(bad):
    with pytest.raises(SmrnbValueError, match="'holdout' must be an int >= 2"):
        smrnb.Pipeline(STEPS, source={"path": "sample", "holdout": bad})


def test_holdout_that_leaves_nothing_and_load_source_are_refused():
    one = smrnb.load_sample(max_frames=1)
    with pytest.raises(SmrnbValueError, match="leaves no frame"):
        split_holdout(one, 2)
    with pytest.raises(SmrnbValueError, match="applied by a Pipeline"):
        load_source({"path": "sample", "holdout": 4})


def test_holdout_in_a_config_file(tmp_path):
    from smrnb.pipeline._config import load_config

    p = tmp_path / "c.yaml"
    p.write_text("source: {path: sample, stride: 10, holdout: 4}\nsteps:\n  - step: tsdf\n")
    assert load_config(p)["source"]["holdout"] == 4
    p.write_text("source: {path: sample, holdout: 1}\nsteps:\n  - step: tsdf\n")
    with pytest.raises(SmrnbValueError, match="holdout"):
        load_config(p)
