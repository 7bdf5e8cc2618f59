# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""One home per concept: camera/pose validation, the memory budget and step parameter defaults are
judged in one place, and every step that uses them agrees."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import smrnb
from smrnb.geometry import _memory
from smrnb.geometry._camera import check_K, check_pose

H, W = 48, 64


def _K(cx=31.5, cy=23.5, f=50.0):
    return torch.tensor([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])


def _depth():
    return torch.full((H, W), 1.5)


def _plane_mesh():
    v = torch.tensor([[-5.0, -5.0, 3.0], [5.0, -5.0, 3.0], [5.0, 5.0, 3.0], [-5.0, 5.0, 3.0]])
    return smrnb.Mesh(v, torch.tensor([[0, 1, 2], [0, 2, 3]]), frame="opencv")


def _verdicts(K, pose):
    """Accepted (None) or the error message, per step that takes a camera."""
    out = {}
    calls = {
        "depth_to_points": lambda: smrnb.depth_to_points(_depth(), K, pose),
        "render_depth": lambda: smrnb.render_depth(_plane_mesh(), K, pose, H, W),
        "TSDFVolume.integrate": lambda: smrnb.TSDFVolume(0.05).integrate(_depth(), K, pose),
        "fuse_tsdf": lambda: smrnb.fuse_tsdf(smrnb.Frames(_depth()[None], K, poses=pose[None]), voxel_size=0.05,
                                             progress=False),
    }
    for name, call in calls.items():
        try:
            call()
            out[name] = None
        except smrnb.SmrnbValueError as exc:
            out[name] = str(exc)
    return out


@pytest.mark.parametrize("case", ["good", "cx=10", "pose x2", "reflection", "last row", "nan pose", "cx outside"])
def test_every_step_judges_a_camera_the_same(case):
    K, pose = _K(), torch.eye(4)
    if case == "cx=10":
        K = _K(cx=10.0)
    elif case == "pose x2":
        pose = torch.eye(4)
        pose[:3, :3] *= 2
    elif case == "reflection":
        pose = torch.diag(torch.tensor([1.0, 1.0, -1.0, 1.0]))
    elif case == "last row":
        pose = torch.eye(4)
        pose[3] = torch.tensor([1.0, 2.0, 3.0, 4.0])
    elif case == "nan pose":
        pose = torch.eye(4)
        pose[0, 3] = float("nan")
    elif case == "cx outside":
        K = _K(cx=200.0)
    if case == "nan pose":
        # the Frames constructor refuses it where the data enters, before fuse_tsdf is reached
        with pytest.raises(smrnb.SmrnbValueError, match="frame 0"):
            smrnb.Frames(_depth()[None], K, poses=pose[None])
    v = _verdicts(K, pose) if case != "nan pose" else {
        k: m for k, m in _verdicts(K, pose).items() if k != "fuse_tsdf"}
    accepted = {k for k, m in v.items() if m is None}
    assert accepted in (set(), set(v)), v  # all accept or all refuse
    if case in ("good", "cx=10"):
        assert accepted == set(v)
    else:
        assert not accepted
        # and for the same reason: the messages come from the one home
        assert len({m.split(":", 1)[1].split("(frame")[0].strip() for m in v.values()}) == 1, v


def test_frames_and_readers_name_the_frame():
    d = _depth()[None].repeat(3, 1, 1)
    poses = torch.eye(4).repeat(3, 1, 1)
    poses[2, :3, :3] *= 3
    with pytest.raises(smrnb.SmrnbValueError, match=r"rotation part not orthonormal.*\(frame 2\)"):
        smrnb.Frames(d, _K(), poses=poses)
    with pytest.raises(smrnb.SmrnbValueError, match=r"color must be uint8 \(0..255\) or float in \[0, 1\].*divide by 255"):
        smrnb.Frames(d, _K(), color=torch.full((3, H, W, 3), 200.0))
    Ks = _K().repeat(3, 1, 1)
    Ks[1, 1, 1] = float("nan")
    with pytest.raises(smrnb.SmrnbValueError, match=r"K must be finite.*\(frame 1\)"):
        smrnb.Frames(d, Ks)
    assert check_K(_K(cx=10.0), height=H, width=W) is not None and check_pose(torch.eye(4)) is not None


# ---------------------------------------------------------------------------------------------
# the memory budget


def test_one_budget_and_one_override_for_voxels_tsdf_and_marching_cubes(monkeypatch):
    from smrnb.geometry import _marching_cubes as marching_cubes
    from smrnb.geometry import _tsdf as tsdf
    from smrnb.geometry import _voxels as voxels

    monkeypatch.setenv("SMRNB_MEMORY_BUDGET", "123456789")
    assert _memory.memory_budget("cpu") == 123456789
    assert voxels._memory_budget(torch.device("cpu")) == 123456789
    assert tsdf.estimate_memory_budget("cpu") == 123456789
    assert tsdf.TSDFVolume(0.05).memory_budget == 123456789
    monkeypatch.setenv("SMRNB_MEMORY_BUDGET", "1000000")
    with pytest.raises(smrnb.MemoryEstimateError):
        smrnb.pointcloud_to_voxelgrid(torch.rand(10, 3), 0.01, 512)
    with pytest.raises(smrnb.MemoryEstimateError):
        marching_cubes._check_memory(torch.zeros(1, dtype=torch.bool).expand(200, 200, 200))
    monkeypatch.delenv("SMRNB_MEMORY_BUDGET")
    free = _memory.memory_budget("cpu")
    assert voxels._memory_budget(torch.device("cpu")) == pytest.approx(free, rel=0.2)
    assert tsdf.estimate_memory_budget("cpu") == pytest.approx(free, rel=0.2)
    monkeypatch.setenv("SMRNB_MEMORY_BUDGET", "lots")
    with pytest.raises(smrnb.SmrnbValueError, match="SMRNB_MEMORY_BUDGET must be a number of bytes, got 'lots'"):
        _memory.memory_budget("cpu")


def test_cgroup_limits_are_read(tmp_path):
    (tmp_path / "memory.max").write_text("1073741824\n")
    (tmp_path / "memory.current").write_text("73741824\n")
    assert _memory._cgroup_free(tmp_path) == 1_000_000_000
    v1 = tmp_path / "v1"
    (v1 / "memory").mkdir(parents=True)
    (v1 / "memory" / "memory.limit_in_bytes").write_text("2000000000\n")
    (v1 / "memory" / "memory.usage_in_bytes").write_text("500000000\n")
    assert _memory._cgroup_free(v1) == 1_500_000_000
    (tmp_path / "unl").mkdir()
    (tmp_path / "unl" / "memory.max").write_text("max\n")
    assert _memory._cgroup_free(tmp_path / "unl") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux")
def test_refused_before_allocating_under_a_real_address_space_limit():
    """Under ``setrlimit(RLIMIT_AS)`` (8 GiB) a 2048^3 grid and a 1200^3 marching-cubes input are
    refused with MemoryEstimateError, not a crash: the budget reads the process limit."""
    code = textwrap.dedent("""
        import json, resource, torch
        import smrnb
        from smrnb.geometry import _memory, _marching_cubes as marching_cubes
        resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
        out = {"budget": _memory.memory_budget("cpu")}
        try:
            smrnb.pointcloud_to_voxelgrid(torch.rand(100, 3), 0.001, 2048)
            out["voxels"] = "ran"
        except smrnb.MemoryEstimateError as e:
            out["voxels"] = "refused"
        try:
            marching_cubes._check_memory(torch.zeros(1).expand(1200, 1200, 1200))
            out["mc"] = "ran"
        except smrnb.MemoryEstimateError:
            out["mc"] = "refused"
        print(json.dumps(out))
    """)
    env = {k: v for k, v in os.environ.items() if k != "SMRNB_MEMORY_BUDGET"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["budget"] < 8 << 30
    assert out["voxels"] == "refused" and out["mc"] == "refused"


# ---------------------------------------------------------------------------------------------
# step parameter defaults come from the function signatures


# step -> the core function it fronts (parameters of the same name must have the same default)
FRONTS = {
    "voxelize": "smrnb.geometry._voxels:pointcloud_to_voxelgrid",
    "tsdf": "smrnb.geometry._tsdf:fuse_tsdf",
    "fill_holes": "smrnb.geometry._repair:fill_holes",
    "repair_non_manifold": "smrnb.geometry._repair:repair_non_manifold",
    "simplify": "smrnb.geometry._simplify:simplify_mesh",
    "uv": "smrnb.geometry._uv:auto_uv",
    "texture": "smrnb.geometry._texture:bake_texture",
    "marching_cubes": "smrnb.geometry._marching_cubes:voxelgrid_to_mesh",
    "extract_mesh": "smrnb.geometry._tsdf:TSDFVolume.extract_mesh",
}


def _core(path):
    import importlib

    mod, _, attr = path.partition(":")
    obj = importlib.import_module(mod)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def test_step_defaults_match_the_functions_they_front():
    from smrnb.pipeline import get_step, list_steps

    checked, drift = 0, []
    names = {getattr(s, "name", s) for s in list_steps()}
    for name, path in FRONTS.items():
        if name not in names:
            continue
        step = get_step(name)
        wrapper = inspect.signature(step.resolve()).parameters
        core = inspect.signature(_core(path)).parameters
        for spec in step.params:
            for sig, what in ((wrapper, "step function"), (core, path)):
                p = sig.get(spec.name)
                if p is not None and p.default is not inspect.Parameter.empty:
                    checked += 1
                    if spec.default != p.default:
                        drift.append(f"{name}.{spec.name}: step says {spec.default!r}, {what} says {p.default!r}")
    assert checked > 10
    assert not drift, drift
    _ = np
