# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""One self-contained, offline HTML page of a viewer's scene (:meth:`Viewer.save_html`).

The page carries everything it needs: three.js and its OrbitControls (npm package ``three``, MIT,
copied into ``smrnb/widgets/_js`` by ``tests/tools/refresh_threejs.py`` and shipped in the wheel) inlined
as ``data:`` URLs of an import map, and the scene's layers as base64 typed arrays (the same wire
types the live widget uses: float32 positions, int8 normals, uint8 colours, uint32 indices). Nothing
is fetched when the page is opened. Axes at the scene's corner with their length in metres, and the
layers' notes as captions, are drawn like in the notebook.
"""

from __future__ import annotations

import base64
import html
import json
from importlib import resources
from typing import Any

import numpy as np

from smrnb.widgets._colors import hex_color
from smrnb.widgets._display import colorbar_html
from smrnb.widgets._framing import axes_of, format_length, layers_units
from smrnb.widgets._layers import Layer, wire_colors, wire_normals


def _js(name: str) -> str:
    return resources.files("smrnb.widgets").joinpath("_js", name).read_text(encoding="utf-8")


def threejs_version() -> str:
    """The version of the npm package ``three`` inlined into saved pages."""
    return _js("VERSION").strip()


def _b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def _layer_json(layer: Layer) -> dict[str, Any]:
    d: dict[str, Any] = {"kind": layer.kind, "color": hex_color(layer.color), "size": layer.size, "flat": layer.flat,
                         "wireframe": layer.wireframe, "position": _b64(layer.positions.astype(np.float32))}
    if layer.colors is not None:
        d["colors"] = _b64(wire_colors(layer.colors))
    if layer.has_normals and layer.kind == "mesh":
        d["normals"] = _b64(wire_normals(layer.vertex_normals()))
    if layer.faces is not None:
        d["index"] = _b64(layer.faces.astype(np.uint32).reshape(-1))
    if layer.uvs is not None and layer.texture is not None:
        d["uvs"] = _b64(layer.uvs.astype(np.float32))
        d["texture"] = {"data": _b64(layer.texture), "width": int(layer.texture.shape[1]),
                        "height": int(layer.texture.shape[0])}
    return d


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{margin:0;font:13px sans-serif;color:#333}} #smrnb-view{{display:block}}
.smrnb-caption{{margin:4px 8px;color:#555}} .smrnb-legend span{{display:inline-block;margin-right:12px}}</style>
<script type="importmap">{importmap}</script></head>
<body><div class="smrnb-title" style="margin:6px 8px;font-weight:bold">{title}</div>
<canvas id="smrnb-view" width="{width}" height="{height}" style="width:{width}px;height:{height}px"></canvas>
<div class="smrnb-caption smrnb-legend"><span style="color:#d00">x</span><span style="color:#080">y</span>
<span style="color:#00d">z</span><span>axes {axis_len} each (OpenGL frame: y up, z towards the viewer)</span>
<span>drag: orbit, wheel: zoom, right drag: pan</span></div>
{notes}
<script type="application/json" id="smrnb-scene">{scene}</script>
<script type="module">
import * as THREE from "three";
import {{ OrbitControls }} from "three/addons/controls/OrbitControls.js";
const S = JSON.parse(document.getElementById("smrnb-scene").textContent);
const budgeted = [];
window.smrnbDetail = "full";
const bytes = (b) => Uint8Array.from(atob(b), (c) => c.charCodeAt(0)).buffer;
const canvas = document.getElementById("smrnb-view");
const renderer = new THREE.WebGLRenderer({{canvas, antialias: true, preserveDrawingBuffer: true}});
renderer.setSize(S.width, S.height, false);
const scene = new THREE.Scene();
scene.background = new THREE.Color(S.background);
const cam = new THREE.PerspectiveCamera(S.camera.fov, S.width / S.height, S.camera.near, S.camera.far);
cam.position.fromArray(S.camera.position);
cam.quaternion.fromArray(S.camera.quaternion);
scene.add(cam);
scene.add(new THREE.AmbientLight(0xffffff, 0.55 * Math.PI));
const sun = new THREE.DirectionalLight(0xffffff, 0.6 * Math.PI);
sun.position.set(1, 2, 3);
cam.add(sun);
for (const L of S.layers) {{
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(new Float32Array(bytes(L.position)), 3));
  if (L.colors) g.setAttribute("color", new THREE.BufferAttribute(new Uint8Array(bytes(L.colors)), 3, true));
  if (L.normals) g.setAttribute("normal", new THREE.BufferAttribute(new Int8Array(bytes(L.normals)), 3, true));
  if (L.uvs) g.setAttribute("uv", new THREE.BufferAttribute(new Float32Array(bytes(L.uvs)), 2));
  if (L.index) g.setIndex(new THREE.BufferAttribute(new Uint32Array(bytes(L.index)), 1));
  const vc = !!L.colors, col = vc ? 0xffffff : new THREE.Color(L.color);
  let obj;
  if (L.kind === "points") {{
    const mat = new THREE.PointsMaterial({{size: L.size, sizeAttenuation: true, vertexColors: vc, color: col}});
    obj = new THREE.Points(g, mat);
    const n = g.attributes.position.count;
    if (n > S.pointBudget) {{
      // while orbiting: every k-th point only (at most pointBudget); full detail when the drag ends
      const k = Math.ceil(n / S.pointBudget), sub = new THREE.BufferGeometry();
      for (const [name, a] of Object.entries(g.attributes)) {{
        const m = Math.ceil(n / k), out = new a.array.constructor(m * a.itemSize);
        for (let i = 0; i < m; i++) for (let j = 0; j < a.itemSize; j++) out[i * a.itemSize + j] = a.array[i * k * a.itemSize + j];
        sub.setAttribute(name, new THREE.BufferAttribute(out, a.itemSize, a.normalized));
      }}
      const light = new THREE.Points(sub, mat);
      light.visible = false; light.frustumCulled = false;
      budgeted.push([obj, light]);
      scene.add(light);
    }}
  }} else if (L.kind === "lines") {{
    obj = new THREE.LineSegments(g, new THREE.LineBasicMaterial({{color: col}}));
  }} else {{
    const kw = {{flatShading: L.flat, side: THREE.DoubleSide, metalness: 0.0, roughness: 0.9, vertexColors: vc,
                color: col, polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1}};
    if (L.texture) {{
      const t = new THREE.DataTexture(new Uint8Array(bytes(L.texture.data)), L.texture.width, L.texture.height,
                                      THREE.RGBAFormat);
      t.colorSpace = THREE.SRGBColorSpace; t.magFilter = t.minFilter = THREE.LinearFilter; t.needsUpdate = true;
      kw.map = t; kw.color = 0xffffff; kw.vertexColors = false;
    }}
    obj = new THREE.Mesh(g, new THREE.MeshStandardMaterial(kw));
    if (L.wireframe) obj.add(new THREE.Mesh(g, new THREE.MeshBasicMaterial({{color: 0x202020, wireframe: true}})));
  }}
  obj.frustumCulled = false;
  scene.add(obj);
}}
const axes = new THREE.AxesHelper(S.axes.length);
axes.position.fromArray(S.axes.origin);
axes.material.depthTest = false; axes.renderOrder = 1000;  // over the data, like the live viewer's
scene.add(axes);
const controls = new OrbitControls(cam, canvas);
controls.target.fromArray(S.camera.target);
controls.update();
const draw = () => {{ renderer.render(scene, cam); window.smrnbFrames = (window.smrnbFrames || 0) + 1; }};
controls.addEventListener("change", draw);
const detail = (full) => {{
  for (const [all, few] of budgeted) {{ all.visible = full; few.visible = !full; }}
  window.smrnbDetail = full ? "full" : "budget";
}};
if (budgeted.length) {{
  controls.addEventListener("start", () => detail(false));
  controls.addEventListener("end", () => {{ detail(true); draw(); }});
}}
draw();
window.smrnbPainted = true;
</script></body></html>
"""


#: points drawn while the camera moves in a saved page (every k-th point of a larger cloud)
POINT_BUDGET = 200_000


def scene_html(layers: list[Layer], camera: dict[str, Any], width: int, height: int, background: str,
               title: str = "smrnb viewer", point_budget: int = POINT_BUDGET, axes: dict[str, Any] | None = None) -> str:
    """The page (a str) for ``layers`` seen from ``camera`` (``position``, ``quaternion``, ``target``,
    ``fov``, ``near``, ``far``). A points layer larger than ``point_budget`` is drawn as every k-th
    point (at most ``point_budget``) while the camera moves, in full when the drag ends. ``axes``
    (``origin``, ``length``): where a live viewer has them; default :func:`axes_of` the layers."""
    ax = axes_of(layers) if axes is None else axes
    scene = {"width": width, "height": height, "background": background, "axes": ax, "pointBudget": point_budget,
             "camera": {k: (list(v) if isinstance(v, (tuple, list)) else v) for k, v in camera.items()},
             "layers": [_layer_json(layer) for layer in layers]}

    def data_url(name: str) -> str:
        return "data:text/javascript;base64," + base64.b64encode(_js(name).encode("utf-8")).decode("ascii")

    importmap = json.dumps({"imports": {"three": data_url("three.module.min.js"),
                                        "three/addons/controls/OrbitControls.js": data_url("OrbitControls.js")}})
    notes = colorbar_html(layers) + "".join(f"<div class='smrnb-caption smrnb-note'>{html.escape(n)}</div>"
                    for layer in layers for n in layer.notes)
    # "</" never occurs in base64 or in the numbers, but escape it so no text can end the JSON script early
    scene_json = json.dumps(scene).replace("</", "<\\/")
    return PAGE.format(title=html.escape(title), importmap=importmap, width=width, height=height, notes=notes,
                       scene=scene_json, axis_len=format_length(ax["length"], layers_units(layers)))


__all__ = ["scene_html", "threejs_version"]
