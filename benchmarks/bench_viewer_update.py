# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Viewer update latency: a Python-side ``Viewer.show`` of a 100k-vertex mesh -> the repainted canvas.

JupyterLab runs on 127.0.0.1; headless Debian Chromium (SwiftShader WebGL) opens a notebook holding
one Viewer. Each update cell rebuilds nothing in the browser by hand: it calls ``viewer.show(mesh)``
on a new 100k-vertex mesh (a distinct face count each time) and records ``time.time()`` just before
the call. In the page, an init script wraps ``WebGL{,2}RenderingContext.drawElements`` and logs
``Date.now()`` with the index count of every large draw; the latency is the first draw of the new
mesh's index count minus the Python timestamp (same machine, same wall clock). A screenshot of the
canvas after each update confirms the pixels changed. Bytes per vertex: the binary buffers of the
scene (``Viewer.nbytes``) and the websocket bytes the page received during the update.

    python benchmarks/bench_viewer_update.py [--updates 5] [--out benchmarks/RESULTS_widgets.md]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser import _lab  # noqa: E402

SETUP = '''
import time, json
import numpy as np
import torch
from smrnb.geometry import Mesh
from smrnb.widgets import Viewer

N = 317  # 317 x 317 = 100,489 vertices

def wavy(k):
    """A 100k-vertex height field; update k drops k faces so its index count is unique."""
    x, y = np.meshgrid(np.linspace(-1, 1, N), np.linspace(-1, 1, N))
    z = 0.15 * np.sin(4 * x + k) * np.cos(3 * y - k)
    v = np.stack([x, z, y], -1).reshape(-1, 3).astype(np.float32)
    i = np.arange(N * N).reshape(N, N)
    a, b, c, d = i[:-1, :-1].ravel(), i[:-1, 1:].ravel(), i[1:, :-1].ravel(), i[1:, 1:].ravel()
    f = np.concatenate([np.stack([a, c, b], 1), np.stack([b, c, d], 1)])[k:]
    col = np.stack([(x + 1) / 2, (z + 0.15) / 0.3, (y + 1) / 2], -1).reshape(-1, 3).astype(np.float32)
    return Mesh(torch.from_numpy(v), torch.from_numpy(f), vertex_colors=torch.from_numpy(col))

viewer = Viewer(wavy(0), width=640, height=400)
log = []
viewer
'''

UPDATE = '''
k = len(log) + 1
m = wavy(k)
t0 = time.time()
viewer.show(m)
t1 = time.time()
log.append({"k": k, "t0": t0, "t1": t1, "faces": int(m.num_faces), "vertices": int(m.num_vertices),
            "nbytes": viewer.nbytes})
print(json.dumps(log[-1]))
'''

HOOK = '''
window.__draws = [];
for (const C of [window.WebGLRenderingContext, window.WebGL2RenderingContext]) {
  if (!C) continue;
  const orig = C.prototype.drawElements;
  C.prototype.drawElements = function (mode, count, type, offset) {
    if (count > 100000) window.__draws.push({t: Date.now(), count: count});
    return orig.apply(this, arguments);
  };
}
'''


def notebook(cells: list[str]) -> dict:
    return {"cells": [{"cell_type": "code", "metadata": {}, "source": c.strip("\n"), "outputs": [],
                       "execution_count": None, "id": f"c{i}"} for i, c in enumerate(cells)],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def run(updates: int) -> dict:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="smrnb-bench-"))
    server = _lab.start_server("lab", work)
    (server.root / "bench.ipynb").write_text(json.dumps(notebook([SETUP, UPDATE])))
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_lab.CHROMIUM, args=_lab.CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.add_init_script(HOOK)
            ws_bytes: list[tuple[float, int]] = []
            page.on("websocket", lambda ws: ws.on(
                "framereceived", lambda payload: ws_bytes.append((time.time(), len(payload)))))
            _lab.open_notebook(page, server, "bench.ipynb")
            cells = page.locator(".jp-Notebook .jp-CodeCell")
            cells.nth(0).click(position={"x": 2, "y": 2})
            page.keyboard.press("Escape")
            page.keyboard.press("Shift+Enter")  # setup cell, selection moves to the update cell
            page.wait_for_function("() => window.__draws.length > 0", timeout=240_000)
            canvas = page.locator(".smrnb-viewer canvas").first
            for i in range(1, updates + 1):
                before = _lab.canvas_image(canvas)
                n_ws = len(ws_bytes)
                cells.nth(1).click(position={"x": 2, "y": 2})
                page.keyboard.press("Escape")
                page.keyboard.press("Control+Enter")
                page.wait_for_function(
                    "(i) => document.querySelectorAll('.jp-CodeCell')[1].innerText.includes('\"k\": ' + i + ',')",
                    arg=i, timeout=120_000)
                rec = json.loads([ln for ln in cells.nth(1).locator(".jp-OutputArea").inner_text().splitlines()
                                  if ln.startswith("{")][-1])
                count = rec["faces"] * 3
                page.wait_for_function(f"() => window.__draws.some(d => d.count === {count})", timeout=60_000)
                t_draw = page.evaluate(f"() => window.__draws.find(d => d.count === {count}).t") / 1000.0
                after = _lab.wait_repaint(canvas, before, timeout_s=30, min_changed=0.001)
                if i == updates:
                    _lab.save_artifact("bench-viewer-update.png", after)
                time.sleep(0.5)
                sent = sum(b for t, b in ws_bytes[n_ws:])
                rows.append({**rec, "latency_s": t_draw - rec["t0"], "python_s": rec["t1"] - rec["t0"],
                             "ws_bytes": sent})
                print(f"update {i}: {rows[-1]['latency_s']:.3f} s to the draw (python side "
                      f"{rows[-1]['python_s']:.3f} s), {sent / rec['vertices']:.1f} websocket bytes/vertex",
                      flush=True)
            browser.close()
    finally:
        server.stop()
    return {"rows": rows}


def report(res: dict, out: Path, command: str) -> str:
    rows = res["rows"]
    lat = [r["latency_s"] for r in rows]
    v = rows[0]["vertices"]
    lines = [
        "# Widgets benchmarks",
        "",
        "## Viewer update: Python `Viewer.show` of a 100k-vertex mesh -> repainted canvas",
        "",
        f"Command: `{command}`  ",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}; headless Debian Chromium with SwiftShader "
        "WebGL (software rendering), JupyterLab on 127.0.0.1; 2 shared CPU cores (other work running).",
        "",
        "Latency = first WebGL `drawElements` with the new mesh's index count (in-page hook, `Date.now()`) "
        "minus `time.time()` just before `viewer.show(mesh)` in the kernel. Mesh: "
        f"{v:,} vertices, ~{rows[0]['faces']:,} faces, vertex colors; normals computed in Python.",
        "",
        "| update | latency (s) | Python side (s) | websocket bytes | bytes / vertex (websocket) |"
        " scene buffers bytes / vertex |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['k']} | {r['latency_s']:.3f} | {r['python_s']:.3f} | {r['ws_bytes']:,} | "
                     f"{r['ws_bytes'] / r['vertices']:.1f} | {r['nbytes'] / r['vertices']:.1f} |")
    lines += ["", f"Median latency {statistics.median(lat):.3f} s (min {min(lat):.3f}, max {max(lat):.3f}); "
              f"target <= 0.5 s: {'met' if statistics.median(lat) <= 0.5 else 'NOT met'} (median).", "",
              "Scene buffers per vertex: position 12 (float32) + normal 3 (normalized int8) + color 3 "
              "(normalized uint8) + index 3 x 4 x F/V (uint32, F/V ~ 2) = ~42 bytes; every array travels "
              "as a binary websocket buffer.", ""]
    text = "\n".join(lines)
    out.write_text(text)
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--updates", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "RESULTS_widgets.md")
    args = ap.parse_args()
    res = run(args.updates)
    print(report(res, args.out, "python benchmarks/bench_viewer_update.py " + " ".join(sys.argv[1:])))


if __name__ == "__main__":
    main()
