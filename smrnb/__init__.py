# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""smrnb: a Jupyter lab bench for 3D reconstruction with PyTorch and NVIDIA kaolin.

``import smrnb`` is cheap: it imports neither torch, kaolin nor pythreejs and never initialises
CUDA. Public names are resolved on first use (PEP 562), so ``smrnb.voxelgrid_to_mesh`` imports
the geometry core only when it is first touched.

In a notebook: ``%load_ext smrnb`` then ``%smr_doctor``.
"""

from __future__ import annotations

import importlib
from typing import Any

from smrnb import _threads
from smrnb._errors import MemoryEstimateError, SmrnbError, SmrnbTypeError, SmrnbValueError
from smrnb._extras import MissingExtraError
from smrnb._version import __version__

# OpenMP reads its wait policy once, when torch loads it: sleeping, not spinning, waiters (smrnb/_threads.py)
_threads.wait_policy_at_import()

__all__ = [
    "__version__",
    # errors
    "SmrnbError",
    "SmrnbValueError",
    "SmrnbTypeError",
    "MemoryEstimateError",
    # doctor
    "diagnose",
    "explain",
    "Report",
    "diagnose_cluster",
    # containers and conventions
    "Mesh",
    "PointCloud",
    "Frames",
    "VoxelGrid",
    "OPENNI_TO_OPENGL",
    "convert_coordinates",
    # RGB-D to points, cleaning
    "depth_to_points",
    "frames_to_points",
    "crop_depth_range",
    "remove_statistical_outliers",
    "remove_radius_outliers",
    "voxel_downsample",
    "clean_points",
    # surfaces
    "pointcloud_to_voxelgrid",
    "pointcloud_to_voxelgrid_pt",
    "voxelgrid_to_mesh",
    "fuse_tsdf",
    "TSDFVolume",
    "render_depth",
    # metrics
    "surface_metrics",
    "depth_error",
    # repair, simplify, texture, export
    "fill_holes",
    "repair_non_manifold",
    "simplify_mesh",
    "subdivide_mesh",
    "auto_uv",
    "bake_texture",
    "compute_face_normals",
    "compute_vertex_normals",
    "export_mesh",
    "load_mesh",
    # datasets
    "load_sample",
    "load_redwood",
    "load_tum",
    "load_7scenes",
    # pipeline
    "Pipeline",
    "get_step",
    "list_steps",
    "batch",
    # widgets
    "Viewer",
    "StepWidget",
    "ReconstructionApp",
    "DoctorView",
    "BatchTable",
    # IPython
    "load_ipython_extension",
    "unload_ipython_extension",
]

# public name -> module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "diagnose": "smrnb.doctor",
    "explain": "smrnb.doctor",
    "Report": "smrnb.doctor",
    "diagnose_cluster": "smrnb.doctor",
    "Mesh": "smrnb.geometry",
    "PointCloud": "smrnb.geometry",
    "Frames": "smrnb.geometry",
    "VoxelGrid": "smrnb.geometry",
    "OPENNI_TO_OPENGL": "smrnb.geometry",
    "convert_coordinates": "smrnb.geometry",
    "depth_to_points": "smrnb.geometry",
    "frames_to_points": "smrnb.geometry",
    "crop_depth_range": "smrnb.geometry",
    "remove_statistical_outliers": "smrnb.geometry",
    "remove_radius_outliers": "smrnb.geometry",
    "voxel_downsample": "smrnb.geometry",
    "clean_points": "smrnb.geometry",
    "pointcloud_to_voxelgrid": "smrnb.geometry",
    "pointcloud_to_voxelgrid_pt": "smrnb.geometry",
    "voxelgrid_to_mesh": "smrnb.geometry",
    "fuse_tsdf": "smrnb.geometry",
    "TSDFVolume": "smrnb.geometry",
    "render_depth": "smrnb.geometry",
    "surface_metrics": "smrnb.geometry",
    "depth_error": "smrnb.geometry",
    "fill_holes": "smrnb.geometry",
    "repair_non_manifold": "smrnb.geometry",
    "simplify_mesh": "smrnb.geometry",
    "subdivide_mesh": "smrnb.geometry",
    "auto_uv": "smrnb.geometry",
    "bake_texture": "smrnb.geometry",
    "compute_face_normals": "smrnb.geometry",
    "compute_vertex_normals": "smrnb.geometry",
    "export_mesh": "smrnb.geometry",
    "load_mesh": "smrnb.geometry",
    "load_sample": "smrnb.datasets",
    "load_redwood": "smrnb.datasets",
    "load_tum": "smrnb.datasets",
    "load_7scenes": "smrnb.datasets",
    "Pipeline": "smrnb.pipeline",
    "get_step": "smrnb.pipeline",
    "list_steps": "smrnb.pipeline",
    "batch": "smrnb.pipeline",
    "Viewer": "smrnb.widgets",
    "StepWidget": "smrnb.widgets",
    "ReconstructionApp": "smrnb.widgets",
    "DoctorView": "smrnb.widgets",
    "BatchTable": "smrnb.widgets",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'smrnb' has no attribute {name!r}")
    try:
        mod = importlib.import_module(module)
    except MissingExtraError as exc:  # `pip install smrnb` is the doctor alone: say which extra to add
        raise MissingExtraError(f"smrnb.{name}: {exc}") from None
    value = getattr(mod, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext smrnb``: register the magics and check the loader environment now."""
    from smrnb.doctor import load_ipython_extension as load  # the doctor loads with the extension

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext smrnb``: remove the post-cell hook and the exception hook."""
    from smrnb.doctor import unload_ipython_extension as unload

    unload(ipython)
