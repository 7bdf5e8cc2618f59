# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""API snapshot: the public names are exactly these, each resolves, and each is defined where documented."""

import ast
from pathlib import Path

import smrnb

EXPECTED = [
    "__version__", "SmrnbError", "SmrnbValueError", "SmrnbTypeError", "MemoryEstimateError",
    "diagnose", "explain", "Report", "diagnose_cluster",
    "Mesh", "PointCloud", "Frames", "VoxelGrid", "OPENNI_TO_OPENGL", "convert_coordinates",
    "depth_to_points", "frames_to_points", "crop_depth_range", "remove_statistical_outliers",
    "remove_radius_outliers", "voxel_downsample", "clean_points",
    "pointcloud_to_voxelgrid", "pointcloud_to_voxelgrid_pt", "voxelgrid_to_mesh", "fuse_tsdf", "TSDFVolume", "render_depth",
    "surface_metrics", "depth_error",
    "fill_holes", "repair_non_manifold", "simplify_mesh", "subdivide_mesh", "auto_uv", "bake_texture",
    "compute_face_normals", "compute_vertex_normals", "export_mesh", "load_mesh",
    "load_sample", "load_redwood", "load_tum", "load_7scenes",
    "Pipeline", "get_step", "list_steps", "batch",
    "Viewer", "StepWidget", "ReconstructionApp", "DoctorView", "BatchTable",
    "load_ipython_extension", "unload_ipython_extension",
]


def test_all_is_a_literal_and_matches_the_snapshot():
    tree = ast.parse(Path(smrnb.__file__).read_text())
    lits = [n for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets)]
    assert len(lits) == 1 and isinstance(lits[0].value, ast.List)
    assert all(isinstance(e, ast.Constant) for e in lits[0].value.elts)  # a literal list of strings
    assert smrnb.__all__ == EXPECTED


def test_every_public_name_resolves_from_its_home_module():
    for name in smrnb.__all__:
        obj = getattr(smrnb, name)
        home = smrnb._LAZY.get(name)
        if home is not None:
            import importlib

            assert getattr(importlib.import_module(home), name) is obj, name
    assert set(smrnb._LAZY) <= set(smrnb.__all__)
    assert sorted(dir(smrnb)) == sorted(set(dir(smrnb)))


def test_unknown_attribute_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError, match="module 'smrnb' has no attribute 'kaolin_magic'"):
        smrnb.kaolin_magic  # noqa: B018
