# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The reconstruction core: pure functions on tensors (CPU and CUDA); kaolin only via ``_backend``.

Import the public names from :mod:`smrnb` (``smrnb.voxelgrid_to_mesh``) or from here
(``from smrnb.geometry import check_points``); the private modules are their homes, one per op family.
"""

from smrnb._extras import require as _require

_require(__name__)  # one clear message when an extra is missing

from smrnb.geometry._clean import (  # noqa: E402
    check_points,
    clean_points,
    crop_depth_range,
    remove_radius_outliers,
    remove_statistical_outliers,
    voxel_downsample,
)
from smrnb.geometry._io import export_mesh, load_mesh  # noqa: E402
from smrnb.geometry._marching_cubes import voxelgrid_to_mesh  # noqa: E402
from smrnb.geometry._mesh import Frames, Mesh, PointCloud  # noqa: E402
from smrnb.geometry._metrics import depth_error, surface_metrics  # noqa: E402
from smrnb.geometry._normals import compute_face_normals, compute_vertex_normals  # noqa: E402
from smrnb.geometry._points import OPENNI_TO_OPENGL, convert_coordinates, depth_to_points, frames_to_points  # noqa: E402
from smrnb.geometry._render import render_depth  # noqa: E402
from smrnb.geometry._repair import fill_holes, repair_non_manifold  # noqa: E402
from smrnb.geometry._simplify import simplify_mesh, subdivide_mesh  # noqa: E402
from smrnb.geometry._texture import bake_texture  # noqa: E402
from smrnb.geometry._tsdf import TSDFVolume, fuse_tsdf  # noqa: E402
from smrnb.geometry._uv import auto_uv  # noqa: E402
from smrnb.geometry._voxels import VoxelGrid, pointcloud_to_voxelgrid, pointcloud_to_voxelgrid_pt  # noqa: E402

__all__ = [
    "Frames",
    "Mesh",
    "OPENNI_TO_OPENGL",
    "PointCloud",
    "TSDFVolume",
    "VoxelGrid",
    "auto_uv",
    "bake_texture",
    "check_points",
    "clean_points",
    "compute_face_normals",
    "compute_vertex_normals",
    "convert_coordinates",
    "crop_depth_range",
    "depth_error",
    "depth_to_points",
    "export_mesh",
    "fill_holes",
    "frames_to_points",
    "fuse_tsdf",
    "load_mesh",
    "pointcloud_to_voxelgrid",
    "pointcloud_to_voxelgrid_pt",
    "remove_radius_outliers",
    "remove_statistical_outliers",
    "render_depth",
    "repair_non_manifold",
    "simplify_mesh",
    "subdivide_mesh",
    "surface_metrics",
    "voxel_downsample",
    "voxelgrid_to_mesh",
]

# ------------------------------------------------------------------ offered to the other smrnb packages
# Not part of smrnb's public API (that is ``smrnb.__all__``); the other packages (datasets, pipeline,
# widgets) import these from ``smrnb.geometry`` and never from its private modules; INTERNAL_API lists them.
from smrnb.geometry._camera import check_K, check_pose, check_poses, where_text  # noqa: E402, F401
from smrnb.geometry._guards import check_index_range, parse_device, resolve_device, same_device  # noqa: E402, F401
from smrnb.geometry._io import split_seams  # noqa: E402, F401
from smrnb.geometry._memory import memory_budget  # noqa: E402, F401
from smrnb.geometry._memory import require as require_memory  # noqa: E402, F401
from smrnb.geometry._normals import area_vertex_normals  # noqa: E402, F401
from smrnb.geometry._texture import PHASES, bake_memory_estimate, uv_rasterize  # noqa: E402, F401
from smrnb.geometry._topology import (  # noqa: E402, F401
    boundary_edges,
    boundary_loops,
    edges_with_counts,
    euler_characteristic,
    is_watertight,
    is_winding_consistent,
    non_manifold_edges,
)
from smrnb.geometry._validate import (  # noqa: E402, F401
    as_tensor,
    check_choice,
    check_finite,
    check_float,
    check_int_range,
    check_integer,
    check_positive,
    check_shape,
)

INTERNAL_API = (
    "PHASES",
    "area_vertex_normals",
    "as_tensor",
    "bake_memory_estimate",
    "boundary_edges",
    "boundary_loops",
    "check_K",
    "check_choice",
    "check_finite",
    "check_float",
    "check_index_range",
    "check_int_range",
    "check_integer",
    "check_pose",
    "check_poses",
    "check_positive",
    "check_shape",
    "edges_with_counts",
    "euler_characteristic",
    "is_watertight",
    "is_winding_consistent",
    "memory_budget",
    "non_manifold_edges",
    "parse_device",
    "require_memory",
    "resolve_device",
    "same_device",
    "split_seams",
    "uv_rasterize",
    "where_text",
)
