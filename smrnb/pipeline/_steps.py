# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""smrnb's registered steps: the geometry core's functions with their knobs.

Each step names its function by dotted path; the geometry modules are imported only when a step
runs. Where the core function's calling convention differs from ``func(data, **params)`` (a
parameter that means "none" on the command line, a result that is a report rather than data), a
small adapter below does the translation and nothing else; the adapters are pure functions too.

Coordinates: frames are OpenCV/OpenNI (camera-to-world poses); points, volumes and meshes stay in
the world frame of the poses (OpenCV axes) until ``export``, which writes y-up OpenGL files.
"""

from __future__ import annotations

import math
from typing import Any

from smrnb.pipeline._pipeline import StepOutput
from smrnb.pipeline._registry import ParamSpec, Step, StepRegistry

# --------------------------------------------------------------------------------- adapters


def select_frames(frames: Any, *, start: int = 0, every: int = 1, max_frames: int | None = None) -> Any:
    """Frames ``start, start + every, ...`` (at most ``max_frames``), sharing memory with the input.

    frames : Frames (N, H, W) -> Frames (M, H, W), M = min(ceil((N - start) / every), max_frames).
    """
    from smrnb._errors import SmrnbValueError

    n = len(frames)
    if start >= n:
        raise SmrnbValueError(f"start must be < the number of frames ({n}), got {start}")
    idx = list(range(start, n, every))
    if max_frames is not None:
        idx = idx[:max_frames]
    return frames.select(idx)


def frames_to_points(frames: Any, *, stride: int = 1, depth_min: float = 0.0,
                     depth_max: float | None = None) -> Any:
    """Back-project every frame into one world-frame cloud (``depth_max=None``: no far limit)."""
    from smrnb.geometry.points import frames_to_points as f2p

    return f2p(frames, stride=stride, depth_min=depth_min, depth_max=math.inf if depth_max is None else depth_max)


def simplify(mesh: Any, *, target_number_of_vertices: int = 80000, preserve_border: bool = True,
             aggressiveness: float = 7.0) -> StepOutput:
    """:func:`smrnb.simplify_mesh` with its report's notes and Hausdorff distance in the record."""
    from smrnb.geometry.simplify import simplify_mesh

    out = simplify_mesh(mesh, target_number_of_vertices=target_number_of_vertices,
                        preserve_border=preserve_border, aggressiveness=aggressiveness)
    rep = out.meta.get("simplify", {})
    notes = list(rep.get("notes", []))
    if rep.get("hausdorff") is not None:
        notes.append(f"Hausdorff distance to the input {rep['hausdorff']:.4g} (mesh units, sampled)")
    return StepOutput(out, notes)


def export(mesh: Any, *, path: str = "mesh.ply") -> StepOutput:
    """:func:`smrnb.export_mesh`; the output is the written path, the files listed in the notes."""
    from smrnb.geometry.io import export_mesh

    rep = export_mesh(mesh, path)
    notes = [f"wrote {rep.format.upper()}: {rep.vertices:,} vertices, {rep.faces:,} faces"
             + (", textured" if rep.textured else "")
             + (", flipped OpenCV -> OpenGL (y up)" if rep.converted_from_opencv else "")]
    if len(rep.files) > 1:
        notes.append("also wrote " + ", ".join(rep.files[1:]))
    return StepOutput(rep.path, notes, backend="trimesh (CPU)")


# ---------------------------------------------------------------------------------- steps

_VOXEL_SIZE_HELP = "edge of one voxel; halving it gives 8x the voxels, finer detail and longer runs"

STEPS: tuple[Step, ...] = (
    Step(
        "select_frames", "smrnb.pipeline._steps:select_frames",
        "Keep every k-th frame (fewer frames: faster fusion, fewer views for texture)",
        inputs=("frames",), output="frames",
        params=(
            ParamSpec("start", 0, "int", (0, 100000), help="index of the first frame kept"),
            ParamSpec("every", 1, "int", (1, 100), unit="frames", help="keep one frame out of this many"),
            ParamSpec("max_frames", None, "int", (1, 100000), unit="frames",
                      help="keep at most this many frames (none: all)"),
        ),
    ),
    Step(
        "points", "smrnb.pipeline._steps:frames_to_points",
        "Back-project depth pixels into one world-frame point cloud (OpenCV axes, metres)",
        inputs=("frames",), output="points", memory_hungry=True,
        params=(
            ParamSpec("stride", 2, "int", (1, 16), unit="px",
                      help="use every stride-th pixel in x and y; 2 keeps a quarter of the points"),
            ParamSpec("depth_min", 0.0, "float", (0.0, 20.0), 0.05, unit="m",
                      help="drop depths below this (sensor noise close to the lens)"),
            ParamSpec("depth_max", None, "float", (0.1, 100.0), 0.1, unit="m",
                      help="drop depths beyond this (far, noisy returns); none keeps all"),
        ),
    ),
    Step(
        "simplify", "smrnb.pipeline._steps:simplify",
        "Quadric decimation to at most N vertices (thin parts subdivided first so they survive)",
        inputs=("mesh",), output="mesh",
        params=(
            ParamSpec("target_number_of_vertices", 80000, "int", (100, 5_000_000), 100, unit="vertices",
                      help="upper bound on the vertex count after decimation"),
            ParamSpec("preserve_border", True, "bool",
                      help="never move open-boundary vertices (keeps hole rims and scan edges in place)"),
            ParamSpec("aggressiveness", 7.0, "float", (0.0, 10.0), 0.5,
                      help="0 is slow and careful, 10 fast and rough"),
        ),
    ),
    Step(
        "export", "smrnb.pipeline._steps:export",
        "Write the mesh as GLB, OBJ (+MTL+PNG) or PLY, y-up OpenGL frame",
        inputs=("mesh", "textured_mesh"), output="file",
        params=(
            ParamSpec("path", "mesh.ply", "path",
                      help="output file; its suffix (.glb, .obj, .ply) picks the format; relative to --output"),
        ),
    ),
)

#: smrnb's step registry (``get_step`` / ``list_steps`` read it).
REGISTRY = StepRegistry(STEPS)


def get_step(name: str) -> Step:
    """The registered :class:`Step` called ``name`` (error lists the registered names)."""
    return REGISTRY.get(name)


def list_steps() -> list[Step]:
    """Every registered step, in pipeline order."""
    return REGISTRY.steps()
