# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Odd tensors where they enter the geometry core: meta tensors (shapes without data) get one clear
error naming the argument; float16 / bfloat16 and tensors that require grad are accepted (widened
where numpy or a library needs it), never a raw torch or numpy error."""

from __future__ import annotations

import pytest
import torch
import trimesh

import smrnb

_S = trimesh.creation.icosphere(2)
V = torch.tensor(_S.vertices, dtype=torch.float32)
F = torch.tensor(_S.faces)
K = torch.tensor([[50.0, 0, 31.5], [0, 50.0, 23.5], [0, 0, 1]])
D = torch.full((48, 64), 1.5)

CALLS = {
    "compute_vertex_normals": (V, lambda v: smrnb.compute_vertex_normals(v, F), "vertices"),
    "depth_to_points.depth": (D, lambda d: smrnb.depth_to_points(d, K), "depth"),
    "depth_to_points.K": (K, lambda k: smrnb.depth_to_points(D, k), "K"),
    "Mesh": (V, lambda v: smrnb.Mesh(v, F), "vertices"),
    "PointCloud": (V, lambda v: smrnb.PointCloud(v), "points"),
    "simplify_mesh": (V, lambda v: smrnb.simplify_mesh(smrnb.Mesh(v, F), target_number_of_vertices=50), "vertices"),
    "fill_holes": (V, lambda v: smrnb.fill_holes(smrnb.Mesh(v, F)), "vertices"),
    "voxel_downsample": (V, lambda v: smrnb.voxel_downsample(smrnb.PointCloud(v), 0.1), "points"),
    "pointcloud_to_voxelgrid": (V, lambda v: smrnb.pointcloud_to_voxelgrid(v, 0.1), "points"),
    "convert_coordinates": (V, lambda v: smrnb.convert_coordinates(v, "opencv", "opengl"), "x"),
    "Viewer": (V, lambda v: smrnb.Viewer(smrnb.PointCloud(v)), "points"),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_meta_tensors_are_refused_by_name(name):
    t, call, arg = CALLS[name]
    with pytest.raises(smrnb.SmrnbValueError, match=rf"^{arg} is on the 'meta' device"):
        call(t.to("meta"))


@pytest.mark.parametrize("kind", ["float16", "bfloat16", "requires_grad"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_half_precision_and_grad_tensors_are_accepted(name, kind):
    t, call, _ = CALLS[name]
    if kind == "requires_grad":
        t = t.clone().requires_grad_(True)
    else:
        t = t.to(getattr(torch, kind))
    try:
        call(t)
    except smrnb.SmrnbError:
        pass  # a clear refusal is fine; a raw library error is not (it propagates and fails the test)
