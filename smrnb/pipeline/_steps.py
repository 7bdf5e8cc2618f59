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
from collections.abc import Sequence
from typing import Any

from smrnb._errors import SmrnbValueError
from smrnb.pipeline._registry import ParamSpec, Step, StepOutput, StepRegistry

# --------------------------------------------------------------------------------- adapters


def select_frames(frames: Any, *, start: int = 0, every: int = 1, max_frames: int | None = None) -> Any:
    """Frames ``start, start + every, ...`` (at most ``max_frames``), sharing memory with the input.

    frames : Frames (N, H, W) -> Frames (M, H, W), M = min(ceil((N - start) / every), max_frames).
    """
    n = len(frames)
    if start >= n:
        raise SmrnbValueError(f"start must be < the number of frames ({n}), got {start}")
    idx = list(range(start, n, every))
    if max_frames is not None:
        idx = idx[:max_frames]
    return frames.select(idx)


def frames_to_points(frames: Any, *, stride: int = 2, depth_min: float = 0.0,
                     depth_max: float | None = None) -> Any:
    """Back-project every frame into one world-frame cloud (``depth_max=None``: no far limit)."""
    from smrnb.geometry import frames_to_points as f2p

    return f2p(frames, stride=stride, depth_min=depth_min, depth_max=math.inf if depth_max is None else depth_max)


def voxel_grid_shape(extent: Sequence[float], voxel_size: float, max_grid_size: int) -> list[int]:
    """Voxels per axis of the grid :func:`voxelize` fits to a cloud whose bounding box has ``extent``
    (metres per axis): the box, one empty voxel on each side and one for rounding, at most ``max_grid_size``."""
    return [min(max_grid_size, math.ceil(e / voxel_size) + 3) for e in extent]


def voxelize(points: Any, *, voxel_size: float = 0.02, max_grid_size: int = 256) -> StepOutput:
    """:func:`smrnb.pointcloud_to_voxelgrid` on a grid fitted to the cloud.

    The grid covers the cloud's bounding box plus one empty voxel on each side (so marching
    cubes closes the surface), at most ``max_grid_size`` voxels per axis; a larger cloud is cut
    symmetrically (the dropped points are counted in the notes). Grid centred on the cloud.
    """
    from smrnb.geometry import pointcloud_to_voxelgrid

    pts = getattr(points, "points", points)
    if pts.shape[0] == 0:
        raise SmrnbValueError("points must not be empty, got 0 points")
    shape = voxel_grid_shape((pts.amax(0) - pts.amin(0)).double().tolist(), voxel_size, max_grid_size)
    grid = pointcloud_to_voxelgrid(points, voxel_size=voxel_size, grid_shape=tuple(shape))
    notes = [f"grid {shape[0]} x {shape[1]} x {shape[2]} at {voxel_size * 1000:g} mm"]
    if grid.dropped:
        notes.append(f"{grid.dropped:,} points outside the grid were dropped: raise max_grid_size or voxel_size")
    return StepOutput(grid, notes)


def clean(points: Any, *, drop_invalid: bool = True, voxel_size: float | None = None,
          nb_neighbors: int | None = None, std_ratio: float = 2.0, nb_points: int | None = None,
          radius: float = 0.05) -> StepOutput:
    """:func:`smrnb.clean_points`; each op's before/after and every anomaly found go to the notes."""
    from smrnb.geometry import clean_points

    res = clean_points(points, drop_invalid=drop_invalid, voxel_size=voxel_size, nb_neighbors=nb_neighbors,
                       std_ratio=std_ratio, nb_points=nb_points, radius=radius)
    notes = [f"{s.name}: {s.before:,} -> {s.after:,} points" + (f" ({s.note})" if s.note else "")
             for s in res.steps]
    notes += [f"anomaly [{a.code}] {a.message} (fix: {a.fix})" for a in res.check.anomalies]
    return StepOutput(res.cloud, notes)


#: the backend line of steps that run on the CPU whatever the data's device, and why
CPU_BACKENDS = {
    "fill_holes": "numpy on the CPU (hole search and patch triangulation: sequential graph work on small holes)",
    "simplify": "fast-simplification on the CPU (quadric decimation: there is no GPU decimator to call)",
    "uv": "xatlas on the CPU, in the helper process (chart segmentation and packing: no GPU unwrapper exists)",
    "export": "CPU file encoding (JPEG and GLB bytes: image codecs and files live on the host; seams split and "
              "empty texels filled on the mesh's device)",
}


def fill_holes(mesh: Any, *, max_hole_edges: int | None = 30, refine: bool = True, fair: bool = True) -> StepOutput:
    """:func:`smrnb.fill_holes`; holes found / filled / left and non-manifold spots in the notes, every
    hole's size in the details."""
    from smrnb.geometry import fill_holes as fh

    res = fh(mesh, max_hole_edges=max_hole_edges, refine=refine, fair=fair, return_report=True)
    return StepOutput(res.mesh, [res.summary()], backend=CPU_BACKENDS["fill_holes"],
                      details=[res.details()] if res.holes_found else [])


def repair_non_manifold(mesh: Any, *, split_vertices: bool = False) -> StepOutput:
    """:func:`smrnb.repair_non_manifold` with its summary in the notes."""
    from smrnb.geometry import repair_non_manifold as rnm

    res = rnm(mesh, split_vertices=split_vertices)
    return StepOutput(res.mesh, [res.summary()])


def extract_mesh(volume: Any, *, weight_threshold: float = 1.0) -> Any:
    """``TSDFVolume.extract_mesh``: marching cubes at tsdf = 0 on the observed voxels (OpenCV world frame)."""
    return volume.extract_mesh(weight_threshold=weight_threshold)


#: the atlas side the uv step packs at, at most (see :func:`uv_unwrap`)
UV_PACK_RESOLUTION = 1024


def uv_unwrap(mesh: Any, *, chart_num: int = 100, padding: float = 0.001, resolution: int = 1024,
              max_normal_deviation: float = 60.0) -> StepOutput:
    """:func:`smrnb.auto_uv` on the mesh; the result is the same mesh with ``uvs`` and ``face_uvs_idx``.

    The charts are packed at ``min(resolution, UV_PACK_RESOLUTION)`` texels: UVs are fractions of the
    atlas side and ``padding`` is one too, so the layout and its gaps hold for any texture side, while
    xatlas' packing time grows with the side (seconds at 1024, minutes at 8192 on a 2-core CPU)."""
    from smrnb.geometry import auto_uv

    pack = min(resolution, UV_PACK_RESOLUTION)
    res = auto_uv(mesh.vertices, mesh.faces, chart_num=chart_num, padding=padding, resolution=pack,
                  max_normal_deviation=max_normal_deviation)
    r = res.report
    notes = [f"{r.charts} charts, {r.utilization:.0%} of the atlas used, stretch mean {r.stretch_mean:.3f} "
             f"max {r.stretch_max:.3f}, {r.vertices_out:,} uv vertices after seam splits"
             + (f"; packed at {pack} texels, the layout serves a {resolution}-texel texture" if pack < resolution else "")]
    return StepOutput(mesh.replace(uvs=res.uvs, face_uvs_idx=res.face_uvs_idx), notes, backend=CPU_BACKENDS["uv"])


def warm_uv() -> None:
    """Start the native helper process (numpy and xatlas imported) that :func:`uv_unwrap` calls."""
    from smrnb import _native

    _native.prewarm("smrnb._xatlas")


def texture(mesh: Any, *, frames: Any, resolution: int = 1024, angle_power: float = 2.0,
            visibility_tolerance: float = 0.02, depth_check: float | None = 0.05, border: int = 8,
            dilate: int = 4, near: float = 0.05) -> StepOutput:
    """:func:`smrnb.bake_texture` from the RGB frames (the pipeline's latest frames); the textured
    mesh out, the per-texel confidence in ``mesh.meta["texture_confidence"]``, coverage in the notes."""
    from smrnb.geometry import bake_texture

    res = bake_texture(mesh, frames, resolution=resolution, angle_power=angle_power,
                       visibility_tolerance=visibility_tolerance, depth_check=depth_check, border=border,
                       dilate=dilate, near=near)
    out = res.mesh.replace(meta={**res.mesh.meta, "texture_confidence": res.confidence})
    return StepOutput(out, [res.summary()])


def simplify(mesh: Any, *, target_number_of_vertices: int = 80000, preserve_border: bool = True,
             aggressiveness: float = 7.0) -> StepOutput:
    """:func:`smrnb.simplify_mesh` with its report's notes and Hausdorff distance in the record."""
    from smrnb.geometry import simplify_mesh

    out = simplify_mesh(mesh, target_number_of_vertices=target_number_of_vertices,
                        preserve_border=preserve_border, aggressiveness=aggressiveness, measure_hausdorff=True)
    rep = out.meta.get("simplify", {})
    notes = list(rep.get("notes", []))
    if rep.get("hausdorff") is not None:
        notes.append(f"Hausdorff distance to the input {rep['hausdorff']:.4g} (mesh units, sampled)")
    return StepOutput(out, notes, backend=CPU_BACKENDS["simplify"])


def export(mesh: Any, *, path: str = "mesh.ply", texture_format: str = "jpeg", quantize: str = "positions",
           min_psnr: float = 40.0) -> StepOutput:
    """:func:`smrnb.export_mesh`; the output is the written path, the files listed in the notes."""
    from smrnb.geometry import export_mesh

    rep = export_mesh(mesh, path, texture_format=texture_format, quantize=quantize, min_psnr=min_psnr)
    notes = [f"wrote {rep.format.upper()} ({rep.bytes / 1000:,.0f} kB): {rep.vertices:,} vertices, {rep.faces:,} faces"
             + (", textured" if rep.textured else "")
             + (", flipped OpenCV -> OpenGL (y up)" if rep.converted_from_opencv else "")]
    if rep.format == "glb" and rep.quantized != "none":
        notes.append("16-bit " + ("positions and texture coordinates" if rep.quantized == "all" else "positions")
                     + " (KHR_mesh_quantization)")
    t = rep.texture
    if t is not None:
        notes.append(f"texture {t.width}x{t.height} {t.format.upper()} {t.bytes / 1000:,.0f} kB"
                     + (f", PSNR {t.psnr:.2f} dB against the lossless texture over the texels the mesh shows "
                        f"({t.shown:.0%} of them; quantisation step {t.step}, dead zone {t.deadzone:.2f})"
                        if t.psnr is not None else ", lossless"))
    if len(rep.files) > 1:
        notes.append("also wrote " + ", ".join(rep.files[1:]))
    if rep.replaced:
        notes.append("replaced the existing " + ", ".join(rep.replaced))
    return StepOutput(rep.path, notes, backend=CPU_BACKENDS["export"] if rep.format == "glb" else "trimesh (CPU)")


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
        "clean", "smrnb.pipeline._steps:clean",
        "Drop invalid points (NaN, z = 0 piles), downsample, remove outliers; anomalies reported",
        inputs=("points",), output="points",
        params=(
            ParamSpec("drop_invalid", True, "bool",
                      help="drop NaN/inf points and the z = 0 / collapsed piles that check_points reports"),
            ParamSpec("voxel_size", None, "float", (0.001, 0.5), unit="m", log_scale=True,
                      help="keep one point per voxel of this size; none: no downsampling"),
            ParamSpec("nb_neighbors", None, "int", (2, 200), unit="points",
                      help="statistical outlier removal over this many neighbours; none: off"),
            ParamSpec("std_ratio", 2.0, "float", (0.1, 10.0), 0.1,
                      help="statistical removal threshold in standard deviations (lower removes more)"),
            ParamSpec("nb_points", None, "int", (1, 200), unit="points",
                      help="radius outlier removal: points with fewer neighbours within radius go; none: off"),
            ParamSpec("radius", 0.05, "float", (0.001, 1.0), 0.001, unit="m", help="radius of that search"),
        ),
    ),
    Step(
        "voxelize", "smrnb.pipeline._steps:voxelize",
        "Occupancy grid of the points, fitted to their bounding box",
        inputs=("points",), output="voxels", memory_hungry=True, cost="smrnb.pipeline._estimate:voxelize_cost",
        params=(
            ParamSpec("voxel_size", 0.02, "float", (0.002, 0.5), unit="m", log_scale=True, help=_VOXEL_SIZE_HELP),
            ParamSpec("max_grid_size", 256, "int", (8, 1024), 8, unit="voxels",
                      help="cap on voxels per axis; points beyond it are dropped"),
        ),
    ),
    Step(
        "marching_cubes", "smrnb.geometry:voxelgrid_to_mesh",
        "Triangle mesh of the occupancy grid by marching cubes (world units)",
        inputs=("voxels",), output="mesh",
        params=(
            ParamSpec("iso_value", 0.5, "float", (0.01, 0.99), 0.01,
                      help="voxels with a value above this are inside"),
            ParamSpec("smooth", False, "bool",
                      help="blur the binary occupancy first so the surface is not a voxel staircase"),
        ),
    ),
    Step(
        "tsdf", "smrnb.geometry:fuse_tsdf",
        "Fuse the posed RGB-D frames into a sparse truncated signed distance volume with colors",
        inputs=("frames",), output="tsdf", memory_hungry=True, cost="smrnb.pipeline._estimate:tsdf_cost",
        params=(
            # default = fuse_tsdf's (tests/geometry/test_homes.py catches any drift)
            ParamSpec("voxel_size", 0.01, "float", (0.002, 0.2), unit="m", log_scale=True, help=_VOXEL_SIZE_HELP),
            ParamSpec("truncation", None, "float", (0.002, 1.0), 0.002, unit="m",
                      help="distance band kept around the surface; none means 4 voxels (use 6-8 on noisy depth)"),
            ParamSpec("depth_min", 0.1, "float", (0.0, 20.0), 0.05, unit="m", help="ignore depths below this"),
            ParamSpec("depth_max", 3.0, "float", (0.1, 100.0), 0.1, unit="m",
                      help="ignore depths beyond this (far readings are noisy and cost memory)"),
            ParamSpec("block_size", 8, "int", (2, 32), unit="voxels",
                      help="edge of an allocation block; smaller blocks follow the surface more tightly"),
            ParamSpec("color", True, "bool", help="fuse colors too (when the frames have them)"),
            ParamSpec("max_weight", None, "float", (1.0, 1e6), unit="observations",
                      help="cap on a voxel's weight so the volume can follow changes; none: no cap"),
            ParamSpec("memory_budget", None, "int", (1 << 20, 1 << 42), unit="bytes",
                      help="refuse before allocating more than this; none: half the free RAM, 80 % of free GPU memory"),
        ),
    ),
    Step(
        "extract_mesh", "smrnb.pipeline._steps:extract_mesh",
        "Marching cubes on the TSDF's observed voxels, with vertex colors",
        inputs=("tsdf",), output="mesh",
        params=(
            ParamSpec("weight_threshold", 1.0, "float", (0.1, 1000.0), 0.1, unit="observations",
                      help="voxels seen fewer times count as unobserved (raise to drop flimsy surfaces)"),
        ),
    ),
    Step(
        "repair_non_manifold", "smrnb.pipeline._steps:repair_non_manifold",
        "Split non-manifold edges (and optionally bow-tie vertices) by duplicating vertices",
        inputs=("mesh",), output="mesh",
        params=(ParamSpec("split_vertices", False, "bool", help="also separate the fans of bow-tie vertices"),),
    ),
    Step(
        "fill_holes", "smrnb.pipeline._steps:fill_holes",
        "Close holes of up to N boundary edges with fair patches; report what was left",
        inputs=("mesh",), output="mesh",
        params=(
            ParamSpec("max_hole_edges", 30, "int", (3, 100000), unit="edges", none_ok=True,
                      help="holes with more boundary edges stay open; none: close every hole"),
            ParamSpec("refine", True, "bool", help="densify each patch to the surrounding edge lengths"),
            ParamSpec("fair", True, "bool", help="place the patch's inner vertices smoothly (thin-plate)"),
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
        "uv", "smrnb.pipeline._steps:uv_unwrap",
        "UV atlas by xatlas, charts split where the normal turns",
        inputs=("mesh",), output="mesh", warm="smrnb.pipeline._steps:warm_uv",
        params=(
            ParamSpec("chart_num", 100, "int", (1, 1000), help="maximum chart area = surface area / chart_num"),
            ParamSpec("padding", 0.001, "float", (0.0, 0.01), 0.0005, unit="uv",
                      help="gap between charts as a fraction of the atlas side (0.01 of 1024 texels is 10)"),
            ParamSpec("resolution", 1024, "int", (16, 16384), 16, unit="texels",
                      help="texture side the atlas is made for; match the texture you bake (packed at up to 1024)"),
            ParamSpec("max_normal_deviation", 60.0, "float", (1.0, 180.0), 1.0, unit="degrees",
                      help="charts split where the normal turns more than this"),
        ),
    ),
    Step(
        "texture", "smrnb.pipeline._steps:texture",
        "Bake a color texture from the RGB frames that see each texel (depth-tested, angle-weighted)",
        inputs=("mesh",), output="textured_mesh", extra_inputs=("frames",), cost="smrnb.pipeline._estimate:texture_cost",
        params=(
            ParamSpec("resolution", 1024, "int", (64, 8192), 64, unit="texels", help="texture side"),
            ParamSpec("angle_power", 2.0, "float", (0.0, 8.0), 0.5,
                      help="weight exponent on the viewing cosine; higher prefers head-on views"),
            ParamSpec("visibility_tolerance", 0.02, "float", (0.001, 0.5), 0.001, unit="m",
                      help="a texel is visible when within this of the mesh's rendered depth (plus 1 %)"),
            ParamSpec("depth_check", 0.05, "float", (0.001, 1.0), 0.005, unit="m", none_ok=True,
                      help="reject views whose measured depth disagrees by more than this; none: off"),
            ParamSpec("border", 8, "int", (0, 100), unit="px", help="weights fade to 0 over this many image-border pixels"),
            ParamSpec("dilate", 4, "int", (0, 64), unit="texels", help="rounds of dilation across UV seams"),
            ParamSpec("near", 0.05, "float", (0.001, 5.0), 0.01, unit="m",
                      help="points closer to a camera than this are not textured from it"),
        ),
    ),
    Step(
        "export", "smrnb.pipeline._steps:export",
        "Write the mesh as GLB, OBJ (+MTL+PNG) or PLY, y-up OpenGL frame",
        inputs=("mesh", "textured_mesh"), output="file",
        params=(
            ParamSpec("path", "mesh.ply", "path", suffixes=(".glb", ".obj", ".ply"),
                      help="output file; its suffix picks the format; relative to --output"),
            ParamSpec("texture_format", "jpeg", "choice", choices=("jpeg", "png"),
                      help="GLB texture: jpeg (sized for the web, PSNR >= min_psnr) or png (lossless)"),
            ParamSpec("quantize", "positions", "choice", choices=("positions", "all", "none"),
                      help="GLB: 16-bit positions, float uvs (positions: every reader, trimesh too), 16-bit "
                           "uvs too (all: 4 bytes less per vertex; trimesh misreads them), or none (float32, "
                           "no extension)"),
            ParamSpec("min_psnr", 40.0, "float", (20.0, 60.0), 0.5, unit="dB",
                      help="GLB JPEG texture: least PSNR against the lossless texture"),
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
