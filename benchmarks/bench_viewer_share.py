# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The viewer's share of each step's waited time in the default app (kernel side).

Builds the default :class:`smrnb.widgets.ReconstructionApp` (the demo chain on the bundled sample),
runs every step once with ``app.run()`` and reads each step's record: ``seconds`` (the step) and
``view_seconds`` (the widget turning the result into viewer layers and three.js buffers and sending
them). Share = view / (step + view). The browser paints asynchronously after the kernel has sent the
buffers (see bench_viewer_update.py for that latency), so this is the time the kernel is blocked by
the viewer. Also times ``Viewer.save_html`` and the voxel cubes of a 200k-voxel grid.

    python benchmarks/bench_viewer_share.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    import torch

    from smrnb.geometry.voxels import VoxelGrid
    from smrnb.widgets import ReconstructionApp, Viewer

    with tempfile.TemporaryDirectory() as tmp:
        app = ReconstructionApp(output_dir=tmp)
        t0 = time.perf_counter()
        ok = app.run()
        total = time.perf_counter() - t0
        print(f"app.run() ok={ok} in {total:.2f} s")
        print("| step | step s | view s | viewer share |")
        print("|---|---:|---:|---:|")
        worst = 0.0
        for r in app.pipeline.records:
            view = r.view_seconds or 0.0
            share = view / (r.seconds + view) if r.seconds + view > 0 else 0.0
            worst = max(worst, share)
            print(f"| {r.step} | {r.seconds:.3f} | {view:.3f} | {share:.1%} |")
        print(f"worst share {worst:.1%} (bar <= 10 %)")
        mesh = app.latest_mesh()
        v = Viewer(mesh)
        t0 = time.perf_counter()
        out = v.save_html(Path(tmp) / "scene.html")
        print(f"save_html of the final mesh ({mesh.num_vertices:,} vertices): {time.perf_counter() - t0:.3f} s, "
              f"{out.stat().st_size / 1e6:.1f} MB")
    occ = torch.zeros(128, 128, 128, dtype=torch.bool)
    g = torch.Generator().manual_seed(0)
    occ[torch.rand(128, 128, 128, generator=g) < 200_000 / 128 ** 3] = True
    grid = VoxelGrid(occ, torch.zeros(3), 0.01)
    for mode in ("points", "cubes"):
        t0 = time.perf_counter()
        Viewer(grid, voxel_mode=mode)
        print(f"Viewer(grid of {int(occ.sum()):,} scattered voxels, voxel_mode={mode!r}): {time.perf_counter() - t0:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
