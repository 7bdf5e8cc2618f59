# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``Viewer.save_html`` opened in Chromium with every network request refused: it paints, and orbits."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch
from PIL import Image

from smrnb.geometry import Mesh, PointCloud
from smrnb.widgets import Viewer

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open_offline(page, path):
    requests: list[str] = []

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.as_uri())
    page.wait_for_function("window.smrnbPainted === true", timeout=60_000)
    return requests


def _canvas(page) -> np.ndarray:
    png = page.locator("#smrnb-view").screenshot()
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _drawn(img: np.ndarray, background=(255, 255, 255)) -> float:
    return float((np.abs(img - np.array(background)).sum(-1) > 30).mean())


def test_saved_page_paints_offline_and_orbits(page, tmp_path):
    import trimesh

    tm = trimesh.creation.icosphere(3)
    mesh = Mesh(torch.tensor(tm.vertices, dtype=torch.float32), torch.tensor(tm.faces, dtype=torch.int64))
    v = Viewer(mesh, width=320, height=240)
    v.add(PointCloud(torch.tensor(tm.vertices, dtype=torch.float32) * 1.5, frame="opengl"), name="halo")
    out = v.save_html(tmp_path / "scene.html", title="a sphere and its halo")
    text = out.read_text()
    assert "http://" not in text.split("<script type=\"module\">")[1] and "https://" not in text.split(
        "<script type=\"module\">")[1]
    blocked = _open_offline(page, out)
    assert blocked == [], f"the page asked the network for {blocked}"
    assert not page.console.errors(), page.console.errors()
    img = _canvas(page)
    assert img.shape[:2] == (240, 320)
    before = _drawn(img)
    assert before > 0.15, f"only {before:.1%} of the canvas is drawn"
    # the sphere is shaded grey (not the flat background, not black): lights work
    centre = img[100:140, 140:180].reshape(-1, 3).mean(0)
    assert 60 < centre.mean() < 245, centre
    assert "a sphere and its halo" in page.inner_text("body") and "axes 50 cm each" in page.inner_text("body")
    # a drag orbits the camera: a new frame is drawn and the picture changes
    frames = page.evaluate("window.smrnbFrames")
    box = page.locator("#smrnb-view").bounding_box()
    page.mouse.move(box["x"] + 160, box["y"] + 120)
    page.mouse.down()
    page.mouse.move(box["x"] + 260, box["y"] + 150, steps=5)
    page.mouse.up()
    page.wait_for_function(f"window.smrnbFrames > {frames}")
    after = _canvas(page)
    assert np.abs(after - img).sum(-1).astype(bool).mean() > 0.01


def test_saved_page_carries_textures_and_vertex_colours(page, tmp_path):
    verts = torch.tensor([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=torch.float32)
    faces = torch.tensor([[0, 1, 2], [0, 2, 3]])
    red = torch.tensor([[1.0, 0.0, 0.0]]).repeat(4, 1)
    v = Viewer(Mesh(verts, faces, vertex_colors=red), width=200, height=200)
    out = v.save_html(tmp_path / "quad.html")
    assert _open_offline(page, out) == []
    img = _canvas(page)
    reddish = (img[..., 0] > 120) & (img[..., 1] < 80) & (img[..., 2] < 80)
    assert reddish.mean() > 0.2, f"{reddish.mean():.1%} red pixels"


def test_saved_page_draws_a_point_budget_while_orbiting_and_full_detail_at_rest(page, tmp_path):
    g = torch.Generator().manual_seed(0)
    p = torch.randn(50_000, 3, generator=g)
    v = Viewer(PointCloud(p / p.norm(dim=1, keepdim=True), frame="opengl"), width=240, height=180)
    with pytest.raises(ValueError, match="point_budget must be an int >= 1, got 0"):
        v.save_html(tmp_path / "x.html", point_budget=0)
    out = v.save_html(tmp_path / "cloud.html", point_budget=5_000)
    assert _open_offline(page, out) == []
    assert page.evaluate("window.smrnbDetail") == "full"
    rest = _canvas(page)
    box = page.locator("#smrnb-view").bounding_box()
    page.mouse.move(box["x"] + 120, box["y"] + 90)
    page.mouse.down()
    page.mouse.move(box["x"] + 170, box["y"] + 100, steps=4)
    assert page.evaluate("window.smrnbDetail") == "budget"
    moving = _canvas(page)
    page.mouse.up()
    assert page.evaluate("window.smrnbDetail") == "full"
    # fewer points are drawn while moving (5,000 of 50,000 on the same sphere)
    assert _drawn(moving) < 0.8 * _drawn(rest), (_drawn(moving), _drawn(rest))
