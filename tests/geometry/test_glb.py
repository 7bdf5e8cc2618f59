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
from smrnb.geometry._glb import fill_empty_texels, read_glb
from smrnb.geometry._io import export_mesh, load_mesh
from smrnb.geometry._texture import uv_rasterize
from tests import _gltftools


def _textured(res: int = 256, seed: int = 0) -> smrnb.Mesh:
    """An icosphere with an xatlas atlas and a photo-like texture (smooth shading plus fine detail) on its
    charts, black elsewhere, as a bake leaves it; OpenGL frame."""
    tm = trimesh.creation.icosphere(3, radius=0.7)
    v = torch.tensor(tm.vertices, dtype=torch.float32) + torch.tensor([1.0, 2.0, -3.0])
    f = torch.tensor(tm.faces, dtype=torch.int64)
    uvs, fuv = smrnb.auto_uv(v, f, chart_num=20, resolution=res)
    fidx, _ = uv_rasterize(uvs, fuv, res)
    g = torch.Generator().manual_seed(seed)
    yy, xx = torch.meshgrid(torch.linspace(0, 1, res), torch.linspace(0, 1, res), indexing="ij")
    base = torch.stack([0.5 + 0.3 * torch.sin(6 * xx), 0.4 + 0.3 * torch.cos(5 * yy), 0.3 + 0.2 * xx * yy], -1)
    tex = (base + 0.06 * torch.rand(res, res, 3, generator=g)).clamp(0.02, 1)
    tex = torch.where((fidx >= 0)[..., None], tex, torch.zeros(()))
    return smrnb.Mesh(v, f, uvs=uvs, face_uvs_idx=fuv, texture=tex, frame="opengl")


def _json(path) -> dict:
    data = path.read_bytes()
    n = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + n])


def _psnr(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> float:
    d = (a.astype(float) - b.astype(float))[mask]
    return 10 * np.log10(255.0 ** 2 / (d ** 2).mean())


def test_the_default_glb_is_quantized_and_read_back_by_smrnb_and_trimesh(tmp_path):
    m = _textured()
    rep = export_mesh(m, tmp_path / "a.glb")
    gl = _json(tmp_path / "a.glb")
    assert gl["extensionsRequired"] == ["KHR_mesh_quantization"] == gl["extensionsUsed"]
    attrs = gl["meshes"][0]["primitives"][0]["attributes"]
    acc = gl["accessors"]
    assert acc[attrs["POSITION"]]["componentType"] == 5123 and not acc[attrs["POSITION"]].get("normalized")
    assert acc[attrs["TEXCOORD_0"]]["componentType"] == 5123 and acc[attrs["TEXCOORD_0"]]["normalized"] is True
    assert acc[gl["meshes"][0]["primitives"][0]["indices"]]["componentType"] == 5123
    assert gl["images"][0]["mimeType"] == "image/jpeg" and rep.texture.format == "jpeg"
    # smrnb reads it back: positions to the quantisation step, uvs to 1/65535, same triangles
    back = load_mesh(tmp_path / "a.glb")
    v, f, uv, _ = smrnb.geometry.split_seams(m)
    step = (v.max(0) - v.min(0)) / 65535
    assert back.num_vertices == len(v) and torch.equal(back.faces, torch.as_tensor(f))
    assert np.all(np.abs(back.vertices.double().numpy() - v) <= step * 0.5 + 1e-6)
    assert np.abs(back.uvs.double().numpy() - uv).max() <= 0.5 / 65535 + 1e-7
    # trimesh applies the node's dequantisation: the positions are right
    tm = trimesh.load(tmp_path / "a.glb", force="mesh", process=False)
    assert np.all(np.abs(np.asarray(tm.vertices) - v) <= step * 0.5 + 1e-6)
    # ... but it reads normalised texture coordinates as raw integers (trimesh 5.2 ignores `normalized`):
    # what the docs say, and why quantize="positions" exists. If this starts failing, trimesh learnt it.
    assert np.asarray(tm.visual.uv).max() > 2.0


@pytest.mark.parametrize("quantize", ["positions", "none"])
def test_float_uv_modes_are_exact_in_trimesh(tmp_path, quantize):
    m = _textured()
    rep = export_mesh(m, tmp_path / "b.glb", quantize=quantize)
    gl = _json(tmp_path / "b.glb")
    assert rep.quantized == quantize
    assert ("extensionsRequired" in gl) == (quantize == "positions")
    _, _, uv, _ = smrnb.geometry.split_seams(m)
    tm = trimesh.load(tmp_path / "b.glb", force="mesh", process=False)
    assert np.abs(np.asarray(tm.visual.uv) - uv).max() < 1e-6
    assert np.abs(load_mesh(tmp_path / "b.glb").uvs.double().numpy() - uv).max() < 1e-6


def test_jpeg_texture_is_at_least_min_psnr_from_the_lossless_one(tmp_path):
    m = _textured(512, seed=1)
    png = export_mesh(m, tmp_path / "p.glb", texture_format="png")
    lossless = np.asarray(read_glb((tmp_path / "p.glb").read_bytes())["texture"].convert("RGB"))
    assert np.array_equal(lossless, (m.texture * 255 + 0.5).to(torch.uint8).numpy())  # PNG: as baked
    used = lossless.any(-1)
    sizes = []
    for target in (40.0, 46.0):
        rep = export_mesh(m, tmp_path / f"j{target:g}.glb", min_psnr=target)
        jpeg = np.asarray(read_glb((tmp_path / f"j{target:g}.glb").read_bytes())["texture"].convert("RGB"))
        got = _psnr(lossless, jpeg, used)
        assert got >= target and abs(got - rep.texture.psnr) < 0.01, (got, rep.texture)
        sizes.append(rep.bytes)
    assert sizes[0] < sizes[1] and sizes[0] < png.bytes / 2


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
    with pytest.raises(smrnb.SmrnbValueError, match="quantize must be one of all, positions, none"):
        export_mesh(m, tmp_path / "x.glb", quantize="half")
    with pytest.raises(smrnb.SmrnbValueError, match=r"min_psnr must be a number of dB in \[20, 60\], got 100"):
        export_mesh(m, tmp_path / "x.glb", min_psnr=100)
    assert not (tmp_path / "x.glb").exists()


@pytest.mark.parametrize("kw", [{}, {"texture_format": "png"}, {"quantize": "positions"}, {"quantize": "none"}])
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
    400 kB, its JPEG at least 40 dB from the lossless texture, valid; PNG stays available."""
    from smrnb.pipeline import Pipeline

    mesh = Pipeline.default(device="cpu", output_dir=tmp_path).run("texture")
    rep = export_mesh(mesh, tmp_path / "demo.glb")
    png = export_mesh(mesh, tmp_path / "demo_png.glb", texture_format="png")
    assert rep.bytes <= 400_000, rep
    assert rep.texture.psnr >= 40.0 and png.texture.format == "png" and png.bytes > 2 * rep.bytes
    lossless = np.asarray(Image.open(io.BytesIO(_image(tmp_path / "demo_png.glb"))).convert("RGB"))
    jpeg = np.asarray(Image.open(io.BytesIO(_image(tmp_path / "demo.glb"))).convert("RGB"))
    assert _psnr(lossless, jpeg, lossless.any(-1)) >= 40.0
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
    assert line is not None, r.stdout[-2000:] + r.stderr[-2000:]
    got = json.loads(line[7:])
    assert got["faces"] == m.num_faces and got["image"] == [256, 256]
    ext = (m.vertices.amax(0) - m.vertices.amin(0)).tolist()  # y up in both (an OpenGL-frame mesh)
    assert sorted(round(e, 3) for e in got["extent"]) == sorted(round(e, 3) for e in ext)  # Blender is z up
    assert 0.0 <= got["uv"][0] and got["uv"][1] <= 1.0
