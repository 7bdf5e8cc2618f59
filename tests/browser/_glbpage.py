# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A three.js page that loads GLB files with GLTFLoader, draws them and times it (tests and benchmarks).

The page and its scripts (three.js and its GLTFLoader, BufferGeometryUtils and meshopt decoder from the npm
package ``three`` that ``.ci/run`` installs beside gltf-validator, see :mod:`tests._gltftools`; the version
smrnb bundles, :data:`THREE_VERSION`) and the GLB files are served by a local HTTP server (ES modules do not
load from file:// URLs). ``window.loadGlb(name)``
fetches the file, parses it (GLTFLoader: KHR_mesh_quantization, EXT_meshopt_compression through three's
MeshoptDecoder), decodes its textures, adds it to the scene framed by its bounding box, draws one frame and
reads one pixel back (so the GPU has finished): it returns the milliseconds of fetch, parse + decode and
first frame, and what was drawn.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading
from pathlib import Path

from tests import _gltftools

#: the three.js release smrnb bundles (smrnb/widgets/_js) and the browser tests load GLB files with
THREE_VERSION = "0.170.0"
#: what the page takes from the npm package, by its path there -> its path on the page
_FILES = {"build/three.module.min.js": "three.module.min.js",
          "examples/jsm/loaders/GLTFLoader.js": "loaders/GLTFLoader.js",
          "examples/jsm/utils/BufferGeometryUtils.js": "utils/BufferGeometryUtils.js",
          "examples/jsm/libs/meshopt_decoder.module.js": "libs/meshopt_decoder.module.js"}


def missing() -> str | None:
    """Why the page cannot be served here (no npm ``three`` of :data:`THREE_VERSION`), or None."""
    why = _gltftools.missing("three")
    if why:
        return why.replace("three`", f"three@{THREE_VERSION}`", 1)
    pkg = _gltftools.tools_dir() / "node_modules" / "three"
    version = json.loads((pkg / "package.json").read_text()).get("version")
    if version != THREE_VERSION:
        return (f"npm package three is {version} in {pkg}, the page needs {THREE_VERSION} (`npm install --prefix "
                f"{_gltftools.tools_dir()} three@{THREE_VERSION}`)")
    absent = [f for f in _FILES if not (pkg / f).is_file()]
    return f"{pkg} lacks {', '.join(absent)}" if absent else None

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>GLB</title>
<link rel="icon" href="data:,"><style>body{margin:0;background:#fff}</style>
<script type="importmap">{"imports": {"three": "./three.module.min.js"}}</script></head>
<body><canvas id="view" width="640" height="480"></canvas>
<script type="module">
import * as THREE from 'three';
import { GLTFLoader } from './loaders/GLTFLoader.js';
import { MeshoptDecoder } from './libs/meshopt_decoder.module.js';
const canvas = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({canvas, antialias: false, preserveDrawingBuffer: true});
renderer.setClearColor(0xffffff, 1);
const loader = new GLTFLoader();
loader.setMeshoptDecoder(MeshoptDecoder);
let current = null;
window.loadGlb = async (name) => {
  const t0 = performance.now();
  const buf = await (await fetch(name, {cache: 'no-store'})).arrayBuffer();
  const t1 = performance.now();
  const gltf = await loader.parseAsync(buf, './');
  const t2 = performance.now();
  const scene = new THREE.Scene();
  scene.add(new THREE.AmbientLight(0xffffff, 3.0));
  scene.add(gltf.scene);
  const box = new THREE.Box3().setFromObject(gltf.scene);
  const size = box.getSize(new THREE.Vector3()), centre = box.getCenter(new THREE.Vector3());
  const camera = new THREE.PerspectiveCamera(50, canvas.width / canvas.height, 0.01, 1000);
  camera.position.copy(centre).add(new THREE.Vector3(0, 0, 1.2 * Math.max(size.x, size.y, size.z)));
  camera.lookAt(centre);
  renderer.render(scene, camera);
  const px = new Uint8Array(4);
  const gl = renderer.getContext();
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
  const t3 = performance.now();
  let triangles = 0, textured = false;
  const extensions = gltf.parser.json.extensionsUsed || [];
  gltf.scene.traverse((o) => { if (o.isMesh) { triangles += o.geometry.index ? o.geometry.index.count / 3 :
    o.geometry.attributes.position.count / 3; textured = textured || !!(o.material && o.material.map); } });
  if (current) { current.traverse((o) => { if (o.isMesh) { o.geometry.dispose(); if (o.material.map)
    o.material.map.dispose(); o.material.dispose(); } }); }
  current = gltf.scene;
  return {fetch_ms: t1 - t0, parse_ms: t2 - t1, frame_ms: t3 - t2, total_ms: t3 - t0, bytes: buf.byteLength,
          triangles, textured, extensions, size: [size.x, size.y, size.z]};
};
window.glbReady = true;
</script></body></html>
"""


class GlbServer:
    """Serves the page, three.js, the loaders and the files put into ``root`` (``add``) on 127.0.0.1;
    raises RuntimeError saying why when the npm package is not there (:func:`missing`)."""

    def __init__(self, root: Path) -> None:
        why = missing()
        if why:
            raise RuntimeError(why)
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "index.html").write_text(PAGE)
        pkg = _gltftools.tools_dir() / "node_modules" / "three"
        for src, dst in _FILES.items():
            (self.root / dst).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(pkg / src, self.root / dst)
        handler = functools.partial(_Quiet, directory=str(self.root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def add(self, path: Path, name: str | None = None) -> str:
        name = name or Path(path).name
        shutil.copy(path, self.root / name)
        return name

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def open_page(page, server: GlbServer) -> None:
    page.goto(server.url + "index.html")
    page.wait_for_function("window.glbReady === true", timeout=60_000)


def load(page, name: str) -> dict:
    """``window.loadGlb(name)`` in the page: timings (ms), bytes, triangles, textured, extensions, size."""
    return page.evaluate("(n) => window.loadGlb(n)", name)
