# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Static pictures of a viewer's scene: a small numpy + PIL software renderer.

Used for the ``image/png`` part of :meth:`Viewer._repr_mimebundle_` (nbconvert, docs, front ends
without the ``jupyter-threejs`` extension) and :meth:`Viewer.to_png`. It draws the same
:class:`~smrnb.widgets._layers.Layer` data the browser gets, from the same camera:

* meshes: painter's algorithm (faces sorted far to near, filled with PIL), Lambert-shaded with a
  light at the camera; vertex colours, or the texture sampled at every pixel (the uv interpolated
  across the face that the painter left visible there);
* points: square splats of the point's projected size with a per-pixel nearest-wins depth test;
* lines: 1-pixel segments on top.

Camera: ``position`` (3,), ``quaternion`` (x, y, z, w) of a three.js camera looking down its
-z axis, vertical ``fov`` in degrees; OpenGL world frame, metres.
"""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np

#: faces drawn at most (a larger mesh is drawn from an even subsample of its faces)
MAX_FACES = 300_000


def _rotation(q: Any) -> np.ndarray:
    x, y, z, w = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def project(points: np.ndarray, camera: dict[str, Any], width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates (N, 2) float (x right, y down, pixel centres at +0.5) and depth (N,) metres
    (positive in front of the camera) of world points (N, 3)."""
    R = _rotation(camera["quaternion"])
    pc = (np.asarray(points, np.float64) - np.asarray(camera["position"], np.float64)) @ R  # world -> camera
    depth = -pc[:, 2]
    f = 1.0 / math.tan(math.radians(float(camera.get("fov", 45.0))) / 2)
    aspect = width / height
    with np.errstate(divide="ignore", invalid="ignore"):
        xn = f / aspect * pc[:, 0] / depth
        yn = f * pc[:, 1] / depth
    px = np.stack([(xn + 1) * 0.5 * width, (1 - yn) * 0.5 * height], 1)
    return px, depth


def render_png(layers: list[Any], camera: dict[str, Any], width: int, height: int,
               background: str = "#ffffff") -> bytes:
    """PNG bytes of ``layers`` seen from ``camera`` at ``width`` x ``height`` pixels."""
    img = render_image(layers, camera, width, height, background)
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def render_image(layers: list[Any], camera: dict[str, Any], width: int, height: int,
                 background: str = "#ffffff") -> np.ndarray:
    """(height, width, 3) uint8 picture of ``layers`` (see the module docstring)."""
    from PIL import Image, ImageDraw

    bg = tuple(int(background.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
    im = Image.new("RGB", (width, height), bg)
    draw = ImageDraw.Draw(im)
    R = _rotation(camera["quaternion"])
    view_dir = -R[:, 2]  # camera looks down -z
    for layer in layers:
        if layer.kind == "mesh" and layer.faces is not None and len(layer.faces):
            _draw_mesh(im, draw, layer, camera, width, height, view_dir)
    arr = np.asarray(im).copy()
    for layer in layers:
        if layer.kind == "points" and len(layer.positions):
            _draw_points(arr, layer, camera, width, height)
    im = Image.fromarray(arr)
    draw = ImageDraw.Draw(im)
    for layer in layers:
        if layer.kind == "lines" and len(layer.positions):
            px, depth = project(layer.positions, camera, width, height)
            col = tuple(int(round(c * 255)) for c in layer.color)
            seg = px.reshape(-1, 2, 2)
            ok = (depth.reshape(-1, 2) > 0).all(1) & np.isfinite(seg).all((1, 2))
            for s in seg[ok][:50_000]:
                draw.line([tuple(s[0]), tuple(s[1])], fill=col, width=1)
    return np.asarray(im)


def _face_colors(layer: Any, faces: np.ndarray) -> np.ndarray:
    if layer.texture is not None and layer.uvs is not None:
        uv = layer.uvs[faces].mean(1)
        th, tw = layer.texture.shape[:2]
        u = np.clip((uv[:, 0] * tw).astype(int), 0, tw - 1)
        v = np.clip((uv[:, 1] * th).astype(int), 0, th - 1)  # row 0 of the stored texture is v = 0
        return layer.texture[v, u, :3].astype(np.float64) / 255.0
    if layer.colors is not None:
        return layer.colors[faces].mean(1).astype(np.float64)
    return np.broadcast_to(np.asarray(layer.color, np.float64), (len(faces), 3))


def _draw_mesh(im: Any, draw: Any, layer: Any, camera: dict[str, Any], width: int, height: int,
               view_dir: np.ndarray) -> None:
    from PIL import Image, ImageDraw

    faces = layer.faces.astype(np.int64)
    if len(faces) > MAX_FACES:
        faces = faces[:: math.ceil(len(faces) / MAX_FACES)]
    px, depth = project(layer.positions, camera, width, height)
    tri = px[faces]  # (F, 3, 2)
    d = depth[faces]
    ok = (d > 0).all(1) & np.isfinite(tri).all((1, 2))
    ok &= ~((tri[..., 0] < 0).all(1) | (tri[..., 0] > width).all(1) | (tri[..., 1] < 0).all(1)
            | (tri[..., 1] > height).all(1))
    faces, tri, d = faces[ok], tri[ok], d[ok]
    p = layer.positions[faces].astype(np.float64)
    n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-20)
    shade = 0.3 + 0.7 * np.abs(n @ view_dir)  # two-sided Lambert, light at the camera
    cols = np.clip(_face_colors(layer, faces) * shade[:, None] * 255 + 0.5, 0, 255).astype(np.uint8)
    order = np.argsort(-d.mean(1), kind="stable")  # far to near
    edge = layer.wireframe
    textured = layer.texture is not None and layer.uvs is not None and not edge
    ids = ImageDraw.Draw(id_img := Image.new("I", (width, height), 0)) if textured else None
    for i in order:
        t = tri[i]
        c = tuple(int(x) for x in cols[i])
        corners = [(t[0, 0], t[0, 1]), (t[1, 0], t[1, 1]), (t[2, 0], t[2, 1])]
        draw.polygon(corners, fill=c, outline=(32, 32, 32) if edge else c)
        if ids is not None:
            ids.polygon(corners, fill=int(i) + 1, outline=int(i) + 1)
    if ids is not None:
        _paint_texture(im, np.asarray(id_img), tri, layer.uvs[faces], layer.texture, shade)


def _paint_texture(im: Any, ids: np.ndarray, tri: np.ndarray, uvs: np.ndarray, texture: np.ndarray,
                   shade: np.ndarray) -> None:
    """Every pixel a face covers (``ids``: face index + 1, 0 elsewhere) gets the texture at the uv interpolated
    from the face's corners (barycentric in screen space), shaded like its face."""
    from PIL import Image

    ys, xs = np.nonzero(ids > 0)
    if not len(ys):
        return
    f = ids[ys, xs].astype(np.int64) - 1
    t = tri[f]
    v0, v1 = t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]
    v2 = np.stack([xs + 0.5, ys + 0.5], 1) - t[:, 0]
    d00, d01, d11 = (v0 * v0).sum(1), (v0 * v1).sum(1), (v1 * v1).sum(1)
    d20, d21 = (v2 * v0).sum(1), (v2 * v1).sum(1)
    den = d00 * d11 - d01 * d01
    safe = np.where(np.abs(den) > 1e-12, den, 1.0)
    b1 = np.where(np.abs(den) > 1e-12, (d11 * d20 - d01 * d21) / safe, 1 / 3)
    b2 = np.where(np.abs(den) > 1e-12, (d00 * d21 - d01 * d20) / safe, 1 / 3)
    w = np.clip(np.stack([1 - b1 - b2, b1, b2], 1), 0.0, 1.0)  # pixels on the outline lie a little outside
    w /= np.maximum(w.sum(1, keepdims=True), 1e-12)
    uv = (w[:, :, None] * uvs[f].astype(np.float64)).sum(1)
    th, tw = texture.shape[:2]
    u = np.clip((uv[:, 0] * tw).astype(np.int64), 0, tw - 1)
    v = np.clip((uv[:, 1] * th).astype(np.int64), 0, th - 1)  # row 0 of the stored texture is v = 0
    rgb = texture[v, u, :3].astype(np.float64) * shade[f, None]
    arr = np.asarray(im).copy()
    arr[ys, xs] = np.clip(rgb + 0.5, 0, 255).astype(np.uint8)
    im.paste(Image.fromarray(arr))


def _draw_points(arr: np.ndarray, layer: Any, camera: dict[str, Any], width: int, height: int) -> None:
    px, depth = project(layer.positions, camera, width, height)
    ok = (depth > 0) & np.isfinite(px).all(1)
    px, depth = px[ok], depth[ok]
    if layer.colors is not None:
        cols = layer.colors[ok]
    else:
        cols = np.broadcast_to(np.asarray(layer.color, np.float32), (len(px), 3))
    f = 1.0 / math.tan(math.radians(float(camera.get("fov", 45.0))) / 2)
    radius = np.clip(layer.size * f * height / 2 / np.maximum(depth, 1e-9) / 2, 0.5, 6.0)
    r_int = np.floor(radius).astype(int)
    xs, ys, ds, ids = [], [], [], []
    base_x = np.floor(px[:, 0]).astype(int)
    base_y = np.floor(px[:, 1]).astype(int)
    for dx in range(-6, 7):
        for dy in range(-6, 7):
            m = (np.abs(dx) <= r_int) & (np.abs(dy) <= r_int)
            if not m.any():
                continue
            xs.append(base_x[m] + dx)
            ys.append(base_y[m] + dy)
            ds.append(depth[m])
            ids.append(np.nonzero(m)[0])
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    dd = np.concatenate(ds)
    ii = np.concatenate(ids)
    inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    x, y, dd, ii = x[inside], y[inside], dd[inside], ii[inside]
    pix = y * width + x
    order = np.lexsort((dd, pix))  # by pixel, nearest first
    pix, ii = pix[order], ii[order]
    first = np.ones(len(pix), bool)
    first[1:] = pix[1:] != pix[:-1]
    pix, ii = pix[first], ii[first]
    flat = arr.reshape(-1, 3)
    flat[pix] = np.clip(np.asarray(cols)[ii] * 255 + 0.5, 0, 255).astype(np.uint8)


__all__ = ["MAX_FACES", "project", "render_image", "render_png"]
