# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""GLB export for the web: what the file holds, who reads it, how close the JPEG is to the lossless texture."""

from __future__ import annotations

import io
import json
import struct

import numpy as np
import pytest
import torch
import trimesh
from PIL import Image

import smrnb
from smrnb.geometry._glb import (
    _jpeg,
    _JpegModel,
    encode_texture,
    fill_empty_texels,
    read_glb,
    texel_footprint,
)
from smrnb.geometry._glb import _psnr as _glb_psnr
from smrnb.geometry._io import export_mesh, load_mesh
from smrnb.geometry._texture import uv_rasterize
from tests import _gltftools


def _textured(res: int = 256, seed: int = 0) -> smrnb.Mesh:
    """An icosphere with an xatlas atlas and a photo-like texture (smooth shading plus fine detail) on its
    charts and a 4-texel gutter around them, black elsewhere, as a bake leaves it; OpenGL frame."""
    tm = trimesh.creation.icosphere(3, radius=0.7)
    v = torch.tensor(tm.vertices, dtype=torch.float32) + torch.tensor([1.0, 2.0, -3.0])
    f = torch.tensor(tm.faces, dtype=torch.int64)
    uvs, fuv = smrnb.auto_uv(v, f, chart_num=20, resolution=res)
    fidx, _ = uv_rasterize(uvs, fuv, res)
    g = torch.Generator().manual_seed(seed)
    yy, xx = torch.meshgrid(torch.linspace(0, 1, res), torch.linspace(0, 1, res), indexing="ij")
    base = torch.stack([0.5 + 0.3 * torch.sin(6 * xx), 0.4 + 0.3 * torch.cos(5 * yy), 0.3 + 0.2 * xx * yy], -1)
    tex = (base + 0.06 * torch.rand(res, res, 3, generator=g)).clamp(0.02, 1)
    gutter = torch.nn.functional.max_pool2d((fidx >= 0).float()[None, None], 9, stride=1, padding=4)[0, 0] > 0
    tex = torch.where(gutter[..., None], tex, torch.zeros(()))
    return smrnb.Mesh(v, f, uvs=uvs, face_uvs_idx=fuv, texture=tex, frame="opengl")


def _json(path) -> dict:
    data = path.read_bytes()
    n = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + n])


def _psnr(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> float:
    d = (a.astype(float) - b.astype(float))[mask]
    return 10 * np.log10(255.0 ** 2 / (d ** 2).mean())


def _shown_by_sampling(uv: np.ndarray, faces: np.ndarray, H: int, W: int, n: int = 24) -> np.ndarray:
    """Texels a bilinear lookup reads at points of the triangles: a dense barycentric grid on each triangle
    (edges and corners included), each point marking the 2x2 texels around it. Written apart from
    smrnb's exact footprint, from the sampler's definition."""
    g = np.array([(i, j) for i in range(n + 1) for j in range(n + 1 - i)], dtype=np.float64) / n
    bary = np.concatenate([g, 1.0 - g.sum(1, keepdims=True)], 1)  # (P, 3)
    px = np.stack([uv[:, 0] * W - 0.5, (1.0 - uv[:, 1]) * H - 0.5], 1)[faces]  # (F, 3, 2)
    pts = np.einsum("pk,fkd->fpd", bary, px).reshape(-1, 2)
    mask = np.zeros((H, W), dtype=bool)
    x0, y0 = np.floor(pts[:, 0]).astype(int), np.floor(pts[:, 1]).astype(int)
    for dx in (0, 1):
        for dy in (0, 1):
            x, y = x0 + dx, y0 + dy
            ok = (x >= 0) & (x < W) & (y >= 0) & (y < H)
            mask[y[ok], x[ok]] = True
    return mask


def test_the_default_glb_reads_right_in_smrnb_and_trimesh(tmp_path):
    m = _textured()
    rep = export_mesh(m, tmp_path / "a.glb")
    assert rep.quantized == "positions"
    gl = _json(tmp_path / "a.glb")
    assert gl["extensionsRequired"] == ["KHR_mesh_quantization"] == gl["extensionsUsed"]
    attrs = gl["meshes"][0]["primitives"][0]["attributes"]
    acc = gl["accessors"]
    assert acc[attrs["POSITION"]]["componentType"] == 5123 and not acc[attrs["POSITION"]].get("normalized")
    assert acc[attrs["TEXCOORD_0"]]["componentType"] == 5126
    assert acc[gl["meshes"][0]["primitives"][0]["indices"]]["componentType"] == 5123
    assert gl["images"][0]["mimeType"] == "image/jpeg" and rep.texture.format == "jpeg"
    v, f, uv, _ = smrnb.geometry.split_seams(m)
    step = (v.max(0) - v.min(0)) / 65535
    # smrnb reads it back: positions to half the quantisation step, uvs to float32, same triangles
    back = load_mesh(tmp_path / "a.glb")
    assert back.num_vertices == len(v) and torch.equal(back.faces, torch.as_tensor(f))
    assert np.all(np.abs(back.vertices.double().numpy() - v) <= step * 0.5 + 1e-6)
    assert np.abs(back.uvs.double().numpy() - uv).max() < 1e-6
    # so does trimesh, as users load files (a scene, then its one mesh), and forced into one mesh
    for tm in (trimesh.load(tmp_path / "a.glb", force="mesh", process=False),
               trimesh.load(tmp_path / "a.glb").to_geometry(), trimesh.load(tmp_path / "a.glb", force="mesh")):
        assert len(tm.vertices) == len(v) and len(tm.faces) == len(f)
        assert np.all(np.abs(np.asarray(tm.vertices) - v) <= step * 0.5 + 1e-6)
        assert np.abs(np.asarray(tm.visual.uv) - uv).max() < 1e-6
        assert np.array_equal(np.asarray(tm.faces), f)
        assert tm.visual.material.baseColorTexture.size == (256, 256)


def test_16_bit_uvs_are_read_by_smrnb_and_misread_by_trimesh(tmp_path):
    m = _textured()
    rep = export_mesh(m, tmp_path / "a.glb", quantize="all")
    gl = _json(tmp_path / "a.glb")
    acc = gl["accessors"][gl["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"]]
    assert acc["componentType"] == 5123 and acc["normalized"] is True
    assert rep.bytes < export_mesh(m, tmp_path / "b.glb").bytes - 4 * m.num_vertices
    _, _, uv, _ = smrnb.geometry.split_seams(m)
    assert np.abs(load_mesh(tmp_path / "a.glb").uvs.double().numpy() - uv).max() <= 0.5 / 65535 + 1e-7
    # trimesh 5.2 reads normalised texture coordinates as raw integers (it ignores `normalized`): why
    # "all" is not the default. If this starts failing, trimesh learnt it.
    assert np.asarray(trimesh.load(tmp_path / "a.glb", force="mesh", process=False).visual.uv).max() > 2.0


def test_float_uvs_without_extension_are_exact_in_trimesh(tmp_path):
    m = _textured()
    rep = export_mesh(m, tmp_path / "b.glb", quantize="none")
    gl = _json(tmp_path / "b.glb")
    assert rep.quantized == "none" and "extensionsRequired" not in gl
    v, _, uv, _ = smrnb.geometry.split_seams(m)
    tm = trimesh.load(tmp_path / "b.glb", force="mesh", process=False)
    assert np.abs(np.asarray(tm.visual.uv) - uv).max() < 1e-6
    assert np.abs(np.asarray(tm.vertices) - v).max() < 1e-5
    assert np.abs(load_mesh(tmp_path / "b.glb").uvs.double().numpy() - uv).max() < 1e-6


def test_jpeg_texture_is_at_least_min_psnr_over_the_texels_the_mesh_shows(tmp_path):
    m = _textured(512, seed=1)
    png = export_mesh(m, tmp_path / "p.glb", texture_format="png")
    lossless = np.asarray(read_glb((tmp_path / "p.glb").read_bytes())["texture"].convert("RGB"))
    assert np.array_equal(lossless, (m.texture * 255 + 0.5).to(torch.uint8).numpy())  # PNG: as baked
    _, f, uv, _ = smrnb.geometry.split_seams(m)
    shown = _shown_by_sampling(uv, f, 512, 512)
    footprint = texel_footprint(torch.from_numpy(uv), torch.from_numpy(f), 512, 512).numpy()
    assert not (shown & ~footprint).any()  # the footprint holds every texel a sampled point reads
    sizes = []
    for target in (40.0, 46.0):
        rep = export_mesh(m, tmp_path / f"j{target:g}.glb", min_psnr=target)
        jpeg = np.asarray(read_glb((tmp_path / f"j{target:g}.glb").read_bytes())["texture"].convert("RGB"))
        assert _psnr(lossless, jpeg, shown) >= target
        got = _psnr(lossless, jpeg, footprint)
        assert got >= target and abs(got - rep.texture.psnr) < 0.01, (got, rep.texture)
        assert rep.texture.tries == 1 and rep.texture.evaluations >= 2
        sizes.append(rep.bytes)
    assert sizes[0] < sizes[1] and sizes[0] < png.bytes / 2


def test_texel_footprint_is_exact_on_random_triangles():
    """Against a brute force written from the definition: texel (i, j) is in the footprint iff its open
    box of half-width 1 around the centre (j, i) meets the triangle (clipped as a polygon). Slivers,
    tiny and huge triangles, triangles over the border, triangles flat in uv (a point, a segment: the mesh
    still shows those texels over the whole 3D triangle)."""
    rng = np.random.default_rng(7)
    H, W = 19, 23

    def meets(tri: np.ndarray, cx: float, cy: float) -> bool:
        poly = list(tri)
        for axis, bound, keep_below in ((0, cx + 1, True), (0, cx - 1, False), (1, cy + 1, True), (1, cy - 1, False)):
            out = []
            for k in range(len(poly)):
                p, q = poly[k], poly[(k + 1) % len(poly)]
                pin = p[axis] < bound if keep_below else p[axis] > bound
                qin = q[axis] < bound if keep_below else q[axis] > bound
                if pin:
                    out.append(p)
                if pin != qin:
                    t = (bound - p[axis]) / (q[axis] - p[axis])
                    out.append(p + t * (q - p))
            poly = out
            if not poly:
                return False
        return True

    for trial in range(72):
        kind = trial % 6
        c = rng.uniform(-2, [W + 2, H + 2])
        if kind == 0:  # ordinary
            tri = c + rng.normal(0, 4, (3, 2))
        elif kind == 1:  # sliver
            d = rng.normal(0, 6, 2)
            tri = np.stack([c, c + d, c + d * rng.uniform(0.2, 0.8) + rng.normal(0, 0.05, 2)])
        elif kind == 2:  # tiny
            tri = c + rng.normal(0, 0.2, (3, 2))
        elif kind == 3:  # larger than the image
            tri = c + rng.normal(0, 30, (3, 2))
        elif kind == 4:  # a point (xatlas gives faces it could not chart three equal uvs)
            tri = np.stack([c, c, c])
        else:  # a segment
            d = rng.normal(0, 5, 2)
            tri = np.stack([c, c + d, c + d * rng.uniform(0, 1)])
        uv = np.stack([(tri[:, 0] + 0.5) / W, 1.0 - (tri[:, 1] + 0.5) / H], 1)
        got = texel_footprint(torch.from_numpy(uv), torch.tensor([[0, 1, 2]]), H, W).numpy()
        want = np.array([[meets(tri, j, i) for j in range(W)] for i in range(H)])
        assert np.array_equal(got, want), (trial, tri, np.argwhere(got != want))


def test_the_jpeg_model_matches_the_real_decoder_and_flattens_blocks_nothing_shows():
    """The encoder is handed the model's decoded image: Pillow's decode of the JPEG is that image (to
    libjpeg's integer-DCT rounding), its PSNR within 0.03 dB of the model's on a filled texture (what
    write_glb hands over), and an 8x8 block holding no shown texel comes back flat. Odd sizes too (0.1 dB:
    the encoder pads edge blocks from the image it is handed, the model from the texture). On an unfilled
    texture (hard edges against black) the model may be optimistic, and encode_texture still meets the
    target."""
    m = _textured(256)
    for H, W in ((256, 256), (100, 90)):
        tex = torch.nn.functional.interpolate(m.texture.permute(2, 0, 1)[None], size=(H, W))[0].permute(1, 2, 0)
        used = torch.zeros(H, W, dtype=torch.bool)
        used[: H // 2, : W // 3] = True
        used[H // 2 + 5:, W // 2:] = True
        used &= (tex > 0).any(-1)
        raw = (tex.clamp(0, 1) * 255 + 0.5).to(torch.uint8)
        filled = (fill_empty_texels(tex.clamp(0, 1), used) * 255 + 0.5).to(torch.uint8)
        for rgb, tol in ((filled, 0.03 if H % 8 == W % 8 == 0 else 0.1), (raw, 0.5)):
            model = _JpegModel(rgb, used)
            for step, dz in ((6, 0.0), (9, 0.2), (14, 0.4)):
                img = model.decoded(step, dz)
                data = _jpeg(Image.fromarray(img.numpy()), step, False)
                back = torch.from_numpy(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).copy())
                assert (back.int() - img.int()).abs().float().mean() < 0.5
                assert abs(_glb_psnr(rgb, back, used) - model.psnr(step, dz)) < tol, (H, W, step, dz, tol)
                for by in range(H // 8):
                    for bx in range(W // 8):
                        if not used[by * 8:by * 8 + 8, bx * 8:bx * 8 + 8].any():
                            blk = back[by * 8:by * 8 + 8, bx * 8:bx * 8 + 8].int()
                            assert int((blk - blk[0, 0]).abs().max()) <= 1, (H, W, by, bx)
            for target in (35.0, 42.0):
                data, _, info = encode_texture(rgb, used, "jpeg", target)
                back = torch.from_numpy(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).copy())
                assert _glb_psnr(rgb, back, used) >= target and abs(info.psnr - _glb_psnr(rgb, back, used)) < 1e-9


def test_empty_texels_are_filled_smoothly_and_used_ones_kept():
    m = _textured(128)
    used = (m.texture > 0).any(-1)
    out = fill_empty_texels(m.texture, used)
    assert torch.equal(out[used], m.texture[used])
    assert bool((out[~used] > 0).all())  # no black left
    lo, hi = m.texture[used].amin(0), m.texture[used].amax(0)
    assert bool(((out[~used] >= lo - 1e-6) & (out[~used] <= hi + 1e-6)).all())  # averages of chart colours


def test_vertex_colours_and_large_meshes(tmp_path):
    tm = trimesh.creation.icosphere(3)
    cols = torch.rand(len(tm.vertices), 3, generator=torch.Generator().manual_seed(0))
    m = smrnb.Mesh(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces), vertex_colors=cols)
    export_mesh(m, tmp_path / "c.glb")
    back = trimesh.load(tmp_path / "c.glb", force="mesh", process=False)
    assert np.abs(np.asarray(back.visual.vertex_colors)[:, :3] / 255.0 - cols.numpy()).max() <= 0.5 / 255 + 1e-6
    # more vertices than 16-bit indices can name: 32-bit indices
    big = trimesh.creation.icosphere(7)  # 163842 vertices
    bm = smrnb.Mesh(torch.tensor(big.vertices, dtype=torch.float32), torch.tensor(big.faces))
    export_mesh(bm, tmp_path / "big.glb")
    gl = _json(tmp_path / "big.glb")
    assert gl["accessors"][gl["meshes"][0]["primitives"][0]["indices"]]["componentType"] == 5125
    assert torch.equal(load_mesh(tmp_path / "big.glb").faces, bm.faces)


def test_bad_export_options(tmp_path):
    m = _textured(64)
    with pytest.raises(smrnb.SmrnbValueError, match="texture_format must be one of jpeg, png, got 'webp'"):
        export_mesh(m, tmp_path / "x.glb", texture_format="webp")
    with pytest.raises(smrnb.SmrnbValueError, match="quantize must be one of positions, all, none"):
        export_mesh(m, tmp_path / "x.glb", quantize="half")
    with pytest.raises(smrnb.SmrnbValueError, match=r"min_psnr must be a number of dB in \[20, 60\], got 100"):
        export_mesh(m, tmp_path / "x.glb", min_psnr=100)
    assert not (tmp_path / "x.glb").exists()


@pytest.mark.parametrize("kw", [{}, {"texture_format": "png"}, {"quantize": "all"}, {"quantize": "none"}])
def test_the_khronos_validator_finds_nothing(tmp_path, kw):
    why = _gltftools.missing("gltf-validator")
    if why:
        pytest.skip(why)
    export_mesh(_textured(), tmp_path / "v.glb", **kw)
    r = _gltftools.validate(tmp_path / "v.glb")
    assert r.get("errors") == 0 and r.get("warnings") == 0, r


@pytest.mark.slow
def test_the_demo_glb_is_web_sized(tmp_path):
    """The demo's mesh (the bundled sample through the demo pipeline, on the CPU): the default GLB is at most
    395 kB, trimesh reads its uvs right, its JPEG at least 40 dB from the lossless texture over the texels
    the mesh shows (the footprint, which holds every texel read at points sampled on the triangles), valid;
    PNG stays available."""
    from smrnb.pipeline import Pipeline

    mesh = Pipeline.default(device="cpu", output_dir=tmp_path).run("texture")
    rep = export_mesh(mesh, tmp_path / "demo.glb")
    png = export_mesh(mesh, tmp_path / "demo_png.glb", texture_format="png")
    assert rep.bytes <= 395_000, rep
    assert rep.texture.psnr >= 40.0 and png.texture.format == "png" and png.bytes > 2 * rep.bytes
    lossless = np.asarray(Image.open(io.BytesIO(_image(tmp_path / "demo_png.glb"))).convert("RGB"))
    jpeg = np.asarray(Image.open(io.BytesIO(_image(tmp_path / "demo.glb"))).convert("RGB"))
    _, f, uv, _ = smrnb.geometry.split_seams(mesh)
    footprint = texel_footprint(torch.from_numpy(uv), torch.from_numpy(f), *lossless.shape[:2]).numpy()
    assert not (_shown_by_sampling(uv, f, *lossless.shape[:2], n=8) & ~footprint).any()
    assert _psnr(lossless, jpeg, footprint) >= 40.0
    tm = trimesh.load(tmp_path / "demo.glb", force="mesh")
    assert np.abs(np.asarray(tm.visual.uv) - uv).max() < 1e-6 and len(tm.faces) == mesh.num_faces
    if not _gltftools.missing("gltf-validator"):
        r = _gltftools.validate(tmp_path / "demo.glb")
        assert r["errors"] == 0 and r["warnings"] == 0, r


def _image(path) -> bytes:
    data = path.read_bytes()
    gl = _json(path)
    n = struct.unpack_from("<I", data, 12)[0]
    binary = data[20 + n + 8:]
    view = gl["bufferViews"][gl["images"][0]["bufferView"]]
    return binary[view.get("byteOffset", 0):view.get("byteOffset", 0) + view["byteLength"]]


_BLENDER_IMPORT = """
import bpy, json, sys
import numpy
if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Blender 3.4's glTF importer still names numpy.bool (removed in numpy 1.24)
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=sys.argv[sys.argv.index("--") + 1])
o = [o for o in bpy.context.scene.objects if o.type == "MESH"][0]
ws = [o.matrix_world @ v.co for v in o.data.vertices]
uv = [d.uv for d in o.data.uv_layers[0].data]
imgs = [n.image for n in o.data.materials[0].node_tree.nodes if n.type == "TEX_IMAGE" and n.image]
print("RESULT " + json.dumps({"faces": len(o.data.polygons), "extent": [max(w[i] for w in ws) - min(w[i] for w in ws)
      for i in range(3)], "uv": [min(min(u) for u in uv), max(max(u) for u in uv)], "image": list(imgs[0].size)}))
"""


def test_blenders_importer_reads_the_default_glb(tmp_path):
    import shutil
    import subprocess

    if shutil.which("blender") is None:
        pytest.skip("Blender is not installed (Debian: apt-get install blender python3-numpy)")
    m = _textured(256)
    export_mesh(m, tmp_path / "b.glb")
    (tmp_path / "imp.py").write_text(_BLENDER_IMPORT)
    r = subprocess.run(["blender", "-b", "--python", str(tmp_path / "imp.py"), "--", str(tmp_path / "b.glb")],
                       capture_output=True, text=True, timeout=300)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None and "No module named 'numpy'" in r.stdout + r.stderr:
        pytest.skip("Blender's Python has no numpy, which its glTF importer needs (Debian: apt-get install python3-numpy)")
    assert line is not None, r.stdout[-2000:] + r.stderr[-2000:]
    got = json.loads(line[7:])
    assert got["faces"] == m.num_faces and got["image"] == [256, 256]
    ext = (m.vertices.amax(0) - m.vertices.amin(0)).tolist()  # y up in both (an OpenGL-frame mesh)
    assert sorted(round(e, 3) for e in got["extent"]) == sorted(round(e, 3) for e in ext)  # Blender is z up
    assert 0.0 <= got["uv"][0] and got["uv"][1] <= 1.0
