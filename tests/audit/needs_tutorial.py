# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Audit cases that pass only with the validation where data enters (rigid, finite poses and
intrinsics; colour ranges; checked in readers and constructors) and the one memory budget that
refuses before allocating. Everything else in the audit passes without them."""

NEEDS_TUTORIAL: tuple[str, ...] = (
    # poses and intrinsics where data enters
    "frames_to_points_scaled_pose",
    "frames_nan_pose",
    "frames_nan_intrinsics",
    "frames_color_0_255_floats",
    "redwood_scaled_pose",
    "redwood_last_row_1234",
    "redwood_nan_pose",
    "tum_zero_quaternion",
    "tum_nan_translation",
    "sevenscenes_scaled_pose",
    # memory refusals (the budget honours RLIMIT_AS / cgroups and covers metrics and the texture)
    "pointcloud_to_voxelgrid_huge_grid",
    "voxelgrid_to_mesh_huge_input",
    "surface_metrics_huge_n_samples",
    "bake_resolution_8192",
)
