# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
import json
import struct

import numpy as np
import pytest
import torch
import trimesh

import smrnb
from smrnb.geometry._uv import auto_uv


def _sphere(sub=3, colors=False):
    s = trimesh.creation.icosphere(sub)
    c = torch.rand(len(s.vertices), 3, generator=torch.Generator().manual_seed(0)) if colors else None
    return smrnb.Mesh(torch.tensor(s.vertices, dtype=torch.float32), torch.tensor(s.faces), vertex_colors=c)


@pytest.mark.parametrize("fmt", ["glb", "obj", "ply"])
def test_round_trip_vertex_colors(tmp_path, fmt):
    m = _sphere(colors=True)
    lossless = {"quantize": "none"} if fmt == "glb" else {}  # GLB's default 16-bit positions: tested below
    rep = smrnb.export_mesh(m, tmp_path / f"m.{fmt}", **lossless)
    assert rep.format == fmt and not rep.textured
    back = smrnb.load_mesh(tmp_path / f"m.{fmt}")
    assert back.num_vertices == m.num_vertices and torch.equal(back.faces, m.faces)
    assert torch.allclose(back.vertices, m.vertices, atol=1e-6)
    assert torch.allclose(back.vertex_colors, m.vertex_colors, atol=1 / 255)
    if fmt == "glb":  # the default: positions to half a step of extent / 65535
        smrnb.export_mesh(m, tmp_path / "q.glb")
        q = smrnb.load_mesh(tmp_path / "q.glb")
        step = float((m.vertices.amax(0) - m.vertices.amin(0)).max()) / 65535
        assert torch.allclose(q.vertices, m.vertices, atol=step / 2 + 1e-6) and torch.equal(q.faces, m.faces)


def _textured(m):
    uvs, fuv = auto_uv(m.vertices, m.faces, chart_num=20, resolution=256)
    tex = torch.zeros(256, 256, 3)
    tex[..., 0] = torch.linspace(0, 1, 256)[None, :]
    return m.replace(uvs=uvs, face_uvs_idx=fuv, texture=tex, vertex_colors=None)


@pytest.mark.parametrize("fmt", ["glb", "obj"])
def test_round_trip_textured(tmp_path, fmt):
    m = _textured(_sphere())
    # lossless GLB (the default, 16-bit and JPEG, is tested in test_glb.py)
    lossless = {"quantize": "none", "texture_format": "png"} if fmt == "glb" else {}
    rep = smrnb.export_mesh(m, tmp_path / f"t.{fmt}", **lossless)
    assert rep.textured and rep.vertices >= m.num_vertices  # seams split vertices
    if fmt == "obj":
        names = sorted(p.name for p in tmp_path.iterdir())
        assert names == ["t.mtl", "t.obj", "t.png"]
    back = smrnb.load_mesh(tmp_path / f"t.{fmt}")
    assert back.num_faces == m.num_faces
    # same triangles at the same places
    assert torch.allclose(back.vertices[back.faces], m.vertices[m.faces], atol=1e-6)
    # same texture coordinates per corner, same texture
    assert torch.allclose(back.uvs[back.face_uvs_idx], m.uvs[m.face_uvs_idx], atol=1e-6)
    assert torch.allclose(back.texture, m.texture, atol=1 / 255)


def test_glb_is_y_up_gltf_with_texture(tmp_path):
    m = _textured(_sphere())
    smrnb.export_mesh(m, tmp_path / "t.glb")
    blob = (tmp_path / "t.glb").read_bytes()
    magic, version, _ = struct.unpack("<4sII", blob[:12])
    assert magic == b"glTF" and version == 2
    n, kind = struct.unpack("<I4s", blob[12:20])
    gltf = json.loads(blob[20:20 + n])
    assert kind == b"JSON"
    prim = gltf["meshes"][0]["primitives"][0]
    assert "TEXCOORD_0" in prim["attributes"] and gltf["images"] and gltf["textures"]
    # opencv-frame meshes are flipped to y up
    flipped = smrnb.export_mesh(m.replace(frame="opencv"), tmp_path / "cv.glb")
    assert flipped.converted_from_opencv
    back = smrnb.load_mesh(tmp_path / "cv.glb")
    step = float((m.vertices.amax(0) - m.vertices.amin(0)).max()) / 65535  # 16-bit positions by default
    assert torch.allclose(back.vertices[back.faces][..., 1], -m.vertices[m.faces][..., 1], atol=step / 2 + 1e-6)


def test_export_bad_input(tmp_path):
    m = _sphere()
    with pytest.raises(smrnb.SmrnbValueError, match=r"format must be one of glb, obj, ply .* got 'stl'"):
        smrnb.export_mesh(m, tmp_path / "m.stl")
    with pytest.raises(smrnb.SmrnbValueError, match="mesh must have at least one face to export, got 0 faces"):
        smrnb.export_mesh(smrnb.Mesh(m.vertices, torch.zeros(0, 3, dtype=torch.long)), tmp_path / "m.glb")
    with pytest.raises(smrnb.SmrnbValueError, match="path must be an existing mesh file"):
        smrnb.load_mesh(tmp_path / "missing.ply")
    (tmp_path / "junk.ply").write_bytes(b"ply\nformat garbage\n")
    with pytest.raises(smrnb.SmrnbValueError, match="could not be read as a mesh"):
        smrnb.load_mesh(tmp_path / "junk.ply")


def _rasterize_charts(uvs, fuv, res):
    """Label every texel with the chart covering it; count texels covered by two charts."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    F = len(fuv)
    rows = np.repeat(np.arange(F), 3)
    g = coo_matrix((np.ones(3 * F), (rows, fuv.ravel() + F)), shape=(F + len(uvs),) * 2)
    _, lab = connected_components(g, directed=False)
    chart = lab[:F]
    owner = np.full((res, res), -1)
    overlap = 0
    px = uvs * res
    for fi in range(F):
        t = px[fuv[fi]]
        lo = np.floor(t.min(0)).astype(int)
        hi = np.ceil(t.max(0)).astype(int)
        xs, ys = np.meshgrid(np.arange(lo[0], hi[0]) + 0.5, np.arange(lo[1], hi[1]) + 0.5)
        p = np.stack([xs.ravel(), ys.ravel()], 1)
        a, b, c = t
        def edge(p0, p1, q):
            return (p1[0] - p0[0]) * (q[:, 1] - p0[1]) - (p1[1] - p0[1]) * (q[:, 0] - p0[0])
        w0, w1, w2 = edge(b, c, p), edge(c, a, p), edge(a, b, p)
        inside = ((w0 >= 0) & (w1 >= 0) & (w2 >= 0)) | ((w0 <= 0) & (w1 <= 0) & (w2 <= 0))
        q = np.floor(p[inside]).astype(int)
        q = q[(q[:, 0] >= 0) & (q[:, 0] < res) & (q[:, 1] >= 0) & (q[:, 1] < res)]
        cur = owner[q[:, 1], q[:, 0]]
        overlap += int(((cur >= 0) & (cur != chart[fi])).sum())
        owner[q[:, 1], q[:, 0]] = chart[fi]
    return owner, overlap, chart


def test_auto_uv_in_unit_square_no_overlap_padding_respected():
    m = _sphere(3)
    res = 512
    out = auto_uv(m.vertices, m.faces, chart_num=30, padding=0.004, resolution=res)
    uvs, fuv = out
    assert uvs.dtype == torch.float32 and fuv.shape == m.faces.shape
    assert float(uvs.min()) >= 0 and float(uvs.max()) <= 1
    rep = out.report
    assert rep.charts >= 30  # chart_num bounds the chart area, so at least that many charts
    assert rep.stretch_mean < 1.2 and rep.padding_texels >= 1
    owner, overlap, chart = _rasterize_charts(uvs.double().numpy(), fuv.numpy(), res)
    assert overlap == 0
    # padding: no texel of another chart within (padding * res - 1) texels of a chart's texel
    gap = int(np.floor(0.004 * res)) - 1
    if gap >= 1:
        from scipy.ndimage import binary_dilation

        for c in np.unique(chart)[:10]:
            grown = binary_dilation(owner == c, iterations=gap)
            assert not ((owner >= 0) & (owner != c) & grown).any()


def test_auto_uv_more_charts_for_higher_chart_num_and_keeps_face_order():
    m = _sphere(3)
    few = auto_uv(m.vertices, m.faces, chart_num=5, resolution=256).report.charts
    many = auto_uv(m.vertices, m.faces, chart_num=80, resolution=256).report.charts
    assert many > few
    out = auto_uv(m.vertices, m.faces, resolution=256)
    # every face keeps its corners: uv corners are distinct per face (no degenerate mapping)
    assert out.report.vertices_out >= m.num_vertices


def test_auto_uv_non_manifold_fusion_like_mesh():
    # two cubes sharing one edge: a non-manifold edge, as TSDF meshes have
    a = trimesh.creation.box()
    b = trimesh.creation.box()
    b.apply_translation([1, 1, 0])
    tm = trimesh.util.concatenate([a, b])
    tm.merge_vertices()
    uvs, fuv = auto_uv(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces), resolution=256)
    assert fuv.shape[0] == len(tm.faces) and float(uvs.max()) <= 1


def test_auto_uv_bad_input():
    m = _sphere(1)
    with pytest.raises(smrnb.SmrnbValueError, match="faces must hold at least one triangle to unwrap, got 0 faces"):
        auto_uv(m.vertices, torch.zeros(0, 3, dtype=torch.long))
    with pytest.raises(smrnb.SmrnbValueError, match=r"vertices must have shape \(N, 3\), got \(5, 2\)"):
        auto_uv(torch.zeros(5, 2), m.faces)
    with pytest.raises(smrnb.SmrnbValueError, match="chart_num must be >= 1, got 0"):
        auto_uv(m.vertices, m.faces, chart_num=0)
    with pytest.raises(smrnb.SmrnbValueError, match=r"padding must be < 0.25 \(UV units\), got 0.5"):
        auto_uv(m.vertices, m.faces, padding=0.5)
    bad = m.faces.clone()
    bad[0, 0] = -1
    with pytest.raises(smrnb.SmrnbValueError, match=r"faces must index vertices in \[0, 41\]"):
        auto_uv(m.vertices, bad)
