# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Exported GLB files in a real browser: three.js' GLTFLoader parses them and the page draws them."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from smrnb.geometry._io import export_mesh
from tests import _gltftools
from tests.geometry.test_glb import _textured

from . import _glbpage

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def glb_server(tmp_path):
    why = _glbpage.missing()
    if why:
        pytest.skip(why)
    server = _glbpage.GlbServer(tmp_path / "site")
    yield server
    server.stop()


def _drawn(page) -> float:
    img = np.asarray(Image.open(io.BytesIO(page.locator("#view").screenshot())).convert("RGB")).astype(int)
    return float((np.abs(img - 255).sum(-1) > 30).mean())


def test_three_js_loads_and_draws_the_default_and_the_png_glb(page, glb_server, tmp_path):
    mesh = _textured(512, seed=2)
    files = {"jpeg.glb": {}, "png.glb": {"texture_format": "png"}, "float.glb": {"quantize": "none"}}
    for name, kw in files.items():
        export_mesh(mesh, tmp_path / name, **kw)
        glb_server.add(tmp_path / name)
    if not _gltftools.missing("gltfpack"):
        r = _gltftools.gltfpack(tmp_path / "png.glb", tmp_path / "packed.glb", "-cc")
        assert r.returncode == 0, r.stderr
        glb_server.add(tmp_path / "packed.glb")
        files["packed.glb"] = {}
    _glbpage.open_page(page, glb_server)
    for name in files:
        r = _glbpage.load(page, name)
        assert r["textured"] and r["triangles"] == mesh.num_faces, (name, r)
        assert abs(max(r["size"]) - 1.4) < 0.01, (name, r)  # the sphere's diameter: positions dequantised
        if name == "jpeg.glb":
            assert r["extensions"] == ["KHR_mesh_quantization"]
        assert _drawn(page) > 0.05, name
        # the texture is on the sphere: its colours, not a flat material
        img = np.asarray(Image.open(io.BytesIO(page.locator("#view").screenshot())).convert("RGB")).astype(int)
        lit = img[(np.abs(img - 255).sum(-1) > 30)]
        assert lit.std(axis=0).max() > 10, name
    assert not page.console.errors(), page.console.errors()
