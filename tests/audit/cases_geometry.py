# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Audit cases of the geometry core: containers, points, cleaning, surfaces, metrics, repair, uv, texture."""

from __future__ import annotations

import math

from tests.audit._cases import OK, case, cloud, frames, sphere, uv_sphere


def _t():
    import torch

    return torch


def _s():
    import smrnb

    return smrnb


# ------------------------------------------------------------------------------------ devices (one check)

@case("device_cuda_on_cpu_torch_fuse_tsdf", ("fuse_tsdf",), r"device='cuda'.*no CUDA GPU|device.*cuda")
def _():
    torch = _t()
    if torch.cuda.is_available():
        raise _s().SmrnbValueError("device='cuda' test needs a CPU-only torch (a GPU is visible)")
    _s().fuse_tsdf(frames(2), voxel_size=0.05, device="cuda", progress=False)


@case("device_banana_fuse_tsdf", ("fuse_tsdf",), r"device must be 'cpu' or 'cuda'.*banana")
def _():
    _s().fuse_tsdf(frames(2), voxel_size=0.05, device="banana", progress=False)


@case("device_banana_tsdf_volume", ("TSDFVolume",), r"device must be 'cpu' or 'cuda'.*banana")
def _():
    _s().TSDFVolume(0.05, device="banana")


@case("device_int_tsdf_volume", ("TSDFVolume",), r"device must be a str")
def _():
    _s().TSDFVolume(0.05, device=3.5)


@case("device_cuda_load_mesh", ("load_mesh",), r"device=.cuda.*no CUDA GPU|device.*cuda")
def _():
    torch = _t()
    if torch.cuda.is_available():
        raise _s().SmrnbValueError("device='cuda' test needs a CPU-only torch")
    from tests.audit._cases import tmp

    p = tmp() / "m.ply"
    _s().export_mesh(sphere(1), p)
    _s().load_mesh(p, device="cuda")


@case("device_banana_pipeline", ("Pipeline",), r"device must be 'cpu' or 'cuda'.*banana")
def _():
    _s().Pipeline(["tsdf"], source="sample", device="banana")


@case("device_mixed_export", ("export_mesh",), r"one device.*vertices on cpu.*faces on meta|one device|"
      r"faces is on the 'meta' device")
def _():
    m = sphere(1)
    from tests.audit._cases import tmp

    _s().export_mesh(m.replace(faces=m.faces.to("meta")), tmp() / "x.glb")


@case("device_mixed_auto_uv", ("auto_uv",), r"one device|faces is on the 'meta' device")
def _():
    m = sphere(1)
    _s().auto_uv(m.vertices, m.faces.to("meta"))


# ------------------------------------------------------------------------------------ containers

@case("mesh_faces_float", ("Mesh",), r"faces must be an integer")
def _():
    torch = _t()
    _s().Mesh(torch.rand(4, 3), torch.rand(2, 3))


@case("mesh_vertices_shape", ("Mesh",), r"vertices must have shape")
def _():
    torch = _t()
    _s().Mesh(torch.rand(4, 2), torch.zeros(1, 3, dtype=torch.long))


@case("mesh_string_vertices", ("Mesh",), r"vertices must be a torch.Tensor")
def _():
    _s().Mesh("abc", [[0, 1, 2]])


@case("pointcloud_shape", ("PointCloud",), r"points must have shape")
def _():
    torch = _t()
    _s().PointCloud(torch.rand(5, 4))


@case("frames_depth_int", ("Frames",), r"depth must be a floating")
def _():
    torch = _t()
    _s().Frames(torch.zeros(1, 4, 4, dtype=torch.int32), torch.eye(3))


@case("voxelgrid_bad_size", ("VoxelGrid",), r"voxel_size")
def _():
    torch = _t()
    _s().VoxelGrid(torch.zeros(4, 4, 4, dtype=torch.bool), torch.zeros(3), -1.0)


@case("convert_coordinates_bad_frame", ("convert_coordinates",), r"src|frame")
def _():
    torch = _t()
    _s().convert_coordinates(torch.rand(4, 3), "banana", "opengl")


@case("convert_coordinates_ok", ("convert_coordinates",), OK)
def _():
    torch = _t()
    p = torch.rand(4, 3)
    q = _s().convert_coordinates(_s().convert_coordinates(p, "opencv", "opengl"), "opengl", "opencv")
    assert torch.allclose(p, q)


# ------------------------------------------------------------------------------------ points and cleaning

@case("depth_to_points_nan_K", ("depth_to_points",), r"K .*finite|K must")
def _():
    torch = _t()
    K = torch.tensor([[math.nan, 0, 2], [0, 5, 2], [0, 0, 1.0]])
    _s().depth_to_points(torch.ones(4, 4), K)


@case("depth_to_points_scaled_pose", ("depth_to_points",), r"pose.*rigid|pose.*rotation")
def _():
    torch = _t()
    K = torch.tensor([[5.0, 0, 2], [0, 5, 2], [0, 0, 1]])
    _s().depth_to_points(torch.ones(4, 4), K, pose=torch.eye(4) * 3)


@case("depth_to_points_pose_last_row", ("depth_to_points",), r"pose.*last row|pose.*0, 0, 0, 1|pose")
def _():
    torch = _t()
    K = torch.tensor([[5.0, 0, 2], [0, 5, 2], [0, 0, 1]])
    pose = torch.eye(4)
    pose[3] = torch.tensor([1.0, 2, 3, 4])
    _s().depth_to_points(torch.ones(4, 4), K, pose=pose)


@case("depth_to_points_wrong_shape", ("depth_to_points",), r"depth must have shape")
def _():
    torch = _t()
    _s().depth_to_points(torch.ones(4), torch.eye(3))


@case("frames_to_points_scaled_pose", ("frames_to_points",), r"pose.*rigid|poses.*rigid|pose.*rotation")
def _():
    f = frames(2)
    bad = f.poses.clone()
    bad[1, :3, :3] *= 5
    _s().frames_to_points(_s().Frames(f.depth, f.K, f.color, bad))


@case("frames_nan_pose", ("Frames",), r"poses.*finite|poses.*NaN")
def _():
    f = frames(2)
    bad = f.poses.clone()
    bad[0, 0, 3] = math.nan
    _s().Frames(f.depth, f.K, f.color, bad)


@case("frames_nan_intrinsics", ("Frames",), r"K.*finite|K.*NaN|intrinsics")
def _():
    torch = _t()
    K = torch.eye(3)
    K[0, 0] = math.nan
    _s().Frames(torch.ones(1, 4, 4), K)


@case("frames_color_0_255_floats", ("Frames",), r"color.*\[0, 1\]|color.*255")
def _():
    torch = _t()
    _s().Frames(torch.ones(1, 4, 4), torch.eye(3), color=torch.full((1, 4, 4, 3), 200.0))


@case("frames_to_points_not_frames", ("frames_to_points",), r"frames must be")
def _():
    _s().frames_to_points("frames")


@case("crop_depth_range_inverted", ("crop_depth_range",), r"depth_m(in|ax)")
def _():
    _s().crop_depth_range(cloud(), depth_min=2.0, depth_max=1.0)


@case("statistical_outliers_zero_neighbors", ("remove_statistical_outliers",), r"nb_neighbors")
def _():
    _s().remove_statistical_outliers(cloud(), nb_neighbors=0)


@case("radius_outliers_negative_radius", ("remove_radius_outliers",), r"radius")
def _():
    _s().remove_radius_outliers(cloud(), radius=-1.0)


@case("voxel_downsample_tiny_voxel", ("voxel_downsample",), r"voxel_size .*too small")
def _():
    _s().voxel_downsample(cloud(5000, 1000.0), 1e-17)


@case("voxel_downsample_small_but_exact", ("voxel_downsample",), OK)
def _():
    out = _s().voxel_downsample(cloud(5000, 1000.0), 1e-9)
    assert len(out) == 5000, len(out)


@case("voxel_downsample_nan_size", ("voxel_downsample",), r"voxel_size")
def _():
    _s().voxel_downsample(cloud(), float("nan"))


@case("clean_points_bad_type", ("clean_points",), r"cloud must be")
def _():
    _s().clean_points([[0, 0, 0]])


# ------------------------------------------------------------------------------------ surfaces

@case("pointcloud_to_voxelgrid_nan", ("pointcloud_to_voxelgrid",), r"points.*finite|points.*NaN")
def _():
    torch = _t()
    p = torch.rand(10, 3)
    p[0, 0] = math.nan
    _s().pointcloud_to_voxelgrid(p, 0.1, (8, 8, 8))


@case("pointcloud_to_voxelgrid_pt_bad_voxel_size", ("pointcloud_to_voxelgrid_pt",), r"voxel_size")
def _():
    torch = _t()
    _s().pointcloud_to_voxelgrid_pt(torch.rand(10, 3), -0.1, (8, 8, 8))


@case("pointcloud_to_voxelgrid_huge_grid", ("pointcloud_to_voxelgrid",), r"grid_shape|memory|estimate", mem_gib=4.0,
      timeout=60)
def _():
    torch = _t()
    _s().pointcloud_to_voxelgrid(torch.rand(10, 3), 0.001, (2048, 2048, 2048))


@case("voxelgrid_to_mesh_huge_input", ("voxelgrid_to_mesh",), r"memory|estimate|voxelgrid", mem_gib=8.0, timeout=90)
def _():
    torch = _t()
    g = torch.zeros(1200, 1200, 1200, dtype=torch.uint8)
    _s().voxelgrid_to_mesh(g)


@case("voxelgrid_to_mesh_bad_iso", ("voxelgrid_to_mesh",), r"iso_value")
def _():
    torch = _t()
    _s().voxelgrid_to_mesh(torch.zeros(8, 8, 8), iso_value=float("nan"))


@case("voxelgrid_to_mesh_1d", ("voxelgrid_to_mesh",), r"voxelgrid")
def _():
    torch = _t()
    _s().voxelgrid_to_mesh(torch.zeros(8))


@case("fuse_tsdf_no_poses", ("fuse_tsdf",), r"poses")
def _():
    f = frames(2)
    _s().fuse_tsdf(_s().Frames(f.depth, f.K, f.color), voxel_size=0.05, progress=False)


@case("fuse_tsdf_negative_voxel", ("fuse_tsdf",), r"voxel_size")
def _():
    _s().fuse_tsdf(frames(2), voxel_size=-0.01, progress=False)


@case("render_depth_bad_size", ("render_depth",), r"height|width")
def _():
    torch = _t()
    _s().render_depth(sphere(1), torch.eye(3), torch.eye(4), 0, -5)


@case("render_depth_out_of_range_faces", ("render_depth",), r"faces")
def _():
    torch = _t()
    m = sphere(1)
    f = m.faces.clone()
    f[0, 0] = 10 ** 6
    K = torch.tensor([[50.0, 0, 32], [0, 50, 32], [0, 0, 1]])
    pose = torch.eye(4)
    pose[2, 3] = -3
    _s().render_depth(m.replace(faces=f), K, pose, 64, 64)


# ------------------------------------------------------------------------------------ metrics

@case("surface_metrics_negative_face", ("surface_metrics",), r"pred.faces must index")
def _():
    m = sphere(1)
    f = m.faces.clone()
    f[0, 0] = -1
    _s().surface_metrics(m.replace(faces=f), m, n_samples=1000)


@case("surface_metrics_out_of_range_face", ("surface_metrics",), r"gt.faces must index")
def _():
    m = sphere(1)
    f = m.faces.clone()
    f[0, 0] = 10 ** 6
    _s().surface_metrics(m, m.replace(faces=f), n_samples=1000)


@case("surface_metrics_huge_n_samples", ("surface_metrics",), r"n_samples|memory|estimate",
      mem_gib=8.0, timeout=60)
def _():
    m = sphere(1)
    _s().surface_metrics(m, m, n_samples=10 ** 10)


@case("surface_metrics_same_mesh", ("surface_metrics",), OK)
def _():
    m = sphere(2)
    r = _s().surface_metrics(m, m, tau=0.2, n_samples=5000)  # samples ~0.05 apart on the unit sphere
    assert r["fscore"] > 0.99 and r["accuracy"] < 0.05 and r["normal_consistency"] > 0.95, r


@case("depth_error_not_frames", ("depth_error",), r"frames must be")
def _():
    _s().depth_error(sphere(1), "x")


# ------------------------------------------------------------------------------------ repair, simplify, normals

@case("fill_holes_not_mesh", ("fill_holes",), r"mesh must be")
def _():
    _s().fill_holes("mesh")


@case("fill_holes_bad_faces", ("fill_holes",), r"faces")
def _():
    m = sphere(1)
    f = m.faces.clone()
    f[0, 0] = 10 ** 6
    _s().fill_holes(m.replace(faces=f))


@case("repair_non_manifold_bad_faces", ("repair_non_manifold",), r"faces")
def _():
    m = sphere(1)
    f = m.faces.clone()
    f[0, 0] = -3
    _s().repair_non_manifold(m.replace(faces=f))


@case("simplify_all_degenerate", ("simplify_mesh",), r"mesh must have faces of non-zero area")
def _():
    torch = _t()
    f = torch.tensor([[i, i, i + 1] for i in range(0, 18, 2)])
    _s().simplify_mesh(_s().Mesh(torch.rand(20, 3), f), 4)


@case("simplify_negative_target", ("simplify_mesh",), r"target_number_of_vertices")
def _():
    _s().simplify_mesh(sphere(1), -5)


@case("subdivide_bad_method", ("subdivide_mesh",), r"method")
def _():
    _s().subdivide_mesh(sphere(1), method="banana")


@case("face_normals_bad_faces", ("compute_face_normals",), r"faces")
def _():
    torch = _t()
    _s().compute_face_normals(torch.rand(4, 3), torch.tensor([[0, 1, 9]]))


@case("vertex_normals_bad_weighting", ("compute_vertex_normals",), r"weighting")
def _():
    m = sphere(1)
    _s().compute_vertex_normals(m.vertices, m.faces, weighting="banana")


# ------------------------------------------------------------------------------------ uv (xatlas: isolated)

for _scale in (1e10, 1e15, 1e20, 1e30):
    def _make(scale):
        def run():
            m = sphere(2)
            uvs, fuv = _s().auto_uv(m.vertices * scale, m.faces, chart_num=8, resolution=256)
            torch = _t()
            assert bool(torch.isfinite(uvs).all()) and float(uvs.min()) >= 0 and float(uvs.max()) <= 1
            assert fuv.shape == m.faces.shape and int(fuv.max()) < uvs.shape[0]
        return run
    case(f"auto_uv_huge_coordinates_x{_scale:.0e}", ("auto_uv",), OK, timeout=60)(_make(_scale))


@case("auto_uv_scale_invariant", ("auto_uv",), OK)
def _():
    m = sphere(2)
    a = _s().auto_uv(m.vertices, m.faces, chart_num=8, resolution=256)
    b = _s().auto_uv(m.vertices * 1e6, m.faces, chart_num=8, resolution=256)
    assert a.report.padding_texels == b.report.padding_texels
    assert abs(a.report.charts - b.report.charts) <= max(2, a.report.charts // 5), (a.report, b.report)
    assert abs(a.report.stretch_mean - b.report.stretch_mean) < 0.05


@case("auto_uv_nan_vertices", ("auto_uv",), r"vertices must be finite")
def _():
    m = sphere(1)
    v = m.vertices.clone()
    v[0, 0] = math.nan
    _s().auto_uv(v, m.faces)


@case("auto_uv_all_degenerate", ("auto_uv",), r"non-zero (area|extent)", timeout=60)
def _():
    torch = _t()
    _s().auto_uv(torch.zeros(4, 3), torch.tensor([[0, 1, 2], [1, 2, 3]]))


@case("auto_uv_collinear", ("auto_uv",), r"faces must enclose a non-zero area", timeout=60)
def _():
    torch = _t()
    v = torch.tensor([[0.0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]])
    _s().auto_uv(v, torch.tensor([[0, 1, 2], [1, 2, 3]]))


@case("auto_uv_negative_face", ("auto_uv",), r"faces must index vertices")
def _():
    m = sphere(1)
    f = m.faces.clone()
    f[0, 0] = -1
    _s().auto_uv(m.vertices, f)


@case("auto_uv_bad_resolution", ("auto_uv",), r"resolution")
def _():
    m = sphere(1)
    _s().auto_uv(m.vertices, m.faces, resolution=10 ** 9)


@case("auto_uv_no_assert_lines", ("auto_uv",), OK, timeout=60)
def _():
    """Nearly-degenerate slivers: xatlas' ASSERT lines stay off the terminal (counted in the report)."""
    import os
    import tempfile

    torch = _t()
    m = sphere(2)
    v = torch.cat([m.vertices, m.vertices[:3] + 1e-9])
    n = m.vertices.shape[0]
    f = torch.cat([m.faces, torch.tensor([[n, n + 1, n + 2]])])
    with tempfile.TemporaryFile() as log:
        saved = os.dup(2), os.dup(1)
        os.dup2(log.fileno(), 2)
        os.dup2(log.fileno(), 1)
        try:
            _s().auto_uv(v, f, chart_num=8, resolution=256)
        finally:
            os.dup2(saved[0], 2)
            os.dup2(saved[1], 1)
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    assert "ASSERT" not in text, text[:500]


# ------------------------------------------------------------------------------------ texture

@case("bake_negative_face", ("bake_texture",), r"mesh.faces must index")
def _():
    m = uv_sphere()
    f = m.faces.clone()
    f[0, 0] = -1
    _s().bake_texture(m.replace(faces=f), frames(2), resolution=64)


@case("bake_out_of_range_face", ("bake_texture",), r"mesh.faces must index")
def _():
    m = uv_sphere()
    f = m.faces.clone()
    f[0, 0] = 10 ** 6
    _s().bake_texture(m.replace(faces=f), frames(2), resolution=64)


@case("bake_out_of_range_face_uvs_idx", ("bake_texture",), r"mesh.face_uvs_idx must index")
def _():
    m = uv_sphere()
    fuv = m.face_uvs_idx.clone()
    fuv[0, 0] = 10 ** 6
    _s().bake_texture(m.replace(face_uvs_idx=fuv), frames(2), resolution=64)


@case("bake_nan_uvs", ("bake_texture",), r"mesh.uvs must be finite")
def _():
    m = uv_sphere()
    uvs = m.uvs.clone()
    uvs[0, 0] = math.nan
    _s().bake_texture(m.replace(uvs=uvs), frames(2), resolution=64)


@case("bake_no_uvs", ("bake_texture",), r"uvs")
def _():
    _s().bake_texture(sphere(1), frames(2), resolution=64)


@case("bake_resolution_8192", ("bake_texture",), r"resolution|memory|estimate", mem_gib=2.0, timeout=90)
def _():
    _s().bake_texture(uv_sphere(), frames(2), resolution=8192)
