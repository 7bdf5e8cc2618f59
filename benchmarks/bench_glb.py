# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The demo's GLB for the web: size, texture PSNR, validity and load time in a real browser, side by side.

The demo pipeline runs to its textured mesh (``--device``), then the same mesh is written as:

* ``trimesh (before)``: what ``export_mesh`` wrote before (trimesh's GLB exporter: float32, 32-bit
  indices, PNG);
* ``smrnb png``: ``export_mesh(..., texture_format="png")`` (16-bit positions, lossless texture);
* ``smrnb jpeg (default)``: ``export_mesh(...)`` (16-bit positions, float32 texture coordinates);
* ``smrnb jpeg, 16-bit uvs``: ``export_mesh(..., quantize="all")``;
* ``gltfpack -cc`` of the trimesh file and of the default file (meshopt compression,
  EXT_meshopt_compression, which needs a decoder in the viewer), when gltfpack is installed.

For each: bytes, export time, the texture's PSNR against the lossless texture over the texels the mesh
shows (``texel_footprint``: those a bilinear lookup on a triangle reads), whether trimesh reads the file's
texture coordinates right (the largest difference from smrnb's reader), the Khronos validator's
errors/warnings (when installed, see tests/_gltftools.py), and the
milliseconds Chromium (three.js 0.170 GLTFLoader, WebGL on SwiftShader here) takes to fetch, parse and
decode, and draw the first frame: ``--loads`` loads of each file, in alternating order, median.

Usage::

    python benchmarks/bench_glb.py [--device cpu] [--loads 7] [--out benchmarks/RESULTS_glb.md]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _image(path: Path) -> np.ndarray:
    from PIL import Image

    data = path.read_bytes()
    n = struct.unpack_from("<I", data, 12)[0]
    gl = json.loads(data[20:20 + n])
    binary = data[20 + n + 8:]
    view = gl["bufferViews"][gl["images"][0]["bufferView"]]
    start = view.get("byteOffset", 0)
    return np.asarray(Image.open(io.BytesIO(binary[start:start + view["byteLength"]])).convert("RGB"))


def _psnr(ref: np.ndarray, img: np.ndarray, shown: np.ndarray) -> float:
    d = (ref.astype(float) - img.astype(float))[shown]
    mse = (d ** 2).mean()
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def _trimesh_uv(path: Path) -> str:
    """Whether trimesh reads the file's uvs as smrnb's reader does ("right", or the largest difference), or
    why it cannot read them."""
    import trimesh

    from smrnb.geometry._glb import read_glb

    try:
        uv = np.asarray(trimesh.load(path, force="mesh", process=False).visual.uv)
        err = float(np.abs(uv - read_glb(path.read_bytes())["uvs"]).max())
    except Exception as exc:  # e.g. meshopt-compressed buffers, which neither reader decodes
        return f"not read ({type(exc).__name__})"
    return "right" if err < 1e-6 else f"wrong (off by up to {err:.3g})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--loads", type=int, default=7)
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "RESULTS_glb.md"))
    args = ap.parse_args()

    from smrnb.geometry._io import _to_trimesh, export_mesh
    from smrnb.pipeline import Pipeline
    from tests import _gltftools
    from tests.browser import _glbpage

    tmp = Path(tempfile.mkdtemp(prefix="smrnb-bench-glb-"))
    mesh = Pipeline.default(device=args.device, output_dir=tmp).run("texture")
    rows: list[dict] = []

    def timed(name: str, fn) -> None:
        t = time.perf_counter()
        path = fn()
        rows.append({"name": name, "path": path, "export_s": time.perf_counter() - t})

    def trimesh_glb() -> Path:
        p = tmp / "trimesh.glb"
        p.write_bytes(_to_trimesh(mesh, name="mesh")[0].export(file_type="glb"))
        return p

    export_mesh(mesh, tmp / "warm.glb")  # imports and first calls out of the timings
    timed("trimesh (before)", trimesh_glb)
    timed("smrnb png", lambda: Path(export_mesh(mesh, tmp / "png.glb", texture_format="png").path))
    timed("smrnb jpeg (default)", lambda: Path(export_mesh(mesh, tmp / "jpeg.glb").path))
    timed("smrnb jpeg, 16-bit uvs", lambda: Path(export_mesh(mesh, tmp / "jpeg16.glb", quantize="all").path))
    if not _gltftools.missing("gltfpack"):
        for src, name in (("trimesh.glb", "gltfpack -cc of trimesh (before)"), ("jpeg.glb", "gltfpack -cc of smrnb jpeg")):
            dst = tmp / f"packed-{src}"
            t = time.perf_counter()
            r = _gltftools.gltfpack(tmp / src, dst, "-cc")
            if r.returncode == 0:
                rows.append({"name": name, "path": dst, "export_s": time.perf_counter() - t})
            else:
                print(f"[gltfpack failed on {src}] {r.stderr[-500:]}", flush=True)
    lossless = _image(tmp / "png.glb")
    import torch

    from smrnb.geometry import split_seams
    from smrnb.geometry._glb import texel_footprint

    _, f, uv, _ = split_seams(mesh)
    shown = texel_footprint(torch.from_numpy(uv), torch.from_numpy(f), *lossless.shape[:2]).numpy()
    validator = _gltftools.missing("gltf-validator")
    for row in rows:
        row["bytes"] = os.path.getsize(row["path"])
        row["psnr"] = _psnr(lossless, _image(row["path"]), shown)
        row["trimesh_uv"] = _trimesh_uv(Path(row["path"]))
        if validator is None:
            v = _gltftools.validate(row["path"])
            row["valid"] = f"{v.get('errors')} / {v.get('warnings')}"
            row["required"] = ", ".join(v.get("extensionsRequired", [])) or "-"
        else:
            row["valid"], row["required"] = "not run", "?"
    loads: dict[str, list[dict]] = {r["name"]: [] for r in rows}
    try:
        from playwright.sync_api import sync_playwright

        from tests.browser import _lab

        server = _glbpage.GlbServer(tmp / "site")
        names = {r["name"]: server.add(r["path"], f"f{i}.glb") for i, r in enumerate(rows)}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=_lab.CHROMIUM, args=_lab.CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 800, "height": 600})
            _glbpage.open_page(page, server)
            for r in rows:  # a first load of each: shader compilation and decoder set-up out of the timings
                _glbpage.load(page, names[r["name"]])
            for k in range(args.loads):
                order = rows if k % 2 == 0 else rows[::-1]
                for r in order:
                    loads[r["name"]].append(_glbpage.load(page, names[r["name"]]))
            browser.close()
        server.stop()
    except Exception as exc:  # no browser here: the table says so
        print(f"[browser] not measured: {type(exc).__name__}: {exc}", flush=True)

    def med(name: str, key: str) -> str:
        vals = [x[key] for x in loads[name]]
        return f"{statistics.median(vals):.0f}" if vals else "-"

    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

    lines = [f"## The demo's GLB for the web ({stamp}, {platform.node() or 'host'}, torch {torch.__version__}, "
             f"mesh baked on {args.device})", "",
             f"Command: `python benchmarks/bench_glb.py --device {args.device} --loads {args.loads}`; `uptime`: "
             f"{os.getloadavg()[0]:.1f} load on {os.cpu_count()} CPUs. Browser: Debian Chromium, WebGL on SwiftShader "
             "(CPU), three.js 0.170 GLTFLoader; times are medians of the loads, in alternating order.", "",
             "| file | bytes | vs trimesh | export (s) | texture PSNR vs lossless (dB) | trimesh uvs (max error) | "
             "validator errors / warnings | required extensions | fetch (ms) | parse + decode (ms) | first frame (ms) "
             "| total (ms) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    base = rows[0]["bytes"]
    for r in rows:
        psnr = "lossless" if r["psnr"] == float("inf") else f"{r['psnr']:.2f}"
        lines.append(f"| {r['name']} | {r['bytes']:,} | {r['bytes'] / base:.2f} | {r['export_s']:.3f} | {psnr} | "
                     f"{r['trimesh_uv']} | {r['valid']} | {r['required']} | {med(r['name'], 'fetch_ms')} | {med(r['name'], 'parse_ms')} | "
                     f"{med(r['name'], 'frame_ms')} | {med(r['name'], 'total_ms')} |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = Path(args.out)
    prev = out.read_text() if out.exists() else "# GLB export for the web\n\n"
    out.write_text(prev.rstrip("\n") + "\n\n" + text)


if __name__ == "__main__":
    main()
