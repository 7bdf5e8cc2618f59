# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit, kind ``silent``: bad input where data enters (containers, steps, readers, configs).

A case with a pattern (``expect``) must end in a SmrnbError whose message matches it (naming the
argument or file at fault): returning normally is silent acceptance, another SmrnbError is
misleading, another exception raw. A case with ``expect=OK`` accepts a correct result *or* a clear
error (see ``_blind.either``); a wrong result is silent.
"""

from __future__ import annotations

import math

import numpy as np

from tests.audit._blind import either, mesh_sphere, redwood_copy, sevenscenes_folder, tiny_frames
from tests.audit._cases import OK, blind_case, tmp, tum_folder

KIND = "silent"
TUM_K = (50.0, 50.0, 31.5, 23.5)  # the 64x48 test images of tum_folder()


def _mesh_with(**kw):
    import smrnb

    m = mesh_sphere(2)
    return smrnb.Mesh(kw.pop("vertices", m.vertices), kw.pop("faces", m.faces), **kw)


def _export(mesh, name="x.glb"):
    import smrnb

    return smrnb.export_mesh(mesh, tmp() / name)


# ------------------------------------------------------------------------------ meshes and clouds

@blind_case("silent_export_nan_vertices", ("Mesh", "export_mesh"), r"vertices|nan|finite", kind=KIND)
def _():
    m = mesh_sphere(2)
    v = m.vertices.clone()
    v[5] = float("nan")
    _export(_mesh_with(vertices=v))


@blind_case("silent_export_faces_out_of_range", ("Mesh", "export_mesh"), r"faces|index|range", kind=KIND)
def _():
    m = mesh_sphere(2)
    f = m.faces.clone()
    f[3, 1] = m.vertices.shape[0] + 10
    _export(_mesh_with(faces=f), "x.ply")


@blind_case("silent_fractional_float_faces", ("Mesh", "export_mesh"), r"faces|integer|dtype", kind=KIND)
def _():
    m = mesh_sphere(2)
    _export(_mesh_with(faces=m.faces.float() + 0.5))


@blind_case("silent_complex_vertices", ("Mesh", "export_mesh"), r"vertices|complex|dtype|float", kind=KIND)
def _():
    m = mesh_sphere(2)
    _export(_mesh_with(vertices=m.vertices.to(dtype=__import__("torch").complex64)), "x.ply")


@blind_case("silent_bool_vertices", ("Mesh", "compute_vertex_normals"), r"vertices|bool|dtype|float", kind=KIND)
def _():
    import smrnb

    m = mesh_sphere(2)
    smrnb.compute_vertex_normals(m.vertices > 0, m.faces)


def _normals_close(dtype):
    import torch

    import smrnb

    m = mesh_sphere(3)
    ref = smrnb.compute_vertex_normals(m.vertices, m.faces)

    def check(n):
        if not isinstance(n, torch.Tensor) or n.shape != ref.shape:
            return f"normals of shape {getattr(n, 'shape', None)} for {tuple(ref.shape)}"
        err = (n.float() - ref).abs().max().item()
        return None if err < 2e-2 else f"normals in {dtype} differ from float32 by {err:.3f}"

    either(lambda: smrnb.compute_vertex_normals(m.vertices.to(dtype), m.faces), check, r"vertices|dtype|float16|"
           r"bfloat16|half", f"compute_vertex_normals({dtype})")


@blind_case("silent_vertex_normals_float16", "compute_vertex_normals", OK, kind=KIND)
def _():
    import torch

    _normals_close(torch.float16)


@blind_case("silent_vertex_normals_bfloat16", "compute_vertex_normals", OK, kind=KIND)
def _():
    import torch

    _normals_close(torch.bfloat16)


@blind_case("silent_face_normals_non_contiguous", "compute_face_normals", OK, kind=KIND)
def _():
    import smrnb

    m = mesh_sphere(3)
    ref = smrnb.compute_face_normals(m.vertices, m.faces)
    v_nc = m.vertices.t().contiguous().t()  # same values, column-major strides
    f_nc = m.faces.t().contiguous().t()
    assert not v_nc.is_contiguous() and not f_nc.is_contiguous()

    def check(n):
        err = (n - ref).abs().max().item()
        return None if err < 1e-5 else f"face normals of non-contiguous input differ by {err:.3g}"

    either(lambda: smrnb.compute_face_normals(v_nc, f_nc), check, r"contiguous", "compute_face_normals")


@blind_case("silent_export_vertex_colors_0_255", ("Mesh", "export_mesh"), r"colou?r", kind=KIND)
def _():
    import torch

    m = mesh_sphere(2)
    colors = torch.full((m.vertices.shape[0], 3), 200.0)
    _export(_mesh_with(vertex_colors=colors), "x.ply")


@blind_case("silent_pointcloud_colors_wrong_length", ("PointCloud", "voxel_downsample"), r"colou?rs", kind=KIND)
def _():
    import torch

    import smrnb

    p = torch.rand(100, 3)
    smrnb.voxel_downsample(smrnb.PointCloud(p, colors=torch.rand(99, 3)), 0.1)


# --------------------------------------------------------------------------------- depth_to_points

def _depth_u16():
    return np.full((48, 64), 1500, np.uint16)


def _K():
    return np.array([[50.0, 0, 31.5], [0, 50.0, 23.5], [0, 0, 1]])


@blind_case("silent_depth_int_without_depth_scale", "depth_to_points", r"depth_scale", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(_depth_u16(), _K())


@blind_case("silent_depth_scale_zero", "depth_to_points", r"depth_scale", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(_depth_u16(), _K(), depth_scale=0)


@blind_case("silent_depth_scale_negative", "depth_to_points", r"depth_scale", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(np.full((48, 64), 1.5, np.float32), _K(), depth_scale=-1000.0)


@blind_case("silent_depth_fractional_stride", "depth_to_points", r"stride", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(np.full((48, 64), 1.5, np.float32), _K(), stride=2.5)


@blind_case("silent_depth_bool_intrinsics", "depth_to_points", r"\bK\b|intrinsic", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(np.full((48, 64), 1.5, np.float32), _K() > 0)


@blind_case("silent_depth_string_intrinsics", "depth_to_points", r"\bK\b|intrinsic", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(np.full((48, 64), 1.5, np.float32), [["50", "0", "31.5"], ["0", "50", "23.5"],
                                                              ["0", "0", "1"]])


@blind_case("silent_depth_color_size_mismatch", "depth_to_points", r"colou?r", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(np.full((48, 64), 1.5, np.float32), _K(), color=np.zeros((24, 32, 3), np.uint8))


@blind_case("silent_depth_color_float_0_255", "depth_to_points", r"colou?r", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(np.full((48, 64), 1.5, np.float32), _K(), color=np.full((48, 64, 3), 180.0, np.float32))


@blind_case("silent_depth_nan_pose", "depth_to_points", r"pose", kind=KIND)
def _():
    import smrnb

    pose = np.eye(4)
    pose[1, 3] = np.nan
    smrnb.depth_to_points(np.full((48, 64), 1.5, np.float32), _K(), pose=pose)


@blind_case("silent_depth_min_above_max", "depth_to_points", r"depth_(min|max)", kind=KIND)
def _():
    import smrnb

    smrnb.depth_to_points(np.full((48, 64), 1.5, np.float32), _K(), depth_min=3.0, depth_max=1.0)


# ---------------------------------------------------------------------------------- steps

@blind_case("silent_fuse_tsdf_inf_pose", "fuse_tsdf", r"pose", kind=KIND)
def _():
    import smrnb

    fr = tiny_frames(2)
    fr.poses[1, 2, 3] = float("inf")
    smrnb.fuse_tsdf(fr, voxel_size=0.05, progress=False)


@blind_case("silent_tsdf_truncation_below_voxel", "fuse_tsdf", r"truncation", kind=KIND)
def _():
    import smrnb

    smrnb.fuse_tsdf(tiny_frames(2), voxel_size=0.05, truncation=0.01, progress=False)


@blind_case("silent_tsdf_nan_voxel_size", "TSDFVolume", r"voxel_size", kind=KIND)
def _():
    import smrnb

    smrnb.TSDFVolume(voxel_size=float("nan"))


@blind_case("silent_voxelgrid_nan_voxel_size", "pointcloud_to_voxelgrid", r"voxel_size", kind=KIND)
def _():
    import torch

    import smrnb

    smrnb.pointcloud_to_voxelgrid(torch.rand(100, 3), voxel_size=float("nan"), grid_shape=16)


@blind_case("silent_marching_cubes_nan_iso", "voxelgrid_to_mesh", r"iso", kind=KIND)
def _():
    import torch

    import smrnb

    g = torch.zeros(8, 8, 8)
    g[2:6, 2:6, 2:6] = 1
    smrnb.voxelgrid_to_mesh(g, iso_value=float("nan"))


@blind_case("silent_fill_holes_fractional_max_edges", "fill_holes", r"max_hole_edges", kind=KIND)
def _():
    import smrnb

    m = mesh_sphere(2)
    smrnb.fill_holes(smrnb.Mesh(m.vertices, m.faces[5:]), max_hole_edges=2.5)


@blind_case("silent_simplify_nan_aggressiveness", "simplify_mesh", r"aggressiveness", kind=KIND)
def _():
    import smrnb

    smrnb.simplify_mesh(mesh_sphere(3), target_number_of_vertices=100, aggressiveness=float("nan"))


@blind_case("silent_simplify_bool_target", "simplify_mesh", r"target_number_of_vertices", kind=KIND)
def _():
    import smrnb

    smrnb.simplify_mesh(mesh_sphere(3), target_number_of_vertices=True)


@blind_case("silent_auto_uv_faces_out_of_range", "auto_uv", r"faces", kind=KIND, timeout=90)
def _():
    import smrnb

    m = mesh_sphere(2)
    f = m.faces.clone()
    f[0, 0] = 10_000
    smrnb.auto_uv(m.vertices, f, chart_num=4, resolution=64)


@blind_case("silent_bake_texture_without_uvs", "bake_texture", r"uv", kind=KIND)
def _():
    import smrnb

    smrnb.bake_texture(mesh_sphere(2), tiny_frames(1), resolution=64)


@blind_case("silent_render_depth_nan_K", "render_depth", r"\bK\b|intrinsic", kind=KIND)
def _():
    import torch

    import smrnb

    K = torch.tensor([[50.0, 0, 31.5], [0, float("nan"), 23.5], [0, 0, 1]])
    pose = torch.eye(4)
    pose[2, 3] = -3.0
    smrnb.render_depth(mesh_sphere(2), K, pose, 48, 64)


@blind_case("silent_surface_metrics_negative_tau", "surface_metrics", r"tau", kind=KIND)
def _():
    import smrnb

    smrnb.surface_metrics(mesh_sphere(2), mesh_sphere(3), tau=-0.01, n_samples=1000)


@blind_case("silent_convert_coordinates_unknown_frame", "convert_coordinates", r"dst|blender", kind=KIND)
def _():
    import torch

    import smrnb

    smrnb.convert_coordinates(torch.rand(10, 3), "opencv", "blender")


@blind_case("silent_load_sample_frames_out_of_range", "load_sample", r"frames", kind=KIND)
def _():
    import smrnb

    smrnb.load_sample(frames=[0, 1000])


@blind_case("silent_pipeline_no_valid_depth_exports", ("Pipeline",), r"depth|empty|no (valid|surface|points)|"
            r"nothing|0 (faces|vertices)", kind=KIND)
def _():
    import smrnb

    fr = tiny_frames(2)
    fr.depth.zero_()
    p = smrnb.Pipeline(steps=[("tsdf", {"voxel_size": 0.05}), "extract_mesh", ("export", {"path": "empty.glb"})],
                       source=fr, output_dir=tmp() / "empty")
    p.run()


# ---------------------------------------------------------------------------------- readers

def _png(path, array):
    from PIL import Image

    Image.fromarray(array).save(path)


@blind_case("silent_redwood_8bit_depth_png", "load_redwood", r"depth|8.?bit|uint16|bit depth|\.png", kind=KIND)
def _():
    import smrnb

    d = redwood_copy(3)
    first = sorted((d / "depth").iterdir())[1]
    _png(first, np.full((480, 640), 200, np.uint8))
    smrnb.load_redwood(d)


@blind_case("silent_redwood_rgb_depth_png", "load_redwood", r"depth|channel|\.png", kind=KIND)
def _():
    import smrnb

    d = redwood_copy(3)
    first = sorted((d / "depth").iterdir())[2]
    _png(first, np.full((480, 640, 3), 90, np.uint8))
    smrnb.load_redwood(d)


@blind_case("silent_redwood_color_size_mismatch", "load_redwood", r"image|colou?r|size|shape|\.jpg", kind=KIND)
def _():
    from PIL import Image

    import smrnb

    d = redwood_copy(3)
    jpg = sorted((d / "image").iterdir())[1]
    Image.open(jpg).resize((320, 240)).save(jpg)
    smrnb.load_redwood(d)


@blind_case("silent_redwood_exif_rotated_color", "load_redwood", OK, kind=KIND)
def _():
    from PIL import Image

    import smrnb

    d = redwood_copy(2)
    jpg = sorted((d / "image").iterdir())[0]
    upright = np.asarray(Image.open(jpg).convert("RGB"))
    stored = Image.fromarray(upright).transpose(Image.Transpose.ROTATE_90)  # the raw sensor rows, portrait
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90 CW to display
    stored.save(jpg, exif=exif.tobytes(), quality=95)

    def check(fr):
        c = fr.color[0].numpy()
        if c.shape[:2] != (480, 640):
            return f"colour of shape {c.shape} beside 480x640 depth"
        diff = np.abs(c.astype(int) - upright.astype(int)).mean()
        return None if diff < 12 else f"colour not upright (mean difference {diff:.1f} from the upright image)"

    either(lambda: smrnb.load_redwood(d), check, r"image|colou?r|size|shape|orientation|exif|\.jpg",
           "load_redwood with an EXIF-rotated colour image")


@blind_case("silent_redwood_fewer_poses_than_frames", "load_redwood", OK, kind=KIND)
def _():
    import smrnb

    d = redwood_copy(3)
    lines = (d / "trajectory.log").read_text().splitlines()[:10]
    (d / "trajectory.log").write_text("\n".join(lines) + "\n")

    def check(fr):
        if fr.poses is None:
            return "the trajectory was dropped without a word"
        if len(fr.names) > 2:
            return f"{len(fr.names)} frames with poses from a log of 2 poses"
        return None

    either(lambda: smrnb.load_redwood(d), check, r"trajectory|pose|\.log", "load_redwood with 2 poses for 3 frames")


@blind_case("silent_read_log_short_row", "datasets.read_log", r"log|line|row", kind=KIND)
def _():
    import smrnb.datasets

    p = tmp() / "t.log"
    p.write_text("0 0 1\n1 0 0 0\n0 1 0\n0 0 1 0\n0 0 0 1\n")
    smrnb.datasets.read_log(p)


@blind_case("silent_redwood_inf_pose", "load_redwood", r"pose|trajectory|finite|inf|\.log", kind=KIND)
def _():
    import smrnb

    d = redwood_copy(2)
    lines = (d / "trajectory.log").read_text().splitlines()
    lines[6] = "1 0 0 1e999"
    (d / "trajectory.log").write_text("\n".join(lines) + "\n")
    smrnb.load_redwood(d)


def _intrinsic(tmpname: str, matrix) -> object:
    import json

    import smrnb.datasets

    p = tmp() / tmpname
    p.write_text(json.dumps({"width": 640, "height": 480, "intrinsic_matrix": matrix}))
    return smrnb.datasets.read_intrinsic_json(p)


@blind_case("silent_intrinsic_json_8_numbers", "datasets.read_intrinsic_json", r"intrinsic_matrix|9 (numbers|values)", kind=KIND)
def _():
    _intrinsic("k.json", [525.0, 0, 0, 0, 525.0, 0, 319.5, 239.5])


@blind_case("silent_intrinsic_json_zero_focal", "datasets.read_intrinsic_json", r"intrinsic|focal|fx|fy",
            kind=KIND)
def _():
    _intrinsic("k.json", [0.0, 0, 0, 0, 525.0, 0, 319.5, 239.5, 1])


@blind_case("silent_intrinsic_json_bools_and_strings", "datasets.read_intrinsic_json", r"intrinsic", kind=KIND)
def _():
    _intrinsic("k.json", [True, 0, 0, 0, True, 0, "319.5", "239.5", 1])


@blind_case("silent_tum_quaternion_not_unit", "load_tum", OK, kind=KIND)
def _():
    import smrnb

    root = tum_folder("1.0 0 0 1 0 0 0.7071 1.4142")  # rotation 90 deg about z, scaled by 1.58

    def check(fr):
        R = fr.poses[0, :3, :3].double()
        err = (R @ R.T - __import__("torch").eye(3, dtype=R.dtype)).abs().max().item()
        return None if err < 1e-4 else f"pose rotation is not orthonormal (|R R^T - I| = {err:.2f})"

    either(lambda: smrnb.load_tum(root, intrinsics=TUM_K), check, r"quaternion|groundtruth",
           "load_tum with a quaternion of norm 1.58")


@blind_case("silent_tum_groundtruth_missing_column", "load_tum", r"groundtruth|line|column|8 (numbers|values|columns)", kind=KIND)
def _():
    import smrnb

    smrnb.load_tum(tum_folder("1.0 0 0 1 0 0 0"), intrinsics=TUM_K)


@blind_case("silent_tum_rgb_txt_bad_timestamp", "load_tum", r"rgb\.txt|timestamp|line", kind=KIND)
def _():
    import smrnb

    root = tum_folder()
    (root / "rgb.txt").write_text("# rgb\nnoon rgb/1.0.png\n")
    smrnb.load_tum(root, intrinsics=TUM_K)


@blind_case("silent_7scenes_pose_three_rows", "load_7scenes", r"pose", kind=KIND)
def _():
    import smrnb

    root = sevenscenes_folder(2)
    np.savetxt(root / "frame-000001.pose.txt", np.eye(4)[:3])
    smrnb.load_7scenes(root)


@blind_case("silent_7scenes_nan_intrinsics", "load_7scenes", r"intrinsic|\bK\b", kind=KIND)
def _():
    import smrnb

    root = sevenscenes_folder(2)
    (root / "camera-intrinsics.txt").write_text("50 0 31.5\n0 nan 23.5\n0 0 1\n")
    smrnb.load_7scenes(root)


# ---------------------------------------------------------------------------------- configs

def _config(text: str):
    import smrnb.pipeline

    p = tmp() / "cfg" / "scan.yaml"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return smrnb.pipeline.load_config(p)


def _param(cfg, step, name):
    for s in cfg["steps"]:
        if s.get("step") == step:
            return (s.get("params") or {}).get(name, "<absent>")
    return "<no step>"


_TSDF = "source: {path: sample, max_frames: 2}\nsteps:\n  - step: tsdf\n    params:\n"


@blind_case("silent_config_duplicate_keys", "pipeline.load_config", r"duplicate|voxel_size", kind=KIND)
def _():
    _config(_TSDF + "      voxel_size: 0.01\n      depth_max: 3.0\n      voxel_size: 0.2\n")


@blind_case("silent_config_yaml11_exponent", "pipeline.load_config", OK, kind=KIND)
def _():
    def check(cfg):
        v = _param(cfg, "tsdf", "voxel_size")
        return None if isinstance(v, float) and math.isclose(v, 0.001) else f"voxel_size 1e-3 read as {v!r}"

    either(lambda: _config(_TSDF + "      voxel_size: 1e-3\n"), check, r"voxel_size", "voxel_size: 1e-3")


@blind_case("silent_config_yaml11_octal", "pipeline.load_config", OK, kind=KIND)
def _():
    def check(cfg):
        v = _param(cfg, "fill_holes", "max_hole_edges")
        return None if v == 10 else f"max_hole_edges: 010 read as {v!r}"

    text = "source: sample\nsteps:\n  - step: tsdf\n  - step: extract_mesh\n  - step: fill_holes\n" \
           "    params: {max_hole_edges: 010}\n"
    either(lambda: _config(text), check, r"max_hole_edges", "max_hole_edges: 010")


@blind_case("silent_config_yaml_inf_depth_max", "pipeline.load_config", r"depth_max", kind=KIND)
def _():
    _config(_TSDF + "      depth_max: .inf\n")


@blind_case("silent_config_yaml_nan_voxel_size", "pipeline.load_config", r"voxel_size", kind=KIND)
def _():
    _config(_TSDF + "      voxel_size: .nan\n")


@blind_case("silent_config_float_for_int", "pipeline.load_config", r"target_number_of_vertices", kind=KIND)
def _():
    _config("source: sample\nsteps:\n  - step: tsdf\n  - step: extract_mesh\n  - step: simplify\n"
            "    params: {target_number_of_vertices: 8000.7}\n")


@blind_case("silent_config_yes_for_int", "pipeline.load_config", r"target_number_of_vertices", kind=KIND)
def _():
    _config("source: sample\nsteps:\n  - step: tsdf\n  - step: extract_mesh\n  - step: simplify\n"
            "    params: {target_number_of_vertices: yes}\n")


@blind_case("silent_config_unknown_top_level_key", "pipeline.load_config", r"stepz", kind=KIND)
def _():
    _config("source: sample\nstepz:\n  - step: tsdf\nsteps:\n  - step: tsdf\n")


@blind_case("silent_config_source_stride_zero", "pipeline.load_config", r"stride", kind=KIND)
def _():
    _config("source: {path: sample, stride: 0}\nsteps:\n  - step: tsdf\n")


@blind_case("silent_config_export_path_no", "pipeline.load_config", r"path", kind=KIND)
def _():
    _config("source: sample\nsteps:\n  - step: tsdf\n  - step: extract_mesh\n  - step: export\n"
            "    params: {path: no}\n")


@blind_case("silent_validate_config_inf", "pipeline.validate_config", r"voxel_size", kind=KIND)
def _():
    import smrnb.pipeline

    smrnb.pipeline.validate_config({"source": "sample", "steps": [{"step": "tsdf",
                                                                   "params": {"voxel_size": float("inf")}}]})

