# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The reconstruction core: pure functions on tensors (CPU and CUDA); kaolin only via ``_backend``.

Import the public names from :mod:`smrnb` (``smrnb.voxelgrid_to_mesh``); the submodules are
implementation homes, one per op family.
"""

from smrnb._extras import require as _require

_require(__name__)  # one clear message when an extra is missing

# ------------------------------------------------------------------ offered to the other smrnb packages
# Not part of smrnb's public API (that is ``smrnb.__all__``); the other packages (datasets, pipeline,
# widgets) import these from ``smrnb.geometry`` and never from its private modules; INTERNAL_API lists them.
from smrnb.geometry._camera import check_K, check_pose, check_poses, where_text  # noqa: E402, F401
from smrnb.geometry._guards import check_index_range, parse_device, resolve_device, same_device  # noqa: E402, F401
from smrnb.geometry._memory import memory_budget  # noqa: E402, F401
from smrnb.geometry._memory import require as require_memory  # noqa: E402, F401
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
from smrnb.geometry.io import split_seams  # noqa: E402, F401

INTERNAL_API = (
    "as_tensor",
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
    "where_text",
)
