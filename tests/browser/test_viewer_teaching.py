# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Real browser: the viewer's teaching tools in JupyterLab (colour bar, axes, picking, clipping)."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from . import _lab
from .test_notebooks import run_notebook

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]


def test_pick_and_clip_in_jupyterlab(lab, page):
    run_notebook(page, lab, "teach.ipynb")
    canvas = page.locator(".smrnb-viewer canvas").first
    canvas.scroll_into_view_if_needed()
    before = _lab.canvas_image(canvas)
    assert _lab.painted_fraction(before) > 0.1
    # the colour bar and the axes' scale are on the page
    assert page.locator(".smrnb-colorbar", has_text="height (m)").count() == 1
    assert page.locator(".smrnb-viewer-axes", has_text="50 cm each").count() == 1
    # a double click on the sphere shows the point's coordinates and the surface normal
    box = canvas.bounding_box()
    canvas.dblclick(position={"x": box["width"] / 2, "y": box["height"] / 2})
    pick = page.locator(".smrnb-viewer-pick .smrnb-pick")
    pick.wait_for(timeout=60_000)
    text = pick.inner_text()
    assert "point (" in text and ") m" in text and "normal (" in text, text
    xyz = np.array([float(t) for t in text.split("point (")[1].split(")")[0].split(",")])
    assert 0.9 < np.linalg.norm(xyz) < 1.01, text  # on the unit sphere
    # moving the clipping slider cuts the sphere open: the picture changes, in place
    handle = page.locator(".smrnb-viewer-clip .noUi-handle").first
    handle.focus()
    for _ in range(10):
        handle.press("PageDown")
    after = _lab.wait_repaint(canvas, before, min_changed=0.02)
    _lab.save_artifact("lab-teach-before.png", before)
    _lab.save_artifact("lab-teach-clipped.png", after)
    assert _lab.painted_fraction(after) < _lab.painted_fraction(before) - 0.02
    assert _lab.widget_errors(page.console) == []


def test_big_cloud_is_coarse_while_dragging_and_full_at_rest(lab, page):
    """A 300k-point cloud with a 30k budget: a press on the canvas reaches the kernel, which draws every
    10th point while the camera moves and the whole cloud once it rests.

    Each point has its own colour, so the coarse cloud paints another picture than the whole one. The coarse
    frame is looked for while the button is held (after the release it lasts only until the kernel hears the
    rest, which a slow machine's screenshots can miss), the full one again at rest."""
    run_notebook(page, lab, "lod.ipynb")
    assert "DETAIL [] False" in _lab.run_cell(page, 1, "DETAIL")
    pos0 = _lab.run_cell(page, 2, "POS").split("POS", 1)[1].strip()
    canvas = page.locator(".smrnb-viewer canvas").first
    canvas.scroll_into_view_if_needed()
    before = _lab.canvas_image(canvas)
    assert _lab.painted_fraction(before) > 0.05
    box = canvas.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    try:  # the press's message reaches the kernel, the coarse twin is switched in and drawn: a sparser disc
        coarse = _lab.wait_repaint(canvas, before, timeout_s=90, min_changed=0.05)
        page.wait_for_timeout(4000)  # a press held longer than a wheel's fallback (3 s) stays coarse
        held = _lab.canvas_image(canvas)
        changed = float((np.abs(held.astype(int) - before).max(axis=2) > 8).mean())
        assert changed >= 0.05, f"full detail came back while the button was held ({changed:.3f} of pixels differ)"
        page.mouse.move(x + 90, y + 30, steps=6)
    finally:
        page.mouse.up()

    def at_rest(t: str) -> bool:  # coarse while moving, full after; not moving (asked of the kernel until it says so)
        m = re.search(r"DETAIL \[([^\]]*)\] False", t)
        return bool(m) and [x.strip(" '") for x in m.group(1).split(",")] == ["coarse", "full"]

    text = _until(lambda: _lab.run_cell(page, 1, "DETAIL"), at_rest)
    assert at_rest(text), text
    rest = _lab.wait_repaint(canvas, coarse, timeout_s=90, min_changed=0.05)  # the whole cloud again
    pos1 = _until(lambda: _lab.run_cell(page, 2, "POS").split("POS", 1)[1].strip(), lambda p: p != pos0)
    assert pos1 != pos0, f"the drag did not turn the camera: {pos0} -> {pos1}"  # the drag orbits
    _lab.save_artifact("lab-lod-coarse-while-dragging.png", coarse)
    _lab.save_artifact("lab-lod-after-drag.png", rest)
    assert _lab.widget_errors(page.console) == []


def _until(ask, ok, timeout_s: float = 60.0, every_ms: int = 1000):
    """``ask()`` again until ``ok`` holds of its answer or ``timeout_s`` has passed; the last answer (callers
    assert on it)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = ask()
        if ok(got) or time.monotonic() > deadline:
            return got
        time.sleep(every_ms / 1000)


def _camera(page) -> tuple[float, list[str]]:
    """(camera distance to the orbit target, detail switches) as the kernel knows them."""
    text = _lab.run_cell(page, 1, "CAMERA")
    head = text.split("CAMERA", 1)[1].split()
    return float(head[0]), [m.strip(" '") for m in text.split("[", 1)[1].split("]", 1)[0].split(",") if m.strip()]


def test_wheel_zooms_and_the_viewer_hears_the_wheel(lab, page):
    """The mouse wheel over the canvas zooms (the camera comes closer, the page does not scroll), and the
    viewer still learns of the wheel step (coarse twins while zooming, full detail at rest)."""
    run_notebook(page, lab, "wheel.ipynb")
    d0, log0 = _camera(page)
    assert log0 == [], log0
    canvas = page.locator(".smrnb-viewer canvas").first
    canvas.scroll_into_view_if_needed()
    before = _lab.canvas_image(canvas)
    scroller = ".jp-WindowedPanel-outer, .jp-Notebook"
    top0 = page.evaluate(f"document.querySelector('{scroller}').scrollTop")
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(5):
        page.mouse.wheel(0, -120)  # away from the person: zoom in
        page.wait_for_timeout(150)
    zoomed = _lab.wait_repaint(canvas, before, min_changed=0.01)
    assert page.evaluate(f"document.querySelector('{scroller}').scrollTop") == top0  # the notebook did not scroll
    # the camera reaches the kernel, detail comes back at rest (asked until then: a busy machine is slower)
    d1, log1 = _until(lambda: _camera(page), lambda c: c[1][:2] == ["coarse", "full"])
    _lab.save_artifact("lab-wheel-zoomed.png", zoomed)
    assert d1 < 0.9 * d0, (d0, d1)
    assert log1[:2] == ["coarse", "full"], log1
    assert _lab.painted_fraction(zoomed) > _lab.painted_fraction(before)  # closer: the sphere fills more
    assert _lab.widget_errors(page.console) == []


def _shades(img) -> tuple[float, float]:
    """(share of neighbouring pixel pairs inside a grey mesh on white that jump by 4+ levels, mean brightness):
    flat shading jumps at every facet edge, smooth shading changes by a level or two at most."""
    painted = np.abs(img.astype(int) - 255).max(axis=2) > 8
    inner = painted.copy()
    for dy in range(-3, 4):
        for dx in range(-3, 4):
            inner &= np.roll(np.roll(painted, dy, 0), dx, 1)  # far from the silhouette
    grey = img.astype(int).mean(axis=2)
    jumps = np.abs(np.diff(grey, axis=1)) >= 4
    pairs = inner[:, 1:] & inner[:, :-1]
    return float(jumps[pairs].mean()), float(img[painted].mean())


def test_flat_shading_by_default_and_the_buttons_switch_to_smooth(lab, page):
    """A plain mesh is drawn flat (no normals sent: the shader lights each triangle by its plane), lit, not
    black; the viewer's "smooth" button redraws it with vertex normals: a continuous gradient, no facet edges."""
    run_notebook(page, lab, "shading.ipynb")
    canvas = page.locator(".smrnb-viewer canvas").first
    canvas.scroll_into_view_if_needed()
    flat = _lab.canvas_image(canvas)
    assert _lab.painted_fraction(flat) > 0.1
    jumps_flat, mean_flat = _shades(flat)
    assert mean_flat > 60, mean_flat  # lit: the derivative normals work in this WebGL
    assert jumps_flat > 0.01, jumps_flat  # facet edges
    page.locator(".smrnb-viewer-shading button", has_text="smooth").click()
    # facets to a gradient changes each pixel by a few levels only: wait for the jumps to go, not for a repaint
    smooth = _lab.wait_canvas(canvas, lambda img: _shades(img)[0] < 0.3 * jumps_flat)
    jumps_smooth, mean_smooth = _shades(smooth)
    _lab.save_artifact("lab-shading-flat.png", flat)
    _lab.save_artifact("lab-shading-smooth.png", smooth)
    assert mean_smooth > 60 and jumps_smooth < 0.3 * jumps_flat, (jumps_flat, jumps_smooth)
    assert _lab.widget_errors(page.console) == []


def _hue(img) -> int:
    """0, 1 or 2: the colour channel that dominates the painted pixels (red, green, blue on white)."""
    painted = np.abs(img.astype(int) - 255).max(axis=2) > 24
    return int(np.argmax(img[painted].astype(float).mean(axis=0)))


def _wait_hue(canvas, hue: int):
    return _lab.wait_canvas(canvas, lambda img: _lab.painted_fraction(img) > 0.02 and _hue(img) == hue, every_s=0.3)


def test_in_place_redraws_arrive_as_one_message_and_paint(lab, page):
    """A redraw in place (same buffer widgets, new arrays) goes to the page as one message on smrnb's sync model:
    the page's model says it is ready, the kernel uses that path, and the canvas shows the new arrays, growing
    (162 -> 2562 vertices, red -> green) and shrinking (-> 42, blue)."""
    _lab.open_notebook(page, lab, "inplace.ipynb")
    cell = page.locator(".jp-Notebook:visible .jp-CodeCell").first
    cell.locator(".jp-InputArea-prompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    canvas = page.locator(".smrnb-viewer canvas").first
    canvas.wait_for(timeout=120_000)
    canvas.scroll_into_view_if_needed()
    red = _wait_hue(canvas, 0)
    assert _lab.painted_fraction(red) > 0.05 and _hue(red) == 0
    deadline = time.monotonic() + 60  # the sync model says it is ready once the page has loaded its JavaScript
    while "READY True" not in (text := _lab.run_cell(page, 1, "READY")) and time.monotonic() < deadline:
        time.sleep(1)
    assert "READY True" in text, text
    text = _lab.run_cell(page, 2, "GROWN")
    assert "GROWN True [True] True" in text, text
    green = _wait_hue(canvas, 1)
    assert _hue(green) == 1, "the grown arrays never reached the canvas"
    text = _lab.run_cell(page, 3, "SHRUNK")
    assert "SHRUNK True [True, True] True" in text, text
    blue = _wait_hue(canvas, 2)
    _lab.save_artifact("lab-inplace-red.png", red)
    _lab.save_artifact("lab-inplace-green.png", green)
    _lab.save_artifact("lab-inplace-blue.png", blue)
    assert _hue(blue) == 2, "the shrunk arrays never reached the canvas"
    # the smaller sphere covers less of the canvas than the larger one did
    assert _lab.painted_fraction(blue) < _lab.painted_fraction(green)
    # smooth shading redrawn in place: the page derives the normals from the new positions and triangles
    assert "FLAT True" in _lab.run_cell(page, 4, "FLAT")
    flat = _lab.wait_repaint(canvas, blue, min_changed=0.02)
    jf = _shades(flat)[0]
    assert "SMOOTH True" in _lab.run_cell(page, 5, "SMOOTH")
    # facets to a gradient: a few levels per pixel; wait for the jumps to go
    smooth = _lab.wait_canvas(canvas, lambda img: _shades(img)[0] < 0.3 * jf)
    text = _lab.run_cell(page, 6, "DERIVED")
    assert "DERIVED True [(True, 1)] True True" in text, text
    squashed = _lab.wait_repaint(canvas, smooth, min_changed=0.02)
    page.wait_for_timeout(1000)
    squashed = _lab.canvas_image(canvas)
    _lab.save_artifact("lab-inplace-flat.png", flat)
    _lab.save_artifact("lab-inplace-smooth.png", smooth)
    _lab.save_artifact("lab-inplace-derived.png", squashed)
    (js, ms), (jd, md) = _shades(smooth), _shades(squashed)
    assert jf > 0.01 and js < 0.3 * jf and jd < 0.3 * jf, (jf, js, jd)  # smooth, no facet edges
    assert abs(md - ms) < 20 and md > 60, (ms, md)  # lit like the kernel's normals, not dark or inverted
    assert _lab.painted_fraction(squashed) < _lab.painted_fraction(smooth)  # the squashed sphere is drawn
    assert "READY True" in _lab.run_cell(page, 1, "READY")  # the page reported no failure
    assert _lab.widget_errors(page.console) == []


def _page_normals(page, mesh) -> np.ndarray:
    """The sync model's JavaScript normals of ``mesh`` (OpenGL frame, as the viewer sends it), run in Chromium."""
    from smrnb.widgets._sync import NORMALS_JS

    pos = np.ascontiguousarray(mesh.vertices.numpy(), np.float32)
    tri = np.ascontiguousarray(mesh.faces.numpy(), np.uint32)
    out = page.evaluate(
        "([src, p, t]) => { const f = new Function(src + '; return vertexNormals;')();"
        " return Array.from(f(new Float32Array(p), new Uint32Array(t))); }",
        [NORMALS_JS, pos.reshape(-1).tolist(), tri.reshape(-1).tolist()])
    return np.asarray(out, np.int8).reshape(-1, 3)


def test_page_derived_normals_match_the_kernels(page, tmp_path):
    """The normals a page derives for an in-place smooth redraw equal the kernel's int8 wire normals (area-weighted,
    :func:`smrnb.geometry._normals.area_vertex_normals`) to one quantisation step, on a real reconstruction of the
    bundled sample (slivers, open rims) and on a bumpy sphere with an unused vertex (zero normal)."""
    import torch
    import trimesh

    from smrnb.geometry import Mesh, area_vertex_normals
    from smrnb.pipeline import Pipeline
    from smrnb.widgets._layers import wire_normals

    p = Pipeline.default(output_dir=tmp_path)
    p.run(until="extract_mesh")
    room = p.result("extract_mesh")
    g = torch.Generator().manual_seed(3)
    tm = trimesh.creation.icosphere(3)
    v = torch.tensor(tm.vertices, dtype=torch.float32) * (1 + 0.3 * torch.rand(len(tm.vertices), 1, generator=g))
    sphere = Mesh(torch.cat([v, torch.tensor([[5.0, 5.0, 5.0]])]), torch.tensor(tm.faces))
    page.goto("about:blank")
    for mesh in (room, sphere):
        mesh = Mesh(mesh.vertices.float(), mesh.faces)
        kernel = wire_normals(area_vertex_normals(mesh.vertices, mesh.faces).numpy())
        js = _page_normals(page, mesh)
        diff = np.abs(js.astype(int) - kernel.astype(int))
        assert js.shape == kernel.shape and diff.max() <= 1, (int(diff.max()), int((diff > 1).sum()))
        assert (diff == 0).mean() > 0.95
    assert (js[-1] == 0).all()  # the unused vertex
